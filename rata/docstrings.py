"""Google-style docstrings: a summary, a body, and named sections.

    parse_docstring('''Add a customer.

    Args:
        name: Full name.
        email: Email address; must be unique.
    ''')

gives the description ``"Add a customer."`` and ``{"name": "Full name.", "email": ...}``.
Only the sections rata uses are read (``Args``/``Arguments``/``Parameters`` for commands,
``Attributes`` for dataclasses); ``Returns``, ``Raises`` and the rest are left out of the
description, because they describe Python, not the tool.
"""

from __future__ import annotations

import inspect
import re

_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "attributes", "fields"}
_SECTION = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_KNOWN_SECTIONS = _PARAM_SECTIONS | {
    "returns", "return", "yields", "raises", "examples", "example", "note", "notes",
    "see also", "warning", "warnings", "todo", "references",
}


class Docstring:
    """What a docstring says about a command or a type."""

    __slots__ = ("description", "params")

    def __init__(self, description: str = "", params: dict[str, str] | None = None) -> None:
        self.description = description
        self.params: dict[str, str] = params if params is not None else {}


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its description and its per-parameter descriptions."""
    if not doc:
        return Docstring()
    lines = inspect.cleandoc(doc).splitlines()
    body: list[str] = []
    params: dict[str, list[str]] = {}
    section: str | None = None
    current: str | None = None
    item_indent = 0
    for line in lines:
        header = _SECTION.match(line)
        if header and header.group(1).strip().lower() in _KNOWN_SECTIONS:
            section = header.group(1).strip().lower()
            current = None
            continue
        if section is None:
            body.append(line)
            continue
        if section not in _PARAM_SECTIONS:
            continue
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        item = _ITEM.match(stripped)
        if item and (current is None or indent <= item_indent):
            name: str = item.group(1).lstrip("*")
            current, item_indent = name, indent
            params[name] = [item.group(2).strip()] if item.group(2).strip() else []
        elif current is not None and stripped:
            params[current].append(stripped)
    return Docstring(
        description=_join_paragraphs(body),
        params={name: " ".join(words).strip() for name, words in params.items()},
    )


def _join_paragraphs(lines: list[str]) -> str:
    """Rejoin wrapped lines; keep blank-line paragraph breaks."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)
