"""The window tools of `rata mcp dev`: eyes and hands in the running debug build's windows.

The debug build (`rata dev`) serves its windows on the dev endpoint (``RATA-DEV/1``, a 0600
socket in the app's folder, challenge-response on the install token; see rata.debug_build.bridge).
Each tool connects, asks, and shows the answer. Without a running debug build every tool
answers, as a tool result, that none is running and how to start one; the other dev tools
work as before. A tool whose answer reads better as text or a picture than as JSON says so
where it is declared (``@command(present=...)``).

The agent acts as the developer would, in their dev build, with their data: a click on
"Delete" deletes. Snapshots and pictures go to the agent and nowhere else (not to disk, not
to the log).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypedDict

from rata.command_spec import command
from rata.context import Ctx
from rata.dev_server import budget
from rata.dev_server.calls_answer import CallList, call_row, calls_text, fit_calls
from rata.dev_server.snapshot_answer import MAX_FROM_LINE, lines_to_ask, snapshot_text
from rata.errors import RataError
from rata.typemodel import Field
from rata.windows.adapter import WindowInfo
from rata.windows.calls import CALL_LOG_SIZE

ABILITY = "dev.windows"
ACT_ABILITY = "dev.act"
AS_THE_DEVELOPER = "You act as the developer would, in their running dev build and with their data: a click on Delete really deletes."
Action = Literal["click", "type", "press", "select", "navigate"]


class NoDebugBuild(RataError):
    """No `rata dev` is running for this app."""


class DevBridgeError(RataError):
    """The debug build answered with an error (unknown window, stale ref, covered element...)."""


def _bridge(ctx: Ctx, method: str, **params: Any) -> Any:
    from rata.dev_server.devapp import target
    from rata.endpoint import DEV, connect  # on first use: sockets and hmac are not needed to start

    app = target(ctx).app()
    connection = connect(app.folder, DEV)
    if connection is None:
        raise NoDebugBuild(
            f"No debug build of {app.name} is running, so there are no windows to see.",
            hint=(
                "Ask the developer to start one: `rata dev` in the project's directory (`rata dev --headless` without a screen). "
                "The other dev tools work without it."
            ),
        )
    try:
        connection.send(json.dumps({"id": 1, "method": method, "params": {k: v for k, v in params.items() if v is not None}}).encode() + b"\n")
        line = connection.rfile.readline()
    finally:
        connection.close()
    if not line:
        raise DevBridgeError("The debug build closed the connection without answering (did it stop?).")
    answer = json.loads(line)
    if "error" in answer:
        error = answer["error"]
        raise DevBridgeError(error.get("message") or "The debug build could not do that.", hint=error.get("hint"))
    return answer["result"]


def present_text(value: Any) -> dict[str, Any]:
    """The result as one text block (a snapshot reads better as text than as a JSON string)."""
    return {"content": [{"type": "text", "text": value}]}


def present_screenshot(value: Any) -> dict[str, Any]:
    """The picture as an image block, with its size as a caption."""
    caption = f"window {value['window']}: {value['width']}x{value['height']} px"
    return {"content": [{"type": "image", "data": value["png"], "mimeType": "image/png"}, {"type": "text", "text": caption}]}


def windows_text(windows: list[WindowInfo]) -> str:
    """One line a window: ``main "CRM" route / 1024x720 shown``."""
    if not windows:
        return "The debug build has no windows open."
    return "\n".join(
        f"{w['label']} {json.dumps(w['title'], ensure_ascii=False)} route {w['route']} {w['width']}x{w['height']} {'shown' if w['shown'] else 'hidden'}"
        for w in windows
    )


@command(can=ABILITY, read_only=True, text=windows_text)
def app_windows(ctx: Ctx) -> list[WindowInfo]:
    """The windows of the developer's running debug build (`rata dev`), with their data: label, title, route, size, shown or hidden."""
    return [WindowInfo(**row) for row in _bridge(ctx, "windows")]


FromLine = Annotated[int, Field(ge=1, le=MAX_FROM_LINE)]


@command(can=ABILITY, read_only=True, present=present_text)
def window_snapshot(
    ctx: Ctx, window: str = "main", from_line: FromLine = 1, root: str | None = None, budget_tokens: budget.BudgetTokens | None = None
) -> str:
    """A window of the developer's running debug build, with their data, as they see it: its route, then its
    accessibility tree (roles, names, states, [ref=eN] on what can be acted on), then the live queries it shows.

    Refs from this snapshot are what window_act takes. A long page is cut at a line to fit the budget; the
    answer ends with the call that shows the next lines (from_line), or narrow it to one element (root).

    Args:
        window: The window's label, from app_windows.
        from_line: The snapshot's line to start at (the cut answer's note names it), 1 for the top.
        root: Only this element's subtree: a ref from the latest snapshot, like e12.
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    limit = budget.budget_of(ctx, budget_tokens)
    snap = _bridge(ctx, "snapshot", window=window, from_line=from_line - 1, max_lines=lines_to_ask(limit), root=root)
    return snapshot_text(snap, limit, {"window": window, "root": root, "budget_tokens": budget_tokens})


@command(can=ACT_ABILITY, present=present_text)
def window_act(
    ctx: Ctx,
    action: Action,
    window: str = "main",
    ref: str | None = None,
    text: str | None = None,
    key: str | None = None,
    url: str | None = None,
    budget_tokens: budget.BudgetTokens | None = None,
) -> str:
    """Act in a window of the running debug build (click, type, press a key, select an option, navigate), wait for
    the page to settle, then say what ran and show the new snapshot.

    You act as the developer would, in their running dev build and with their data: a click on Delete really deletes.

    Args:
        action: click (ref), type (ref and text; replaces the field's value), press (key, to the focused element:
            Enter, Tab, Escape, Space, a letter), select (ref and text: an option's value or label), navigate (url within the app).
        window: The window's label, from app_windows.
        ref: An element's ref from the latest window_snapshot, like e12.
        text: What to type, or the option to select.
        key: The key to press.
        url: Where to go, within the app (like /customers).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    limit = budget.budget_of(ctx, budget_tokens)
    result = _bridge(ctx, "act", window=window, action=action, ref=ref, text=text, key=key, url=url, max_lines=lines_to_ask(limit))
    lines = [f"Did: {result['did']}"]
    if result.get("warning"):
        lines.append(f"Warning: {result['warning']}")
    lines += [f"Dialog ({d.get('kind')}): {d.get('message')!r}, answered {d.get('answer')!r}" for d in result.get("dialogs") or []]
    ran = ", ".join(result.get("calls") or []) or "no commands"
    settled = f"did not settle within {result['waited_ms']} ms" if result.get("timed_out") else f"settled after {result['waited_ms']} ms"
    lines.append(f"Ran: {ran}; the page {settled}.")
    return snapshot_text(result["snapshot"], limit, {"window": window, "budget_tokens": budget_tokens}, intro="\n".join(lines))


class Screenshot(TypedDict):
    """A window's picture: PNG, at most 1280 pixels wide."""

    window: str
    width: int
    height: int
    png: str


@command(can=ABILITY, read_only=True, present=present_screenshot)
def window_screenshot(ctx: Ctx, window: str = "main") -> Screenshot:
    """A picture of a window of the developer's running debug build as rendered (PNG, at most 1280 CSS pixels wide),
    to see layout and styling that a snapshot cannot show.

    Args:
        window: The window's label, from app_windows.
    """
    return Screenshot(**_bridge(ctx, "screenshot", window=window))


@command(can=ABILITY, read_only=True, text=calls_text)
def app_calls(
    ctx: Ctx,
    window: str | None = None,
    limit: Annotated[int, Field(ge=1, le=CALL_LOG_SIZE)] = 20,
    before: Annotated[int, Field(ge=1)] | None = None,
    budget_tokens: budget.BudgetTokens | None = None,
) -> CallList:
    """The commands the windows of the developer's running debug build called recently, newest last: command, window, duration, ok or the error.

    Args:
        window: Only this window's calls (default: every window).
        limit: How many of the latest calls.
        before: Only calls older than this one (a call's seq: the answer's next_before, to get the older ones).
        budget_tokens: Roughly how many tokens the answer may use (1,000 to 25,000; default: the server's budget, 10,000 unless `rata mcp dev
            --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names.
    """
    tokens = budget.budget_of(ctx, budget_tokens)
    rows = [call_row(row) for row in _bridge(ctx, "calls", window=window, limit=min(limit + 1, CALL_LOG_SIZE), before=before)]
    older = len(rows) > limit
    arguments = {"window": window, "limit": limit, "budget_tokens": budget_tokens}
    return fit_calls(rows[-limit:], older, tokens, arguments)
