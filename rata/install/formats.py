"""The file formats client configs are written in: JSON, JSONC, TOML and YAML, one row each.

A `Format` names its syntax (what `--list` and `--json` show), the lexer that highlights a
snippet, and how a value is written as a whole file. The merge into an existing file is in
`rata.install.merge`; YAML is written by hand below, since PyYAML is not a dependency.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Format:
    """One config-file format: its name, its highlighter, and its writer (text ending in a newline)."""

    name: str  # json, jsonc, toml, yaml
    lexer: str  # the pygments lexer for a snippet
    dump: Callable[[dict[str, Any]], str]


def _dump_json(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _dump_toml(value: dict[str, Any]) -> str:
    import tomli_w

    return tomli_w.dumps(value)


def _dump_yaml(value: dict[str, Any]) -> str:
    return dump_yaml(value)


JSON = Format("json", "json", _dump_json)
JSONC = Format("jsonc", "json", _dump_json)  # JSON with comments: rata writes plain JSON and keeps the file's comments
TOML = Format("toml", "toml", _dump_toml)
YAML = Format("yaml", "yaml", _dump_yaml)


# --- YAML, written by hand (PyYAML is not a dependency) ----------------------------------------

_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
_YAML_PLAIN = re.compile(r"[A-Za-z_/~-][A-Za-z0-9_/.~@+=-]*")
_YAML_NUMBERISH = re.compile(r"[-+]?(?:\.?[0-9]|\.(?:inf|nan)$)", re.IGNORECASE)
_YAML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _yaml_printable(char: str) -> bool:
    """YAML's printable set, less line breaks and the BOM (which are escaped)."""
    code = ord(char)
    return (0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000) and char not in "\u2028\u2029\ufeff"


def _yaml_quoted(text: str) -> str:
    out = []
    for char in text:
        if char in _YAML_ESCAPES:
            out.append(_YAML_ESCAPES[char])
        elif _yaml_printable(char):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _yaml_scalar(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        shown = repr(value)
        return shown.replace("e", ".0e") if "e" in shown and "." not in shown else shown  # YAML 1.1 wants a dot
    text = str(value)
    plain = _YAML_PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS and text != "-" and not _YAML_NUMBERISH.match(text)
    return text if plain else _yaml_quoted(text)


def dump_yaml(value: dict[str, Any], indent: int = 0) -> str:
    """Block-style YAML for plain data (dicts, lists, strings, numbers, booleans)."""
    return "".join(line + "\n" for line in _yaml_lines(value, indent))


def _yaml_lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{pad}{_yaml_scalar(key)}:"
            if isinstance(item, dict | list) and item:
                lines.append(head)
                lines += _yaml_lines(item, indent + 2)
            else:
                lines.append(f"{head} {'{}' if item == {} else '[]' if item == [] else _yaml_scalar(item)}")
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _yaml_lines(item, indent + 2)
                lines.append(f"{pad}- {inner[0][indent + 2:]}")
                lines += inner[1:]
            elif isinstance(item, list) and item:
                lines.append(f"{pad}-")
                lines += _yaml_lines(item, indent + 2)
            else:
                lines.append(f"{pad}- {'{}' if item == {} else '[]' if item == [] else _yaml_scalar(item)}")
    return lines
