"""`WindowHost`: the app's side of its windows.

A backend draws windows; the host makes them a rata app's windows. It injects the frontend
runtime (``runtime.js``, which documents the message protocol) at the start of every
document, and answers what the page sends through ``window.__rata_post``:

- ``invoke``: ``app.dispatch(CommandRequest(command, args, origin=Origin.frontend(label)))``
  on a worker thread, then a reply: the JSON result, or an error the page can show
  (validation errors by field; forbidden and unknown commands with their hint; anything else
  by its message, with the traceback in the ``rata.windows`` log).
- ``live``: the same call now, and again each time the app's live registry reports written
  tables the query may have read. Re-runs of one query never pile up: a write that lands
  while it runs makes it run once more afterwards.
- ``on``: an app channel (``rata:mcp`` included) forwarded to the page.

A page's subscriptions belong to its document: a new document in the window (a reload, a
navigation) or the window closing drops them. Messages are read on the backend's thread and
never wait there: commands run on a small pool of workers (so a slow command never holds up
another window), and each window's outgoing messages go out in order on its own thread.

For the dev tools the host also keeps `calls`, the last 200 command calls (see
`rata.windows.calls`: arguments with secret-looking names left out and long values cut), and a
count of commands in flight per window (`in_flight`), which the settle check waits on.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rata._record import Record
from rata.dispatch import CommandRequest, Origin
from rata.errors import ForbiddenError, RataError, UnknownCommandError, WindowError
from rata.validation import ValidationErrors
from rata.windows.adapter import Backend, Window, WindowInfo, WindowSpec
from rata.windows.calls import CALL_LOG_SIZE, CallRecord, redact_args
from rata.windows.frontend import Frontend

log = logging.getLogger("rata.windows")

RUNTIME_PATH = Path(__file__).with_name("runtime.js")
_LABEL_SLOT = '/*RATA_WINDOW*/"main"'
DEFAULT_WORKERS = 8
_runtime_text: list[str] = []


def runtime_source(label: str) -> str:
    """The frontend runtime for the window `label` (ASCII, ready for any backend's document-start hook)."""
    if not _runtime_text:
        _runtime_text.append(RUNTIME_PATH.read_text(encoding="ascii"))
    return _runtime_text[0].replace(_LABEL_SLOT, "/*RATA_WINDOW*/" + json.dumps(label), 1)


def error_reply(command: str, error: BaseException) -> dict[str, Any]:
    """The ``error`` object the page gets for a failed call (see runtime.js for the codes)."""
    if isinstance(error, ValidationErrors):
        return {"code": "validation", "message": f"Invalid arguments for {command}: {error}", "fields": error.to_dict()}
    if isinstance(error, RataError):
        code = "forbidden" if isinstance(error, ForbiddenError) else "unknown_command" if isinstance(error, UnknownCommandError) else "error"
        reply: dict[str, Any] = {"code": code, "message": error.message}
        if error.hint:
            reply["hint"] = error.hint
        return reply
    return {"code": "internal", "message": f"{command} failed: {str(error).strip() or type(error).__name__}"}


def _jsonable(value: Any) -> Any:
    """For channel payloads that are not plain JSON: records and dataclasses as objects, the rest as text."""
    if isinstance(value, Record):
        return {name: getattr(value, name) for name in value.__slots__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
    return str(value)


def _encode(message: dict[str, Any]) -> str:
    # ASCII: the text is pasted into a JS call on some backends, and GTK's cuts at non-ASCII
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=_jsonable)


class _Live:
    """One live query of one document."""

    __slots__ = ("page", "doc", "id", "command", "args", "running", "again", "dropped")

    def __init__(self, page: _Page, doc: str, id: int, command: str, args: dict[str, Any]) -> None:
        self.page, self.doc, self.id, self.command, self.args = page, doc, id, command, args
        self.running = self.again = self.dropped = False


class _Page:
    """A window and what its current document subscribed to."""

    def __init__(self, label: str, window: Window, forget: Callable[[_Page], None]) -> None:
        self.label = label
        self.window = window
        self.forget = forget
        self.lock = threading.Lock()
        self.doc: str | None = None
        self.gone: deque[str] = deque(maxlen=32)  # documents replaced: their late messages are ignored
        self.lives: dict[int, _Live] = {}
        self.channels: dict[int, Callable[[], None]] = {}
        self.reloaded = False
        self.closed = False
        self.in_flight = 0
        self.outbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.sender = threading.Thread(target=self._send_all, name=f"rata-window-{label}", daemon=True)
        self.sender.start()

    def _send_all(self) -> None:
        while True:
            text = self.outbox.get()
            if text is None or self.closed:
                return
            try:
                self.window.post(text)
            except WindowError as error:
                log.info("window %s did not take a message: %s", self.label, error.message)
                if getattr(self.window, "closed", False):  # closed behind the host's back (by the user)
                    self.forget(self)
                    return
            except Exception:  # noqa: BLE001 - one failed delivery must not stop the window's sender
                log.exception("delivering a message to window %s failed", self.label)


class _Workers:
    """A small elastic pool: threads start as work waits, up to `limit`; each closes its database connection at the end."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.tasks: queue.SimpleQueue[tuple[Callable[..., None], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.waiting = 0
        self.idle = 0
        self.closed = False

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        with self.lock:
            if self.closed:
                return
            self.waiting += 1
            self.tasks.put((fn, args))
            if self.waiting > self.idle and len(self.threads) < self.limit:
                thread = threading.Thread(target=self._work, name=f"rata-windows-worker-{len(self.threads) + 1}", daemon=True)
                self.threads.append(thread)
                thread.start()

    def _work(self) -> None:
        try:
            while True:
                with self.lock:
                    self.idle += 1
                task = self.tasks.get()
                with self.lock:
                    self.idle -= 1
                    if task is not None:
                        self.waiting -= 1
                if task is None:
                    return
                fn, args = task
                try:
                    fn(*args)
                except Exception:  # noqa: BLE001 - a fault in one task must not lose the worker
                    log.exception("a window task failed")
        finally:
            self.app.close()  # this thread's database connection

    def close(self, timeout: float = 5.0) -> None:
        with self.lock:
            self.closed = True
            threads = list(self.threads)
        for _ in threads:
            self.tasks.put(None)
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class WindowHost:
    """Opens an app's windows on a backend and connects their pages to the app's commands.

        host = WindowHost(app, ChromiumBackend(app.name))
        host.open(WindowSpec("main", title="CRM"))
    """

    def __init__(
        self,
        app: Any,
        backend: Backend,
        frontend: Frontend | None = None,
        *,
        scripts: Iterable[str] = (),
        workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.app = app
        self.backend = backend
        self.frontend = frontend if frontend is not None else Frontend.of(app)
        self.calls: deque[CallRecord] = deque(maxlen=CALL_LOG_SIZE)
        self._scripts = list(scripts)
        self._pages: dict[str, _Page] = {}
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._workers = _Workers(app, workers)
        self._closed = False
        self._stop_listening = app.live.listen(self._tables_written)

    # --- windows ---

    def open(self, spec: WindowSpec | None = None) -> Window:
        """Open a window (``main`` when no spec is given) with the runtime injected; returns it."""
        spec = spec if spec is not None else WindowSpec("main", title=self.app.name)
        if self.frontend is None:
            raise WindowError(
                f"The app {self.app.name!r} has no frontend to show: there is no {Path(self.app.root) / 'frontend' / 'index.html'}.",
                hint="Create frontend/index.html next to the app's module (see docs/windows.md).",
            )
        with self._lock:
            if self._closed:
                raise WindowError("The window host is closed.")
            if spec.label in self._pages:
                raise WindowError(f"A window labelled {spec.label!r} is already open.", hint="Give each window its own label.")
        with self._lock:
            scripts = [runtime_source(spec.label), *self._scripts]
        early = _takes_scripts(self.backend)  # installed before the first document: no late start, no reload
        window = self.backend.open(spec, self.frontend, scripts=scripts) if early else self.backend.open(spec, self.frontend)
        page = _Page(spec.label, window, self._forget)
        with self._lock:
            self._pages[spec.label] = page
        window.on_message(lambda text: self._receive(page, text))
        on_closed = getattr(window, "on_closed", None)
        if callable(on_closed):
            on_closed(lambda: self._forget(page))
        if not early:
            for source in scripts:
                window.add_document_script(source)
        return window

    def add_document_script(self, source: str) -> None:
        """Run `source` at the start of every document of every window, open now or later (after the runtime)."""
        with self._lock:
            self._scripts.append(source)
            pages = list(self._pages.values())
        for page in pages:
            page.window.add_document_script(source)

    def window(self, label: str) -> Window:
        """The open window with this label (WindowError naming the open ones otherwise)."""
        with self._lock:
            page = self._pages.get(label)
            labels = list(self._pages)
        if page is None:
            raise WindowError(
                f"There is no window labelled {label!r}.",
                hint=f"Open windows: {', '.join(labels)}." if labels else "No window is open.",
            )
        return page.window

    def windows(self) -> list[WindowInfo]:
        """Each open window as it is now, in the order they were opened."""
        with self._lock:
            pages = list(self._pages.values())
        return [page.window.info() for page in pages]

    def labels(self) -> list[str]:
        with self._lock:
            return list(self._pages)

    def in_flight(self, label: str) -> int:
        """Commands (calls and live queries) queued or running for this window now."""
        with self._lock:
            page = self._pages.get(label)
        return page.in_flight if page is not None else 0

    def close_window(self, label: str) -> None:
        """Close one window and drop what its page subscribed to."""
        window = self.window(label)
        with self._lock:
            page = self._pages.get(label)
        if page is not None:
            self._forget(page)
        window.close()

    def close(self) -> None:
        """Drop every subscription and stop the workers (the backend closes the windows themselves)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pages = list(self._pages.values())
        self._stop_listening()
        for page in pages:
            self._forget(page)
        self._workers.close()

    # --- messages from pages ---

    def _receive(self, page: _Page, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            log.warning("window %s sent a message that is not JSON: %.80r", page.label, text)
            return
        if not isinstance(message, dict) or not isinstance(message.get("doc"), str):
            log.warning("window %s sent a message without a document id: %.80r", page.label, text)
            return
        kind, doc, id = message.get("t"), message["doc"], message.get("id")
        if kind == "hello":
            self._new_document(page, doc, late=message.get("late") is True)
            return
        if kind == "bye":
            self._end_document(page, doc)
            return
        if not isinstance(id, int):
            log.warning("window %s sent a %r message without an id", page.label, kind)
            return
        if kind == "invoke":  # runs whatever document it came from: it was somebody's click
            command, args = message.get("command"), message.get("args", {})
            self._start(page)
            self._workers.submit(self._invoke, page, doc, id, command, args)
            return
        if not self._current(page, doc):
            return
        if kind == "live":
            self._subscribe_live(page, doc, id, message.get("command"), message.get("args", {}))
        elif kind == "unlive":
            with page.lock:
                live = page.lives.pop(id, None)
            if live is not None:
                live.dropped = True
        elif kind == "on":
            self._subscribe_channel(page, doc, id, message.get("channel"))
        elif kind == "off":
            with page.lock:
                unsubscribe = page.channels.pop(id, None)
            if unsubscribe is not None:
                unsubscribe()
        else:
            log.warning("window %s sent an unknown message type %r", page.label, kind)

    def _current(self, page: _Page, doc: str) -> bool:
        """Whether `doc` is the window's document now; a first message from a new one makes it so."""
        with page.lock:
            if doc == page.doc:
                return True
            if doc in page.gone or page.closed:
                return False
        self._new_document(page, doc, late=False)
        return True

    def _new_document(self, page: _Page, doc: str, late: bool) -> None:
        with page.lock:
            if doc == page.doc or doc in page.gone or page.closed:
                return
            if page.doc is not None:
                page.gone.append(page.doc)
            page.doc = doc
            lives, channels = list(page.lives.values()), list(page.channels.values())
            page.lives.clear()
            page.channels.clear()
            reload = late and not page.reloaded
            page.reloaded = page.reloaded or late
        _drop(lives, channels)
        if reload:  # the page's scripts ran before the runtime existed: once, load it again
            log.info("window %s: the runtime arrived after the page's scripts; reloading it once", page.label)
            self._post(page, {"t": "reload", "doc": doc})

    def _end_document(self, page: _Page, doc: str) -> None:
        with page.lock:
            if doc != page.doc:
                return
            page.gone.append(doc)
            page.doc = None
            lives, channels = list(page.lives.values()), list(page.channels.values())
            page.lives.clear()
            page.channels.clear()
        _drop(lives, channels)

    def _forget(self, page: _Page) -> None:
        """The window closed: drop its subscriptions and stop its sender."""
        with self._lock:
            if self._pages.get(page.label) is page:
                del self._pages[page.label]
        with page.lock:
            if page.closed:
                return
            page.closed = True
            lives, channels = list(page.lives.values()), list(page.channels.values())
            page.lives.clear()
            page.channels.clear()
        _drop(lives, channels)
        page.outbox.put(None)

    # --- calls ---

    def _start(self, page: _Page) -> None:
        with page.lock:
            page.in_flight += 1

    def _finish(self, page: _Page) -> None:
        with page.lock:
            page.in_flight -= 1

    def _invoke(self, page: _Page, doc: str, id: int, command: Any, args: Any) -> None:
        try:
            reply = self._call(page.label, command, args, "invoke")
            self._post(page, {"t": "reply", "doc": doc, "id": id, **reply})
        finally:
            self._finish(page)

    def _call(self, label: str, command: Any, args: Any, kind: str) -> dict[str, Any]:
        """Dispatch one call as the window `label`; returns ``{"ok": True, "value": ...}`` or ``{"ok": False, "error": {...}}``."""
        if not isinstance(command, str) or not isinstance(args, dict):
            return {"ok": False, "error": {"code": "invalid_request", "message": "A call needs a command name and an object of named arguments."}}
        seq = next(self._seq)
        started, clock = time.time(), time.perf_counter()
        reply: dict[str, Any]
        try:
            reply = {"ok": True, "value": self.app.dispatch(CommandRequest(command, args, Origin.frontend(label)))}
        except (ValidationErrors, RataError) as error:
            reply = {"ok": False, "error": error_reply(command, error)}
        except Exception as error:  # noqa: BLE001 - a command's fault is the page's to show; the traceback is logged
            log.exception("%s failed in window %s", command, label)
            reply = {"ok": False, "error": error_reply(command, error)}
        duration = round((time.perf_counter() - clock) * 1000, 3)
        error_text = None if reply["ok"] else reply["error"]["message"]
        self.calls.append(CallRecord(seq, label, command, redact_args(args), started, duration, reply["ok"], error_text, kind))
        return reply

    def _post(self, page: _Page, message: dict[str, Any]) -> None:
        if page.closed:
            return
        try:
            text = _encode(message)
        except (TypeError, ValueError) as error:  # e.g. a NaN in a result: the page still gets an answer
            log.warning("a %r message for window %s is not JSON: %s", message.get("t"), page.label, error)
            if "id" not in message:
                return
            failed = {"code": "internal", "message": f"The result could not be sent to the page as JSON: {error}"}
            text = _encode({"t": message["t"], "doc": message["doc"], "id": message["id"], "ok": False, "error": failed})
        page.outbox.put(text)

    # --- live queries ---

    def _subscribe_live(self, page: _Page, doc: str, id: int, command: Any, args: Any) -> None:
        live = _Live(page, doc, id, command, args)
        with page.lock:
            if page.doc != doc or page.closed:
                return
            page.lives[id] = live
        self._schedule(live)

    def _tables_written(self, tables: frozenset[str]) -> None:
        with self._lock:
            pages = list(self._pages.values())
        for page in pages:
            with page.lock:
                lives = list(page.lives.values())
            for live in lives:
                if isinstance(live.command, str) and self.app.live.affects(live.command, tables):
                    self._schedule(live)

    def _schedule(self, live: _Live) -> None:
        page = live.page
        with page.lock:
            if live.dropped:
                return
            if live.running:
                live.again = True  # a write landed while it runs: once more afterwards
                return
            live.running = True
            page.in_flight += 1
        self._workers.submit(self._run_live, live)

    def _run_live(self, live: _Live) -> None:
        page = live.page
        finished = False
        try:
            while True:
                with page.lock:
                    if live.dropped:
                        break
                    live.again = False
                reply = self._call(page.label, live.command, live.args, "live")
                if not live.dropped:
                    self._post(page, {"t": "live", "doc": live.doc, "id": live.id, **reply})
                with page.lock:
                    if not live.again or live.dropped:
                        # Decided under the same lock a new write takes to set `again`: none is lost.
                        live.running = False
                        page.in_flight -= 1
                        finished = True
                        return
        finally:
            if not finished:
                with page.lock:
                    live.running = False
                    page.in_flight -= 1

    # --- channels ---

    def _subscribe_channel(self, page: _Page, doc: str, id: int, channel: Any) -> None:
        if not isinstance(channel, str) or not channel:
            log.warning("window %s asked for a channel without a name", page.label)
            return

        def forward(payload: Any) -> None:
            self._post(page, {"t": "channel", "doc": doc, "id": id, "payload": payload})

        unsubscribe = self.app.subscribe(channel, forward)
        with page.lock:
            if page.doc == doc and not page.closed and id not in page.channels:
                page.channels[id] = unsubscribe
                return
        unsubscribe()  # the document went while subscribing


def _takes_scripts(backend: Backend) -> bool:
    """Whether ``backend.open`` installs document-start scripts itself (``scripts=``) before the first document."""
    import inspect

    try:
        return "scripts" in inspect.signature(backend.open).parameters
    except (TypeError, ValueError):
        return False


def _drop(lives: list[_Live], channels: list[Callable[[], None]]) -> None:
    for live in lives:
        live.dropped = True
    for unsubscribe in channels:
        unsubscribe()
