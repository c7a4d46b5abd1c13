"""Comparing a saved JSON surface or catalog with the current one, for CI.

    drift = compare(saved_text, current_text, saved="mcp-surface.json", current="app")
    if drift: print(drift.report())
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rata.cleantext import quote
from rata.codegen.catalog import dump_json
from rata.errors import ConfigError


@dataclass(frozen=True)
class Drift:
    """How the current surface differs from the saved one."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.diff)

    def summary(self) -> list[str]:
        """One line per kind of change; a name with a line break or another hidden character is shown quoted and escaped
        (`rata.cleantext.quote`), so that no text from the saved file can begin a line of rata's (a CI workflow command)."""
        lines = []
        for label, names in (("added", self.added), ("removed", self.removed), ("changed", self.changed)):
            if names:
                lines.append(f"{label}: {', '.join(_shown_key(name) for name in names)}")
        return lines


def _shown_key(key: str) -> str:
    kind, _, name = key.partition(" ")
    return key if name.isprintable() else f"{kind} {quote(name)}"


def read_json_file(path: Path, what: str, how_to_make: str) -> Any:
    """Parse a saved JSON file, with errors that say how to make a good one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"The {what} file {str(path)!r} does not exist.", hint=f"Create it with: {how_to_make}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"The {what} file {str(path)!r} is not valid JSON (line {error.lineno}: {error.msg}).",
            hint=f"Make it again with: {how_to_make}",
        ) from None


def _items(value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for kind in ("tools", "resources", "commands"):
            for item in value.get(kind, []) or []:
                if isinstance(item, dict):
                    key = item.get("name") if kind != "resources" else item.get("uri")
                    out[f"{kind[:-1]} {key}"] = item
    return out


def compare(saved: Any, current: Any, *, saved_name: str, current_name: str) -> Drift:
    """The drift between two JSON values, by item and as a unified diff of their text."""
    before, after = _items(saved), _items(current)
    added = sorted(k for k in after if k not in before)
    removed = sorted(k for k in before if k not in after)
    changed = sorted(k for k in after if k in before and before[k] != after[k])
    diff = list(
        difflib.unified_diff(
            dump_json(saved).splitlines(),
            dump_json(current).splitlines(),
            fromfile=saved_name,
            tofile=current_name,
            lineterm="",
        )
    )
    return Drift(added, removed, changed, diff)
