"""`rata mcp pack`: write an app's bundle manifest and its ``.mcpb`` file, or check the manifest.

    packed = pack(load_app(None), output=None, replace=False)
    drift = check_manifest(load_app(None))

The manifest is written to ``manifest.json`` in the project, where it is committed (and where
``mcpb validate`` reads it); the ``.mcpb`` goes to ``dist/`` (or `output`). A ``manifest.json``
that rata did not write is never overwritten unless `replace` says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from rata._record import Record
from rata.codegen.catalog import build_catalog
from rata.codegen.drift import Drift, compare, read_json_file
from rata.errors import ConfigError
from rata.loader import LoadedApp
from rata.shipping.bundle import MANIFEST_FILE, build_manifest, manifest_json, marked
from rata.shipping.bundle_files import bundle_files, bundle_name, write_bundle
from rata.shipping.owned import standing
from rata.shipping.project import Project, project_of

DEFAULT_OUTPUT = "dist"
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")


class Planned(Record):
    """The project, its manifest and the manifest's text."""

    __slots__ = ("project", "manifest", "text")
    project: Project
    manifest: dict
    text: str


class Packed(Record):
    """What `pack` wrote."""

    __slots__ = ("manifest_path", "manifest_changed", "bundle_path", "size", "files", "warnings")
    manifest_path: Path
    manifest_changed: bool
    bundle_path: Path
    size: int
    files: int
    warnings: list[str]


def plan(loaded: LoadedApp) -> Planned:
    """The manifest for the loaded app, from its catalog and its project."""
    project = project_of(loaded)
    manifest = build_manifest(build_catalog(loaded.app).to_dict(), project, app_description=loaded.app.description)
    return Planned(project, manifest, manifest_json(manifest))


def check_manifest(loaded: LoadedApp) -> tuple[Path, Drift]:
    """The committed ``manifest.json`` against the one the app makes now (empty `Drift`: up to date)."""
    planned = plan(loaded)
    path = planned.project.root / MANIFEST_FILE
    saved = read_json_file(path, "bundle manifest", "rata mcp pack")
    return path, compare(saved, json.loads(planned.text), saved_name=str(path), current_name="current app")


def pack(loaded: LoadedApp, output: Path | None, *, replace: bool = False) -> Packed:
    """Write ``manifest.json`` in the project and the bundle, ``<output>/<name>-<version>.mcpb``.

    Raises:
        ConfigError: the project's ``manifest.json`` is not one rata wrote (and not `replace`), or the
            project cannot be bundled (see `read_project`, `build_manifest`, `bundle_files`).
    """
    import tempfile

    planned = plan(loaded)
    root = planned.project.root
    path = root / MANIFEST_FILE
    changed = True
    if path.exists() or path.is_symlink():
        if not path.is_file() or path.is_symlink():
            raise ConfigError(f"{str(path)!r} is not a plain file; rata mcp pack writes the manifest only as one.", hint="Move it away.")
        found = standing(path, planned.text, marked)
        if found == "same":
            changed = False
        elif found == "theirs" and not replace:
            raise ConfigError(
                f"{str(path)!r} exists and rata did not write it; rata mcp pack leaves it alone.",
                hint="Move it away, or pass --replace to overwrite it with the bundle's manifest.",
            )
    folder = output if output is not None else root / DEFAULT_OUTPUT
    with tempfile.TemporaryDirectory(prefix="rata-pack-") as work:
        selected = bundle_files(planned.project, planned.text, planned.manifest["display_name"], work=Path(work))
        files = selected.files
        bundle = folder / bundle_name(planned.manifest)
        size = write_bundle(files, bundle)
    if changed:
        path.write_text(planned.text, encoding="utf-8")
    warnings = selected.warnings + compiled_code_warnings([item.name for item in files], list(planned.project.platforms))
    return Packed(path, changed, bundle, size, len(files), warnings)


def compiled_code_warnings(names: list[str], platforms: list[str]) -> list[str]:
    """A warning when the bundle holds compiled code but claims more platforms than the one it was built on."""
    import sys

    compiled = sorted(name for name in names if name.endswith(COMPILED_SUFFIXES))
    if not compiled or platforms == [sys.platform]:
        return []
    more = f" and {len(compiled) - 1} more" if len(compiled) > 1 else ""
    return [
        f"The bundle holds compiled code ({compiled[0]}{more}), built for {sys.platform} and Python {sys.version_info.major}.{sys.version_info.minor},"
        f" but claims the platforms {', '.join(platforms)}. Set [tool.rata.bundle] platforms = [\"{sys.platform}\"], and pack on each platform."
    ]
