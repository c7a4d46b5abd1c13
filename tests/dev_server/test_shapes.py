"""Free-form JSON the dev tools pass on, in a fixed shape strict-mode clients accept."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rata.dev_server.shapes import log_entry, named_values

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def test_a_log_line_rata_wrote_keeps_its_head_its_traceback_and_its_other_fields_in_order():
    raw = {"ts": "2026-07-28T09:00:00+00:00", "level": "ERROR", "logger": "crm", "message": "boom", "invoice": 7, "exception": "Traceback", "tags": ["a", "b"]}
    assert log_entry(raw) == {
        "ts": "2026-07-28T09:00:00+00:00",
        "level": "ERROR",
        "logger": "crm",
        "message": "boom",
        "exception": "Traceback",
        "fields": [{"name": "invoice", "value": 7}, {"name": "tags", "value": '["a","b"]'}],
    }


def test_a_head_field_that_is_not_text_is_given_as_empty_and_kept_among_the_fields():
    entry = log_entry({"message": {"odd": "shape"}, "level": 5, "exception": ["not", "text"]})
    assert (entry["ts"], entry["level"], entry["logger"], entry["message"], entry["exception"]) == ("", "", "", "", None)
    assert entry["fields"] == [
        {"name": "message", "value": '{"odd":"shape"}'},
        {"name": "level", "value": 5},
        {"name": "exception", "value": '["not","text"]'},
    ]


def test_call_arguments_keep_their_order_and_scalars():
    assert named_values({"name": "Ada", "age": 36, "vip": True, "note": None, "score": 1.5}) == [
        {"name": "name", "value": "Ada"},
        {"name": "age", "value": 36},
        {"name": "vip", "value": True},
        {"name": "note", "value": None},
        {"name": "score", "value": 1.5},
    ]


@given(st.dictionaries(st.text(max_size=8), JSON, max_size=8))
def test_any_json_object_becomes_names_and_scalars_that_give_back_every_value(values):
    shaped = log_entry(values)
    kept = {field["name"]: field["value"] for field in shaped["fields"]}
    for name, value in values.items():
        if name in kept:
            got = kept[name]
            assert got is None or isinstance(got, (str, int, float, bool))
            if isinstance(value, (list, dict)):
                assert isinstance(got, str) and json.loads(got) == value
            else:
                assert got == value
        else:  # a head field, given as it was
            assert shaped[name] == value
    json.dumps(shaped, allow_nan=False)
