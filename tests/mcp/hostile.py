"""Hypothesis strategies for what a hostile or broken client writes, and what a broken app returns.

Lines are JSON-ish text built from valid JSON plus the tokens strict JSON forbids or Python
cannot hold: NaN, Infinity, floats that overflow, integers longer than Python's digit limit,
lone surrogate escapes, deep nesting. Nesting depths stay far from the interpreter's recursion
limit on either side, so a test's own reader and the server's agree on what parses.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from rata.mcp import wire


class Raw(str):
    """JSON text put into a line as is."""


def render(value: Any) -> str:
    """`value` as JSON text, with `Raw` pieces as they are (strings escape lone surrogates as \\uXXXX)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{render(key) if isinstance(key, Raw) else json.dumps(key)}:{render(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render(item) for item in value) + "]"
    return json.dumps(value)


# Any code point, lone surrogates included (Hypothesis leaves them out of text by default).
any_text = st.text(st.characters(codec=None, categories=None), max_size=12)
surrogate_escapes = st.sampled_from(['"\\udfff"', '"\\ud800"', '"x\\udc00"', '"\\ud83d\\ude00"', '"\\uDBFF"', '"\\\\udfff"'])
forbidden_numbers = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400", "123456789e999"])
huge_integers = st.integers(4_301, 6_000).map(lambda digits: "9" * digits)
deep_nesting = st.one_of(st.integers(1, 300), st.integers(3_000, 20_000)).map(lambda depth: "[" * depth + "]" * depth)
raw_tokens = st.one_of(surrogate_escapes, forbidden_numbers, huge_integers, deep_nesting).map(Raw)
hostile = st.one_of(raw_tokens, any_text, st.sampled_from(["\udfff", "a\ud800", "\U0001f600", "\u2028\n", ""]), st.integers(), st.floats(allow_nan=False))

texts = st.text(max_size=8)
plain = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), texts)
values = st.recursive(plain, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)), max_leaves=8)

good_ids = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "1", "rata-1", "rata-2", "\U0001f600", ""]), texts, st.integers())
ids = st.one_of(good_ids, good_ids, good_ids, st.none(), st.booleans(), st.floats())
METHODS = ["ping", "initialize", "server/discover", "tools/list", "echo", "broken", "fails", "notifications/cancelled", "notifications/initialized"]
methods = st.one_of(st.sampled_from(METHODS), st.sampled_from(METHODS), st.sampled_from(METHODS), texts)
ENVELOPE = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}
params = st.one_of(
    st.fixed_dictionaries({"_meta": st.just(ENVELOPE)}, optional={"x": values, "requestId": ids}),
    st.fixed_dictionaries(
        {},
        optional={
            "protocolVersion": st.one_of(st.just(wire.LEGACY), values),
            "capabilities": st.one_of(st.just({}), values),
            "clientInfo": st.one_of(st.just({"name": "x", "version": "1"}), values),
            "requestId": ids,
            "x": values,
        },
    ),
    values,
)
requests = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ids, "method": methods}, optional={"params": params})
notifications = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "method": methods}, optional={"params": params})
errors = st.fixed_dictionaries({}, optional={"code": st.one_of(st.integers(), values), "message": values, "data": values})
responses = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": ids}, optional={"result": values, "error": st.one_of(errors, values)})
anything = st.fixed_dictionaries({}, optional={"jsonrpc": values, "id": ids, "method": methods, "params": params, "result": values, "error": values})
messages = st.one_of(requests, requests, requests, notifications, responses, anything)
PLACES = [("id",), ("method",), ("jsonrpc",), ("params", "x"), ("params", "_meta", wire.META_VERSION), ("params", "_meta", wire.META_CAPABILITIES),
          ("params", "protocolVersion"), ("params", "requestId"), ("params", "x", "deep"), ("result", "x"), ("error", "code"), ("error", "message")]


@st.composite
def hostile_messages(draw: st.DrawFn, shapes: st.SearchStrategy[dict[str, Any]] = messages) -> Any:
    """A message, well-formed or not, with one hostile piece put somewhere (or none)."""
    message = copy.deepcopy(draw(shapes))  # shared pieces (ENVELOPE) stay as they are
    piece = draw(st.one_of(st.none(), hostile))
    if piece is None:
        return message
    place = draw(st.sampled_from(PLACES))
    target = message
    for key in place[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[place[-1]] = piece
    return message


@st.composite
def lines(draw: st.DrawFn, requests_only: bool = False) -> bytes:
    """One line a client might write: a message (often broken), a cut one, or any bytes."""
    if requests_only:
        return render(draw(hostile_messages(requests))).encode("utf-8")
    kind = draw(st.sampled_from(["message"] * 10 + ["cut", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    text = render(draw(hostile_messages())).encode("utf-8")
    if kind == "cut":
        return text[: draw(st.integers(0, len(text)))]
    return text


def app_values() -> st.SearchStrategy[Any]:
    """What a broken app might return: JSON values, plus NaN, infinities, lone surrogates, huge integers, sets, bytes, deep nesting."""
    odd = st.one_of(
        st.floats(),
        any_text,
        st.integers(4_400, 4_500).map(lambda digits: 10**digits),  # built small: Hypothesis cannot shrink huge ints
        st.sets(st.integers(), max_size=2),
        st.binary(max_size=4),
        st.integers(2_000, 5_000).map(nested),
    )
    plain = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
    containers = lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3))  # noqa: E731
    return st.recursive(st.one_of(plain, odd), containers, max_leaves=8)


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value
