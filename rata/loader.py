"""Finding and importing the app a command works on.

``--app`` accepts:

- ``module:attr`` (``crm.app:app``), or ``module`` (the attribute defaults to ``app``);
- ``path/to/file.py`` or ``path/to/file.py:attr``;
- ``DIR``: a project whose ``pyproject.toml`` says ``[tool.rata] app = "crm:app"``.

Without ``--app``, the nearest ``pyproject.toml`` upward from the working directory is used.
A project's folder (and its ``src/``) is put on ``sys.path``, so an app need not be installed.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from rata._record import Record
from rata.app import App
from rata.errors import AppLoadError, RataError

DEFAULT_ATTR = "app"


class LoadedApp(Record):
    """The app, where it came from, and its project folder (if it has one)."""

    __slots__ = ("app", "target", "project", "settings")

    app: App
    target: str
    project: Path | None
    settings: dict[str, Any]


def load_app(spec: str | None = None, cwd: Path | None = None) -> LoadedApp:
    """Find, import and return the app named by `spec` (see the module docs)."""
    cwd = (cwd or Path.cwd()).resolve()
    if spec is None:
        pyproject = _nearest_pyproject(cwd)
        if pyproject is None:
            raise AppLoadError(
                f"No app given and no pyproject.toml found in {str(cwd)!r} or above.",
                hint='Pass --app (module:attr, file.py or a project folder), or add [tool.rata] app = "package:app" to your pyproject.toml.',
            )
        return _from_project(pyproject)
    path = Path(spec)
    if not path.is_absolute():
        path = cwd / path
    file_part, _, attr = spec.partition(".py:")
    if spec.endswith(".py") or attr:
        file = Path(file_part + ".py" if attr else spec)
        file = file if file.is_absolute() else cwd / file
        return _from_file(file, attr or DEFAULT_ATTR, spec)
    if path.is_dir():
        pyproject = path / "pyproject.toml"
        if not pyproject.is_file():
            raise AppLoadError(
                f"The folder {spec!r} has no pyproject.toml.",
                hint='Point --app at a project with [tool.rata] app = "package:app", or use module:attr or file.py.',
            )
        return _from_project(pyproject)
    if "/" in spec or "\\" in spec:
        raise AppLoadError(f"The path {spec!r} does not exist.", hint="Check the path; --app takes module:attr, file.py[:attr] or a project folder.")
    module, _, attr = spec.partition(":")
    return LoadedApp(_from_module(module, attr or DEFAULT_ATTR, spec), spec, None, {})


def _nearest_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_settings(pyproject: Path) -> dict[str, Any]:
    """The ``[tool.rata]`` table of a pyproject.toml."""
    import tomllib

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise AppLoadError(f"{str(pyproject)!r} is not valid TOML: {error}.", hint="Fix the file.") from None
    settings = data.get("tool", {}).get("rata", {})
    if not isinstance(settings, dict):
        raise AppLoadError(f"[tool.rata] in {str(pyproject)!r} must be a table.", hint='Write [tool.rata] then app = "package:app".')
    return settings


def _from_project(pyproject: Path) -> LoadedApp:
    settings = read_settings(pyproject)
    target = settings.get("app")
    if not isinstance(target, str) or not target:
        raise AppLoadError(
            f"{str(pyproject)!r} does not say which app to load.",
            hint='Add [tool.rata] with app = "package.module:app", or pass --app.',
        )
    root = pyproject.parent
    for folder in (root / "src", root):
        if folder.is_dir() and str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    if ".py" in target:
        file_part, _, attr = target.partition(":")
        return LoadedApp(_from_file(root / file_part, attr or DEFAULT_ATTR, target).app, target, root, settings)
    module, _, attr = target.partition(":")
    return LoadedApp(_from_module(module, attr or DEFAULT_ATTR, target), target, root, settings)


def _from_module(module: str, attr: str, target: str) -> App:
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and (module == error.name or module.startswith(error.name + ".")):
            raise AppLoadError(
                f"The module {module!r} was not found (from --app {target!r}).",
                hint="Install the app's package (pip install -e .), run from its project folder, or pass a file path.",
            ) from None
        raise import_failure(target, error) from None
    except RataError:
        raise
    except BaseException as error:  # noqa: BLE001 - any failure while importing user code is reported
        if is_interrupt(error):
            raise
        raise import_failure(target, error) from None
    return _attr(loaded, attr, target)


def _from_file(file: Path, attr: str, target: str) -> LoadedApp:
    if not file.is_file():
        raise AppLoadError(f"The file {str(file)!r} does not exist.", hint="Check the path given to --app.")
    name = f"_rata_app_{abs(hash(str(file.resolve())))}"
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise AppLoadError(f"{str(file)!r} cannot be imported as Python.", hint="Give a .py file.")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    folder = str(file.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        module_spec.loader.exec_module(module)
    except RataError:
        raise
    except BaseException as error:  # noqa: BLE001
        if is_interrupt(error):
            raise
        del sys.modules[name]
        raise import_failure(target, error) from None
    return LoadedApp(_attr(module, attr, target), target, None, {})


def _attr(module: Any, attr: str, target: str) -> App:
    if not hasattr(module, attr):
        apps = sorted(name for name, value in vars(module).items() if isinstance(value, App))
        raise AppLoadError(
            f"{module.__name__!r} has no attribute {attr!r} (from --app {target!r}).",
            hint=f"It has an App named {apps[0]!r}: use ...:{apps[0]}." if apps else "Define app = App(...) there, or name the attribute after a colon.",
        )
    value = getattr(module, attr)
    if callable(value) and not isinstance(value, App):
        with contextlib.suppress(TypeError):  # not a factory that takes no arguments: judged as it is below
            value = value()  # an app factory
    if not isinstance(value, App):
        raise AppLoadError(
            f"{target!r} is a {type(value).__name__}, not a rata.App.",
            hint="Point --app at the App instance (or a function that returns one).",
        )
    return value


def is_interrupt(error: BaseException) -> bool:
    """Whether `error` is a Ctrl-C to let through, not a failure of the app's code.

    A KeyboardInterrupt is the user's only while Python's own SIGINT handler is in place; once a
    console script has installed rata's (`rata.stopping`), one raised while importing came from the app.
    """
    import signal

    return isinstance(error, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is signal.default_int_handler


IMPORT_FIX = "Fix that error in the app's code (or what it needs at import: a file, a setting, a package), then run it again."


def import_failure(target: str, error: BaseException) -> AppLoadError:
    """One line that names the app, the exception (type and message) and the file, line and source text of user code where it was raised."""
    if isinstance(error, SyntaxError):
        where = f"{error.filename}:{error.lineno}"
        line = " ".join((error.text or "").split())
        return AppLoadError(
            f"Importing the app {target!r} failed with a syntax error at {where}: {error.msg}" + (f" ({line})." if line else "."),
            hint="Fix the syntax error and run again.",
        )
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith("<frozen")]
    frames = [f for f in frames if not f.filename.replace("\\", "/").endswith(_OWN_FRAMES)] or frames
    said = " ".join(str(error).split())
    detail = f"{type(error).__name__}: {said}" if said else type(error).__name__
    if frames:
        last = frames[-1]
        detail += f" (at {last.filename}:{last.lineno}" + (f": {last.line.strip()})" if last.line else ")")
    return AppLoadError(f"Importing the app {target!r} failed: {detail}.", hint=IMPORT_FIX)


_OWN_FRAMES = ("/rata/loader.py", "/rata/cli/appmain.py", "/importlib/__init__.py")
