"""Fixtures for the page-script tests: fixture pages in the session's headless Chromium.

Each test gets a window of the browser backend showing ``tests/debug_build/pages/`` with
``page.js`` installed at document start, as `rata dev` installs it, and a `Page` helper
that keeps the ref counter the way the host does (``refBase`` = the largest ``nextRef``
seen in this window).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rata.debug_build import page_script
from rata.windows.adapter import WindowSpec
from rata.windows.chromium import ChromiumBackend, ChromiumWindow
from rata.windows.frontend import Frontend
from tests.windows.shared import shared_browser

PAGES = Path(__file__).parent / "pages"
GOLDEN = Path(__file__).parent / "golden"
_labels = itertools.count(1)


class Page:
    """One window on a fixture page, driven through ``window.__rata_dev``."""

    def __init__(self, window: ChromiumWindow) -> None:
        self.window = window
        self.next_ref = 1
        self.last: dict[str, Any] = {}

    def open(self, path: str) -> Page:
        self.window.navigate(path)
        return self

    def snapshot(self, **options: Any) -> dict[str, Any]:
        options.setdefault("refBase", self.next_ref)
        result = self.window.eval_json(f"window.__rata_dev.snapshot({json.dumps(options)})")
        if result.get("ok"):
            self.next_ref = max(self.next_ref, result["nextRef"])
            self.last = result
        return result

    def text(self, **options: Any) -> str:
        return self.snapshot(**options)["text"]

    def act(self, **request: Any) -> dict[str, Any]:
        return self.window.eval_json(f"window.__rata_dev.act({json.dumps(request)})")

    def js(self, expression: str) -> Any:
        return self.window.eval_json(expression)

    def ref(self, role: str, name: str | None = None) -> str:
        """The ref of the first line with this role (and name) in the last snapshot."""
        pattern = rf"- {re.escape(role)}" + (rf' "{re.escape(name)}"' if name is not None else "") + r"(?=[ :\n])[^\n]*?\[ref=(e\d+)\]"
        found = re.search(pattern, self.last["text"])
        assert found, f"no {role} {name!r} with a ref in:\n{self.last['text']}"
        return found.group(1)


@pytest.fixture(scope="session")
def fixture_backend() -> Iterator[ChromiumBackend]:
    backend = ChromiumBackend("fixtures", browser=shared_browser())
    yield backend
    backend.stop()


@pytest.fixture
def page(fixture_backend: ChromiumBackend) -> Iterator[Page]:
    spec = WindowSpec(f"w{next(_labels)}", "Fixture", 1024, 720, "/blank.html")
    window = fixture_backend.open(spec, Frontend(PAGES), scripts=[page_script()])
    yield Page(window)
    window.close()


def assert_golden(name: str, text: str) -> None:
    """`text` must equal ``golden/<name>.txt`` exactly; ``RATA_UPDATE_GOLDEN=1`` rewrites the file instead."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("RATA_UPDATE_GOLDEN") == "1":
        path.write_text(text + "\n", encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing; write it with RATA_UPDATE_GOLDEN=1 and review it"
    assert text + "\n" == path.read_text(encoding="utf-8")
