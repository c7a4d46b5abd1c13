"""`run_windows`: show an app's frontend until its window closes, for the app's command line.

    run_windows(app)                                   # the desktop window (pywebview)
    run_windows(app, "browser", headless=True)         # headless Chromium, e.g. in a container

It picks the backend, opens ``main`` through a `WindowHost`, and blocks (on the calling
thread, which desktop toolkits need to be the main one) until the main window is closed,
`stop` is called on the backend, or the process gets SIGTERM, SIGINT or SIGHUP (`rata.stopping`). ``headless`` always
means the browser backend: a desktop toolkit needs a screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rata import stopping
from rata.errors import WindowError
from rata.windows.adapter import Backend, WindowSpec
from rata.windows.host import WindowHost

BACKENDS = ("desktop", "browser")


def make_backend(name: str, headless: bool = False, app_name: str = "app") -> Backend:
    """The window backend called `name` (``desktop`` or ``browser``); ``headless`` means the browser.

    Raises:
        WindowError: an unknown name, or pywebview missing for ``desktop``.
    """
    if name not in BACKENDS:
        raise WindowError(f"There is no window backend called {name!r}.", hint=f"Use one of: {', '.join(BACKENDS)}.")
    if name == "browser" or headless:
        from rata.windows.chromium import ChromiumBackend

        return ChromiumBackend(app_name, headless=headless)
    from rata.windows.desktop import DesktopBackend

    return DesktopBackend()


def run_windows(
    app: Any,
    backend_name: str = "desktop",
    headless: bool = False,
    *,
    spec: WindowSpec | None = None,
    scripts: Iterable[str] = (),
    on_start: Callable[[WindowHost], None] | None = None,
) -> None:
    """Open the app's ``main`` window and run until it closes or the process is told to stop.

    Args:
        app: The rata app whose ``frontend/`` to show.
        backend_name: ``"desktop"`` (pywebview) or ``"browser"`` (Chromium over the DevTools protocol).
        headless: Use headless Chromium whatever `backend_name` says.
        spec: The main window's label, title, size and route (default: ``main``, titled after the app).
        scripts: Extra document-start scripts for every window (dev mode's page script).
        on_start: Called with the host once ``main`` is open (dev mode starts its endpoint here).

    Raises:
        WindowError: the app has no frontend, or the backend is missing or failed to start.
    """
    backend = make_backend(backend_name, headless, app.name)
    host = WindowHost(app, backend, scripts=scripts)
    main_spec = spec if spec is not None else WindowSpec("main", title=app.name)
    failure: list[BaseException] = []

    def ready() -> None:
        try:
            window = host.open(main_spec)
            on_closed = getattr(window, "on_closed", None)
            if callable(on_closed):
                on_closed(backend.stop)  # the main window closing ends the app
            if on_start is not None:
                on_start(host)
        except BaseException as error:
            failure.append(error)
            backend.stop()
            raise

    # A stop signal wakes the backend's loop (`halt` never waits, so it is safe at any moment,
    # even while Chromium starts); closing everything is then done here, on this thread.
    stop_backend = getattr(backend, "halt", None) or backend.stop
    halted: list[bool] = []

    def wake() -> None:
        halted.append(True)
        stop_backend()

    try:
        with stopping.graceful(wake):
            backend.run(ready)
    except WindowError:
        if not halted:
            raise  # halted while Chromium started: no error, just stopped
    finally:
        host.close()
        backend.stop()
    if failure and not halted:  # what failed because of the stop is no error
        raise failure[0]
