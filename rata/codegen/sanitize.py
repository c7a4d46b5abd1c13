"""What reaches an agent is cleaned and bounded.

A tool list is part of the model's instructions, so text in it is a place for prompt
injection. `clean_text` removes characters a reader cannot see but a model reads: control
characters (except newline and tab), bidirectional overrides and isolates, zero-width and
other format characters, tag characters, variation selectors, private-use and unassigned
code points, and invisible fillers. `clean_schema` applies it to every string in a schema.
`check_bounds` refuses schemas nested deeper than `MAX_DEPTH` or holding more than
`MAX_VALUES` JSON values.
"""

from __future__ import annotations

from typing import Any

from rata.errors import SchemaBoundsError

MAX_DEPTH = 32
MAX_VALUES = 10_000
_KEEP = {"\n", "\t"}
_DROP_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}
_INVISIBLE = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E, 0x034F}
_LINE_BREAKS = {"\u2028": "\n", "\u2029": "\n\n", "\r\n": "\n", "\r": "\n"}


def _is_invisible(char: str) -> bool:
    if char in _KEEP:
        return False
    code = ord(char)
    if code in _INVISIBLE:
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    import unicodedata  # loaded for text that is not plain printable ASCII, which most schemas never hold

    return unicodedata.category(char) in _DROP_CATEGORIES


def clean_text(text: str) -> str:
    """`text` without invisible and control characters; line separators become newlines."""
    if text.isascii() and text.isprintable():
        return text
    for sequence, replacement in _LINE_BREAKS.items():
        text = text.replace(sequence, replacement)
    if text.isascii():  # the only invisible ASCII characters are the controls (category Cc)
        return "".join(char for char in text if " " <= char < "\x7f" or char in _KEEP)
    return "".join(char for char in text if not _is_invisible(char))


def clean_schema(value: Any) -> Any:
    """A copy of a JSON value with `clean_text` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_schema(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_schema(item) for key, item in value.items()}
    return value


_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def subschemas(schema: Any) -> list[tuple[str, Any]]:
    """The schemas directly inside `schema`, each with its JSON-pointer suffix (``/properties/name``)."""
    if not isinstance(schema, dict):
        return []
    found: list[tuple[str, Any]] = []
    for key in _SUBSCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            found.extend((f"/{key}/{name}", sub) for name, sub in schema[key].items())
    for key in _SUBSCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            found.extend((f"/{key}/{i}", sub) for i, sub in enumerate(schema[key]))
    for key in _SUBSCHEMA_ONE:
        if isinstance(schema.get(key), (dict, bool)):
            found.append((f"/{key}", schema[key]))
    return found


def schema_depth(schema: Any) -> int:
    """How many schemas deep `schema` nests (a flat object of scalars is 2)."""
    if not isinstance(schema, dict):
        return 0
    return 1 + max((schema_depth(sub) for _, sub in subschemas(schema)), default=0)


def count_values(value: Any) -> int:
    """Every JSON value in `value`, containers and scalars alike."""
    if isinstance(value, dict):
        return 1 + sum(count_values(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(count_values(v) for v in value)
    return 1


def check_bounds(schema: dict[str, Any], where: str) -> None:
    """Raise `SchemaBoundsError` if the schema is too deep or too large to show an agent."""
    depth = schema_depth(schema)
    if depth > MAX_DEPTH:
        raise SchemaBoundsError(
            f"{where}: the schema nests {depth} levels deep; at most {MAX_DEPTH} are allowed.",
            hint="Flatten the types (fewer nested dataclasses or lists of lists), or split the command.",
        )
    values = count_values(schema)
    if values > MAX_VALUES:
        raise SchemaBoundsError(
            f"{where}: the schema holds {values} JSON values; at most {MAX_VALUES} are allowed.",
            hint="Shrink it: fewer fields or enum members, or a simpler type for the large part.",
        )
