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
app data and logs are left out (`IGNORED`), and so is whatever the project's ``.mcpbignore``
names; from rata and the dependencies, bytecode caches. The same files
give the same bytes: entries sorted, fixed times and modes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path, PurePosixPath

from rata._record import Record
from rata.errors import ConfigError
from rata.shipping.bundle import app_target

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from typing import Any

    from rata.shipping.project import Project

IGNORED = (
    "__pycache__", "*.pyc", "*.pyo", ".git", ".hg", ".svn", ".venv", "venv", ".env", ".env.*", ".tox", ".nox",
    ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", "node_modules", ".DS_Store", "Thumbs.db",
    "*.mcpb", "*.log", "*.db", "*.db-*", "*.sqlite", "*.sqlite3", "*.sqlite-*", "*.sqlite3-*", "rata-home",
)  # fmt: skip
"""Names never bundled, at any depth: caches, version control, virtual environments, app data, logs."""
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
        return self.data if self.data is not None else self.source.read_bytes()  # type: ignore[union-attr]


def bundle_name(manifest: dict[str, Any]) -> str:
    """``<name>-<version>.mcpb``, as ``mcpb pack`` names the archive it describes."""
    name = re.sub(r"[^a-z0-9._-]", "", re.sub(r"\s+", "-", str(manifest["name"]).lower()))
    version = re.sub(r"[^A-Za-z0-9._+-]", "", str(manifest["version"]))
    return f"{name}-{version}.mcpb"


def entry_script(name: str, target: str) -> str:
    """``server/main.py``: the bundled packages first on ``sys.path``, then the app's ``--mcp`` server."""
    return ENTRY.format(name=repr(name), target=repr(target))  # repr: any text is a plain string literal


def bundle_files(project: Project, manifest_text: str, display_name: str, *, work: Path) -> list[BundleFile]:
    """Every file of the bundle, sorted by path. `work` is a scratch folder for the dependencies pip installs.

    Raises:
        ConfigError: the app's package is not in the project, a file links outside it, or pip fails.
    """
    import rata

    ignored = IGNORED + read_ignore_file(project.root)
    files = [BundleFile("manifest.json", data=manifest_text.encode("utf-8"))]
    files.append(BundleFile("server/main.py", data=entry_script(display_name, app_target(project)).encode("utf-8")))
    if project.icon is not None:
        files.append(BundleFile(project.icon, source=project.root / project.icon))
    package = app_package(project)
    files += _tree(package, "server/lib/" + package.name, project.root, ignored)
    rata_folder = Path(rata.__file__).parent
    files += _tree(rata_folder, "server/lib/rata", rata_folder, _CACHES, top_only=_RATA_LEFT_OUT)
    extra = other_dependencies(list(project.dependencies))
    if extra:
        lib = work / "lib"
        install_dependencies(extra, lib)
        files += _tree(lib, "server/lib", lib, _CACHES, top_only=("bin",))  # a dependency's own files all go in, metadata too
    seen: dict[str, BundleFile] = {}
    for item in files:
        if item.name in seen:
            raise ConfigError(f"Two files would be bundled as {item.name!r}.", hint="Rename one, or leave one out with .mcpbignore.")
        seen[item.name] = item
    return [seen[name] for name in sorted(seen)]


def read_ignore_file(root: Path) -> tuple[str, ...]:
    """The patterns of the project's ``.mcpbignore``: one a line, ``#`` comments; each a name or a path glob."""
    path = root / IGNORE_FILE
    if not path.is_file():
        return ()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{str(path)!r} cannot be read: {error}.", hint="Save it as UTF-8 text, one pattern a line.") from None
    return tuple(line.strip().strip("/") for line in lines if line.strip() and not line.strip().startswith("#") and line.strip().strip("/"))


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
        if re.sub(r"[-_.]+", "-", found.group(1)).lower() != RATA_DISTRIBUTION:
            extra.append(requirement)
    return extra


def install_dependencies(requirements: list[str], lib: Path) -> None:
    """``pip install --target lib``, with this interpreter (so the wheels fit its version and platform)."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "--no-compile", "--target", str(lib), *requirements]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"pip could not install the app's dependencies into the bundle: {error}.", hint="Check that pip works: python -m pip --version.") from None
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ConfigError(
            f"pip could not install the app's dependencies into the bundle ({', '.join(requirements)}): {' / '.join(said) or f'exit {result.returncode}'}.",
            hint="Check the requirements in [project] dependencies, and that pip can reach your package index.",
        )


def ignored_path(relative: PurePosixPath, patterns: tuple[str, ...]) -> bool:
    """Whether a path is left out: one of its parts matches a name pattern, or the whole path a path pattern."""
    text = str(relative)
    for pattern in patterns:
        if "/" in pattern:
            if fnmatch.fnmatchcase(text, pattern) or fnmatch.fnmatchcase(text, pattern + "/*"):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern) for part in relative.parts):
            return True
    return False


def _tree(source: Path, prefix: str, root: Path, ignored: tuple[str, ...], *, top_only: tuple[str, ...] = ()) -> list[BundleFile]:
    """The files under `source` (a folder or one file), named under `prefix`; `root` is what links may not leave."""
    if source.is_file():
        _inside(source, root)
        return [BundleFile(prefix, source=source)]
    found = []
    real_root = root.resolve()
    for folder, folders, names in os.walk(source, followlinks=False):
        here = Path(folder)
        relative = PurePosixPath(here.relative_to(source).as_posix())
        kept = []
        for name in sorted(folders):
            path = relative / name
            if ignored_path(_from_root(source, root, path), ignored) or (str(relative) == "." and name in top_only):
                continue
            if (here / name).is_symlink():
                raise ConfigError(f"{str(here / name)!r} is a link to a folder; rata mcp pack does not follow it.", hint="Replace it with the folder, or leave it out with .mcpbignore.")
            kept.append(name)
        folders[:] = kept
        for name in sorted(names):
            path = relative / name
            if ignored_path(_from_root(source, root, path), ignored):
                continue
            file = here / name
            _inside(file, real_root)
            if file.is_file():
                found.append(BundleFile(f"{prefix}/{path}" if str(relative) != "." else f"{prefix}/{name}", source=file))
    return found


def _from_root(source: Path, root: Path, path: PurePosixPath) -> PurePosixPath:
    """A path below `source`, as the ignore patterns see it: from the project (`root`) when `source` is inside it."""
    try:
        return PurePosixPath(source.relative_to(root).as_posix()) / path
    except ValueError:
        return path


def _inside(file: Path, real_root: Path) -> None:
    if file.is_symlink() and not file.resolve().is_relative_to(real_root.resolve()):
        raise ConfigError(f"{str(file)!r} links outside {str(real_root)!r}; rata mcp pack bundles nothing from outside.", hint="Replace the link with the file, or leave it out with .mcpbignore.")


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
