"""Fixed shapes for the free-form JSON the dev tools pass on: log entries and a window call's arguments.

A log line may carry any fields (``extra={"invoice": 7}``) and a command any arguments, but an
agent framework's strict mode (OpenAI's structured outputs, which openai-agents and pydantic-ai
apply to every MCP tool) refuses an object whose keys its schema does not list. So what the
dev tools return has a fixed shape: each free-form object becomes a list of `NamedValue`, in its
order, a text, number, boolean or null as it is and a list or object as its JSON text.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from rata.logs import HEAD_FIELDS

Scalar = str | int | float | bool | None


class NamedValue(TypedDict):
    """One field of a log entry or one argument of a call: its name and its value (a list or object as JSON text)."""

    name: str
    value: Scalar


class LogEntry(TypedDict):
    """One log line: its time, level, logger and message, the traceback when there is one, and its other fields."""

    ts: str
    level: str
    logger: str
    message: str
    exception: str | None
    fields: list[NamedValue]



def named_values(values: dict[str, Any]) -> list[NamedValue]:
    """`values` as a list in its order; a list or object value given as its JSON text."""
    return [NamedValue(name=str(name), value=_scalar(value)) for name, value in values.items()]


def log_entry(raw: dict[str, Any]) -> LogEntry:
    """A log line as the reader returned it (bounded and cleaned, any JSON object) in the fixed shape.

    A head field that is missing or not text (a line rata did not write) is given as "" and the
    value, when there is one, kept among the fields.
    """
    head = {key: raw[key] for key in HEAD_FIELDS if isinstance(raw.get(key), str)}
    exception = raw.get("exception")
    if not isinstance(exception, str):
        exception = None
    rest = {key: value for key, value in raw.items() if key not in head and not (key == "exception" and exception is not None)}
    return LogEntry(
        ts=head.get("ts", ""),
        level=head.get("level", ""),
        logger=head.get("logger", ""),
        message=head.get("message", ""),
        exception=exception,
        fields=named_values(rest),
    )


def _scalar(value: Any) -> Scalar:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr)
