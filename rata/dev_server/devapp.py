"""The dev server's own app and how a dev tool reaches the project it reads (below `tools` and `windows`, which both use it)."""

from __future__ import annotations

from typing import cast

from rata import __version__
from rata.app import App
from rata.context import Ctx
from rata.dev_server.docs_index import DocsIndex
from rata.dev_server.target import Target


class DevApp(App):
    """The dev server's own app (`dev_app`): an `App` that also holds the project it reads, the server's token
    budget (`rata.dev_server.budget`) and its docs indexes, one per set of docs folders."""

    def __init__(self, target: Target, budget_tokens: int) -> None:
        super().__init__("rata-dev", identifier="dev.rata.mcp", version=__version__, description="rata's dev server for coding agents")
        self.target = target
        self.budget_tokens = budget_tokens
        self.docs_indexes: dict[tuple[tuple[str, str], ...], DocsIndex] = {}


def dev_app_of(ctx: Ctx) -> DevApp:
    """The app of a dev tool's call: always the dev server's, which `dev_app` made."""
    return cast(DevApp, ctx.app)


def target(ctx: Ctx) -> Target:
    return dev_app_of(ctx).target
