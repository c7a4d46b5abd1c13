"""The one small interface every window backend implements.

A backend shows the app's frontend in windows; rata talks to each window through five
calls, whatever draws it (pywebview's Qt/GTK/system webview, or headless Chromium over
the DevTools protocol):

    window.eval_json("document.title")        # run JS that returns JSON; blocks for the value
    window.add_document_script(source)        # run at the start of every document from now on
    window.capture_png(max_width=1280)        # the page as rendered, PNG bytes, <= max_width px wide
    window.on_message(callback)               # the page called window.__rata_post(text)
    window.post(text)                         # deliver text to the page's window.__rata_receive(text)

The page side of messaging is two globals, the same on every backend: the page posts with
``window.__rata_post(string)`` and receives through ``window.__rata_receive(string)``.
The frontend runtime (``rata.invoke``, ``rata.live``, channels) is built on those two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Protocol, TypedDict

from rata._record import Record


class WindowSpec(Record):
    """What to open: a label (unique in the app, ``main`` first), a title, a size and the route to show."""

    __slots__ = ("label", "title", "width", "height", "route", "visible")
    label: str
    title: str
    width: int
    height: int
    route: str
    visible: bool
    _defaults: ClassVar[dict[str, Any]] = {"label": "main", "title": "", "width": 1024, "height": 720, "route": "/", "visible": True}


class WindowInfo(TypedDict):
    """One window of the debug build."""

    label: str
    title: str
    route: str
    width: int
    height: int
    shown: bool


class Window(Protocol):
    """One open window."""

    label: str

    def eval_json(self, js: str, timeout: float = 10.0) -> Any:
        """Evaluate a JS expression in the page and return its JSON value (raises WindowError on a JS error)."""

    def add_document_script(self, source: str) -> None:
        """Run `source` at the start of every document loaded from now on (and in the current one)."""

    def capture_png(self, max_width: int = 1280) -> bytes:
        """The visible page as a PNG at one pixel per CSS pixel, scaled down to at most `max_width` pixels wide."""
        ...

    def on_message(self, callback: Callable[[str], None]) -> None:
        """Call `callback(text)` (on any thread) for each ``window.__rata_post(text)`` in the page."""

    def post(self, text: str) -> None:
        """Deliver `text` to the page's ``window.__rata_receive(text)``."""

    def info(self) -> WindowInfo:
        """Label, title, route, size, shown or hidden: as the window is now."""
        ...

    def close(self) -> None:
        """Close the window (idempotent)."""

    # Optional: ``on_closed(callback)``, called when the user (or the toolkit) closed the
    # window; the host uses it where a backend has it (desktop) to drop the page's subscriptions.


class Backend(Protocol):
    """Opens windows on one kind of webview; ``run`` owns the thread that draws them."""

    name: str

    def open(self, spec: WindowSpec, frontend: Any, *, scripts: Iterable[str] = ()) -> Window:
        """Open a window showing the app's frontend (a `rata.windows.frontend.Frontend`: files by path) at ``spec.route``.

        `scripts` run at the start of every document of the window, from the first one on."""
        ...

    def run(self, ready: Callable[[], None]) -> None:
        """Run until every window is closed or `stop` is called; call `ready()` once windows can be opened.

        Desktop toolkits need this on the main thread; the browser backend simply waits."""

    def stop(self) -> None:
        """Close every window and make `run` return."""
