"""The debug build's side of `rata mcp dev`'s window tools: a JSON-lines service on the dev endpoint.

`rata dev` runs the app with its windows, the page script (page.js) in every document, and
this bridge behind the ``RATA-DEV/1`` endpoint (`rata.endpoint.DEV`: a 0600 socket in the
app's folder, challenge-response on the install token). `rata mcp dev` connects to it and
sends one request a line; each gets one answer a line::

    -> {"id": 1, "method": "snapshot", "params": {"window": "main"}}
    <- {"id": 1, "result": {...}}                 or  {"id": 1, "error": {"message": ..., "hint": ...}}

Methods: ``windows``, ``snapshot {window, from_line?, max_lines?, root?}``, ``act {window,
action, ref?, text?, key?, values?, url?, submit?, max_lines?}``, ``screenshot {window}``,
``calls {window?, limit?, before?}``. A snapshot holds lines ``from_line + 1`` to ``max_lines``
of the page's rendering (the client asks for no more than it can show), with ``total_lines``
(those past ``max_lines`` estimated) and ``truncated_lines`` (how many of them it left out).

The bridge owns what the page cannot know: the ref numbering of each window (so a ref is
never reused, even across reloads), and when a page has settled after an action (no command
or live query in flight, no fetch pending, and a quiet DOM, for up to two seconds). Nothing it
sees (snapshots, pictures) is written to disk or to the log.
"""

from __future__ import annotations

import base64
import json
import struct
import threading
import time
from typing import Any

from rata.endpoint import Connection
from rata.errors import RataError, WindowError
from rata.logs import LazyLogger
from rata.windows.calls import CALL_LOG_SIZE

log = LazyLogger("rata.debug_build")

MAX_LINES = 1000
"""The lines of a snapshot when the client does not say (`rata mcp dev` asks for what fits its budget)."""
MAX_LINES_ASKED = 100_000
MAX_TEXT = 200
SETTLE_TIMEOUT = 2.0
SETTLE_MIN = 0.1
QUIET_MS = 350  # a page update that a timer makes 300 ms after a click still counts as part of it
POLL = 0.05
SCREENSHOT_MAX_WIDTH = 1280
ACTIONS = ("click", "type", "press", "select", "navigate")
SETTLE_STATE = "window.__rata_dev ? [window.__rata_dev.settleState(), window.rata && window.rata._inflight || 0] : null"
"""The page's settle state and its commands still awaited, in one round trip to the page."""


class BridgeError(RataError):
    """A request the bridge cannot serve: unknown window, stale ref, bad arguments (shown to the agent)."""


class DevBridge:
    """Serves the dev endpoint's clients from a `WindowHost`."""

    def __init__(self, host: Any, *, settle_timeout: float = SETTLE_TIMEOUT) -> None:
        self.host = host
        self.settle_timeout = settle_timeout
        self._next_ref: dict[str, int] = {}
        self._lock = threading.Lock()

    # --- the connection ---

    def serve(self, connection: Connection) -> None:
        """Answer `connection`'s requests in order until it closes."""
        for line in connection.rfile:
            if not line.strip():
                continue
            connection.send(self.handle_line(line))

    def handle_line(self, line: bytes) -> bytes:
        request_id: Any = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                raise BridgeError("A request is an object with a method name.")
            request_id = request.get("id")
            params = request.get("params") or {}
            if not isinstance(params, dict):
                raise BridgeError("A request's params are an object.")
            handler = getattr(self, "do_" + request["method"], None)
            if handler is None:
                raise BridgeError(f"The dev bridge has no method {request['method']!r}.")
            answer: dict[str, Any] = {"id": request_id, "result": handler(**params)}
        except (RataError, TypeError, ValueError) as error:
            message = error.message if isinstance(error, RataError) else f"Bad request: {error}"
            answer = {"id": request_id, "error": {"message": message, "hint": getattr(error, "hint", None)}}
        except Exception as error:  # noqa: BLE001 - one bad request must not end the connection
            log.exception("the dev bridge failed on a request")
            answer = {"id": request_id, "error": {"message": f"The dev bridge failed: {error}", "hint": None}}
        return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    # --- methods ---

    def do_windows(self) -> list[dict[str, Any]]:
        return self.host.windows()

    def do_snapshot(self, window: str = "main", from_line: int = 0, max_lines: int = MAX_LINES, root: str | None = None) -> dict[str, Any]:
        return self._snapshot(self._window(window), window, from_line=from_line, max_lines=max_lines, root=root)

    def do_act(
        self,
        window: str = "main",
        action: str = "click",
        ref: str | None = None,
        text: str | None = None,
        key: str | None = None,
        values: list[str] | None = None,
        url: str | None = None,
        submit: bool = False,
        max_lines: int = MAX_LINES,
    ) -> dict[str, Any]:
        target = self._window(window)
        if action not in ACTIONS:
            raise BridgeError(f"Unknown action {action!r}.", hint=f"Use one of: {', '.join(ACTIONS)}.")
        if action in ("click", "type", "select") and not ref:
            raise BridgeError(f"{action} needs a ref from the latest snapshot (like e12).")
        if action == "type" and text is None:
            raise BridgeError("type needs text.")
        if action == "press" and not key:
            raise BridgeError("press needs a key, like Enter, Tab, Escape or a letter.")
        if action == "navigate" and not url:
            raise BridgeError("navigate needs a url within the app, like /customers or #/new.")
        if action == "select" and values is None:
            values = [text] if text is not None else None
            if values is None:
                raise BridgeError("select needs values (or text): the options' values or labels.")
        before = self._last_seq()
        request = {"kind": action, "ref": ref, "text": text, "key": key, "values": values, "url": url, "submit": submit}
        started = time.perf_counter()
        outcome = target.eval_json(f"window.__rata_dev.act({json.dumps(request)})")
        if not isinstance(outcome, dict):
            raise WindowError(f"The page script did not answer the action in window {window!r}; is this a `rata dev` build?")
        if not outcome.get("ok"):
            raise BridgeError(str(outcome.get("error") or f"{action} failed."), hint=_hint(str(outcome.get("error", ""))))
        settled = self._settle(target, window, started)
        calls = [_call_line(record) for record in self.host.calls if record.seq > before and record.window == window]
        return {
            "did": outcome.get("did") or f"{action} {outcome.get('target') or ref or ''}".strip(),
            "warning": outcome.get("warning"),
            "dialogs": outcome.get("dialogs") or [],
            "waited_ms": settled[0],
            "timed_out": settled[1],
            "calls": calls,
            "snapshot": self._snapshot(target, window, max_lines=max_lines),
        }

    def do_screenshot(self, window: str = "main") -> dict[str, Any]:
        png = self._window(window).capture_png(max_width=SCREENSHOT_MAX_WIDTH)
        width, height = png_size(png)
        return {"window": window, "width": width, "height": height, "png": base64.b64encode(png).decode("ascii")}

    def do_calls(self, window: str | None = None, limit: int = 20, before: int | None = None) -> list[dict[str, Any]]:
        if window is not None:
            self._window(window)
        limit = max(1, min(_whole(limit, "limit"), CALL_LOG_SIZE))
        below = None if before is None else _whole(before, "before")
        records = [r for r in self.host.calls if (window is None or r.window == window) and (below is None or r.seq < below)]
        return [
            {
                "seq": r.seq,
                "window": r.window,
                "command": r.command,
                "kind": r.kind,
                "args": r.args,
                "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(r.started)),
                "ms": r.duration_ms,
                "ok": r.ok,
                "error": r.error,
            }
            for r in records[-limit:]
        ]

    # --- helpers ---

    def _window(self, label: str) -> Any:
        try:
            return self.host.window(label)
        except WindowError as error:
            raise BridgeError(error.message, hint=error.hint) from None

    def _snapshot(self, window: Any, label: str, from_line: int = 0, max_lines: int = MAX_LINES, root: str | None = None) -> dict[str, Any]:
        from_line, max_lines = _whole(from_line, "from_line"), _whole(max_lines, "max_lines")
        if not 0 <= from_line <= MAX_LINES_ASKED * 100 or not 1 <= max_lines <= MAX_LINES_ASKED:
            raise BridgeError(f"from_line {from_line} or max_lines {max_lines} is out of range.", hint=f"from_line from 0, max_lines 1 to {MAX_LINES_ASKED:,}.")
        if root is not None and not isinstance(root, str):
            raise BridgeError("root is a ref, like e12.")
        with self._lock:
            base = self._next_ref.get(label, 1)
        options = {"maxLines": from_line + max_lines, "maxText": MAX_TEXT, "refBase": base, "fromLine": from_line, "moreLine": False, "root": root}
        snap = window.eval_json(f"window.__rata_dev.snapshot({json.dumps(options)})")
        if not isinstance(snap, dict):
            raise WindowError(f"The page script is not in window {label!r}; is this a `rata dev` build?")
        if snap.get("ok") is False:
            raise BridgeError(str(snap.get("error") or "The page could not take that snapshot."))
        with self._lock:
            self._next_ref[label] = max(self._next_ref.get(label, 1), int(snap.get("nextRef") or base))
        info = window.info()
        return {
            "window": label,
            "title": snap.get("title") or info["title"],
            "route": info["route"],
            "text": snap.get("text", ""),
            "lines": snap.get("lines", 0),
            "from_line": snap.get("fromLine", 0),
            "total_lines": snap.get("totalLines", 0),
            "truncated_lines": snap.get("truncatedLines", 0),
            "showing": snap.get("showing") or [],
            "viewport": snap.get("viewport") or {},
        }

    def _settle(self, window: Any, label: str, started: float) -> tuple[int, bool]:
        """Wait until the page is settled (or the timeout): returns (ms waited, timed out)."""
        acted = time.perf_counter()  # quiet counts from the action too: typing changes no DOM, but a debounced search follows
        time.sleep(SETTLE_MIN)
        deadline = started + self.settle_timeout
        while True:
            try:
                state, pending = window.eval_json(SETTLE_STATE) or (None, 1)
            except WindowError:
                state, pending = None, 1  # between documents after a navigation: not settled yet
            settled = (
                isinstance(state, dict)
                and state.get("readyState") == "complete"
                and not state.get("pendingFetch")
                and min(state.get("msSinceMutation", 0), (time.perf_counter() - acted) * 1000) >= QUIET_MS
                and not pending
                and self.host.in_flight(label) == 0
            )
            waited = int((time.perf_counter() - started) * 1000)
            if settled:
                return waited, False
            if time.perf_counter() >= deadline:
                return waited, True
            time.sleep(POLL)

    def _last_seq(self) -> int:
        calls = list(self.host.calls)
        return calls[-1].seq if calls else 0


def _whole(value: Any, name: str) -> int:
    """`value` as a whole number, or `BridgeError` naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BridgeError(f"{name} is a whole number, not {value!r}.")
    return value


def _call_line(record: Any) -> str:
    """``customers_store 12 ms ok`` or ``customers_store 3 ms error: <message>``."""
    outcome = "ok" if record.ok else f"error: {record.error}"
    kind = " (live)" if record.kind == "live" else ""
    return f"{record.command}{kind} {record.duration_ms:.0f} ms {outcome}"


def _hint(error: str) -> str | None:
    if "snapshot" in error:
        return None  # the page's message already says to take a new snapshot
    if "covered" in error or "disabled" in error:
        return "Take a new snapshot to see what the page shows now."
    return None


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise WindowError("The window's picture is not a PNG.")
    width, height = struct.unpack(">II", png[16:24])
    return width, height
