"""`rata.codegen.drift`: what changed between a saved surface and the app, said on lines no saved name can take over."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rata.cleantext import visible
from rata.codegen.drift import compare


def surface(*names: str) -> dict:
    return {"tools": [{"name": name} for name in names]}


def test_added_removed_and_changed_items_are_named_one_kind_a_line():
    drift = compare(surface("a", "b"), {"tools": [{"name": "b", "x": 1}, {"name": "c"}]}, saved_name="saved.json", current_name="app")
    assert drift.summary() == ["added: tool c", "removed: tool a", "changed: tool b"]


@given(st.lists(st.text(max_size=30), min_size=1, max_size=4, unique=True))
def test_whatever_names_a_saved_file_holds_each_summary_line_is_one_line_that_begins_with_its_label(names):
    drift = compare(surface(*names), surface(), saved_name="saved.json", current_name="app")
    (line,) = drift.summary()
    assert line.startswith("removed: tool ") and len(line.splitlines()) == 1 and visible(line) == line
