"""Lint rules, each tripped by a catalog made for it."""

from __future__ import annotations

from typing import Any

from rata.codegen.catalog import Catalog
from rata.codegen.lint import client_name, lint


def catalog(tools, commands=None, grants=None, app="srv"):
    return Catalog({"name": app, "identifier": "com.example.srv", "version": "1"}, tools, [], commands or [], grants or {})


def tool(name, description: Any = "Does a thing.", **schema):
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": schema, "additionalProperties": False}}


def rules(findings):
    return [(f.rule, f.severity, f.tool, f.path) for f in findings]


def test_client_renaming_lowercases_and_replaces_other_characters():
    assert client_name("Customers.Index-v2") == "customers_index_v2"


def test_a_name_too_long_for_claude_code_once_prefixed():
    name = "x" * 52  # mcp__srv__ + 52 = 62 is fine; 55 is not
    assert lint(catalog([tool(name)])) == []
    assert rules(lint(catalog([tool("x" * 55)]))) == [("name-too-long", "error", "x" * 55, "/name")]


def test_one_finding_names_every_client_a_long_name_breaks_and_the_length_that_fits_all():
    findings = lint(catalog([tool("t" * 40)], app="a" * 21))
    assert rules(findings) == [("name-too-long", "error", "t" * 40, "/name")]
    assert "Claude Code and Codex" in findings[0].message and "Cursor drops tools" in findings[0].message
    assert "at most 36 characters" in findings[0].fix


def test_a_name_with_dots_is_refused_by_claude_desktop():
    assert rules(lint(catalog([tool("customers.view")]))) == [("name-charset", "warning", "customers.view", "/name")]


def test_names_that_collide_after_renaming():
    assert rules(lint(catalog([tool("A_b"), tool("a_b")]))) == [("name-collision", "error", "a_b", "/name")]


def test_too_many_tools_for_windsurf_then_for_vs_code():
    assert rules(lint(catalog([tool(f"t{i}") for i in range(101)]))) == [("too-many-tools", "warning", None, "/tools")]
    assert rules(lint(catalog([tool(f"t{i}") for i in range(129)]))) == [("too-many-tools", "error", None, "/tools")]


def test_missing_and_very_long_descriptions():
    found = rules(lint(catalog([tool("quiet", ""), tool("chatty", "word " * 300)])))
    assert found == [("description-too-long", "warning", "chatty", "/description"), ("description-missing", "warning", "quiet", "/description")]


def test_schema_portability_problems_are_found_where_they_are():
    bad = tool(
        "t",
        anything={},
        flag=True,
        either={"type": ["string", "null"], "description": "x"},
        remote={"$ref": "https://example.com/s.json", "description": "x"},
    )
    assert rules(lint(catalog([bad]))) == [
        ("schema-remote-ref", "error", "t", "/inputSchema/properties/remote/$ref"),
        ("schema-boolean", "warning", "t", "/inputSchema/properties/flag"),
        ("schema-not-strict", "warning", "t", "/inputSchema/properties/anything"),
        ("schema-not-strict", "warning", "t", "/inputSchema/properties/flag"),
        ("schema-type-array", "warning", "t", "/inputSchema/properties/either/type"),
        ("schema-untyped", "warning", "t", "/inputSchema/properties/anything"),
        ("param-description", "info", "t", "/inputSchema/properties/anything"),
    ]


def test_a_schema_that_breaks_the_meta_schema_is_an_error_when_the_deep_check_runs():
    bad = [tool("t", n={"type": "integer", "minimum": "one", "description": "n"}), tool("u", n={"type": "integer", "minimum": "one", "description": "n"})]
    assert lint(catalog(bad)) == []
    found = lint(catalog(bad), meta_schema=True)
    assert rules(found) == [
        ("schema-invalid", "error", "t", "/inputSchema/properties/n/minimum"),
        ("schema-invalid", "error", "u", "/inputSchema/properties/n/minimum"),
    ]


def test_a_grant_that_matches_no_command():
    commands = [{"name": "a", "ability": "customers.view"}]
    found = lint(catalog([], commands, {"agent": ["customers.*", "orders.view"], "confirm": ["custmers.delete"]}))
    assert [(f.rule, f.path, f.message) for f in found] == [
        ("grant-unmatched", "/grants/agent", "The agent grant 'orders.view' matches no command's or prompt's ability."),
        ("grant-unmatched", "/grants/confirm", "The agent grant 'custmers.delete' matches no command's or prompt's ability."),
    ]


def test_every_finding_says_how_to_fix_it():
    bad = tool("T.x" * 30, "", a={})
    findings = lint(catalog([bad, tool("t_x")], [], {"agent": ["nothing.here"]}))
    assert findings and all(f.fix for f in findings)


def strict_findings(schema, *, strict=False):
    from rata.codegen.lint import strict_problems

    return [(f.severity, f.path, f.message.split(": ", 1)[1]) for f in strict_problems("t", schema, strict=strict)]


def test_openai_strict_mode_refuses_open_objects_untyped_parts_and_keywords_outside_its_subset():
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "any": {"description": "anything"},
            "both": {"allOf": [{"type": "integer"}, {"minimum": 1}]},
            "named": {"type": "object", "propertyNames": {"pattern": "^a"}, "properties": {}, "additionalProperties": False},
            "fine": {"anyOf": [{"type": "string", "pattern": "^x"}, {"type": "null"}], "default": None},
        },
        "additionalProperties": False,
    }
    assert strict_findings(schema) == [
        ("warning", "/properties/tags/additionalProperties", "an object that allows properties it does not list (a dict)."),
        ("warning", "/properties/any", "a part without a type (it allows any value)."),
        ("warning", "/properties/both", "a part without a type (it allows any value)."),
        ("warning", "/properties/both/allOf", "'allOf' is not in the strict subset."),
        ("warning", "/properties/named/propertyNames", "'propertyNames' is not in the strict subset."),
    ]
    assert {severity for severity, _, _ in strict_findings(schema, strict=True)} == {"error"}


def test_openai_strict_mode_limits_the_root_the_nesting_the_properties_and_the_enums():
    assert strict_findings({"anyOf": [{"type": "string"}, {"type": "null"}]}) == [("warning", "/anyOf", "the root is an anyOf.")]
    nested = {"type": "object", "properties": {}, "additionalProperties": False}
    for _ in range(10):
        nested = {"type": "object", "properties": {"x": nested}, "required": ["x"], "additionalProperties": False}
    assert strict_findings(nested) == [("warning", "", "11 levels of nested objects; the limit is 10.")]
    assert strict_findings(nested["properties"]["x"]) == []
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string", "enum": ["a", "b"]} for i in range(5001)}, "additionalProperties": False}
    assert strict_findings(wide) == [
        ("warning", "", "5,001 object properties; the limit is 5,000."),
        ("warning", "", "10,002 enum values; the limit is 1,000."),
    ]


def enum_object(enums: dict[str, list[str]]) -> dict:
    return {"type": "object", "properties": {name: {"type": "string", "enum": values} for name, values in enums.items()}, "additionalProperties": False}


def test_openai_strict_mode_limits_the_characters_of_names_and_enum_values():
    # 4 enums of 250 values of 120 characters (1,000 values, 30,000 characters each: no single enum is over 250
    # values) and the 4 one-character property names: 120,004 characters, over OpenAI's 120,000.
    values = [f"{i:03d}" + "x" * 117 for i in range(250)]
    assert strict_findings(enum_object(dict.fromkeys("abcd", values))) == [
        ("warning", "", "120,004 characters of property names, definition names, enum and const values; the limit is 120,000."),
    ]
    assert strict_findings(enum_object(dict.fromkeys("abc", values))) == []
    named = {"type": "object", "properties": {"n" * 119_990: {"type": "string", "const": "c" * 11}}, "additionalProperties": False}
    assert [message for _, _, message in strict_findings(named)] == [
        "120,001 characters of property names, definition names, enum and const values; the limit is 120,000."
    ]
    defs = {"$ref": "#/$defs/" + "d" * 120_001, "$defs": {"d" * 120_001: enum_object({"a": ["x"]})}}
    assert [message for _, _, message in strict_findings({"type": "object", "properties": {"p": defs}, "additionalProperties": False})] == [
        "120,004 characters of property names, definition names, enum and const values; the limit is 120,000."
    ]


def test_openai_strict_mode_limits_one_long_enum_of_strings_to_15000_characters():
    long_enum = [f"{i:03d}" + "x" * 57 for i in range(251)]  # 251 values of 60 characters: 15,060
    assert strict_findings(enum_object({"a": long_enum})) == [
        ("warning", "/properties/a/enum", "an enum of 251 values with 15,060 characters; over 250 values, the limit is 15,000."),
    ]
    assert strict_findings(enum_object({"a": long_enum[:250]})) == []  # 250 values: no character limit of its own
    assert strict_findings(enum_object({"a": [value[:59] for value in long_enum]})) == []  # 251 values, 14,809 characters


def test_strict_mode_findings_are_errors_only_under_the_deep_check():
    open_tool = tool("t", tags={"type": "object", "additionalProperties": {"type": "string"}, "description": "x"})
    assert rules(lint(catalog([open_tool]))) == [("schema-not-strict", "warning", "t", "/inputSchema/properties/tags/additionalProperties")]
    assert rules(lint(catalog([open_tool]), meta_schema=True)) == [("schema-not-strict", "error", "t", "/inputSchema/properties/tags/additionalProperties")]


def prompted(*prompts, details=(), grants=None):
    return Catalog({"name": "srv", "identifier": "com.example.srv", "version": "1"}, [], [], [], grants or {}, [], [], list(prompts), list(details))


def test_prompt_names_descriptions_and_arguments_clients_cannot_use():
    good = {"name": "follow_up", "description": "Draft it.", "arguments": [{"name": "customer_id", "description": "Who.", "required": True}]}
    assert lint(prompted(good)) == []
    dotted = {"name": "follow.up", "arguments": [{"name": "größe", "required": False}]}
    long = {"name": "p" * 60, "description": "x" * 1025, "arguments": []}
    assert rules(lint(prompted(dotted, long))) == [
        ("prompt-argument", "warning", "prompt:follow.up", "/arguments/0/name"),
        ("prompt-description", "warning", "prompt:follow.up", "/description"),
        ("prompt-name", "warning", "prompt:follow.up", "/name"),
        ("prompt-description", "warning", f"prompt:{'p' * 60}", "/description"),
        ("prompt-name", "warning", f"prompt:{'p' * 60}", "/name"),
        ("prompt-argument", "info", "prompt:follow.up", "/arguments/0/description"),
    ]


def test_a_grant_that_matches_only_a_prompt_is_not_unmatched():
    detail = {"name": "follow_up", "ability": "notes.view", "agent": "allow", "inputSchema": {"type": "object"}}
    assert lint(prompted(details=[detail], grants={"agent": ["notes.*"]})) == []
    assert rules(lint(prompted(details=[detail], grants={"agent": ["other.*"]}))) == [("grant-unmatched", "warning", None, "/grants/agent")]


def test_resources_and_templates_are_linted():
    from rata.codegen.lint import lint as run

    catalog = Catalog(
        {"name": "srv", "identifier": "com.example.srv", "version": "1"}, [], [{"uri": "lab://a", "name": " ", "mimeType": "text/plain"}], [],
        {"agent": ["docs.read"], "confirm": ["docs.secret"]},
        [{"uriTemplate": "lab://files/{+path}", "name": "files", "description": "Files.", "mimeType": "text/plain"}],
        [{"uri": "lab://a", "ability": "docs.read", "agent": "allow", "template": False},
         {"uri": "lab://s", "ability": "docs.secret", "agent": "confirm", "template": False}],
    )  # fmt: skip
    found = {(f.rule, f.severity, f.path) for f in run(catalog)}
    assert found == {
        ("template-syntax", "error", "/templates/0/uriTemplate"),
        ("resource-confirm", "warning", "/resourceDetails"),
        ("resource-description", "warning", "/resources/0/description"),
        ("resource-name", "warning", "/resources/0/name"),
    }  # and no grant-unmatched: both grants match a resource's ability


def listing(name, output, **params):
    return {**tool(name, **{key: {"description": "A bound.", **schema} for key, schema in params.items()}), "outputSchema": output}


def test_a_tool_returning_a_list_needs_an_integer_bound_with_a_maximum():
    rows = {"type": "array", "items": {"type": "string"}}
    tools = [
        listing("dump", rows),
        listing("wrapped", {"type": "object", "properties": {"result": rows}, "required": ["result"]}),  # the 2025-11-25 wrapping
        listing("no_maximum", rows, limit={"type": "integer", "minimum": 1}),
        listing("not_a_bound", rows, offset={"type": "integer", "maximum": 500}),
        listing("bounded", rows, limit={"type": "integer", "minimum": 1, "maximum": 500}),
        listing("optional_bound", rows, page_size={"anyOf": [{"type": "integer", "maximum": 100}, {"type": "null"}]}),
        listing("one", {"type": "object", "properties": {"id": {"type": "integer"}}}),
    ]
    found = [f for f in lint(catalog(tools)) if f.rule == "unbounded-list"]
    assert [(f.tool, f.severity, f.path) for f in found] == [
        ("dump", "warning", "/outputSchema"),
        ("no_maximum", "warning", "/outputSchema"),
        ("not_a_bound", "warning", "/outputSchema"),
        ("wrapped", "warning", "/outputSchema"),
    ]
    assert found[0].fix == "Add a bound with a maximum: `limit: Annotated[int, Field(ge=1, le=500)] = 50`."
