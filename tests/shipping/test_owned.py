"""`standing`: what is at the path rata would write, so that a user's file is never replaced without asking."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rata.shipping.owned import standing


def rata_s(data: object) -> bool:
    return isinstance(data, dict) and data.get("_meta") == {"by": "rata"}


def test_a_missing_file_an_identical_one_rata_s_own_and_someone_else_s_are_told_apart(tmp_path):
    path = tmp_path / "out.json"
    text = json.dumps({"_meta": {"by": "rata"}, "v": 2})
    assert standing(path, text, rata_s) == "missing"
    path.write_text(text, encoding="utf-8")
    assert standing(path, text, rata_s) == "same"
    assert standing(path, None, rata_s) == "ours"  # without a text to compare, never "same"
    path.write_text(json.dumps({"_meta": {"by": "rata"}, "v": 1}), encoding="utf-8")
    assert standing(path, text, rata_s) == "ours"
    path.write_text('{"name": "mine"}', encoding="utf-8")
    assert standing(path, text, rata_s) == "theirs"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_that_are_not_rata_s_json_are_someone_else_s(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("owned") / "out.json"
    path.write_bytes(content)
    found = standing(path, '{"v": 2}', rata_s)
    assert found in ("same", "theirs")
    assert (found == "same") is (content == b'{"v": 2}')
    assert path.read_bytes() == content  # looking loses nothing
