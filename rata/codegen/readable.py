"""A JSON schema as a person reads it: one row per parameter, a short type, its constraints.

    rows = parameters(tool["inputSchema"])   # [Row(name="limit", type="integer", need="default 50", rules="1 ≤ x ≤ 500", ...)]
    type_text(tool["outputSchema"])          # "list[object]"
    definitions(tool["inputSchema"])         # the `$defs` the schema uses, each with its own rows

It reads any JSON value as a schema, since the schema may come from an app or a file: it
never raises, every text in a row is cleaned (`rata.cleantext`) and bounded, and nesting,
row counts and enum lists are cut. It prints nothing: `rata mcp inspect` lays the rows out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rata.cleantext import clean_line

MAX_NAME = 80
MAX_TYPE = 100
MAX_RULES = 120
MAX_DEFAULT = 40
MAX_DESCRIPTION = 300
MAX_ROWS = 60
"""Rows of one table; the rest are counted in a last row."""
MAX_NESTING = 3
"""Levels of an inline object's fields shown as rows of their own (``address.city``)."""
MAX_TYPE_DEPTH = 6
ENUM_SHOWN = 6
"""Values of an enum written out in its type; a longer enum shows its first ones and its size."""

_ANY = "any"
GE = "\u2265"


@dataclass(frozen=True)
class Row:
    name: str
    type: str
    need: str
    """``yes`` (required), ``default <value>``, or ``no``."""
    rules: str
    """The constraints: ``1 ≤ x ≤ 500``, ``max 200 chars``, ``pattern ^a+$``..."""
    description: str


@dataclass(frozen=True)
class Definition:
    """One ``$defs`` entry a schema refers to (``Node`` for ``{"$ref": "#/$defs/Node"}``)."""

    name: str
    type: str
    description: str
    rows: list[Row]


def parameters(schema: Any) -> list[Row]:
    """One row per property of an object schema (a tool's or a prompt's arguments); nested inline objects add rows."""
    rows: list[Row] = []
    _object_rows(schema, "", 0, rows)
    return _bounded(rows)


def fields(schema: Any) -> list[Row]:
    """The rows of the object a result holds: the schema itself, the items of a list, the non-null side of ``X | null``."""
    for _ in range(MAX_TYPE_DEPTH):
        if not isinstance(schema, dict) or isinstance(schema.get("properties"), dict):
            break
        schema = _single_option(schema) or (schema.get("items") if _names(schema) == ["array"] else None)
    return parameters(schema)


def definitions(schema: Any) -> list[Definition]:
    """The ``$defs`` (or ``definitions``) entries `schema` refers to, directly or through each other, in first-use order."""
    if not isinstance(schema, dict):
        return []
    defs = {**_mapping(schema.get("definitions")), **_mapping(schema.get("$defs"))}
    seen: list[str] = []
    stack = [schema]
    budget = 10_000  # schemas visited at most, however the definitions refer to each other
    while stack and budget > 0 and len(seen) < MAX_ROWS:
        current = stack.pop()
        budget -= 1
        if isinstance(current, dict):
            name = _ref_name(current.get("$ref"))
            if name is not None and name in defs and name not in seen:
                seen.append(name)
                stack.append(defs[name])
            stack.extend(reversed([value for key, value in current.items() if key not in ("$defs", "definitions", "const", "enum", "default", "examples")]))
        elif isinstance(current, list):
            stack.extend(reversed(current))
    return [
        Definition(clean_line(name, MAX_NAME), type_text(defs[name]), _description(defs[name]), parameters(defs[name]) if _is_object(defs[name]) else [])
        for name in seen
    ]


def type_text(schema: Any, depth: int = 0) -> str:
    """A short human form of a schema's type: ``integer``, ``string (email)``, ``"a" | "b"``, ``list[Node]``, ``integer | null``."""
    if schema is None:
        return "nothing"
    return clean_line(_type(schema, depth), MAX_TYPE)


def rules_text(schema: Any) -> str:
    """A schema's constraints in words, ``; ``-separated (the non-null side's too, for ``X | null``)."""
    if not isinstance(schema, dict):
        return ""
    rules = _rules(schema)
    single = _single_option(schema)
    if isinstance(single, dict):
        rules += _rules(single)
    return clean_line("; ".join(dict.fromkeys(rules)), MAX_RULES)


def literal(value: Any, limit: int = MAX_DEFAULT) -> str:
    """A JSON value written as JSON on one line, cut at `limit` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        text = "\u2026"
    return clean_line(text, limit)


def _object_rows(schema: Any, prefix: str, level: int, rows: list[Row]) -> None:
    if not isinstance(schema, dict):
        return
    required = schema.get("required")
    required = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
    for name, prop in _mapping(schema.get("properties")).items():
        if isinstance(prop, dict) and "default" in prop:
            need = "default " + literal(prop["default"])
        else:
            need = "yes" if name in required else "no"
        full = prefix + clean_line(str(name), MAX_NAME)
        rows.append(Row(clean_line(full, MAX_NAME), type_text(prop), need, rules_text(prop), _description(prop)))
        inner, suffix = _inline_object(prop)
        if inner is not None and level + 1 < MAX_NESTING:
            _object_rows(inner, f"{full}{suffix}.", level + 1, rows)


def _inline_object(schema: Any) -> tuple[dict[str, Any] | None, str]:
    """The inline object whose fields become rows of their own: the schema, its list items (``[]``), its non-null side."""
    suffix = ""
    for _ in range(4):
        if not isinstance(schema, dict) or "$ref" in schema:
            return None, ""
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            return schema, suffix
        single = _single_option(schema)
        if single is not None:
            schema = single
        elif _names(schema) == ["array"]:
            schema, suffix = schema.get("items"), suffix + "[]"
        else:
            return None, ""
    return None, ""


def _bounded(rows: list[Row]) -> list[Row]:
    if len(rows) <= MAX_ROWS:
        return rows
    return [*rows[: MAX_ROWS - 1], Row("\u2026", "", "", "", f"{len(rows) - MAX_ROWS + 1} more not shown")]


def _type(schema: Any, depth: int) -> str:  # noqa: C901 - one branch per schema keyword
    if schema is True or schema == {}:
        return _ANY
    if schema is False:
        return "never"
    if not isinstance(schema, dict):
        return "?"
    if depth > MAX_TYPE_DEPTH:
        return "\u2026"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = _ref_name(ref)
        return clean_line(name, 40) if name is not None else f"ref {literal(ref)}"
    if "const" in schema:
        return literal(schema["const"])
    if isinstance(schema.get("enum"), list):
        values = schema["enum"]
        shown = [literal(value, 30) for value in values[: ENUM_SHOWN if len(values) <= ENUM_SHOWN else ENUM_SHOWN // 2]]
        return " | ".join(shown + (["\u2026"] if len(values) > ENUM_SHOWN else [])) or "never"
    for key, joiner in (("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")):
        options = schema.get(key)
        if isinstance(options, list) and options:
            parts = list(dict.fromkeys(_type(option, depth + 1) for option in options[:ENUM_SHOWN * 2]))
            return joiner.join(parts + (["\u2026"] if len(options) > ENUM_SHOWN * 2 else []))
    names = _names(schema)
    if not names:
        if isinstance(schema.get("properties"), dict):
            return "object"
        if "items" in schema or "prefixItems" in schema:
            names = ["array"]
        else:
            return _ANY
    return " | ".join(_named(name, schema, depth) for name in names[:8])


def _named(name: str, schema: dict[str, Any], depth: int) -> str:
    if name == "string":
        notes = [clean_line(str(schema[key]), 30) for key in ("format", "contentEncoding", "contentMediaType") if isinstance(schema.get(key), str)]
        return f"string ({', '.join(notes)})" if notes else "string"
    if name == "array":
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            return "tuple[" + ", ".join(_type(item, depth + 1) for item in prefix[:ENUM_SHOWN]) + (", \u2026]" if len(prefix) > ENUM_SHOWN else "]")
        return f"list[{_type(schema.get('items', True), depth + 1)}]"
    if name == "object":
        extra = schema.get("additionalProperties")
        if not _mapping(schema.get("properties")) and (isinstance(extra, dict) or extra is True):
            keys = schema.get("propertyNames")
            return f"dict[{_type(keys, depth + 1) if isinstance(keys, dict) else 'string'}, {_type(extra, depth + 1)}]"
        return "object"
    return clean_line(name, 30)


def _rules(schema: dict[str, Any]) -> list[str]:
    rules: list[str] = []
    low, high = _bound(schema, "minimum", "\u2264"), _bound(schema, "exclusiveMinimum", "<")
    top, over = _bound(schema, "maximum", "\u2264"), _bound(schema, "exclusiveMaximum", "<")
    lower, upper = high or low, over or top
    if lower and upper:
        rules.append(f"{lower[0]} {lower[1]} x {upper[1]} {upper[0]}")
    elif lower:
        rules.append(f"x {'>' if lower[1] == '<' else GE} {lower[0]}")
    elif upper:
        rules.append(f"x {upper[1]} {upper[0]}")
    if _number(schema.get("multipleOf")):
        rules.append(f"multiple of {literal(schema['multipleOf'])}")
    if not isinstance(schema.get("prefixItems"), list):
        rules.extend(_sizes(schema, "minItems", "maxItems", "item"))
    rules.extend(_sizes(schema, "minLength", "maxLength", "char"))
    rules.extend(_sizes(schema, "minProperties", "maxProperties", "key"))
    if schema.get("uniqueItems") is True:
        rules.append("unique")
    if isinstance(schema.get("pattern"), str):
        rules.append("pattern " + clean_line(schema["pattern"], 60))
    if isinstance(schema.get("enum"), list) and len(schema["enum"]) > ENUM_SHOWN:
        rules.append(f"one of {len(schema['enum'])}")
    if schema.get("deprecated") is True:
        rules.append("deprecated")
    items = schema.get("items")
    if isinstance(items, dict) and "$ref" not in items:
        inner = _rules(items)
        if inner:
            rules.append("each " + ", ".join(inner))
    return rules


def _bound(schema: dict[str, Any], key: str, sign: str) -> tuple[str, str] | None:
    return (literal(schema[key], 20), sign) if _number(schema.get(key)) else None


def _sizes(schema: dict[str, Any], low_key: str, high_key: str, unit: str) -> list[str]:
    low = schema.get(low_key) if _number(schema.get(low_key)) else None
    high = schema.get(high_key) if _number(schema.get(high_key)) else None
    if low is not None and high is not None:
        return [f"exactly {_count(low, unit)}" if low == high else f"{literal(low, 20)}\u2013{_count(high, unit)}"]
    if high is not None:
        return [f"max {_count(high, unit)}"]
    if low is not None and low != 0:
        return [f"min {_count(low, unit)}"]
    return []


def _count(n: Any, unit: str) -> str:
    return f"{literal(n, 20)} {unit}" if n == 1 else f"{literal(n, 20)} {unit}s"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")


def _names(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return list(dict.fromkeys(name for name in kind if isinstance(name, str)))
    return []


def _single_option(schema: dict[str, Any]) -> Any:
    """The one option of ``anyOf``/``oneOf`` that is not ``null`` (``X | null``), else None."""
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            rest = [option for option in options if not (isinstance(option, dict) and option.get("type") == "null")]
            if len(rest) == 1 and len(options) == 2:
                return rest[0]
    return None


def _is_object(schema: Any) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("properties"), dict)


def _mapping(value: Any) -> dict[str, Any]:
    return {key: item for key, item in value.items() if isinstance(key, str)} if isinstance(value, dict) else {}


def _ref_name(ref: Any) -> str | None:
    """``Node`` for ``#/$defs/Node`` (or ``#/definitions/Node``), with JSON-pointer escapes undone; else None."""
    if not isinstance(ref, str):
        return None
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix) and "/" not in ref[len(prefix) :]:
            return ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
    return None


def _description(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, dict) else None
    return clean_line(" ".join(text.split()), MAX_DESCRIPTION) if isinstance(text, str) else ""
