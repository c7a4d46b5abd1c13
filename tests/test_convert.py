"""JSON -> Python and back (`rata.convert`), checked against the schema the same types produce.

`from_json` builds the declared Python values and names every problem by its path;
`to_json` turns results into plain JSON and refuses one that does not match its type;
`app.dispatch` raises `ValidationErrors` for bad arguments and `ResultError` for bad results.
"""

import dataclasses
import datetime as dt
import decimal
import json
import pathlib
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NewType, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from rata import App, CommandRequest, Field, JsonValue, Origin, ValidationErrors, command
from rata.cleantext import clean_text
from rata.codegen.sanitize import clean_schema
from rata.codegen.schema import value_schema
from rata.convert import Invalid, Mismatch, from_json, from_json_fields, to_json
from rata.errors import CodegenError, ResultError
from rata.typemodel import Analyzer, Node
from tests.samples import Color, Coord, Dept, Draft, Filters, Movie, Person, Priority, TreeNode


def node_of(hint: Any) -> Node:
    return Analyzer().analyze(hint, "command 'f', parameter 'x'")


def errors_of(hint: Any, value: Any, path: str = "") -> dict[str, list[str]]:
    """Every problem `from_json` finds in `value`, by path."""
    with pytest.raises(Invalid) as caught:
        from_json(node_of(hint), value, path)
    return caught.value.errors


def mismatch_of(hint: Any, value: Any) -> str:
    """The message `to_json` refuses `value` with."""
    with pytest.raises(Mismatch) as caught:
        to_json(node_of(hint), value)
    return str(caught.value)


def typed(value: Any) -> Any:
    """`value` with the type of every part spelled out, so 1, 1.0 and True differ and sets compare in order."""
    if isinstance(value, (set, frozenset)):
        return (type(value), sorted((typed(item) for item in value), key=repr))
    if isinstance(value, (list, tuple)):
        return (type(value), [typed(item) for item in value])
    if isinstance(value, dict):
        return (type(value), {typed(key): typed(item) for key, item in value.items()})
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value), {f.name: typed(getattr(value, f.name)) for f in dataclasses.fields(value)})
    return (type(value), value)


@dataclass
class Line:
    sku: str
    qty: Annotated[int, Field(ge=1)] = 1


@dataclass(frozen=True)
class Tile:
    x: int
    y: int


# Not tests.samples.Order: its items are `Line` dataclasses with a constraint, so nested
# problems have a path such as `lines[1].qty`; the shared Order has no nested dataclass.
@dataclass
class OrderOfLines:
    customer: str
    lines: list[Line]
    note: str = ""
    tags: list[str] = field(default_factory=list)


UserId = NewType("UserId", int)
UTC = dt.UTC


# --- round trips ---------------------------------------------------------------------------

ROUND_TRIPS = [
    (str, "hi", "hi"),
    (int, 3, 3),
    (float, 2.5, 2.5),
    (bool, True, True),
    (None, None, None),
    (int | None, None, None),
    (Optional[int], 4, 4),
    (int | str, "x", "x"),
    (Literal["draft", "sent"], "sent", "sent"),
    (Literal[1, 2], 2, 2),
    (Literal[True], True, True),
    (Literal["only"], "only", "only"),
    (Color, "red", Color.RED),
    (Priority, 2, Priority.HIGH),
    (list[int], [1, 2], [1, 2]),
    (set[str], ["a", "b"], {"a", "b"}),
    (frozenset[int], [1, 2, 3], frozenset({1, 2, 3})),
    (set[Tile], [{"x": 0, "y": 1}], {Tile(0, 1)}),
    (tuple[int, str], [1, "a"], (1, "a")),
    (tuple[int, ...], [1, 2, 3], (1, 2, 3)),
    (dict[str, int], {"a": 1, "b": 2}, {"a": 1, "b": 2}),
    (dict[Color, int], {"red": 1}, {Color.RED: 1}),
    (
        OrderOfLines,
        {"customer": "Ada", "lines": [{"sku": "A-1", "qty": 2}], "note": "", "tags": ["gift"]},
        OrderOfLines("Ada", [Line("A-1", 2)], "", ["gift"]),
    ),
    (Movie, {"title": "Alien", "year": 1979}, {"title": "Alien", "year": 1979}),
    (Filters, {"limit": 3}, {"limit": 3}),
    (Draft, {"title": "t"}, {"title": "t"}),
    (Coord, {"lat": 1.5, "lon": 2.0}, Coord(1.5, 2.0)),
    (dt.datetime, "2026-07-28T09:30:00+00:00", dt.datetime(2026, 7, 28, 9, 30, tzinfo=UTC)),
    (dt.date, "2026-07-28", dt.date(2026, 7, 28)),
    (dt.time, "09:30:00", dt.time(9, 30)),
    (uuid.UUID, "12345678-1234-5678-1234-567812345678", uuid.UUID("12345678-1234-5678-1234-567812345678")),
    (decimal.Decimal, "12.50", decimal.Decimal("12.50")),
    (pathlib.Path, "reports/2026.csv", pathlib.Path("reports/2026.csv")),
    (bytes, "aGk=", b"hi"),
    (UserId, 7, 7),
    (Annotated[int, Field(ge=1)], 5, 5),
    (Annotated[str, "A name"], "Ada", "Ada"),
    (TreeNode, {"name": "root", "children": [{"name": "leaf", "children": []}]}, TreeNode("root", [TreeNode("leaf")])),
    (
        Dept,
        {"name": "ops", "staff": [{"name": "Ada", "dept": {"name": "dev", "staff": []}}]},
        Dept("ops", [Person("Ada", Dept("dev", []))]),
    ),
    (JsonValue, {"a": [1, None, "x", 2.5, True]}, {"a": [1, None, "x", 2.5, True]}),
]


@pytest.mark.parametrize(("hint", "json_value", "python_value"), ROUND_TRIPS)
def test_a_value_goes_from_json_to_python_and_back_unchanged(hint: Any, json_value: Any, python_value: Any) -> None:
    node = node_of(hint)
    back = to_json(node, python_value)
    assert (typed(from_json(node, json_value)), typed(back), json.loads(json.dumps(back))) == (typed(python_value), typed(json_value), json_value)


@pytest.mark.parametrize(("hint", "json_value", "python_value"), ROUND_TRIPS)
def test_every_round_trip_value_is_valid_against_the_generated_schema(hint: Any, json_value: Any, python_value: Any) -> None:
    schema = value_schema(node_of(hint))
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(json_value)) == []


def test_missing_optional_fields_take_their_defaults() -> None:
    assert typed(from_json(node_of(OrderOfLines), {"customer": "Ada", "lines": [{"sku": "A-1"}]})) == typed(OrderOfLines("Ada", [Line("A-1", 1)]))


def test_a_namedtuple_gets_its_field_defaults() -> None:
    assert typed(from_json(node_of(Coord), {"lat": 1.5})) == typed(Coord(1.5, 0.0))


# --- JSON -> Python: scalars ---------------------------------------------------------------


def test_an_int_accepts_a_whole_float_and_makes_it_an_int() -> None:
    assert typed(from_json(node_of(int), 3.0)) == (int, 3)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "must be an integer, not a boolean"),
        (3.5, "must be an integer, not a number"),
        ("3", "must be an integer, not a string"),
        (None, "must be an integer, not null"),
        (float("inf"), "must be an integer, not a number"),
    ],
)
def test_an_int_refuses_anything_but_whole_numbers(value: Any, message: str) -> None:
    assert errors_of(int, value, "limit") == {"limit": [message]}


def test_a_float_accepts_an_int_and_makes_it_a_float() -> None:
    assert typed(from_json(node_of(float), 2)) == (float, 2.0)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), 10**400], ids=["nan", "inf", "-inf", "10**400"])
def test_a_float_refuses_values_that_are_not_finite_numbers(value: Any) -> None:
    assert errors_of(float, value, "price") == {"price": ["must be a finite number"]}


def test_a_float_refuses_a_boolean_and_a_string() -> None:
    assert (errors_of(float, False), errors_of(float, "1.5")) == ({"": ["must be a number, not a boolean"]}, {"": ["must be a number, not a string"]})


@pytest.mark.parametrize(("value", "kind"), [(1, "an integer"), (0, "an integer"), ("true", "a string"), (None, "null")])
def test_a_bool_accepts_only_true_and_false(value: Any, kind: str) -> None:
    assert errors_of(bool, value) == {"": [f"must be true or false, not {kind}"]}


@pytest.mark.parametrize(("value", "kind"), [(1, "an integer"), (1.5, "a number"), (True, "a boolean"), (None, "null"), (["a"], "an array"), ({}, "an object")])
def test_a_string_is_strict(value: Any, kind: str) -> None:
    assert errors_of(str, value) == {"": [f"must be a string, not {kind}"]}


def test_none_accepts_only_null() -> None:
    assert errors_of(None, 0) == {"": ["must be null, not an integer"]}


# --- JSON -> Python: literals, enums, unions -------------------------------------------------


def test_a_literal_refuses_other_values_and_lists_the_allowed_ones() -> None:
    assert errors_of(Literal["draft", "sent"], "gone") == {"": ['must be one of "draft", "sent"']}


def test_a_literal_int_accepts_a_whole_float_but_never_a_boolean() -> None:
    assert (typed(from_json(node_of(Literal[1]), 1.0)), errors_of(Literal[1], True)) == ((int, 1), {"": ["must be one of 1"]})


def test_a_literal_bool_refuses_one_and_zero() -> None:
    assert errors_of(Literal[True], 1) == {"": ["must be one of true"]}


def test_an_enum_refuses_a_name_and_lists_the_values() -> None:
    assert errors_of(Color, "RED") == {"": ['must be one of "red", "green"']}


def test_an_int_enum_refuses_a_boolean() -> None:
    assert errors_of(Priority, True) == {"": ["must be one of 1, 2"]}


def test_an_optional_value_reports_the_problem_of_its_type_or_null() -> None:
    assert errors_of(int | None, "x", "limit") == {"limit": ["must be an integer, not a string (or null)"]}


def test_an_optional_object_reports_the_problems_inside_it() -> None:
    assert errors_of(Line | None, {"qty": 0}, "line") == {"line.sku": ["is required"], "line.qty": ["must be at least 1"]}


def test_a_union_that_matches_nothing_lists_its_options() -> None:
    assert errors_of(int | str | None, 1.5) == {"": ["does not match any of the allowed types (integer, string, null)"]}


def test_a_union_takes_the_first_option_that_fits() -> None:
    assert (typed(from_json(node_of(int | float), 3.0)), typed(from_json(node_of(float | int), 3))) == ((int, 3), (float, 3.0))


# --- JSON -> Python: containers and objects --------------------------------------------------


def test_a_list_reports_each_bad_item_by_its_index() -> None:
    assert errors_of(list[int], [1, "a", None], "ids") == {"ids[1]": ["must be an integer, not a string"], "ids[2]": ["must be an integer, not null"]}


def test_a_list_refuses_an_object() -> None:
    assert errors_of(list[int], {"0": 1}) == {"": ["must be an array, not an object"]}


def test_a_set_refuses_duplicates() -> None:
    assert errors_of(set[int], [1, 2, 1.0], "ids") == {"ids": ["must not contain duplicates"]}


def test_a_tuple_needs_exactly_its_number_of_items() -> None:
    assert (errors_of(tuple[int, str], [1]), errors_of(tuple[int, str], [1, 2])) == (
        {"": ["must have exactly 2 items, not 1"]},
        {"[1]": ["must be a string, not an integer"]},
    )


def test_a_dict_reports_bad_values_by_key() -> None:
    assert errors_of(dict[str, int], {"a": 1, "b": "2"}, "stock") == {"stock.b": ["must be an integer, not a string"]}


def test_a_dict_with_literal_keys_refuses_other_keys() -> None:
    assert errors_of(dict[Literal["a", "b"], int], {"a": 1, "z": 2}) == {"z": ['must be one of "a", "b"']}


def test_an_object_reports_missing_unknown_and_bad_fields() -> None:
    assert errors_of(Line, {"qty": "2", "colour": "red"}, "line") == {
        "line.qty": ["must be an integer, not a string"],
        "line.sku": ["is required"],
        "line.colour": ["is not a field of Line"],
    }


def test_an_object_refuses_an_array() -> None:
    assert errors_of(Movie, ["Alien", 1979]) == {"": ["must be an object, not an array"]}


def test_a_typeddict_requires_its_required_keys_only() -> None:
    assert (errors_of(Draft, {"body": "b"}), from_json(node_of(Filters), {})) == ({"title": ["is required"]}, {})


def test_nested_problems_are_named_by_their_whole_path() -> None:
    value = {"customer": "Ada", "lines": [{"sku": "A-1", "qty": 0}, {"qty": 2}], "tags": ["a", 1]}
    assert errors_of(OrderOfLines, value, "order") == {
        "order.lines[0].qty": ["must be at least 1"],
        "order.lines[1].sku": ["is required"],
        "order.tags[1]": ["must be a string, not an integer"],
    }


def test_a_recursive_type_reports_problems_deep_inside() -> None:
    assert errors_of(TreeNode, {"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}) == {
        "children[0].children[0].name": ["must be a string, not an integer"]
    }


def test_json_value_accepts_any_json_value_as_it_is() -> None:
    values = [None, True, 1, 1.5, "x", [1, [2]], {"a": {"b": None}}]
    assert [from_json(node_of(JsonValue), value) for value in values] == values


# --- JSON -> Python: values carried as strings -------------------------------------------------


def test_a_datetime_with_z_is_in_utc() -> None:
    assert from_json(node_of(dt.datetime), "2026-07-28T09:30:00Z") == dt.datetime(2026, 7, 28, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("hint", "value", "message"),
    [
        (dt.datetime, "yesterday", "must be an ISO 8601 date-time such as 2026-07-28T09:30:00Z, not 'yesterday'"),
        (dt.date, "28/07/2026", "must be an ISO 8601 date such as 2026-07-28, not '28/07/2026'"),
        (dt.time, "25:00", "must be an ISO 8601 time such as 09:30:00, not '25:00'"),
        (uuid.UUID, "nope", "must be a UUID, not 'nope'"),
        (decimal.Decimal, "1e3", "must be a decimal number written as a string, such as \"12.50\", not '1e3'"),
        (decimal.Decimal, "1.5\n", "must be a decimal number written as a string, such as \"12.50\", not '1.5\\n'"),
        (decimal.Decimal, "01.5", "must be a decimal number written as a string, such as \"12.50\", not '01.5'"),
        (bytes, "***", "must be base64-encoded bytes, not '***'"),
        (bytes, "aGk", "must be base64-encoded bytes, not 'aGk'"),
    ],
)
def test_a_string_that_does_not_spell_the_value_is_refused(hint: Any, value: str, message: str) -> None:
    assert errors_of(hint, value, "when") == {"when": [message]}


@pytest.mark.parametrize(
    ("hint", "words"),
    [
        (dt.date, "an ISO 8601 date such as 2026-07-28"),
        (uuid.UUID, "a UUID"),
        (pathlib.Path, "a path"),
        (decimal.Decimal, 'a decimal number written as a string, such as "12.50"'),
    ],
)
def test_a_value_carried_as_a_string_refuses_a_number(hint: Any, words: str) -> None:
    assert errors_of(hint, 12) == {"": [f"must be a string ({words}), not an integer"]}


def test_a_long_bad_string_is_shortened_in_the_message() -> None:
    assert errors_of(dt.date, "x" * 60) == {"": [f"must be an ISO 8601 date such as 2026-07-28, not {'x' * 40!r}"]}


# --- JSON -> Python: constraints ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("constraint", "value", "message"),
    [
        (Field(ge=1), 0, "must be at least 1"),
        (Field(gt=0), 0, "must be greater than 0"),
        (Field(le=10), 11, "must be at most 10"),
        (Field(lt=10), 10, "must be less than 10"),
        (Field(multiple_of=5), 12, "must be a multiple of 5"),
        (Field(ge=0.5), 0, "must be at least 0.5"),
    ],
)
def test_a_number_that_breaks_a_constraint_is_refused(constraint: Field, value: int, message: str) -> None:
    assert errors_of(Annotated[int, constraint], value, "n") == {"n": [message]}


@pytest.mark.parametrize(
    ("hint", "value", "message"),
    [
        (Annotated[str, Field(min_length=2)], "a", "must have at least 2 characters"),
        (Annotated[str, Field(max_length=2)], "abc", "must have at most 2 characters"),
        (Annotated[str, Field(pattern="^[a-z]+$")], "Abc", "must match the pattern '^[a-z]+$'"),
        (Annotated[list[int], Field(min_length=1)], [], "must have at least 1 item"),
        (Annotated[dict[str, int], Field(max_length=1)], {"a": 1, "b": 2}, "must have at most 1 item"),
    ],
)
def test_a_length_or_pattern_that_breaks_a_constraint_is_refused(hint: Any, value: Any, message: str) -> None:
    assert errors_of(hint, value) == {"": [message]}


def test_every_broken_constraint_is_reported() -> None:
    assert errors_of(Annotated[int, Field(ge=10, multiple_of=3)], 4) == {"": ["must be at least 10", "must be a multiple of 3"]}


def test_constraints_are_not_checked_on_a_value_of_the_wrong_type() -> None:
    assert errors_of(Annotated[int, Field(ge=1)], "0") == {"": ["must be an integer, not a string"]}


def test_multiple_of_is_exact_for_large_integers() -> None:
    assert errors_of(Annotated[int, Field(multiple_of=3)], 10**20 + 1) == {"": ["must be a multiple of 3"]}


def test_multiple_of_a_fraction_holds_for_numbers_too_large_to_divide_as_floats() -> None:
    assert (
        from_json(node_of(Annotated[float, Field(multiple_of=0.5)]), 1e308),
        from_json(node_of(Annotated[int, Field(multiple_of=0.5)]), 10**400),
        errors_of(Annotated[float, Field(multiple_of=0.3)], 1e308),
    ) == (1e308, 10**400, {"": ["must be a multiple of 0.3"]})


def test_decimal_constraints_are_checked_exactly() -> None:
    hint = Annotated[decimal.Decimal, Field(ge=0, multiple_of=0.01)]
    assert (from_json(node_of(hint), "12.50"), errors_of(hint, "-0.005")) == (
        decimal.Decimal("12.50"),
        {"": ["must be at least 0", "must be a multiple of 0.01"]},
    )


def test_annotated_types_constraints_are_checked() -> None:
    annotated_types = pytest.importorskip("annotated_types")
    assert errors_of(Annotated[int, annotated_types.Interval(gt=0, le=5)], 9) == {"": ["must be at most 5"]}


# --- named arguments ---------------------------------------------------------------------------


def test_arguments_are_converted_by_name() -> None:
    fields = [("customer", node_of(str), True), ("lines", node_of(list[Line]), True), ("note", node_of(str), False)]
    assert typed(from_json_fields(fields, {"customer": "Ada", "lines": [{"sku": "A"}]})) == typed({"customer": "Ada", "lines": [Line("A", 1)]})


def test_unknown_and_missing_arguments_are_errors_with_their_names() -> None:
    fields = [("customer", node_of(str), True), ("lines", node_of(list[Line]), True), ("note", node_of(str), False)]
    with pytest.raises(Invalid) as caught:
        from_json_fields(fields, {"lines": [{"sku": "A", "qty": 0}], "colour": "red"})
    assert caught.value.errors == {
        "lines[0].qty": ["must be at least 1"],
        "customer": ["is required"],
        "colour": ["is not a parameter (expected one of: customer, lines, note)"],
    }


def test_arguments_must_be_an_object() -> None:
    with pytest.raises(Invalid) as caught:
        from_json_fields([], ["a"])
    assert caught.value.errors == {"": ["arguments must be an object, not an array"]}


def test_a_command_without_parameters_refuses_any_argument() -> None:
    with pytest.raises(Invalid) as caught:
        from_json_fields([], {"x": 1})
    assert caught.value.errors == {"x": ["is not a parameter (expected one of: none)"]}


# --- Python -> JSON ----------------------------------------------------------------------------


def test_sets_come_out_as_sorted_arrays() -> None:
    assert (to_json(node_of(set[int]), {3, 1, 2}), to_json(node_of(frozenset[str]), frozenset({"b", "a"}))) == ([1, 2, 3], ["a", "b"])


def test_an_enum_comes_out_as_its_value_and_a_raw_value_is_accepted() -> None:
    assert (to_json(node_of(Color), Color.GREEN), to_json(node_of(Color), "green"), to_json(node_of(Literal["red"]), Color.RED)) == ("green", "green", "red")


def test_values_carried_as_strings_come_out_in_their_canonical_form() -> None:
    assert [
        to_json(node_of(decimal.Decimal), decimal.Decimal("1E+2")),
        to_json(node_of(pathlib.Path), pathlib.PureWindowsPath("a\\b.txt")),
        to_json(node_of(dt.datetime), dt.datetime(2026, 7, 28, 9, 30, tzinfo=UTC)),
        to_json(node_of(bytes), bytearray(b"\x00\xff")),
    ] == ["100", "a/b.txt", "2026-07-28T09:30:00+00:00", "AP8="]


def test_a_float_result_may_be_an_int() -> None:
    assert typed(to_json(node_of(float), 3)) == (int, 3)


def test_a_json_value_result_is_made_plain() -> None:
    assert to_json(node_of(JsonValue), {"line": Line("A", 2), "pair": (1, 2), 3: None}) == {"line": {"sku": "A", "qty": 2}, "pair": [1, 2], "3": None}


def test_an_object_result_is_checked_field_by_field_on_every_call() -> None:
    node = node_of(Line)
    assert to_json(node, Line("A", 2)) == {"sku": "A", "qty": 2}
    with pytest.raises(Mismatch, match=r"^result\.qty is str '2', not an integer$"):
        to_json(node, Line("A", "2"))  # type: ignore[arg-type] - a wrong value on purpose


def test_a_subclass_of_a_node_kind_comes_out_as_that_kind() -> None:
    from rata.typemodel import Scalar

    class Text(Scalar):
        __slots__ = ()

    assert to_json(Text("string"), "a") == "a"
    with pytest.raises(Mismatch):
        to_json(Text("string"), 1)


def test_a_typeddict_result_leaves_out_missing_optional_keys() -> None:
    assert to_json(node_of(Draft), {"title": "t"}) == {"title": "t"}


@pytest.mark.parametrize(
    ("hint", "value", "message"),
    [
        (int, 3.0, "result is float 3.0, not an integer"),
        (int, True, "result is bool True, not an integer"),
        (str, 1, "result is int 1, not a string"),
        (bool, 0, "result is int 0, not true or false"),
        (None, "", "result is str '', not null"),
        (float, float("nan"), "result is nan, which JSON cannot carry"),
        pytest.param(float, 10**400, f"result is {repr(10**400)[:37]}..., which JSON cannot carry", id="float-10**400"),
        (dt.date, dt.datetime(2026, 7, 28), "result is datetime, not an ISO 8601 date such as 2026-07-28"),
        (uuid.UUID, "12345678-1234-5678-1234-567812345678", "result is str, not a UUID"),
        (list[int], "abc", "result is str, not a sequence"),
        (list[int], [1, "a"], "result[1] is str 'a', not an integer"),
        (tuple[int, str], (1,), "result is (1,), not a tuple of 2"),
        (dict[str, int], [("a", 1)], "result is list, not a dict"),
        (dict[str, int], {"a": "x"}, "result.a is str 'x', not an integer"),
        (Line, {"sku": "A", "qty": 1}, "result is dict, not a Line"),
        (Movie, {"title": "Alien"}, "result.year is missing"),
        (Color, "blue", "result is 'blue', not a Color"),
        (Literal["a", "b"], "c", 'result is \'c\', not one of "a", "b"'),
        (int | None, "x", "result is str, which matches none of integer, null"),
        (JsonValue, {"a": {1, 2}}, "result.a is set, which is not a JSON value"),
        (OrderOfLines, OrderOfLines("Ada", [Line("A", 1), Line("B", "2")]), "result.lines[1].qty is str '2', not an integer"),  # type: ignore[arg-type] - a wrong value on purpose
    ],
)
def test_a_result_that_does_not_match_its_type_is_refused_with_its_path(hint: Any, value: Any, message: str) -> None:
    assert mismatch_of(hint, value) == message


# --- through dispatch --------------------------------------------------------------------------


@command
def orders_store(customer: str, lines: list[Line], rush: bool = False) -> OrderOfLines:
    """Store an order."""
    return OrderOfLines(customer, lines, note="rush" if rush else "")


@command
def orders_broken(count: int) -> list[Line]:
    """Return something that is not a list of lines."""
    return [Line("A", 1), Line("B", "many")]  # type: ignore[arg-type] - a wrong value on purpose


def make_app() -> App:
    return App("t", identifier="com.example.t").commands(orders_store, orders_broken)


def test_dispatch_converts_arguments_and_returns_json() -> None:
    request = CommandRequest("orders_store", {"customer": "Ada", "lines": [{"sku": "A-1", "qty": 2.0}], "rush": True})
    assert make_app().dispatch(request) == {
        "customer": "Ada",
        "lines": [{"sku": "A-1", "qty": 2}],
        "note": "rush",
        "tags": [],
    }


def test_dispatch_refuses_bad_arguments_with_every_problem_by_path() -> None:
    with pytest.raises(ValidationErrors) as caught:
        make_app().dispatch(CommandRequest("orders_store", {"lines": [{"sku": "A-1", "qty": 0}, {"sku": 5}], "rush": 1, "colour": "red"}))
    assert caught.value.to_dict() == {
        "colour": ["is not a parameter (expected one of: customer, lines, rush)"],
        "customer": ["is required"],
        "lines[0].qty": ["must be at least 1"],
        "lines[1].sku": ["must be a string, not an integer"],
        "rush": ["must be true or false, not an integer"],
    }


def test_dispatch_refuses_a_result_that_does_not_match_the_return_type() -> None:
    with pytest.raises(ResultError) as caught:
        make_app().dispatch(CommandRequest("orders_broken", {"count": 1}, Origin.internal()))
    assert str(caught.value) == (
        "The command 'orders_broken' returned a value that does not match its return type: result[1].qty is str 'many', not an integer.\n"
        "Fix the command or its return annotation."
    )


# --- the schema accepts exactly what from_json accepts ----------------------------------------

# Values whose acceptance a 2020-12 schema can state. Left out on purpose: strings with a
# `format` or `contentEncoding` (annotations only in 2020-12, so any string passes the schema
# while from_json parses it), NaN and infinities (not JSON), and integers too large for a float.
SAMPLES = [
    None, True, False, 0, 1, 2, 3, 3.0, 3.5, 6, -1, 0.5, 1e308, -1e308,
    "", "a", "b", "ab", "abcd", "AB", "red", "blue", "1.50", "01", "-0.5", "1e3", "2026-07-28",
    [], [1], [1, 1], [1, 1.0], [1, 2], [1, 2, 3], [1, "a"], ["a", "b"], ["a", "a"], [True], [True, 1], [None],
    {}, {"a": 1}, {"a": "x"}, {"a": 1, "b": "y"}, {"a": 1, "c": 2}, {"z": 1}, {"a": [1, 2]},
    {"title": "t"}, {"title": "t", "year": 1}, {"title": "t", "body": 2},
    {"sku": "x"}, {"sku": "x", "qty": 0}, {"sku": "x", "qty": 2.0}, {"sku": "x", "qty": True}, {"sku": "x", "extra": 1},
    {"lat": 1}, {"lat": 1, "lon": "w"},
    {"name": "r", "children": [{"name": "c"}]}, {"name": "r", "children": [{"children": []}]},
    [{"sku": "x"}], [{"sku": 1}], [{"x": 1, "y": 2}, {"x": 1, "y": 2}],
]  # fmt: skip

EQUIVALENCE_TYPES = [
    str, int, float, bool, None, int | None, int | str, float | None, Literal["a", "b"], Literal[1], Literal[True], Literal["a", 1, None],
    Color, Priority, list[int], set[int], frozenset[str], set[Tile], tuple[int, str], tuple[int, ...], dict[str, int],
    dict[Literal["a", "b"], int], dict[str, list[int]], Line, list[Line], Line | None, Movie, Filters, Draft, Coord, TreeNode,
    decimal.Decimal, UserId, JsonValue,
    Annotated[int, Field(ge=1, le=5)], Annotated[float, Field(gt=0, lt=1)], Annotated[int, Field(multiple_of=3)],
    Annotated[float, Field(multiple_of=0.5)], Annotated[str, Field(min_length=2, max_length=3, pattern="^[a-z]+$")],
    Annotated[list[int], Field(min_length=1, max_length=2)], Annotated[dict[str, int], Field(min_length=1)],
]  # fmt: skip


def accepted_by_from_json(node: Node, value: Any) -> bool:
    try:
        from_json(node, value)
    except Invalid:
        return False
    return True


@pytest.mark.parametrize("hint", EQUIVALENCE_TYPES)
def test_the_schema_accepts_exactly_the_values_from_json_accepts(hint: Any) -> None:
    node = node_of(hint)
    schema = value_schema(node)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    by_schema = [value for value in SAMPLES if validator.is_valid(value)]
    by_from_json = [value for value in SAMPLES if accepted_by_from_json(node, value)]
    assert by_schema == by_from_json
    assert by_schema, "no sample is accepted: the table does not exercise this type"
    assert hint is JsonValue or len(by_schema) < len(SAMPLES), "every sample is accepted: the table does not exercise this type"


@dataclass
class Badge:
    id: int
    name: str
    active: bool
    note: None = None


class Label(str):
    pass


def test_plain_fields_of_a_dataclass_result_are_checked_whatever_their_python_type() -> None:
    node = node_of(Badge)
    assert to_json(node, Badge(1, "Ada", True)) == {"id": 1, "name": "Ada", "active": True, "note": None}
    assert to_json(node, Badge(1, Label("Ada"), False)) == {"id": 1, "name": "Ada", "active": False, "note": None}
    for badge, message in [
        (Badge(True, "Ada", True), "result.id is bool True, not an integer"),
        (Badge("1", "Ada", True), "result.id is str '1', not an integer"),  # type: ignore[arg-type] - a wrong value on purpose
        (Badge(1, "Ada", 1), "result.active is int 1, not true or false"),  # type: ignore[arg-type] - a wrong value on purpose
        (Badge(1, "Ada", True, ""), "result.note is str '', not null"),  # type: ignore[arg-type] - a wrong value on purpose
    ]:
        with pytest.raises(Mismatch) as caught:
            to_json(node, badge)
        assert str(caught.value) == message


# --- enum and Literal values: what the cleaned schema lists is exactly what validation accepts ----


ENUM_TEXT = st.lists(st.sampled_from(["a", "b", " ", "\x1b", "\x07", "\u202e", "\u200b", "\ud800", "\u2028", "\r", "\n", "é", "\ufe0f"]), max_size=6).map(
    "".join
)


@given(st.lists(st.one_of(ENUM_TEXT, st.integers(-3, 3)), min_size=1, max_size=6, unique=True), st.booleans())
def test_the_cleaned_schema_of_an_enum_lists_exactly_the_values_validation_accepts(values: list[Any], as_enum: bool) -> None:
    import enum

    if as_enum:
        hint: Any = enum.Enum("Choice", {f"M{i}": v for i, v in enumerate(values)})
        values = [m.value for m in hint]  # equal values become aliases of one member
    else:
        hint = Literal[tuple(values)]
    try:
        node = node_of(hint)
    except CodegenError:
        assert any(isinstance(v, str) and clean_text(v) != v for v in values)
        return
    schema = clean_schema(value_schema(node))  # what tools/list shows the agent
    offered = schema["enum"] if "enum" in schema else [schema["const"]]
    assert sorted(map(repr, offered)) == sorted(map(repr, values))
    assert all(accepted_by_from_json(node, value) for value in offered)
    for value in values:
        if isinstance(value, str):
            for near in (value + "\u200b", "\u202e" + value, value.upper() + "\x1b"):
                assert accepted_by_from_json(node, near) == (near in values)
