"""rata.codegen.readable: a JSON schema as rows a person reads, for any schema, however odd."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from rata.codegen import readable
from rata.codegen.readable import Row, definitions, fields, parameters, rules_text, type_text

NODE = {
    "type": "object",
    "description": "A node.",
    "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, "value": {"type": "integer", "minimum": 0}},
    "required": ["children", "value"],
}


def test_each_type_has_a_short_human_form():
    cases = [
        ({"type": "integer"}, "integer"),
        ({"type": "string", "format": "email"}, "string (email)"),
        ({"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}, "string (base64, image/png)"),
        ({"enum": ["a", "b"]}, '"a" | "b"'),
        ({"const": 3}, "3"),
        ({"enum": list(range(10))}, "0 | 1 | 2 | \u2026"),
        ({"type": "array", "items": {"$ref": "#/$defs/Customer"}}, "list[Customer]"),
        ({"$ref": "#/definitions/a~1b"}, "a/b"),
        ({"$ref": "https://example.com/s.json"}, 'ref "https://example.com/s.json"'),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "integer | null"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}, "tuple[integer, string]"),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "dict[string, number]"),
        ({"type": "object", "propertyNames": {"enum": ["x"]}, "additionalProperties": {"type": "number"}}, 'dict["x", number]'),
        ({"type": "object", "properties": {"a": {}}}, "object"),
        ({"allOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, "A & B"),
        ({}, "any"),
        (True, "any"),
        (False, "never"),
        (None, "nothing"),
        ("not a schema", "?"),
    ]
    assert [(schema, type_text(schema)) for schema, _ in cases] == cases


def test_constraints_read_as_words():
    cases = [
        ({"type": "integer", "minimum": 1, "maximum": 500}, "1 \u2264 x \u2264 500"),
        ({"type": "number", "exclusiveMinimum": 0}, "x > 0"),
        ({"type": "number", "minimum": 0}, "x \u2265 0"),
        ({"type": "number", "exclusiveMaximum": 1, "minimum": 0}, "0 \u2264 x < 1"),
        ({"type": "string", "maxLength": 200}, "max 200 chars"),
        ({"type": "string", "minLength": 1, "maxLength": 200}, "1\u2013200 chars"),
        ({"type": "string", "minLength": 2, "maxLength": 2}, "exactly 2 chars"),
        ({"type": "string", "pattern": "^[a-z]+$"}, "pattern ^[a-z]+$"),
        ({"type": "array", "items": {"type": "string", "maxLength": 5}, "minItems": 1, "uniqueItems": True}, "min 1 item; unique; each max 5 chars"),
        ({"type": "integer", "multipleOf": 5}, "multiple of 5"),
        ({"enum": list(range(10))}, "one of 10"),
        ({"anyOf": [{"type": "integer", "maximum": 9}, {"type": "null"}]}, "x \u2264 9"),
        ({"type": "array", "prefixItems": [{}, {}], "minItems": 2, "maxItems": 2}, ""),
        ({"type": "integer", "minimum": "1", "maximum": True}, ""),  # not numbers: no constraint is made up
    ]
    assert [(schema, rules_text(schema)) for schema, _ in cases] == cases


def test_parameters_say_required_or_the_default_and_nest_inline_objects():
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "description": "The id."},
            "limit": {"type": "integer", "default": 50},
            "note": {"type": "string"},
            "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
        },
        "required": ["id"],
    }
    assert parameters(schema) == [
        Row("id", "integer", "yes", "", "The id."),
        Row("limit", "integer", "default 50", "", ""),
        Row("note", "string", "no", "", ""),
        Row("address", "object", "no", "", ""),
        Row("address.city", "string", "yes", "", ""),
        Row("lines", "list[object]", "no", "", ""),
        Row("lines[].sku", "string", "no", "", ""),
    ]


def test_a_result_shows_the_fields_of_the_object_it_holds():
    customer = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    for schema in (customer, {"type": "array", "items": customer}, {"anyOf": [customer, {"type": "null"}]}):
        assert fields(schema) == [Row("id", "integer", "yes", "", "")]
    assert fields({"type": "string"}) == [] and fields(None) == []


def test_recursive_definitions_are_listed_once_each():
    schema = {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}, "other": {"$ref": "#/$defs/Missing"}}, "$defs": {"Node": NODE, "Unused": NODE}}
    assert parameters(schema)[0] == Row("root", "Node", "no", "", "")
    (node,) = definitions(schema)
    assert (node.name, node.type, node.description) == ("Node", "object", "A node.")
    assert node.rows == [Row("children", "list[Node]", "yes", "", ""), Row("value", "integer", "yes", "x \u2265 0", "")]


def test_deep_nesting_and_many_fields_are_cut():
    deep: dict = {"type": "string"}
    for _ in range(50):
        deep = {"type": "array", "items": deep}
    assert type_text(deep).endswith("\u2026]]]]]]]") and len(type_text(deep)) <= readable.MAX_TYPE
    nested: dict = {"type": "object", "properties": {"x": {"type": "integer"}}}
    for _ in range(10):
        nested = {"type": "object", "properties": {"a": nested}}
    assert [row.name for row in parameters(nested)] == ["a", "a.a", "a.a.a"]
    wide = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(500)}}
    rows = parameters(wide)
    assert len(rows) == readable.MAX_ROWS and rows[-1] == Row("\u2026", "", "", "", "441 more not shown")


def test_hostile_text_is_cleaned_and_bounded():
    schema = {
        "type": "object",
        "properties": {
            "x\u202e\x1b[2J" + "n" * 500: {
                "type": "string",
                "description": "[bold red]hi[/]\n\nsecond\u200b line " + "d" * 1000,
                "default": "v" * 1000,
                "pattern": "p" * 1000,
                "format": "\x1b[31m",
            }
        },
    }
    (row,) = parameters(schema)
    assert row.name.startswith("x[2Jnnn") and len(row.name) == readable.MAX_NAME
    assert row.description.startswith("[bold red]hi[/] second line ddd") and len(row.description) == readable.MAX_DESCRIPTION
    assert row.need.startswith('default "vvv') and len(row.need) <= len("default ") + readable.MAX_DEFAULT
    assert row.type == "string ([31m)" and len(row.rules) <= readable.MAX_RULES


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
KEYWORDS = st.sampled_from(
    ["type", "properties", "required", "items", "prefixItems", "anyOf", "oneOf", "allOf", "enum", "const", "$ref", "$defs", "definitions", "default",
     "description", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
     "pattern", "additionalProperties", "propertyNames", "uniqueItems", "multipleOf", "x"]
)
REFS = st.sampled_from(["#/$defs/A", "#/$defs/B", "#/definitions/A", "#", "#/$defs/", "other.json"])
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object", "weird"])
SCHEMAS = st.recursive(
    JSON_SCALARS | REFS | TYPES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYWORDS | st.text(max_size=8), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(SCHEMAS, SCHEMAS)
def test_any_json_value_gives_bounded_rows_and_never_raises(schema, defs):
    if isinstance(schema, dict):
        schema = {**schema, "$defs": defs}
    rows = parameters(schema) + fields(schema)
    found = definitions(schema)
    for definition in found:
        rows += definition.rows
        assert len(definition.name) <= readable.MAX_NAME and len(definition.type) <= readable.MAX_TYPE
    assert len(parameters(schema)) <= readable.MAX_ROWS
    for row in rows:
        name, kind, need, rules, description = dataclasses.astuple(row)
        assert len(name) <= readable.MAX_NAME and len(kind) <= readable.MAX_TYPE and len(rules) <= readable.MAX_RULES
        assert len(need) <= len("default ") + readable.MAX_DEFAULT and len(description) <= readable.MAX_DESCRIPTION
        assert all("\n" not in text and "\x1b" not in text for text in (name, kind, need, rules, description))
    assert len(type_text(schema)) <= readable.MAX_TYPE and len(rules_text(schema)) <= readable.MAX_RULES
