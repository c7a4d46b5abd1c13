"""The MCP SDK's results hold unions (a content block of five kinds, text or blob contents): a test names the kind it
expects with these, which assert it and hand the value back typed, so the checker follows what comes next."""

from __future__ import annotations

from typing import TypeVar

import mcp_types as types

T = TypeVar("T")


def kind(value: object, cls: type[T]) -> T:
    """`value`, asserted to be a `cls`."""
    assert isinstance(value, cls), f"expected {cls.__name__}, got {type(value).__name__}: {value!r}"
    return value


def text(value: object) -> str:
    """The text of a text content block or of text resource contents."""
    assert isinstance(value, (types.TextContent, types.TextResourceContents)), f"expected text, got {type(value).__name__}: {value!r}"
    return value.text
