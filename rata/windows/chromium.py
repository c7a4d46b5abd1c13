"""The browser backend: the app's windows as pages of a Chromium driven over the DevTools pipe.

Headless by default, for CI, containers and agents without a display (``rata dev
--headless``); ``headless=False`` shows real browser windows.

Why no web server: each window answers its own page's requests. ``Fetch.enable`` pauses
every request to the app's origin (``http://<app>.rata.localhost``) and the backend
fulfils it from the frontend's files, so nothing listens on a port that another local
process could reach, and the page still gets a real ``http:`` origin (a secure context,
since ``*.localhost`` counts as one) where relative URLs, ``fetch`` and history routing
work. A path the frontend has no file for is a 404, except a path whose last segment has
no extension, which gets ``index.html`` so client-side routes survive a reload.

Messaging uses the two globals every backend provides: ``Runtime.addBinding`` installs
``window.__rata_post(text)`` in every document (page to Python), and `ChromiumWindow.post`
calls ``window.__rata_receive(text)`` (Python to page). Message callbacks run on the
window's own thread, so a slow callback never holds up the pipe or the page's requests.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import math
import queue
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rata.errors import WindowError
from rata.windows.adapter import WindowInfo, WindowSpec
from rata.windows.cdp import DEFAULT_TIMEOUT, Browser

log = logging.getLogger("rata.windows")

BINDING = "__rata_post"
LOAD_TIMEOUT = 15.0
OCTET_STREAM = "application/octet-stream"
STOPPED = "The browser windows were stopped."


def origin_for(app_name: str) -> str:
    """The app's origin in the browser: ``http://<name>.rata.localhost`` (the name made a DNS label)."""
    label = re.sub(r"[^a-z0-9-]+", "-", app_name.lower()).strip("-")[:63] or "app"
    return f"http://{label}.rata.localhost"


class ChromiumBackend:
    """Opens windows as pages of one Chromium (started on first use, or the `browser` given)."""

    name = "browser"

    def __init__(self, app_name: str = "app", *, headless: bool = True, binary: str | None = None, browser: Browser | None = None) -> None:
        self.origin = origin_for(app_name)
        self.headless = headless if browser is None else browser.headless
        self._binary = binary
        self._browser = browser
        self._owns_browser = browser is None
        self._windows: dict[str, ChromiumWindow] = {}
        self._lock = threading.Lock()  # held briefly, never while Chromium starts: `stop` and `halt` must not wait on a launch
        self._launch_lock = threading.Lock()
        self._stopped = threading.Event()
        self._halted = False  # `halt` was called: this run ends, and starts no Chromium
        self._starting: Browser | None = None  # a Chromium started but not answering yet
        self._opened_any = False

    @property
    def browser(self) -> Browser:
        """The Chromium the windows live in, started now if it is not running yet.

        Raises:
            WindowError: Chromium is missing or does not start.
        """
        with self._launch_lock:
            with self._lock:
                current = self._browser
                if current is not None and not (self._owns_browser and not current.alive):
                    return current
                self._check_not_halted()
            try:
                browser = Browser(self._binary, headless=self.headless, on_spawn=self._spawned)
            finally:
                self._starting = None
            with self._lock:
                if not self._halted:
                    self._browser = browser
                    return browser
            browser.close()  # halted while it started
            raise WindowError(STOPPED)

    def _spawned(self, browser: Browser) -> None:
        with self._lock:
            self._starting = browser
        if self._halted:
            browser.kill()

    def _check_not_halted(self) -> None:
        if self._halted:
            raise WindowError(STOPPED)

    def open(self, spec: WindowSpec, frontend: Any, *, scripts: Iterable[str] = ()) -> ChromiumWindow:
        """Open a window showing `frontend` at ``spec.route``, after installing `scripts` at document start.

        `scripts` run before the page's own scripts from the first document on (the frontend
        runtime, the dev page script); `ChromiumWindow.add_document_script` adds more later.

        Raises:
            WindowError: a window with that label is open, Chromium failed, or the page did not load.
        """
        with self._lock:
            if spec.label in self._windows:
                raise WindowError(f"A window labelled {spec.label!r} is already open.", hint="Give each window its own label.")
        window = ChromiumWindow(self, spec, frontend, scripts)
        with self._lock:
            self._windows[spec.label] = window
            self._opened_any = True
        return window

    def windows(self) -> list[ChromiumWindow]:
        with self._lock:
            return list(self._windows.values())

    def run(self, ready: Callable[[], None]) -> None:
        """Start Chromium, call `ready()`, then wait until `stop` or `halt`, the last window closes, or Chromium dies.

        A `halt` at any moment of it (even before it starts Chromium) is never lost: `run` returns
        as soon as it sees it, having closed what it opened.

        Raises:
            WindowError: Chromium did not start, or `ready` failed (halted while it ran, say).
        """
        self._stopped.clear()  # a `halt` that came before this line is still seen: it set `_halted` too
        try:
            browser = self.browser
            if not self._halted:
                ready()
            while not self._halted and not self._stopped.wait(0.25):
                if not browser.alive:
                    log.warning("Chromium stopped; the browser windows are gone")
                    break
        finally:
            self.stop()
            self._halted = False

    def halt(self) -> None:
        """Make `run` return soon, having closed its windows and Chromium: from any thread, at any moment, without waiting."""
        self._halted = True
        self._stopped.set()
        starting = self._starting
        if starting is not None:
            starting.kill()  # the wait for a starting Chromium ends at once

    def stop(self) -> None:
        """Close every window and the browser this backend started; `run` returns (idempotent)."""
        for window in self.windows():
            window.close()
        with self._lock:
            browser, owned = self._browser, self._owns_browser
            if owned:
                self._browser = None
        if browser is not None and owned:
            browser.close()
        self._stopped.set()

    def _forget(self, window: ChromiumWindow) -> None:
        with self._lock:
            if self._windows.get(window.label) is window:
                del self._windows[window.label]
            last = self._opened_any and not self._windows
        if last:
            self._stopped.set()


class ChromiumWindow:
    """One page target showing the app's frontend; implements `rata.windows.adapter.Window`."""

    def __init__(self, backend: ChromiumBackend, spec: WindowSpec, frontend: Any, scripts: Iterable[str] = ()) -> None:
        self.label = spec.label
        self.spec = spec
        self.frontend = frontend
        self.origin = backend.origin
        self._backend = backend
        self._callbacks: list[Callable[[str], None]] = []
        self._messages: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._message_thread: threading.Thread | None = None
        self._closed = False
        self._crashed = False
        self._unsubscribe: list[Callable[[], None]] = []
        browser = backend.browser
        target: dict[str, Any] = {"width": spec.width, "height": spec.height} if not backend.headless else {}
        if not backend.headless:
            target["newWindow"] = True
        self.session = browser.new_page("about:blank", **target)
        try:
            self._set_up(browser, list(scripts))
            self.navigate(self.origin + (spec.route if spec.route.startswith("/") else "/" + spec.route))
        except WindowError:
            self.close()
            raise

    def _set_up(self, browser: Browser, scripts: list[str]) -> None:
        session = self.session
        self._unsubscribe += [
            session.subscribe("Fetch.requestPaused", self._serve),
            session.subscribe("Runtime.bindingCalled", self._binding_called),
            session.subscribe("Page.javascriptDialogOpening", self._dialog),
            session.subscribe("Inspector.targetCrashed", self._target_crashed),
            browser.subscribe("Target.detachedFromTarget", self._detached),
        ]
        session.send("Page.enable")
        session.send("Runtime.enable")
        session.send("Inspector.enable")
        session.send("Runtime.addBinding", {"name": BINDING})
        session.send("Fetch.enable", {"patterns": [{"urlPattern": self.origin + "/*", "requestStage": "Request"}]})
        if self._backend.headless:
            metrics = {"width": self.spec.width, "height": self.spec.height, "deviceScaleFactor": 1, "mobile": False}
            session.send("Emulation.setDeviceMetricsOverride", metrics)
            # Behave as the focused window, as a shown one would: focus events fire, :focus matches.
            session.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        for source in scripts:
            session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    # -- the adapter interface --------------------------------------------------------------

    def eval_json(self, js: str, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """Evaluate a JS expression in the page and return its JSON value.

        Raises:
            WindowError: the script threw, the page is gone, or no answer came within `timeout`.
        """
        self._check_open()
        params = {"expression": js, "returnByValue": True, "awaitPromise": False}
        reply = self.session.send("Runtime.evaluate", params, timeout=timeout)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "error")
            raise WindowError(f"JavaScript error in window {self.label!r}: {text.splitlines()[0] if text else 'error'}")
        return _value(reply["result"])

    def add_document_script(self, source: str) -> None:
        """Run `source` at the start of every later document, and now in the current one."""
        self._check_open()
        self.session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        reply = self.session.send("Runtime.evaluate", {"expression": source, "returnByValue": True})
        if "exceptionDetails" in reply:
            log.warning("a document script failed in window %r: %s", self.label, reply["exceptionDetails"].get("text"))

    def capture_png(self, max_width: int = 1280) -> bytes:
        """The visible viewport as a PNG, one pixel per CSS pixel, scaled down to at most `max_width` wide."""
        self._check_open()
        viewport = self.session.send("Page.getLayoutMetrics")["cssVisualViewport"]
        width, height = viewport["clientWidth"], viewport["clientHeight"]
        ratio = self._device_pixel_ratio()
        scale = min(1.0, max_width / width) if width else 1.0
        # The clip's scale multiplies the device pixel ratio; one CSS pixel per image pixel means dividing it out.
        # Rounding down keeps the image within `max_width` whatever Chromium rounds.
        scale = math.floor(scale / ratio * 10_000) / 10_000
        clip = {"x": viewport["pageX"], "y": viewport["pageY"], "width": width, "height": height, "scale": scale}
        shot = self.session.send("Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": False}, timeout=30)
        return base64.b64decode(shot["data"])

    def on_message(self, callback: Callable[[str], None]) -> None:
        """Call `callback(text)` for each ``window.__rata_post(text)``, on this window's message thread."""
        self._callbacks.append(callback)
        if self._message_thread is None:
            self._message_thread = threading.Thread(target=self._deliver_messages, name=f"rata-window-{self.label}", daemon=True)
            self._message_thread.start()

    def post(self, text: str) -> None:
        """Deliver `text` to the page's ``window.__rata_receive(text)`` (dropped if the page has none yet)."""
        self._check_open()
        expression = f"typeof window.__rata_receive === 'function' && void window.__rata_receive({json.dumps(text)})"
        self.session.send_nowait("Runtime.evaluate", {"expression": expression})

    def info(self) -> WindowInfo:
        """Label, title, route, size and visibility as the window is now."""
        title, url = self.spec.title, ""
        if not self._closed:
            with contextlib.suppress(WindowError):
                target = self.session.browser.send("Target.getTargetInfo", {"targetId": self.session.target_id})["targetInfo"]
                title, url = target.get("title") or title, target.get("url", "")
        route = url[len(self.origin) :] or "/" if url.startswith(self.origin) else url
        if title == url or title == url.removeprefix("http://"):
            title = self.spec.title  # Chromium shows the URL as the title of a page that has none
        shown = self.spec.visible and not self._closed
        return WindowInfo(label=self.label, title=title, route=route, width=self.spec.width, height=self.spec.height, shown=shown)

    def close(self) -> None:
        """Close the page (idempotent)."""
        if self._closed:
            return
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._messages.put(None)
        self.session.close()
        self._backend._forget(self)

    # -- more than the interface ------------------------------------------------------------

    def navigate(self, url: str, timeout: float = LOAD_TIMEOUT) -> None:
        """Load `url` (absolute, or a path within the app) and wait for its load event.

        Raises:
            WindowError: the navigation failed or did not finish within `timeout` seconds.
        """
        self._check_open()
        if url.startswith("/"):
            url = self.origin + url
        loaded = self.session.expect("Page.loadEventFired")
        try:
            reply = self.session.send("Page.navigate", {"url": url})
        except WindowError:
            loaded.cancel()
            raise
        if reply.get("errorText"):
            loaded.cancel()
            raise WindowError(f"Window {self.label!r} could not load {url!r}: {reply['errorText']}.")
        if "loaderId" not in reply:
            loaded.cancel()  # a same-document navigation (only the fragment changed): no load event comes
            return
        loaded.wait(timeout)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- event handlers (on the browser's event thread) -------------------------------------

    def _serve(self, params: dict[str, Any]) -> None:
        request = params["request"]
        status, content_type, body = self._response(request["method"], request["url"])
        headers = [
            {"name": "Content-Type", "value": content_type},
            {"name": "Cache-Control", "value": "no-store"},  # a frontend edited during dev shows on reload
            {"name": "X-Content-Type-Options", "value": "nosniff"},
        ]
        fulfil = {"requestId": params["requestId"], "responseCode": status, "responseHeaders": headers}
        if request["method"] != "HEAD":
            fulfil["body"] = base64.b64encode(body).decode("ascii")
        with contextlib.suppress(WindowError):  # the page may already be gone
            self.session.send_nowait("Fetch.fulfillRequest", fulfil)

    def _response(self, method: str, url: str) -> tuple[int, str, bytes]:
        """Status, Content-Type and body for one request to the app's origin."""
        if method not in ("GET", "HEAD"):
            return 405, "text/plain; charset=utf-8", b"405 the frontend's files can only be read\n"
        path = urlsplit(url).path or "/"
        found = self._file_for(path)
        if found is None:
            return 404, "text/plain; charset=utf-8", f"404 no file for {path} in the frontend\n".encode()
        try:
            body = found.read_bytes()
        except OSError:
            return 404, "text/plain; charset=utf-8", f"404 {path} could not be read\n".encode()
        mime = getattr(self.frontend, "mime", None)
        return 200, mime(found) if mime else OCTET_STREAM, body

    def _file_for(self, path: str) -> Path | None:
        """The frontend's file for a URL path; a route without an extension falls back to ``index.html``."""
        found = self.frontend.resolve(path)
        if found is None and "." not in path.rsplit("/", 1)[-1]:
            found = self.frontend.resolve("/index.html")
        if found is None:
            return None
        root = Path(self.frontend.root).resolve()
        real = Path(found).resolve()
        return real if root in real.parents else None  # never outside the frontend, whatever resolve said

    def _binding_called(self, params: dict[str, Any]) -> None:
        if params.get("name") == BINDING:
            self._messages.put(params.get("payload", ""))

    def _deliver_messages(self) -> None:
        while (text := self._messages.get()) is not None:
            for callback in list(self._callbacks):
                try:
                    callback(text)
                except Exception:  # noqa: BLE001 - a failing callback must not stop later messages
                    log.exception("a message callback of window %r failed", self.label)

    def _dialog(self, params: dict[str, Any]) -> None:
        # Nobody can answer a dialog in a headless page, and an open one blocks every script.
        if self._backend.headless:
            log.info("window %r: %s(%r) answered with OK", self.label, params.get("type"), params.get("message"))
            answer = {"accept": True, "promptText": params.get("defaultPrompt", "")}
            with contextlib.suppress(WindowError):
                self.session.send_nowait("Page.handleJavaScriptDialog", answer)

    def _target_crashed(self, params: dict[str, Any]) -> None:
        self._crashed = True
        log.warning("the page of window %r crashed", self.label)

    def _detached(self, params: dict[str, Any]) -> None:
        if params.get("sessionId") == self.session.id and not self._closed:
            self._closed = True
            for unsubscribe in self._unsubscribe:
                unsubscribe()
            self._messages.put(None)
            self._backend._forget(self)

    def _check_open(self) -> None:
        if self._crashed:
            raise WindowError(f"The page of window {self.label!r} crashed.", hint="Close the window and open it again.")
        if self._closed:
            raise WindowError(f"Window {self.label!r} is closed.")

    def _device_pixel_ratio(self) -> float:
        if self._backend.headless:
            return 1.0  # set by the device metrics override
        with contextlib.suppress(WindowError):
            return float(self.eval_json("window.devicePixelRatio") or 1.0)
        return 1.0


def _value(result: dict[str, Any]) -> Any:
    """A `Runtime.RemoteObject` returned by value, as Python (``undefined`` is None)."""
    if "unserializableValue" in result:
        text = result["unserializableValue"]
        if text.endswith("n"):
            return int(text[:-1])  # a BigInt
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}.get(text)
    return result.get("value")
