"""The offline token estimate (`rata.tokens`) and the arguments that bound a tool's result."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rata import tokens


@given(st.text())
def test_the_estimate_is_never_below_a_token_for_four_bytes(text):
    assert tokens.estimate(text) >= len(text.encode("utf-8", "surrogatepass")) / 4


@given(st.text(), st.text())
def test_the_estimate_grows_with_the_text(text, more):
    assert tokens.estimate(text) <= tokens.estimate(text + more)


@given(st.text(), st.integers(min_value=1, max_value=10_000))
def test_a_text_that_could_not_exceed_the_limit_does_not(text, limit):
    if not tokens.could_exceed(len(text), limit):
        assert tokens.estimate(text) <= limit


def test_the_estimate_over_counts_english_json_and_code():
    prose = "The quick brown fox jumps over the lazy dog, and then it rests in the shade. " * 40
    rows = json.dumps([{"id": i, "name": f"Customer {i}", "email": f"c{i}@example.com"} for i in range(100)])
    code = "def add(a: int, b: int) -> int:\n    return a + b\n" * 40
    assert tokens.estimate(prose) >= len(prose) / 4 * 1.3  # English: about 4 characters a token
    assert tokens.estimate(rows) >= len(rows) / 3.5  # JSON and code: about 3 to 3.5
    assert tokens.estimate(code) >= len(code) / 3.5
    assert tokens.estimate("日本語のテキスト") == 8  # 3 bytes a character: one token each
    assert tokens.estimate("") == 0


def test_the_bounding_arguments_are_the_bounds_with_their_maximum_then_the_filters():
    schema = {
        "type": "object",
        "properties": {
            "search": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 500},
            "page_size": {"anyOf": [{"type": "integer", "exclusiveMaximum": 100}, {"type": "null"}]},
            "count": {"type": "integer"},
            "name": {"type": "string"},
            "top": {"type": "string"},  # not an integer: no bound
        },
    }
    assert tokens.bounding_arguments(schema) == ["limit (max 500)", "page_size (max 99)", "count", "search"]
    assert tokens.has_bound(schema)
    assert not tokens.has_bound({"type": "object", "properties": {"count": {"type": "integer"}}})
    assert tokens.bounding_arguments({"type": "object"}) == []
