"""The strict-mode conversions real agent frameworks run on MCP tool schemas, shared by the tests that use them.

openai-agents (`convert_schemas_to_strict=True` calls `agents.strict_schema.ensure_strict_json_schema`,
refusing open objects) and pydantic-ai (`OpenAIJsonSchemaTransformer`, the OpenAI profile's strict mode).
tests/codegen/test_strict_converters.py runs them over the schemas rata builds; tests/mcp/test_python_clients.py
over the schemas `crm --mcp` and `rata mcp dev` serve. The packages are pinned in requirements-test.txt:
without them the tests skip, except in CI (CI=true) or with RATA_PEERS_REQUIRED=1, where they fail.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest

from tests.mcp.peers import peers_required


def peer(module: str) -> Any:
    """The module, imported; a missing one skips the test, or fails it where peers are required."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        message = f"{module} is not installed ({error}; pip install -r requirements-test.txt)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)


def agents_strict(schema: dict[str, Any]) -> dict[str, Any]:
    strict_schema = peer("agents.strict_schema")
    return strict_schema.ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=schema != {})  # as agents.mcp.util does


def pydantic_ai(schema: dict[str, Any], strict: bool | None) -> Any:
    """pydantic-ai's OpenAI transformer over a copy of `schema`: (the transformer, the schema it walked to)."""
    openai_profile = peer("pydantic_ai.profiles.openai")
    transformer = openai_profile.OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=strict)
    return transformer, transformer.walk()


def untyped(schema: Any, path: str = "") -> list[str]:
    """Each part of a converted schema with no type: the OpenAI API refuses those in strict mode."""
    from rata.codegen.sanitize import subschemas

    if not isinstance(schema, dict):
        return [path]
    found = [] if {"type", "enum", "const", "anyOf", "$ref"} & set(schema) else [path]
    for suffix, sub in subschemas(schema):
        if not (suffix == "/additionalProperties" and sub is False):
            found += untyped(sub, path + suffix)
    return found


def without_optional(schema: Any) -> Any:
    """`schema` with every property required and no defaults."""
    if isinstance(schema, list):
        return [without_optional(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: without_optional(value) for key, value in schema.items() if key != "default"}
    if isinstance(out.get("properties"), dict) and out["properties"]:
        out["required"] = list(out["properties"])
    return out


def assert_converts_to_strict(name: str, schema: dict[str, Any]) -> None:
    """Both frameworks convert `schema` to strict mode, and nothing in it is left untyped."""
    try:
        converted = agents_strict(schema)
    except peer("agents.exceptions").UserError as error:
        raise AssertionError(f"{name}: openai-agents refuses it in strict mode ({error})") from error
    assert converted["additionalProperties"] is False if converted.get("type") == "object" else True, name
    assert untyped(converted) == [], name
    _, walked = pydantic_ai(schema, strict=True)
    assert untyped(walked) == [], name
    assert "properties" in walked if walked.get("type") == "object" else True, name
    transformer, _ = pydantic_ai(schema, strict=None)
    if transformer.is_strict_compatible is False:
        # pydantic-ai's own test for "strict as it stands": only optional parameters (strict mode wants
        # every property required) and their defaults may stop it, both meaning-preserving to convert.
        assert pydantic_ai(without_optional(schema), strict=None)[0].is_strict_compatible, name


def refused_by_agents(schema: dict[str, Any]) -> bool:
    """openai-agents refuses `schema` in strict mode, or converts it to something with an untyped part."""
    try:
        return untyped(agents_strict(schema)) != []
    except Exception:  # any refusal by the converter counts
        return True
