"""A strict reader of what the server writes: the test's own, so it does not trust the code under test."""

from __future__ import annotations

import json
from typing import Any


def _refuse(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} overflows a float")
    return value


def read_json(text: str) -> Any:
    """`json.loads` that refuses NaN, Infinity, -Infinity and floats that overflow (ValueError), as JSON-RPC peers should."""
    return json.loads(text, parse_constant=_refuse, parse_float=_finite)


def strict_json(text: str) -> Any:
    """`read_json` that also refuses strings (or keys) that are not Unicode text: what a server may write."""
    value = read_json(text)
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # raises UnicodeEncodeError on a lone surrogate
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def strict_line(raw: bytes) -> dict:
    """One line the server wrote: a JSON object in UTF-8, ending in its only newline."""
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1, raw[:200]
    message = strict_json(raw.decode("utf-8"))
    assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", raw[:200]
    return message
