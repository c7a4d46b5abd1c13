"""Text arguments (a template URI's values, a prompt's arguments) become the JSON a tool call carries, then the usual check."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.convert import Invalid, from_json
from rata.textargs import json_arguments, json_value
from rata.typemodel import Analyzer, Field
from tests.samples import Color, Priority


def node(hint: Any):
    return Analyzer().analyze(hint, "test")


@pytest.mark.parametrize(
    ("hint", "text", "value"),
    [
        (int, "42", 42),
        (int, "-7", -7),
        (float, "2.5", 2.5),
        (float, "3", 3),
        (bool, "true", True),
        (bool, "false", False),
        (str, "42", "42"),
        (Literal["a", "b"], "b", "b"),
        (Literal[1, 2], "2", 2),
        (Color, "red", "red"),
        (Priority, "2", 2),
        (int | None, "5", 5),
        (int | None, "null", None),
        (str | None, "null", "null"),
        (list[int], "[1, 2]", [1, 2]),
        (Annotated[int, Field("rows", ge=1)], "9", 9),
        (datetime.date, "2026-12-02", "2026-12-02"),
    ],
)
def test_a_text_becomes_the_json_value_its_parameter_takes(hint: Any, text: str, value: Any) -> None:
    assert json_value(node(hint), text) == value
    assert type(json_value(node(hint), text)) is type(value)


@pytest.mark.parametrize(
    ("hint", "text"), [(int, "4x"), (int, "1.5"), (int, "007"), (float, "NaN"), (float, "1e99999"), (bool, "True"), (Literal["a"], "c"), (list[int], "[1,")]
)
def test_a_text_that_is_not_the_types_form_stays_text_and_the_usual_check_names_the_problem(hint: Any, text: str) -> None:
    assert json_value(node(hint), text) == text
    with pytest.raises(Invalid):
        from_json(node(hint), json_value(node(hint), text))


def test_names_not_among_the_parameters_stay_text_for_the_check_to_refuse() -> None:
    assert json_arguments([("id", node(int))], {"id": "3", "other": "x"}) == {"id": 3, "other": "x"}


@given(st.text(max_size=200))
def test_any_text_for_any_parameter_type_gives_a_json_value_and_never_raises(text: str) -> None:
    for hint in (int, float, bool, str, Literal["a", 1, True], Color, Priority, int | None, list[int], dict[str, int]):
        value = json_value(node(hint), text)
        json.dumps(value, allow_nan=False)


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_an_integers_decimal_text_is_that_integer(number: int) -> None:
    assert json_value(node(int), str(number)) == number


def test_a_huge_text_is_never_parsed_as_json() -> None:
    text = "[" * 200_000
    assert json_value(node(list[int]), text) == text
