"""How many tokens a text costs a model, estimated offline, and which arguments bound a tool's result.

`estimate` is one UTF-8 byte in three, rounded up. No tokenizer is downloaded or run: the
number must be the same everywhere, cost next to nothing, and err on the high side, because it
decides whether a result is refused (`rata.mcp.methods.tools`), and a result that is let
through and then cut by the client is the failure it prevents.

Why it over-counts: the BPE tokenizers models use (OpenAI's o200k/cl100k, Anthropic's) give
English prose about 4 characters a token and JSON and source code about 3 to 3.5 (punctuation,
quotes and indentation split more often). ASCII text is one byte a character, so bytes / 3 is
a third above prose and at or above JSON and code. Text outside ASCII takes 2 to 4 bytes a
character and, in those tokenizers, rarely more than one token a character, so counting its
bytes keeps the estimate high there too (a CJK character: 3 bytes, one token). What it can
under-count is text no model reads as language: long runs of random digits or symbols; a
result of that kind is rare, and the default limit leaves room for it.
"""

from __future__ import annotations

import json
from typing import Any

BYTES_PER_TOKEN = 3
"""The estimate's ratio: one token for every three UTF-8 bytes."""

MAX_BYTES_PER_CHAR = 4
"""UTF-8 takes at most four bytes for one character: `estimate` is never above ``ceil(len(text) * 4 / 3)``."""

BOUND_NAMES = frozenset({"limit", "max", "max_results", "max_items", "count", "page_size", "per_page", "top", "n", "first", "last", "size"})
"""Integer parameters with these names bound how many items a tool returns (a ``limit``), when they have a maximum."""

NARROW_NAMES = frozenset({"search", "query", "q", "filter", "where", "prefix", "since", "until", "before", "after", "cursor"})
"""Parameters with these names narrow what a tool returns without counting it."""


def compact_json(value: Any) -> str:
    """`value` as a client shows its model structured JSON: compact, characters as themselves (what `estimate` counts of it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def estimate(text: str) -> int:
    """About how many tokens `text` is for a model: its UTF-8 bytes / 3, rounded up (see the module's docstring).

    A text of ASCII characters only costs one length check (``str.isascii`` is constant-time in
    CPython); any other text is encoded once."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return -(-size // BYTES_PER_TOKEN)


def could_exceed(chars: int, limit: int) -> bool:
    """Whether a text of `chars` characters could estimate over `limit` tokens (at four bytes a character)."""
    return chars * MAX_BYTES_PER_CHAR > limit * BYTES_PER_TOKEN


def bounding_arguments(input_schema: dict[str, Any]) -> list[str]:
    """The parameters of a tool's input schema that make its result smaller, as the model should read them.

    An integer parameter named like a bound (`BOUND_NAMES`) with its maximum: ``limit (max 500)``;
    one without a maximum: ``limit``; then the parameters named like a filter (`NARROW_NAMES`)."""
    properties = input_schema.get("properties")
    if not isinstance(properties, dict):
        return []
    bounds: list[str] = []
    filters: list[str] = []
    for name, schema in properties.items():
        if not isinstance(schema, dict):
            continue
        if name in BOUND_NAMES and _integer(schema):
            maximum = bound_maximum(schema)
            bounds.append(name if maximum is None else f"{name} (max {maximum:g})" if isinstance(maximum, float) else f"{name} (max {maximum})")
        elif name in NARROW_NAMES:
            filters.append(name)
    return bounds + filters


def has_bound(input_schema: dict[str, Any]) -> bool:
    """Whether a tool's input schema has an integer parameter named like a bound (`BOUND_NAMES`) with a maximum."""
    properties = input_schema.get("properties")
    if not isinstance(properties, dict):
        return False
    return any(
        name in BOUND_NAMES and isinstance(schema, dict) and _integer(schema) and bound_maximum(schema) is not None
        for name, schema in properties.items()
    )


def bound_maximum(schema: dict[str, Any]) -> int | float | None:
    """The largest value an integer schema allows (``maximum``, or one below a whole ``exclusiveMaximum``), in an ``anyOf`` too; None if unbounded."""
    value = schema.get("maximum")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    value = schema.get("exclusiveMaximum")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value - 1 if isinstance(value, int) else value
    for branch in schema.get("anyOf", ()):
        if isinstance(branch, dict):
            value = bound_maximum(branch)
            if value is not None:
                return value
    return None


def _integer(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "integer":
        return True
    return any(isinstance(branch, dict) and branch.get("type") == "integer" for branch in schema.get("anyOf", ()))
