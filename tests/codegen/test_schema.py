"""Nodes -> JSON Schema 2020-12 (`rata.codegen.schema`): the whole schema for each supported type.

Every schema produced here is also checked against the 2020-12 meta-schema.
"""

import datetime as dt
import decimal
import json
import pathlib
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NewType, Optional

import pytest
from jsonschema import Draft202012Validator

from rata import Ctx, Field, JsonValue, command
from rata.codegen.schema import object_schema, value_schema
from rata.command_spec import inspect_command
from rata.typemodel import Analyzer
from tests.samples import Color, Coord, Dept, Draft, Filters, Movie, Order, Priority, Status, TreeNode


def schema_of(hint: Any) -> dict[str, Any]:
    """The value schema of `hint`, after checking it is a valid 2020-12 schema."""
    schema = value_schema(Analyzer().analyze(hint, "command 'f', return type"))
    Draft202012Validator.check_schema(schema)
    return schema


def input_schema_of(fn: Any) -> dict[str, Any]:
    """The input schema of a command, built as the catalog builds it, after checking it is a valid 2020-12 schema."""
    spec = inspect_command(command(fn), Analyzer(), Ctx)
    schema = object_schema([(p.name, p.node, p.required, p.default, p.description) for p in spec.params])
    Draft202012Validator.check_schema(schema)
    return schema


class Forest:
    @dataclass
    class TreeNode:
        kind: str
        parent: Optional["Forest.TreeNode"] = None


UserId = NewType("UserId", int)

INTEGER = {"type": "integer"}
STRING = {"type": "string"}


# --- scalars, unions, literals, enums -----------------------------------------------------


@pytest.mark.parametrize(("hint", "kind"), [(str, "string"), (int, "integer"), (float, "number"), (bool, "boolean"), (None, "null")])
def test_a_scalar_is_its_json_type(hint: Any, kind: str) -> None:
    assert schema_of(hint) == {"type": kind}


@pytest.mark.parametrize("hint", [Optional[int], int | None])
def test_an_optional_value_is_any_of_the_type_and_null(hint: Any) -> None:
    assert schema_of(hint) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def test_a_union_is_any_of_its_options_in_order() -> None:
    assert schema_of(int | str | Coord) == {
        "anyOf": [
            {"type": "integer"},
            {"type": "string"},
            {
                "description": "A point on a map.",
                "type": "object",
                "properties": {"lat": {"description": "Latitude.", "type": "number"}, "lon": {"type": "number", "default": 0.0}},
                "required": ["lat"],
                "additionalProperties": False,
            },
        ]
    }


def test_nested_unions_are_flattened_into_one_any_of() -> None:
    assert schema_of(int | Annotated[str | None, object()]) == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}


def test_a_constrained_union_inside_a_union_keeps_its_own_any_of() -> None:
    assert schema_of(int | Annotated[str | None, Field(max_length=3)]) == {
        "anyOf": [{"type": "integer"}, {"anyOf": [{"type": "string"}, {"type": "null"}], "maxLength": 3}]
    }


def test_a_literal_of_strings_is_a_string_enum() -> None:
    assert schema_of(Literal["draft", "sent"]) == {"type": "string", "enum": ["draft", "sent"]}


def test_a_literal_of_ints_is_an_integer_enum() -> None:
    assert schema_of(Literal[1, 2, 3]) == {"type": "integer", "enum": [1, 2, 3]}


def test_a_literal_of_booleans_is_a_boolean_enum() -> None:
    assert schema_of(Literal[True, False]) == {"type": "boolean", "enum": [True, False]}


def test_a_literal_of_one_value_is_a_const() -> None:
    assert (schema_of(Literal["only"]), schema_of(Literal[7]), schema_of(Literal[True]), schema_of(Literal[None])) == (
        {"type": "string", "const": "only"},
        {"type": "integer", "const": 7},
        {"type": "boolean", "const": True},
        {"type": "null", "const": None},
    )


def test_a_literal_of_mixed_types_is_an_enum_without_a_type() -> None:
    assert schema_of(Literal["a", 1, None]) == {"enum": ["a", 1, None]}


def test_an_enum_with_str_values_is_a_string_enum_of_its_values() -> None:
    assert schema_of(Color) == {"type": "string", "enum": ["red", "green"]}


def test_an_enum_with_int_values_is_an_integer_enum_of_its_values() -> None:
    assert schema_of(Priority) == {"type": "integer", "enum": [1, 2]}


def test_an_enum_with_a_docstring_is_described_by_it() -> None:
    assert schema_of(Status) == {"type": "string", "enum": ["open", "shipped"], "description": "Where an order is.\n\nMore words that are not the summary."}


# --- containers ----------------------------------------------------------------------------


def test_a_list_becomes_an_array_of_its_items() -> None:
    assert schema_of(list[int]) == {"type": "array", "items": {"type": "integer"}}


def test_a_set_becomes_an_array_with_unique_items() -> None:
    assert schema_of(set[str]) == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}


def test_a_frozenset_becomes_an_array_with_unique_items() -> None:
    assert schema_of(frozenset[int]) == {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}


def test_a_fixed_tuple_becomes_an_array_with_prefix_items_and_exact_length() -> None:
    assert schema_of(tuple[int, str, bool]) == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}],
        "minItems": 3,
        "maxItems": 3,
    }


def test_a_variadic_tuple_becomes_an_array_of_its_items() -> None:
    assert schema_of(tuple[float, ...]) == {"type": "array", "items": {"type": "number"}}


def test_a_dict_with_str_keys_becomes_an_object_of_any_keys() -> None:
    assert schema_of(dict[str, list[int]]) == {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}}


def test_a_dict_with_literal_or_enum_keys_names_its_keys() -> None:
    assert (schema_of(dict[Literal["a", "b"], int]), schema_of(dict[Color, bool])) == (
        {"type": "object", "propertyNames": {"type": "string", "enum": ["a", "b"]}, "additionalProperties": {"type": "integer"}},
        {"type": "object", "propertyNames": {"type": "string", "enum": ["red", "green"]}, "additionalProperties": {"type": "boolean"}},
    )


# --- objects -------------------------------------------------------------------------------


def test_a_dataclass_becomes_a_closed_object_with_descriptions_defaults_and_required_fields() -> None:
    assert schema_of(Order) == {
        "description": "An order of some items.",
        "type": "object",
        "properties": {
            "customer": {"description": "Who ordered.", "type": "string"},
            "sku": {"description": "Stock keeping unit.", "type": "string"},
            "note": {"description": "Anything the customer added.", "type": "string", "default": ""},
            "tags": {"type": "array", "items": {"type": "string"}},
            "placed": {"type": "string", "format": "date", "default": "2026-07-28"},
            "status": {
                "type": "string",
                "enum": ["open", "shipped"],
                "description": "Where an order is.\n\nMore words that are not the summary.",
                "default": "open",
            },
        },
        "required": ["customer", "sku"],
        "additionalProperties": False,
    }


def test_a_total_typeddict_requires_every_key() -> None:
    assert schema_of(Movie) == {
        "description": "A film.",
        "type": "object",
        "properties": {"title": {"description": "Its title.", "type": "string"}, "year": {"type": "integer"}},
        "required": ["title", "year"],
        "additionalProperties": False,
    }


def test_a_typeddict_with_total_false_requires_nothing() -> None:
    assert schema_of(Filters) == {
        "type": "object",
        "properties": {"search": {"type": "string"}, "limit": {"type": "integer"}},
        "additionalProperties": False,
    }


def test_a_not_required_typeddict_key_is_left_out_of_required() -> None:
    assert schema_of(Draft) == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
        "required": ["title"],
        "additionalProperties": False,
    }


def test_a_namedtuple_becomes_an_object_of_its_fields() -> None:
    assert schema_of(Coord) == {
        "description": "A point on a map.",
        "type": "object",
        "properties": {"lat": {"description": "Latitude.", "type": "number"}, "lon": {"type": "number", "default": 0.0}},
        "required": ["lat"],
        "additionalProperties": False,
    }


# --- values carried as strings ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "schema"),
    [
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (dt.time, {"type": "string", "format": "time"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (decimal.Decimal, {"type": "string", "pattern": r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$", "description": "A decimal number, as a string."}),
        (pathlib.Path, {"type": "string", "description": "A file system path."}),
        (bytes, {"type": "string", "contentEncoding": "base64"}),
    ],
)
def test_a_value_carried_as_a_string_has_its_format(hint: Any, schema: dict[str, Any]) -> None:
    assert schema_of(hint) == schema


def test_a_newtype_has_the_schema_of_the_type_it_wraps() -> None:
    assert schema_of(UserId) == {"type": "integer"}


# --- Annotated --------------------------------------------------------------------------------


def test_annotated_with_a_string_describes_the_value() -> None:
    assert schema_of(Annotated[str, "The customer's name"]) == {"description": "The customer's name", "type": "string"}


def test_annotated_description_replaces_the_description_of_a_special_type() -> None:
    assert schema_of(Annotated[decimal.Decimal, "Price in euros"]) == {
        "description": "Price in euros",
        "type": "string",
        "pattern": r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$",
    }


def test_numeric_field_constraints_become_minimum_maximum_and_multiple_of() -> None:
    assert schema_of(Annotated[int, Field("Rows", ge=1, gt=0, le=500, lt=501, multiple_of=5)]) == {
        "description": "Rows",
        "type": "integer",
        "minimum": 1,
        "exclusiveMinimum": 0,
        "maximum": 500,
        "exclusiveMaximum": 501,
        "multipleOf": 5,
    }


def test_string_field_constraints_become_length_and_pattern() -> None:
    assert schema_of(Annotated[str, Field(min_length=2, max_length=8, pattern="^[a-z]+$")]) == {
        "type": "string",
        "minLength": 2,
        "maxLength": 8,
        "pattern": "^[a-z]+$",
    }


def test_length_constraints_on_an_array_become_item_counts() -> None:
    assert schema_of(Annotated[set[int], Field(min_length=1, max_length=3)]) == {
        "type": "array",
        "items": {"type": "integer"},
        "uniqueItems": True,
        "minItems": 1,
        "maxItems": 3,
    }


def test_length_constraints_on_a_dict_become_property_counts() -> None:
    assert schema_of(Annotated[dict[str, int], Field(min_length=1, max_length=9)]) == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "minProperties": 1,
        "maxProperties": 9,
    }


def test_field_examples_become_a_list_of_examples() -> None:
    assert schema_of(Annotated[list[str], Field(examples=(["a", "b"], []))]) == {"type": "array", "items": {"type": "string"}, "examples": [["a", "b"], []]}


def test_annotated_types_constraints_become_the_same_keywords() -> None:
    annotated_types = pytest.importorskip("annotated_types")
    hint = Annotated[float, annotated_types.Interval(gt=0, le=1), annotated_types.MultipleOf(0.25)]
    assert (schema_of(hint), schema_of(Annotated[str, annotated_types.Len(1, 4)])) == (
        {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "multipleOf": 0.25},
        {"type": "string", "minLength": 1, "maxLength": 4},
    )


# --- recursion and any --------------------------------------------------------------------------


def test_a_recursive_dataclass_is_defined_once_and_referred_to() -> None:
    node_schema = {
        "description": "A node of a tree.",
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}},
        "required": ["name"],
        "additionalProperties": False,
    }
    assert schema_of(TreeNode) == {"$ref": "#/$defs/TreeNode", "$defs": {"TreeNode": node_schema}}


def test_mutually_recursive_dataclasses_define_the_one_reached_first() -> None:
    assert schema_of(Dept) == {
        "$ref": "#/$defs/Dept",
        "$defs": {
            "Dept": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "staff": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "dept": {"anyOf": [{"$ref": "#/$defs/Dept"}, {"type": "null"}], "default": None},
                            },
                            "required": ["name"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": ["name", "staff"],
                "additionalProperties": False,
            }
        },
    }


def test_two_recursive_classes_with_one_name_get_distinct_definitions() -> None:
    inner = f"{Forest.TreeNode.__module__}.Forest.TreeNode"
    assert schema_of(tuple[TreeNode, Forest.TreeNode]) == {
        "type": "array",
        "prefixItems": [{"$ref": "#/$defs/TreeNode"}, {"$ref": f"#/$defs/{inner}"}],
        "minItems": 2,
        "maxItems": 2,
        "$defs": {
            "TreeNode": {
                "description": "A node of a tree.",
                "type": "object",
                "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}},
                "required": ["name"],
                "additionalProperties": False,
            },
            inner: {
                "type": "object",
                "properties": {"kind": {"type": "string"}, "parent": {"anyOf": [{"$ref": f"#/$defs/{inner}"}, {"type": "null"}], "default": None}},
                "required": ["kind"],
                "additionalProperties": False,
            },
        },
    }


def test_json_value_is_the_empty_schema() -> None:
    assert (schema_of(JsonValue), schema_of(list[JsonValue]), schema_of(Annotated[JsonValue, "Anything"])) == (
        {},
        {"type": "array", "items": {}},
        {"description": "Anything"},
    )


# --- a command's input schema ----------------------------------------------------------------


def test_a_commands_input_schema_lists_its_parameters_without_ctx() -> None:
    def orders_index(ctx: Ctx, search: str, limit: Annotated[int, Field("Rows to return", ge=1, le=500)] = 50, status: Status | None = None) -> None:
        """List orders.

        Args:
            search: Text to look for.
            limit: Ignored, the Annotated description wins.
            status: Only orders in this state.
        """

    assert input_schema_of(orders_index) == {
        "type": "object",
        "properties": {
            "search": {"description": "Text to look for.", "type": "string"},
            "limit": {"description": "Rows to return", "type": "integer", "minimum": 1, "maximum": 500, "default": 50},
            "status": {
                "description": "Only orders in this state.",
                "anyOf": [
                    {"type": "string", "enum": ["open", "shipped"], "description": "Where an order is.\n\nMore words that are not the summary."},
                    {"type": "null"},
                ],
                "default": None,
            },
        },
        "required": ["search"],
        "additionalProperties": False,
    }


def test_a_command_without_parameters_takes_an_empty_closed_object() -> None:
    def ping(ctx: Ctx) -> None: ...

    assert input_schema_of(ping) == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}  # strict converters need both


def test_a_default_that_does_not_match_its_type_is_left_out() -> None:
    def f(limit: int = None, when: dt.date = dt.date(2026, 1, 2)) -> None: ...  # type: ignore[assignment] - a default that does not match its type, on purpose

    assert input_schema_of(f) == {
        "type": "object",
        "properties": {"limit": {"type": "integer"}, "when": {"type": "string", "format": "date", "default": "2026-01-02"}},
        "additionalProperties": False,
    }


def test_a_recursive_parameter_puts_its_definition_at_the_root() -> None:
    def plant(tree: TreeNode) -> None: ...

    assert input_schema_of(plant) == {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/TreeNode"}},
        "required": ["tree"],
        "additionalProperties": False,
        "$defs": {
            "TreeNode": {
                "description": "A node of a tree.",
                "type": "object",
                "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}},
                "required": ["name"],
                "additionalProperties": False,
            }
        },
    }


def test_the_same_types_always_give_the_same_bytes() -> None:
    texts = {json.dumps(schema_of(Order)) for _ in range(3)}
    assert texts == {
        '{"description": "An order of some items.", "type": "object", "properties": {'
        '"customer": {"description": "Who ordered.", "type": "string"}, '
        '"sku": {"description": "Stock keeping unit.", "type": "string"}, '
        '"note": {"description": "Anything the customer added.", "type": "string", "default": ""}, '
        '"tags": {"type": "array", "items": {"type": "string"}}, '
        '"placed": {"type": "string", "format": "date", "default": "2026-07-28"}, '
        '"status": {"type": "string", "enum": ["open", "shipped"], "description": "Where an order is.\\n\\nMore words that are not the summary.", '
        '"default": "open"}}, '
        '"required": ["customer", "sku"], "additionalProperties": false}'
    }


def test_a_parameters_args_description_beats_its_types_docstring() -> None:
    @dataclass
    class Address:
        """A postal address."""

        city: str

    def ship(ctx: Ctx, to: Address) -> None:
        """Ship it.

        Args:
            to: Where the parcel goes.
        """

    assert input_schema_of(ship)["properties"]["to"]["description"] == "Where the parcel goes."
