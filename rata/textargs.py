"""Arguments that arrive as text: a resource template's URI values and a prompt's arguments.

MCP gives both as strings (``app://customers_show/42``, ``{"customer_id": "42"}``), while a
command's parameters are typed. `json_value` turns one string into the JSON value a tool call
would have carried for the same parameter (``"42"`` -> ``42`` for an ``int``), and the app's
ordinary argument check (`rata.app.App.arguments`) then validates and converts it exactly as
it does a tool's arguments, with the same messages. A string that is not the type's form is
passed on as the string, so the check names the problem (``expected an integer``) rather than
this module guessing.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rata.typemodel import AnnotatedNode, EnumNode, LiteralNode, Node, Scalar, Special, UnionNode

MAX_TEXT = 100_000
"""Longer text is never parsed as JSON (it is passed on as a string, and the check refuses it if it should not be one)."""
_INTEGER = re.compile(r"-?(0|[1-9][0-9]{0,299})")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]{0,299})(\.[0-9]{1,300})?([eE][-+]?[0-9]{1,4})?")


def json_value(node: Node, text: str) -> Any:
    """The JSON value `text` stands for as an argument of type `node` (the text itself when it stands for none)."""
    if isinstance(node, AnnotatedNode):
        return json_value(node.inner, text)
    if isinstance(node, Scalar):
        return _scalar(node.kind, text)
    if isinstance(node, Special):
        return text  # a date, a UUID, a Decimal...: their JSON form is a string already
    if isinstance(node, LiteralNode):
        return _choice(node.values, text)
    if isinstance(node, EnumNode):
        return _choice(tuple(node.values), text)
    if isinstance(node, UnionNode):
        return _union(node.options, text)
    return _json(text)  # a list, an object, rata.JsonValue: written as JSON


def json_arguments(params: list[tuple[str, Node]], values: dict[str, str]) -> dict[str, Any]:
    """Every value of `values` turned by `json_value` with its parameter's node; names not in `params` are kept as text
    (the argument check refuses them by name)."""
    nodes = dict(params)
    return {name: json_value(nodes[name], text) if name in nodes and isinstance(text, str) else text for name, text in values.items()}


def _scalar(kind: str, text: str) -> Any:
    if kind == "integer" and _INTEGER.fullmatch(text):
        return int(text)
    if kind == "number" and _NUMBER.fullmatch(text):
        number = float(text)
        if math.isfinite(number):
            return int(text) if _INTEGER.fullmatch(text) else number
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    if kind == "null" and text == "null":
        return None
    return text


def _choice(values: tuple[Any, ...], text: str) -> Any:
    """A value of a Literal or an Enum: the one whose text is `text` (``"2"`` for the value 2)."""
    for value in values:
        if isinstance(value, str):
            if value == text:
                return value
        elif isinstance(value, bool) or value is None:
            if json.dumps(value) == text:
                return value
        elif isinstance(value, (int, float)) and _scalar("number", text) == value and not isinstance(_scalar("number", text), str):
            return value
    return text


def _union(options: tuple[Node, ...], text: str) -> Any:
    """The first option that reads `text` as something other than itself; a string option, when there is one, keeps it as text."""
    inner = [option.inner if isinstance(option, AnnotatedNode) else option for option in options]
    if any(isinstance(node, Scalar) and node.kind == "string" for node in inner):
        return text
    for option in options:
        value = json_value(option, text)
        if value is not text and not (isinstance(value, str) and value == text):
            return value
    return text


def _json(text: str) -> Any:
    if len(text) > MAX_TEXT:
        return text
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return text


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
