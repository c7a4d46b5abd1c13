"""The app the coding agent is working on, loaded like `rata mcp inspect` loads it, and re-loaded when its code changes.

    target = Target(app_spec=None, cwd=Path.cwd())
    app = target.app()          # the current App; raises the load error (AppLoadError, CodegenError) as is

Reloading: before each use the modification times of the project's Python files (and its
pyproject.toml) are compared with the last load; if any changed, the project's modules
are dropped from `sys.modules` and the app is imported again. A project that fails to load
is reported by each tool with the error, not by stopping the server.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

from rata.app import App
from rata.errors import RataError
from rata.loader import LoadedApp, load_app

_MAX_FILES = 5_000


class Target:
    """One project, loaded on demand and reloaded when its source changes."""

    def __init__(self, app_spec: str | None, cwd: Path) -> None:
        self.app_spec = app_spec
        self.cwd = cwd
        self._loaded: LoadedApp | None = None
        self._error: RataError | None = None
        self._fingerprint: tuple[tuple[str, int], ...] | None = None
        self._root: Path | None = None
        self._watched: tuple[str, ...] = ()
        """The folders of the project's modules the loaded app imported: what a call looks at while the app loads."""
        self._lock = threading.Lock()

    def loaded(self) -> LoadedApp:
        """The loaded app (reloaded first if its code changed); raises its load error."""
        with self._lock:
            fingerprint = self._scan()
            if fingerprint != self._fingerprint or (self._loaded is None and self._error is None):
                self._reload(fingerprint)
            if self._error is not None:
                raise self._error.with_traceback(None)  # the same error each call, not a growing traceback
            assert self._loaded is not None
            return self._loaded

    def app(self) -> App:
        return self.loaded().app

    @property
    def project(self) -> Path | None:
        """The project folder (with pyproject.toml), when there is one."""
        try:
            loaded = self.loaded()
        except RataError:
            return self._root
        return loaded.project or self._root

    def _reload(self, fingerprint: tuple[tuple[str, int], ...]) -> None:
        if self._loaded is not None or self._error is not None:
            self._forget_modules()
        try:
            self._loaded = load_app(self.app_spec, self.cwd)
            self._error = None
            if self._loaded.project is not None:
                self._root = self._loaded.project
            elif self._root is None:
                self._root = Path(self._loaded.app.root)
        except RataError as error:
            self._loaded = None
            self._error = error
        self._watched = self._module_folders() if self._loaded is not None else ()
        self._fingerprint = self._scan() if self._root is not None else fingerprint

    def _module_folders(self) -> tuple[str, ...]:
        """The folders holding the project's imported modules (rata's own never)."""
        root = self._root
        if root is None:
            return ()
        prefix = str(root.resolve()) + os.sep
        own = str(Path(__file__).resolve().parent.parent) + os.sep
        folders = set()
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if file and os.path.abspath(file).startswith(prefix) and not os.path.abspath(file).startswith(own):
                folders.add(os.path.dirname(os.path.abspath(file)))
        return tuple(sorted(folders))

    def _forget_modules(self) -> None:
        """Drop the project's modules so the next import reads the files again."""
        root = self._root
        if root is None:
            return
        prefix = str(root.resolve()) + os.sep
        own = str(Path(__file__).resolve().parent.parent) + os.sep  # never rata itself
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if file and os.path.abspath(file).startswith(prefix) and not os.path.abspath(file).startswith(own):
                del sys.modules[name]

    def _scan(self) -> tuple[tuple[str, int], ...]:
        """What a change of the code would change: while the app loads, the Python files in the folders of its modules
        and pyproject.toml (a look that costs the same however large the project's other folders are); else the
        bounded walk of the whole project (`fingerprint`)."""
        root = self._root or self._guess_root()
        if root is None:
            return ()
        if self._watched:
            return watched(self._watched, root)
        return fingerprint(root)

    def _guess_root(self) -> Path | None:
        spec = self.app_spec
        if spec is None:
            for folder in (self.cwd, *self.cwd.parents):
                if (folder / "pyproject.toml").is_file():
                    return folder
            return None
        path = Path(spec.split(".py:")[0] + (".py" if ".py:" in spec else ""))
        path = path if path.is_absolute() else self.cwd / path
        if path.is_dir():
            return path
        if path.is_file():
            return path.parent
        return None


def watched(folders: tuple[str, ...], root: Path) -> tuple[tuple[str, int], ...]:
    """(path, mtime_ns) of the Python files directly in `folders`, and of `root`'s pyproject.toml, sorted."""
    found: list[tuple[str, int]] = []
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".py"):
                        try:
                            found.append((entry.path, entry.stat().st_mtime_ns))
                        except OSError:
                            continue
        except OSError:
            found.append((folder, -1))  # the folder went away: a change
    pyproject = os.path.join(root, "pyproject.toml")
    with contextlib.suppress(OSError):
        found.append((pyproject, os.stat(pyproject).st_mtime_ns))
    return tuple(sorted(found))


def fingerprint(root: Path) -> tuple[tuple[str, int], ...]:
    """(path, mtime_ns) of the Python files and pyproject.toml under `root`, sorted (also `rata dev`'s).

    One bounded walk (`rata.projectfiles.walk_files`): at most `MAX_WALK_ENTRIES` folders and files are looked at,
    however many the tree holds, and at most `_MAX_FILES` Python files are kept."""
    from rata.projectfiles import walk_files

    walk = walk_files(root, lambda name: name.endswith(".py") or name == "pyproject.toml")
    return tuple((path, mtime) for path, mtime, _ in walk.files[:_MAX_FILES])
