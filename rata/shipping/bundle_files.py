"""What goes in an app's MCP Bundle, and the ``.mcpb`` file itself.

    files = bundle_files(project, manifest_text)
    path = write_bundle(files, Path("dist") / bundle_name(manifest))

A ``.mcpb`` file is a zip archive with ``manifest.json`` at its root (what ``mcpb pack``
writes). rata's bundle holds:

- ``manifest.json`` (`rata.shipping.bundle`) and the icon, at its path in the project;
- ``server/main.py``: puts ``server/lib`` first on ``sys.path`` and runs the app's
  ``--mcp`` server (`rata.cli.appmain.main_for`), as ``<app> --mcp`` does;
- ``server/lib/``: the app's top-level package (from the project or its ``src/``), the rata that
  runs ``rata mcp pack`` (its server path needs only the standard library), and the app's other
  dependencies, installed there by pip when it has any.

Nothing else goes in: from the app's package, caches, version control, virtual environments,
app data and logs are left out (`IGNORED`), and so is a whole app data folder (one holding
``instance.token``: rata's own files, never the per-install key behind the endpoint and
``requestState``); files that look secret (`SECRETS`: keys, ``.netrc``, ``.env``...) are left out
and named in a warning; and so is whatever the project's ``.mcpbignore`` names, read with
gitignore's rules (``**``, ``!`` to bring a file back, a leading ``/`` to anchor; `pathspec`),
where ``!`` can bring back a secret-looking file but never rata's data. From rata and the
dependencies, bytecode caches. The same files give the same bytes: entries sorted, fixed times and modes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path, PurePosixPath

from rata._record import Record
from rata.errors import ConfigError
from rata.shipping.bundle import app_target
from rata.shipping.project import normalize

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from typing import Any

    from rata.shipping.project import Project

DATA_FOLDER_MARK = "instance.token"
"""A folder holding this file is an app's data folder (`rata.folder`): left out whole, with everything rata keeps there."""
IGNORED = (
    "__pycache__", "*.pyc", "*.pyo", ".git", ".hg", ".svn", ".venv", "venv", ".env", ".env.*", ".tox", ".nox",
    ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", "node_modules", ".DS_Store", "Thumbs.db",
    "*.mcpb", "*.log", "*.log.*", "*.db", "*.db-*", "*.sqlite", "*.sqlite3", "*.sqlite-*", "*.sqlite3-*", "rata-home",
    DATA_FOLDER_MARK, "*.sock", "dev.restarting",
)  # fmt: skip
"""Names never bundled, at any depth, whatever ``.mcpbignore`` says: caches, version control, virtual environments, app
data (databases, the per-install token, sockets), logs and their rotations."""
SECRETS = (
    "*.pem", "*.key", "*.p12", "*.pfx", "id_*", ".npmrc", ".pypirc", ".netrc", ".envrc", "*.env", "secrets.*",
)  # fmt: skip
"""Files that look secret: left out of a bundle and named in a warning (``!name`` in ``.mcpbignore`` brings one back)."""
IGNORE_FILE = ".mcpbignore"
RATA_DISTRIBUTION = "rata-toolkit"
_CACHES = ("__pycache__", "*.pyc", "*.pyo")
_RATA_LEFT_OUT = ("_docs", "_templates")  # the installed rata's docs and `rata new` templates: not for serving
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")

ENTRY = '''\
"""The app's MCP server, from its MCP Bundle: what `<app> --mcp` serves. Written by rata mcp pack."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
sys.argv[:] = [{name}, "--mcp"]

from rata.cli.appmain import main_for  # noqa: E402 - after sys.path names the bundled packages

main_for({target})
'''


class BundleFile(Record):
    """One file of the bundle: its path in the archive, and its bytes or the file to read them from."""

    __slots__ = ("name", "data", "source")
    _defaults = {"data": None, "source": None}
    name: str
    data: bytes | None
    source: Path | None

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.source is not None, "a bundle file has its data or its source"
        return self.source.read_bytes()


def bundle_name(manifest: dict[str, Any]) -> str:
    """``<name>-<version>.mcpb``, as ``mcpb pack`` names the archive it describes."""
    name = re.sub(r"[^a-z0-9._-]", "", re.sub(r"\s+", "-", str(manifest["name"]).lower()))
    version = re.sub(r"[^A-Za-z0-9._+-]", "", str(manifest["version"]))
    return f"{name}-{version}.mcpb"


def entry_script(name: str, target: str) -> str:
    """``server/main.py``: the bundled packages first on ``sys.path``, then the app's ``--mcp`` server."""
    return ENTRY.format(name=repr(name), target=repr(target))  # repr: any text is a plain string literal


class Selected(Record):
    """The files of a bundle, sorted by path, and what was left out that the user should hear of (`warnings`)."""

    __slots__ = ("files", "warnings")
    files: list[BundleFile]
    warnings: list[str]


def bundle_files(project: Project, manifest_text: str, display_name: str, *, work: Path) -> Selected:
    """Every file of the bundle, sorted by path. `work` is a scratch folder for the dependencies pip installs.

    Raises:
        ConfigError: the app's package is not in the project, a file links outside it, or pip fails.
    """
    import rata

    ignore = Ignore(IGNORED, read_ignore_file(project.root), secrets=True)
    warnings: list[str] = []
    files = [BundleFile("manifest.json", data=manifest_text.encode("utf-8"))]
    files.append(BundleFile("server/main.py", data=entry_script(display_name, app_target(project)).encode("utf-8")))
    if project.icon is not None:
        files.append(BundleFile(project.icon, source=project.root / project.icon))
    package = app_package(project)
    files += _tree(package, "server/lib/" + package.name, project.root, ignore, warnings=warnings)
    rata_folder = Path(rata.__file__).parent
    files += _tree(rata_folder, "server/lib/rata", rata_folder, Ignore(_CACHES), top_only=_RATA_LEFT_OUT)
    extra = other_dependencies(list(project.dependencies))
    if extra:
        lib = work / "lib"
        install_dependencies(extra, lib)
        files += _tree(lib, "server/lib", lib, Ignore(_CACHES), top_only=("bin",))  # a dependency's own files all go in, metadata too
    seen: dict[str, BundleFile] = {}
    for item in files:
        if item.name in seen:
            raise ConfigError(f"Two files would be bundled as {item.name!r}.", hint="Rename one, or leave one out with .mcpbignore.")
        seen[item.name] = item
    return Selected([seen[name] for name in sorted(seen)], warnings)


class Ignore:
    """What is left out of a tree: any path with a part that matches one of `names` (never brought back), then, read
    with gitignore's rules, the secret-looking files (`SECRETS`, when `secrets`) and the ``.mcpbignore`` `lines`."""

    def __init__(self, names: tuple[str, ...], lines: tuple[str, ...] = (), *, secrets: bool = False) -> None:
        self.names = names
        self._lines = lines
        self._secrets = secrets
        self._specs: tuple[Any, Any, Any] | None = None

    def _matchers(self) -> tuple[Any, Any, Any]:
        if self._specs is None:
            import pathspec  # only rata mcp pack reads .mcpbignore

            secret = SECRETS if self._secrets else ()
            make = pathspec.GitIgnoreSpec.from_lines
            self._specs = (make(secret + self._lines), make(secret), make(self._lines))
        return self._specs

    def why(self, relative: PurePosixPath, *, folder: bool = False) -> str | None:
        """None when `relative` (from the project's root) is kept; ``"secret"`` when it is left out for looking secret
        (and ``.mcpbignore`` does not name it too); ``"ignored"`` when it is left out otherwise."""
        if any(fnmatch.fnmatchcase(part, pattern) for part in relative.parts for pattern in self.names):
            return "ignored"
        if not self._lines and not self._secrets:
            return None
        both, secret, user = self._matchers()
        text = str(relative) + ("/" if folder else "")
        if not both.match_file(text):
            return None
        return "secret" if secret.match_file(text) and not user.match_file(text) else "ignored"


def read_ignore_file(root: Path) -> tuple[str, ...]:
    """The lines of the project's ``.mcpbignore``, read with gitignore's rules: ``#`` comments, ``**``, ``!``, ``/``."""
    path = root / IGNORE_FILE
    if not path.is_file():
        return ()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{str(path)!r} cannot be read: {error}.", hint="Save it as UTF-8 text, one pattern a line.") from None
    return tuple(line for line in lines if line.strip() and not line.lstrip().startswith("#"))


def app_package(project: Project) -> Path:
    """The folder (or module file) of the app's top-level package, in the project or its ``src/``."""
    target = app_target(project)
    top = target.partition(":")[0].split(".")[0]
    for base in (project.root / "src", project.root):
        for candidate in (base / top, base / f"{top}.py"):
            if candidate.exists():
                return candidate
    raise ConfigError(
        f"The app's package {top!r} ([tool.rata] app = {target!r}) is not in {str(project.root)!r} or its src/.",
        hint="rata mcp pack bundles the app's package from the project folder.",
    )


def other_dependencies(dependencies: list[str]) -> list[str]:
    """The app's requirements other than rata itself (whose copy is bundled from this installation)."""
    extra = []
    for requirement in dependencies:
        found = _REQUIREMENT_NAME.match(requirement)
        if found is None:
            raise ConfigError(f"[project] dependencies: {requirement!r} is not a requirement.", hint="Fix it in pyproject.toml.")
        if normalize(found.group(1)) != RATA_DISTRIBUTION:
            extra.append(requirement)
    return extra


def install_dependencies(requirements: list[str], lib: Path) -> None:
    """``pip install --target lib``, with this interpreter (so the wheels fit its version and platform)."""
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        "--no-compile",
        "--target",
        str(lib),
        *requirements,
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(
            f"pip could not install the app's dependencies into the bundle: {error}.", hint="Check that pip works: python -m pip --version."
        ) from None
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ConfigError(
            f"pip could not install the app's dependencies into the bundle ({', '.join(requirements)}): {' / '.join(said) or f'exit {result.returncode}'}.",
            hint="Check the requirements in [project] dependencies, and that pip can reach your package index.",
        )


def _tree(
    source: Path, prefix: str, root: Path, ignore: Ignore, *, top_only: tuple[str, ...] = (), warnings: list[str] | None = None
) -> list[BundleFile]:
    """The files under `source` (a folder or one file), named under `prefix`; `root` is what links may not leave.

    What `ignore` leaves out for looking secret, and every app data folder, is said in `warnings`."""
    if source.is_file():
        _inside(source, root)
        return [BundleFile(prefix, source=source)]
    found = []
    real_root = root.resolve()
    secrets: list[str] = []
    for folder, folders, names in os.walk(source, followlinks=False):
        here = Path(folder)
        relative = PurePosixPath(here.relative_to(source).as_posix())
        kept = []
        for name in sorted(folders):
            path = relative / name
            whole = _from_root(source, root, path)
            why = ignore.why(whole, folder=True)
            if why == "secret":
                secrets.append(f"{whole}/")
            if why is not None or (str(relative) == "." and name in top_only):
                continue
            if (here / name).is_symlink():
                raise ConfigError(
                    f"{str(here / name)!r} is a link to a folder; rata mcp pack does not follow it.",
                    hint="Replace it with the folder, or leave it out with .mcpbignore.",
                )
            if warnings is not None and os.path.lexists(here / name / DATA_FOLDER_MARK):
                warnings.append(
                    f"left out {whole}/: it is an app's data folder (it holds {DATA_FOLDER_MARK}, the app's per-install key), "
                    "so nothing in it is bundled. Keep the app's data outside the package: unset RATA_HOME, or point it elsewhere."
                )
                continue
            kept.append(name)
        folders[:] = kept
        for name in sorted(names):
            path = relative / name
            whole = _from_root(source, root, path)
            why = ignore.why(whole)
            if why == "secret":
                secrets.append(str(whole))
            if why is not None:
                continue
            file = here / name
            _inside(file, real_root)
            if file.is_file():
                found.append(BundleFile(f"{prefix}/{path}" if str(relative) != "." else f"{prefix}/{name}", source=file))
    if secrets and warnings is not None:
        warnings.append(
            f"left out {len(secrets)} file(s) that look secret: {', '.join(secrets)}. "
            f"If one belongs in the bundle, bring it back with a line !NAME in {IGNORE_FILE}."
        )
    return found


def _from_root(source: Path, root: Path, path: PurePosixPath) -> PurePosixPath:
    """A path below `source`, as the ignore patterns see it: from the project (`root`) when `source` is inside it."""
    try:
        return PurePosixPath(source.relative_to(root).as_posix()) / path
    except ValueError:
        return path


def _inside(file: Path, real_root: Path) -> None:
    if file.is_symlink() and not file.resolve().is_relative_to(real_root.resolve()):
        raise ConfigError(
            f"{str(file)!r} links outside {str(real_root)!r}; rata mcp pack bundles nothing from outside.",
            hint="Replace the link with the file, or leave it out with .mcpbignore.",
        )


def write_bundle(files: list[BundleFile], path: Path) -> int:
    """Write the ``.mcpb`` archive of `files` to `path` (whole, or not at all); returns its size in bytes."""
    import zipfile

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            for item in files:
                info = zipfile.ZipInfo(item.name, date_time=_ZIP_TIME)
                info.create_system = 3  # Unix, so that the mode below is read
                info.external_attr = 0o100644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, item.read(), compresslevel=9)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path.stat().st_size
