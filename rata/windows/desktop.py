"""The desktop backend: the app's windows as native webviews, through pywebview.

pywebview picks the toolkit (Qt or GTK on Linux, WebView2 on Windows, WKWebView on macOS;
``PYWEBVIEW_GUI`` or ``gui=`` choose) and is an optional extra, imported only when a desktop
window is asked for: ``pip install "rata-toolkit[desktop]"``.

How the five window calls map onto pywebview:

- Serving and document-start scripts: each window gets its own small WSGI app, which
  pywebview serves on a loopback port. It answers with the app's frontend files (by
  `Frontend.resolve`, so the same path rules as every backend) and writes the window's
  document scripts into each HTML document it serves, at the top of ``<head>``: they run
  before the page's own scripts on every toolkit, with no per-toolkit hook. A script added
  after a document was served runs in it once it has loaded (``events.loaded``).
- Messages: the page's ``window.__rata_post(text)`` calls the ``post`` method of a js_api
  object. pywebview runs each js_api call on a new thread, so the page side sends one
  message at a time (the next after the previous call returned) to keep them in order.
  ``Window.post`` runs ``window.__rata_receive(text)`` with ``run_js``.
- ``eval_json``: pywebview's ``evaluate_js`` (JSON back, JS errors raised), bounded by a
  timeout. Every script is made ASCII first: pywebview's GTK backend passes the script's
  length in characters where WebKit expects bytes, which cuts a non-ASCII script short.
- ``capture_png``: the toolkit's own capture on its GUI thread (Qt ``QWidget.grab``, GTK
  ``WebView.get_snapshot``), scaled to one pixel per CSS pixel and at most `max_width` wide.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

from rata.errors import WindowError
from rata.windows.adapter import WindowInfo, WindowSpec
from rata.windows.frontend import Frontend

log = logging.getLogger("rata.windows")

INSTALL_HINT = (
    'Install the desktop extra: pip install "rata-toolkit[desktop]". '
    "Or run without a window (`--headless`), or the debug build in headless Chromium (`rata dev --headless`)."
)
DEFAULT_TIMEOUT = 10.0

# The page half of the message bridge; it runs before every other document script.
BRIDGE_JS = """(function () {
  var queue = [], busy = false;
  function pump() {
    var api = window.pywebview && window.pywebview.api;
    if (busy || !queue.length || !api || typeof api.post !== "function") {
      return;
    }
    busy = true;
    var text = queue.shift();
    var done = function () {
      busy = false;
      pump();
    };
    Promise.resolve(api.post(text)).then(done, done);
  }
  Object.defineProperty(window, "__rata_post", {value: function (text) {
    queue.push(String(text));
    pump();
  }, configurable: true});
  window.addEventListener("pywebviewready", pump);
})();"""

_HEAD = re.compile(rb"<head(?:\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(rb"<html(?:\s[^>]*)?>", re.IGNORECASE)
_DOCTYPE = re.compile(rb"<!doctype[^>]*>", re.IGNORECASE)


def load_webview() -> Any:
    """The `webview` module, or a WindowError that says how to install it."""
    try:
        import webview
    except ImportError:
        raise WindowError("The desktop window needs pywebview, which is not installed.", hint=INSTALL_HINT) from None
    return webview


def ascii_js(source: str) -> str:
    """`source` with every non-ASCII character written as a JS ``\\uXXXX`` escape (surrogate pairs above U+FFFF)."""
    if source.isascii():
        return source
    out = []
    for char in source:
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(out)


def inject_scripts(html: bytes, scripts: Iterable[str]) -> bytes:
    """`html` with the scripts as inline ``<script data-rata>`` elements at the top of its ``<head>``."""
    tags = b"".join(b"<script data-rata>" + ascii_js(s).replace("</", "<\\/").encode("ascii") + b"</script>" for s in scripts)
    for pattern in (_HEAD, _HTML, _DOCTYPE):
        match = pattern.search(html)
        if match:
            return html[: match.end()] + tags + html[match.end() :]
    return tags + html


class _Bridge:
    """The js_api object: ``window.pywebview.api.post(text)``; nothing else is exposed."""

    def __init__(self, deliver: Callable[[str], None]) -> None:
        self._deliver = deliver

    def post(self, text: str) -> None:
        self._deliver(str(text))


class DesktopWindow:
    """One pywebview window showing the app's frontend."""

    def __init__(self, backend: DesktopBackend, spec: WindowSpec, frontend: Frontend, scripts: Iterable[str] = ()) -> None:
        self.label = spec.label
        self._backend = backend
        self._spec = spec
        self._frontend = frontend
        self._lock = threading.Lock()
        self._scripts: list[str] = [BRIDGE_JS, *scripts]
        self._served = 0  # how many of the scripts the document now loading or shown was served with
        self._listeners: list[Callable[[str], None]] = []
        self._on_closed: list[Callable[[], None]] = []
        self._closed = threading.Event()
        webview = backend.webview
        self.pywindow = webview.create_window(
            spec.title or spec.label,
            url=self._wsgi,
            js_api=_Bridge(self._deliver),
            width=spec.width,
            height=spec.height,
            hidden=not spec.visible,
        )
        if self.pywindow is None:
            raise WindowError(f"pywebview did not open the window {spec.label!r}.")
        self.pywindow.events.initialized += self._initialized
        self.pywindow.events.loaded += self._loaded
        self.pywindow.events.closed += self._closed_by_toolkit

    # --- the adapter interface ---

    def eval_json(self, js: str, timeout: float = DEFAULT_TIMEOUT) -> Any:
        self._check_open()
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = self.pywindow.evaluate_js(ascii_js(js))
            except Exception as error:  # noqa: BLE001 - handed to the caller below, as a WindowError
                outcome["error"] = error

        thread = threading.Thread(target=run, name=f"rata-eval-{self.label}", daemon=True)
        thread.start()
        thread.join(timeout)
        if thread.is_alive():
            raise WindowError(f"The window {self.label!r} did not answer within {timeout:g} s.")
        error = outcome.get("error")
        if error is not None:
            raise WindowError(f"JavaScript failed in the window {self.label!r}: {_js_message(error)}") from None
        return outcome.get("value")

    def add_document_script(self, source: str) -> None:
        with self._lock:
            self._scripts.append(source)
        if self.pywindow.events.loaded.is_set():
            self._run_missing()

    def capture_png(self, max_width: int = 1280) -> bytes:
        self._check_open()
        renderer = self.pywindow.gui.renderer if self.pywindow.gui is not None else None
        view = self._view()
        if renderer == "qtwebengine":
            return self._on_gui_thread(lambda: _qt_png(view, max_width))
        if renderer == "gtkwebkit2":
            return _gtk_png(view, max_width)
        raise WindowError(
            f"Capturing a picture is not supported on pywebview's {renderer or 'unknown'} backend yet.",
            hint="Use --headless (Chromium) for screenshots.",
        )

    def on_message(self, callback: Callable[[str], None]) -> None:
        self._listeners.append(callback)

    def on_closed(self, callback: Callable[[], None]) -> None:
        """Call `callback()` once when the window is closed (by the user or by `close`)."""
        self._on_closed.append(callback)

    def post(self, text: str) -> None:
        self._check_open()
        try:
            self.pywindow.run_js(f"window.__rata_receive && window.__rata_receive({json.dumps(text)})")
        except Exception as error:  # noqa: BLE001 - pywebview raises its own and the toolkit's errors
            raise WindowError(f"The window {self.label!r} did not take a message: {error}") from None

    def info(self) -> WindowInfo:
        title, width, height = self._spec.title or self.label, self._spec.width, self._spec.height
        route = self._spec.route
        if not self._closed.is_set() and self.pywindow.events.shown.is_set():
            width, height = self.pywindow.width, self.pywindow.height
            title = self.pywindow.title
            url = self.pywindow.get_current_url() if self.pywindow.events.loaded.is_set() else None
            if url and self.pywindow.real_url and url.startswith(self._origin()):
                route = "/" + url[len(self._origin()) :].lstrip("/")
        return WindowInfo(label=self.label, title=title, route=route, width=width, height=height, shown=self._spec.visible and not self._closed.is_set())

    def close(self) -> None:
        if not self._closed.is_set():
            self.pywindow.destroy()

    # --- pywebview's side ---

    def _initialized(self, renderer: str) -> None:
        # pywebview points an app-served window at its server's root; open it at the route instead
        route = self._spec.route.lstrip("/")
        if route and self.pywindow.real_url:
            self.pywindow.real_url = self.pywindow.real_url.rstrip("/") + "/" + route

    def _loaded(self) -> None:
        self._run_missing()

    def _closed_by_toolkit(self) -> None:
        self._closed.set()
        for callback in list(self._on_closed):
            callback()

    def _deliver(self, text: str) -> None:
        for listener in list(self._listeners):
            listener(text)

    def _run_missing(self) -> None:
        """Run the scripts the current document was served without (added after it was served)."""
        with self._lock:
            missing = self._scripts[self._served :]
            self._served = len(self._scripts)
        for source in missing:
            self.pywindow.run_js(ascii_js(source))

    def _wsgi(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Serve the frontend; HTML documents get the window's scripts written in."""
        method = environ.get("REQUEST_METHOD", "GET")
        if method not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [("Allow", "GET, HEAD"), ("Content-Length", "0")])
            return [b""]
        path = self._frontend.resolve_route(environ.get("PATH_INFO") or "/")
        if path is None:
            body = b"Not found"
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
            return [body if method == "GET" else b""]
        body = path.read_bytes()
        mime = self._frontend.mime(path)
        if mime.startswith("text/html") and environ.get("HTTP_SEC_FETCH_DEST", "document") == "document":
            with self._lock:
                scripts = list(self._scripts)
                self._served = len(scripts)
            body = inject_scripts(body, scripts)
        headers = [
            ("Content-Type", mime),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),  # an edited file shows on the next reload
            ("X-Content-Type-Options", "nosniff"),
        ]
        start_response("200 OK", headers)
        return [body if method == "GET" else b""]

    # --- helpers ---

    def _origin(self) -> str:
        prefix = getattr(self.pywindow, "_url_prefix", None) or ""
        return prefix.rstrip("/")

    def _check_open(self) -> None:
        if self._closed.is_set():
            raise WindowError(f"The window {self.label!r} is closed.")

    def _view(self) -> Any:
        """The toolkit's web view widget (QWebEngineView, WebKit2.WebView)."""
        if not self.pywindow.events.shown.wait(DEFAULT_TIMEOUT):
            raise WindowError(f"The window {self.label!r} was not shown within {DEFAULT_TIMEOUT:g} s.")
        try:
            return self.pywindow.gui.BrowserView.instances[self.pywindow.uid].webview
        except (AttributeError, KeyError):
            raise WindowError(f"The window {self.label!r} has no web view to capture.") from None

    def _on_gui_thread(self, fn: Callable[[], bytes]) -> bytes:
        from qtpy.QtCore import QTimer

        done = threading.Event()
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = fn()
            except Exception as error:  # noqa: BLE001 - handed to the caller below
                outcome["error"] = error
            finally:
                done.set()

        QTimer.singleShot(0, self.pywindow.native, run)
        if not done.wait(DEFAULT_TIMEOUT):
            raise WindowError(f"The window {self.label!r} did not draw a picture within {DEFAULT_TIMEOUT:g} s.")
        if "error" in outcome:
            raise WindowError(f"Capturing the window {self.label!r} failed: {outcome['error']}")
        return outcome["value"]


def _qt_png(view: Any, max_width: int) -> bytes:
    from qtpy.QtCore import QBuffer, QByteArray, QIODevice, Qt

    image = view.grab().toImage()
    width = min(view.width(), max_width)  # CSS pixels: the widget's logical width
    if image.width() != width:
        image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise WindowError("Qt could not encode the window's picture as PNG.")
    buffer.close()
    return bytes(data.data())


def _gtk_png(view: Any, max_width: int) -> bytes:
    import cairo
    from gi.repository import GLib, WebKit2

    done = threading.Event()
    outcome: dict[str, Any] = {}

    def finished(source: Any, result: Any) -> None:
        try:
            surface = view.get_snapshot_finish(result)
            width = min(view.get_allocated_width(), max_width)
            if surface.get_width() != width:
                scale = width / surface.get_width()
                scaled = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, max(1, round(surface.get_height() * scale)))
                context = cairo.Context(scaled)
                context.scale(scale, scale)
                context.set_source_surface(surface, 0, 0)
                context.paint()
                surface = scaled
            out = io.BytesIO()
            surface.write_to_png(out)
            outcome["value"] = out.getvalue()
        except Exception as error:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = error
        finally:
            done.set()

    def start() -> bool:
        view.get_snapshot(WebKit2.SnapshotRegion.VISIBLE, WebKit2.SnapshotOptions.NONE, None, finished)
        return False

    GLib.idle_add(start)
    if not done.wait(DEFAULT_TIMEOUT):
        raise WindowError(f"The window did not draw a picture within {DEFAULT_TIMEOUT:g} s.")
    if "error" in outcome:
        raise WindowError(f"Capturing the window failed: {outcome['error']}")
    return outcome["value"]


def _js_message(error: BaseException) -> str:
    detail = error.args[0] if error.args else error
    if isinstance(detail, dict):
        return f"{detail.get('name', 'Error')}: {detail.get('message', '')}".strip()
    return str(detail)


class DesktopBackend:
    """Windows on pywebview: ``run`` must be called on the main thread and returns when the last window closes."""

    name = "desktop"

    def __init__(self, gui: str | None = None, *, debug: bool = False) -> None:
        self.webview = load_webview()
        self.gui = gui or os.environ.get("PYWEBVIEW_GUI") or None
        self.debug = debug
        self._windows: list[DesktopWindow] = []
        self._lock = threading.Lock()

    def open(self, spec: WindowSpec, frontend: Any, *, scripts: Iterable[str] = ()) -> DesktopWindow:
        """Open a window showing `frontend` at ``spec.route``; `scripts` run at the start of each of its documents."""
        window = DesktopWindow(self, spec, frontend, scripts)
        with self._lock:
            self._windows.append(window)
        return window

    def run(self, ready: Callable[[], None]) -> None:
        # pywebview opens the windows created before start() when its loop starts, so the
        # first ones are opened here, on this thread; later ones can be opened from any thread.
        ready()
        with self._lock:
            if not self._windows:
                raise WindowError("No window was opened, so there is nothing to show.")
        try:
            self.webview.start(gui=self.gui, debug=self.debug, private_mode=True)
        except self.webview.errors.WebViewException as error:
            raise WindowError(f"pywebview could not start: {error}", hint=INSTALL_HINT) from None

    def stop(self) -> None:
        with self._lock:
            windows = list(self._windows)
        for window in windows:
            window.close()
