"""Where a lint finding or a drifted item is defined in the project's source, for CI reports.

    where = Locator(app, base=Path.cwd())
    where.finding(finding)          # Location("crm/app.py", 42): the `def` of the command it is about
    where.item("tool", "notes_add") # the same for a tool, command or resource named in a drift

Paths are relative to `base` (the folder CI runs in, the repository's root), with ``/``; a file
outside it keeps its absolute path. Only CI formats use this: it reads source files, which the
human view never needs.
"""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rata.codegen.catalog import RESOURCE_SCHEME
from rata.codegen.lint import Finding

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App


@dataclass(frozen=True)
class Location:
    """A file and, when known, a line (1-based) in it."""

    file: str
    """Relative to the base folder with ``/``, or absolute when the file is outside it."""
    line: int | None = None
    absolute: bool = False


class Locator:
    """Finds the source of an app's commands, prompts and resources (see the module docs)."""

    def __init__(self, app: App, base: Path) -> None:
        self.app = app
        self.base = base.resolve()

    def path(self, file: str | Path) -> tuple[str, bool]:
        """`file` as CI names it: relative to the base with ``/`` (False), or absolute outside it (True)."""
        resolved = Path(file).resolve()
        try:
            return resolved.relative_to(self.base).as_posix(), False
        except ValueError:
            return resolved.as_posix(), True

    def function(self, fn: Any) -> Location | None:
        """The file and the line of the ``def`` of `fn` (after its decorators), or None for code without a source file."""
        try:
            file = inspect.getsourcefile(fn)
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            return None
        if file is None:
            return None
        line = start
        try:
            node = ast.parse(textwrap.dedent("".join(lines))).body[0]
        except (SyntaxError, IndexError):
            node = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            line = start + node.lineno - 1
        name, absolute = self.path(file)
        return Location(name, line, absolute)

    def app_location(self) -> Location | None:
        """Where the `App` is made: its file and line, when it was made in a file."""
        made_at = getattr(self.app, "made_at", None)
        if not made_at or made_at[0].startswith("<") or not Path(made_at[0]).is_file():
            return None
        name, absolute = self.path(made_at[0])
        return Location(name, made_at[1], absolute)

    def command(self, name: str) -> Location | None:
        spec = self.app.specs.get(name)
        return self.function(spec.fn) if spec is not None else None

    def prompt(self, name: str) -> Location | None:
        spec = self.app.prompt_specs.get(name)
        return self.function(spec.fn) if spec is not None else None

    def resource(self, uri: str) -> Location | None:
        """A declared resource's function, a live command's (``app://<command>...``), else where the App is made."""
        declared = self.app.declared.get(uri)
        if declared is not None:
            found = self.function(declared.spec.fn) if declared.spec is not None else None
            return found or self.app_location()
        if uri.startswith(RESOURCE_SCHEME):
            found = self.command(uri[len(RESOURCE_SCHEME) :].split("/")[0])
            if found is not None:
                return found
        return self.app_location()

    def finding(self, finding: Finding) -> Location | None:
        """The definition a lint finding is about: its tool's or prompt's function, its resource's, else the App."""
        found: Location | None = None
        if finding.tool is not None and finding.tool.startswith("prompt:"):
            found = self.prompt(finding.tool.removeprefix("prompt:"))
        elif finding.tool is not None:
            found = self.command(finding.tool)
        elif finding.subject is not None:
            found = self.resource(finding.subject)
        return found or self.app_location()

    def item(self, kind: str, name: str) -> Location | None:
        """A drifted item (``tool``, ``command``, ``resource``, as `rata.codegen.drift` names them) where it is defined now."""
        if kind in ("tool", "command"):
            return self.command(name)
        if kind == "resource":
            return self.resource(name)
        return None

    def in_file(self, file: Path, kind: str | None = None, name: str | None = None) -> Location:
        """The committed `file`, at the line where it holds the item (`kind` and `name`), else its first line."""
        key = "uri" if kind == "resource" else "name"
        needle = f"{json.dumps(key)}: {json.dumps(name, ensure_ascii=False)}" if name is not None else None
        line = 1
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        if needle is not None:
            line = next((number for number, said in enumerate(text.splitlines(), 1) if needle in said), 1)
        path, absolute = self.path(file)
        return Location(path, line, absolute)
