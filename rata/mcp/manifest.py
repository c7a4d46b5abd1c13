"""An app's MCP manifest: what its server answers without running any of its code.

An app's console script names its app by reference (``main_for("crm.app:app")``), so
``crm --mcp`` can start without importing it. The manifest of ``crm.app`` lives beside the
module's bytecode, under the interpreter's own rules (``crm/__pycache__/app.cpython-311.rata-mcp.json``,
or under ``sys.pycache_prefix`` when one is set), and records:

- the server's answers that need no app: its info, capabilities and instructions, the tools of
  each protocol era and the resources (`AppServer.offer`);
- the app's name, identifier and folder, for the logs and the running-app check;
- every non-standard-library source file the app had loaded, with its size and modification
  time, and the Python version and ``-O`` level.

It is used only while all of that still matches (`read`), and rewritten by the server whenever
the loaded app's answers differ from it or it is missing (`write`). A manifest that cannot be
read or written is never an error: the server then starts the ordinary way.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from typing import Any

    from rata.app import App

FORMAT = 1
SUFFIX = ".rata-mcp.json"


class Manifest:
    """A manifest that still describes the code on disk."""

    __slots__ = ("ref", "file", "data")

    def __init__(self, ref: str, file: str, data: dict[str, Any]) -> None:
        self.ref = ref
        self.file = file
        self.data = data

    @property
    def offer(self) -> dict[str, Any]:
        return self.data["offer"]

    @property
    def name(self) -> str:
        return self.data["app"]["name"]

    def folder_location(self) -> str:
        """The app's folder, as the app would find it now (RATA_HOME is read at this moment)."""
        explicit = self.data["app"]["folder"]
        if explicit is not None:
            return explicit
        from rata.folder import default_location

        return default_location(self.data["app"]["identifier"])


def manifest_file(ref: str) -> str | None:
    """Where the manifest of the app at `ref` (``module:attribute``) lives; None when its module has no source file."""
    module = ref.partition(":")[0]
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)  # imports the parent packages, not the module
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    if not origin or not origin.endswith(".py"):
        return None
    try:
        cached = importlib.util.cache_from_source(origin)
    except (NotImplementedError, ValueError):
        return None
    return cached.removesuffix(".pyc") + SUFFIX


def read(ref: str) -> Manifest | None:
    """The manifest of the app at `ref`, if there is one and the code it describes has not changed."""
    file = manifest_file(ref)
    if file is None:
        return None
    try:
        with open(file, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not _still_true(data, ref):
        return None
    from rata.codegen.sanitize import clean_info, clean_instructions

    offer = data["offer"]  # cleaned again: the file may come from an older rata, or have been edited
    offer["info"], offer["instructions"] = clean_info(offer["info"]), clean_instructions(offer["instructions"])
    return Manifest(ref, file, data)


def _still_true(data: Any, ref: str) -> bool:
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("ref") != ref:
        return False
    if data.get("python") != sys.version or data.get("optimize") != sys.flags.optimize:
        return False
    app, offer, files = data.get("app"), data.get("offer"), data.get("files")
    if not isinstance(app, dict) or not isinstance(offer, dict) or not isinstance(files, list) or not files:
        return False
    if not isinstance(app.get("name"), str) or not isinstance(app.get("identifier"), str) or not isinstance(app.get("folder"), (str, type(None))):
        return False
    if not _offer_shape(offer):
        return False
    for entry in files:
        if not isinstance(entry, list) or len(entry) != 3 or not isinstance(entry[0], str):
            return False
        try:
            status = os.stat(entry[0])
        except OSError:
            return False
        if status.st_mtime_ns != entry[1] or status.st_size != entry[2]:
            return False
    return True


def _offer_shape(offer: dict[str, Any]) -> bool:
    tools = offer.get("tools")
    return (
        isinstance(offer.get("info"), dict)
        and isinstance(offer.get("capabilities"), dict)
        and isinstance(offer.get("instructions"), str)
        and isinstance(tools, dict)
        and isinstance(tools.get("modern"), list)
        and isinstance(tools.get("legacy"), list)
        and isinstance(offer.get("resources"), list)
        and isinstance(offer.get("prompts"), list)
        and isinstance(offer.get("templates"), list)
    )


def write(ref: str, app: App, offer: dict[str, Any]) -> str | None:
    """Record `offer` as the manifest of the app at `ref`; returns its path, or None when it cannot be written."""
    file = manifest_file(ref)
    if file is None:
        return None
    from rata.folder import default_location

    folder = app.folder.where
    data = {
        "format": FORMAT,
        "ref": ref,
        "python": sys.version,
        "optimize": sys.flags.optimize,
        "app": {"name": app.name, "identifier": app.identifier, "folder": None if folder == default_location(app.identifier) else folder},
        "offer": offer,
        "files": source_files(),
    }
    temporary = f"{file}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(file), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(temporary, file)  # readers see the old manifest or the new one, never half of one
    except OSError:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return None
    return file


def source_files() -> list[list[Any]]:
    """``[path, mtime_ns, size]`` of every loaded module's file outside the standard library, sorted."""
    stdlib = os.path.dirname(os.__file__) + os.sep
    seen: dict[str, list[Any]] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        path = os.path.abspath(path)
        if path in seen:
            continue
        if path.startswith(stdlib) and path[len(stdlib) :].split(os.sep, 1)[0] not in ("site-packages", "dist-packages"):
            continue
        try:
            status = os.stat(path)
        except OSError:
            continue
        seen[path] = [path, status.st_mtime_ns, status.st_size]
    return [seen[path] for path in sorted(seen)]
