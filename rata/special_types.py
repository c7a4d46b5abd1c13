"""The special types: Python values carried on the wire as JSON strings, one row each.

datetime, date, time, UUID, Decimal, Path and bytes are not JSON types; each travels as a
string with a schema that says how to read it. Everything rata does with one of them comes
from its row here: `rata.typemodel` reads the hint into a `Special` node that holds the row,
`rata.codegen.schema` writes `schema`, `rata.convert` checks and builds arguments with
`parse` and turns results back with `accepts` and `dump`, and signatures (`rata mcp
inspect`, the dev server's `list_commands`) write `signature`.

Adding a type is one row in `ROWS` (tested by
`tests/test_special_types.py::test_a_new_row_reaches_the_schema_the_arguments_the_result_and_the_signature`):

    SpecialType(
        kind="ipv4",
        hints=(("ipaddress", "IPv4Address"),),
        schema={"type": "string", "format": "ipv4"},
        signature="IPv4Address",
        words="an IPv4 address such as 192.0.2.1",
        parse=_ipv4,  # str -> the Python value; raises ValueError for a string it refuses
        accepts=_is_ipv4,  # whether a command's result is a value of this type
        dump=str,  # the Python value -> the JSON string
    )

Hints are matched by module and class name, so reading a command's types imports none of
these modules; `parse` and `accepts` import them when a command first uses the type.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from rata._record import Record


class SpecialType(Record):
    """One special type: how it is recognised, described, validated and written.

    Attributes:
        kind: The short name nodes, messages ("does not match any of the allowed types (datetime, null)") and tests use.
        hints: The classes read as this type, as (module, qualified name) pairs.
        schema: The JSON Schema of a value (a fresh copy is handed out each time).
        signature: The type as a signature writes it, e.g. ``Decimal``.
        words: The value described for an agent in a validation error, e.g. "an ISO 8601 date such as 2026-07-28".
        parse: The Python value for a JSON string; raises `ValueError` for a string it refuses.
        accepts: Whether a command's result is a value of this type.
        dump: The JSON string for an accepted value.
    """

    __slots__ = ("kind", "hints", "schema", "signature", "words", "parse", "accepts", "dump")
    kind: str
    hints: tuple[tuple[str, str], ...]
    schema: dict[str, Any]
    signature: str
    words: str
    parse: Callable[[str], Any]
    accepts: Callable[[Any], bool]
    dump: Callable[[Any], str]

    def __repr__(self) -> str:
        return f"SpecialType({self.kind!r})"


DECIMAL_PATTERN = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"
"""A decimal as a JSON string: what the schema says, and what `parse` accepts."""


def _decimal(text: str) -> Any:
    if not re.fullmatch(DECIMAL_PATTERN, text):  # compiled on first use (re keeps it): most apps take no decimals
        raise ValueError(text)
    import decimal

    return decimal.Decimal(text)


def _is_decimal(value: Any) -> bool:
    import decimal

    return isinstance(value, decimal.Decimal)


def _uuid(text: str) -> Any:
    import uuid

    return uuid.UUID(text)


def _is_uuid(value: Any) -> bool:
    import uuid

    return isinstance(value, uuid.UUID)


def _path(text: str) -> Any:
    import pathlib

    return pathlib.Path(text)


def _is_path(value: Any) -> bool:
    import pathlib

    return isinstance(value, pathlib.PurePath)


def _bytes(text: str) -> bytes:
    import base64

    return base64.b64decode(text, validate=True)  # binascii.Error is a ValueError


def _base64(value: Any) -> str:
    import base64

    return base64.b64encode(bytes(value)).decode("ascii")


def _is_date(value: Any) -> bool:
    return isinstance(value, dt.date) and not isinstance(value, dt.datetime)  # a datetime is a date too


def _isoformat(value: Any) -> str:
    return value.isoformat()


# fmt: off
ROWS: tuple[SpecialType, ...] = (
    # SpecialType(kind, hints, schema, signature,
    #             words, parse, accepts, dump)
    SpecialType("datetime", (("datetime", "datetime"),), {"type": "string", "format": "date-time"}, "datetime",
                "an ISO 8601 date-time such as 2026-07-28T09:30:00Z", dt.datetime.fromisoformat, lambda value: isinstance(value, dt.datetime), _isoformat),
    SpecialType("date", (("datetime", "date"),), {"type": "string", "format": "date"}, "date",
                "an ISO 8601 date such as 2026-07-28", dt.date.fromisoformat, _is_date, _isoformat),
    SpecialType("time", (("datetime", "time"),), {"type": "string", "format": "time"}, "time",
                "an ISO 8601 time such as 09:30:00", dt.time.fromisoformat, lambda value: isinstance(value, dt.time), _isoformat),
    SpecialType("uuid", (("uuid", "UUID"),), {"type": "string", "format": "uuid"}, "UUID",
                "a UUID", _uuid, _is_uuid, str),
    SpecialType("decimal", (("decimal", "Decimal"),),
                {"type": "string", "pattern": DECIMAL_PATTERN, "description": "A decimal number, as a string."}, "Decimal",
                'a decimal number written as a string, such as "12.50"', _decimal, _is_decimal, lambda value: format(value, "f")),
    SpecialType("path", (("pathlib", "Path"), ("pathlib", "PurePath")), {"type": "string", "description": "A file system path."}, "Path",
                "a path", _path, _is_path, lambda value: value.as_posix()),
    SpecialType("bytes", (("builtins", "bytes"),), {"type": "string", "contentEncoding": "base64"}, "bytes",
                "base64-encoded bytes", _bytes, lambda value: isinstance(value, (bytes, bytearray)), _base64),
)
# fmt: on
"""Every special type. Add a row here to add one; nothing else needs to change."""

BY_HINT: dict[tuple[str, str], SpecialType] = {hint: row for row in ROWS for hint in row.hints}
"""Each row by the (module, qualified name) of the classes it reads, for `rata.typemodel`."""
