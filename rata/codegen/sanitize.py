"""What reaches an agent is cleaned and bounded.

A tool list is part of the model's instructions, so text in it is a place for prompt
injection. `clean_text` removes characters a reader cannot see but a model reads: control
characters (except newline and tab), bidirectional overrides and isolates, zero-width and
other format characters, tag characters, variation selectors, private-use and unassigned
code points, and invisible fillers. `clean_schema` applies it to every string in a schema.
`check_bounds` refuses schemas nested deeper than `MAX_DEPTH` or holding more than
`MAX_VALUES` JSON values.

Text that is shown rather than read as instructions gets the same treatment in two other
forms: `clean_line` (one line, for names and versions) and, where the user must see what
will really happen (the confirmation message, which holds values an agent chose),
`visible`, which writes each such character as an escape (``\u202e``) instead of dropping
it, and `quote`, which shows one value as a quoted JSON string. Every function here takes a
`limit` and is idempotent: cleaning cleaned text changes nothing.
"""

from __future__ import annotations

from rata.cleantext import clean_line, clean_text, quote, visible  # noqa: F401 - the cleaner lives below the codegen layer

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 32
MAX_VALUES = 10_000
MAX_INSTRUCTIONS = 10_000
"""Characters of the server's ``instructions``; the rest is cut."""
MAX_NAME = 128
"""Characters of ``serverInfo.name`` and ``serverInfo.version``."""
MAX_MESSAGE = 2_000
"""Characters of a confirmation message shown to the user."""
MAX_SHOWN_VALUE = 200
"""Characters of one argument value inside a confirmation message."""


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
    found.extend((f"/{key}", schema[key]) for key in _SUBSCHEMA_ONE if isinstance(schema.get(key), (dict, bool)))
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
    from rata.errors import SchemaBoundsError

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


def clean_info(info: dict[str, Any]) -> dict[str, Any]:
    """``serverInfo`` as an agent may see it: its strings on one line, at most `MAX_NAME` characters."""
    return {clean_line(str(key), MAX_NAME): clean_line(value, MAX_NAME) if isinstance(value, str) else value for key, value in info.items()}


def clean_instructions(text: str) -> str:
    """The server's ``instructions``, cleaned and cut at `MAX_INSTRUCTIONS` characters."""
    return clean_text(text, MAX_INSTRUCTIONS)
