"""What an MCP client receives from ``tools/list``, ``resources/list``, ``resources/templates/list`` and ``prompts/list``, per era.

The catalog's tools are in the 2026-07-28 shape, where ``outputSchema`` may have any root.
A 2025-11-25 client needs an object root and object ``structuredContent``, so there a
non-object output is wrapped as ``{"result": <value>}`` (``legacy_output_schema``); the
server wraps the values the same way.
"""

from __future__ import annotations

from typing import Any

from rata.codegen.catalog import Catalog

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ERAS = {"modern": MODERN, "legacy": LEGACY}
RESULT_KEY = "result"


class Index:
    """One app server's surface at one moment: the catalog and every dict made from it.

    Built by `rata.mcp.app_server.AppServer._index` and replaced whole when the surface
    changes (`AppServer.refresh`), never changed in place: a handler that reads the server's
    index once (``tools/call`` does) sees the old surface or the new one, never part of each."""

    __slots__ = ("catalog", "specs", "tools", "access", "presenters", "texts", "resources", "templates", "matchers", "prompts", "legacy_tools")
    catalog: Catalog
    specs: dict[str, Any]
    """name -> the app's `rata.command_spec.CommandSpec`, as it was when the catalog was built"""
    tools: dict[str, dict[str, Any]]
    access: dict[str, str | None]
    presenters: dict[str, Any]
    """Tools whose result is shown as content of their own (`@command(present=...)`), not as structured JSON."""
    texts: dict[str, Any]
    """Tools whose text block is a rendering of their own (`@command(text=...)`), beside their structured JSON."""
    resources: dict[str, dict[str, Any]]
    templates: dict[str, dict[str, Any]]
    """uriTemplate -> the template as ``resources/templates/list`` lists it"""
    matchers: list[Any]
    """each listed template with what it reads (`rata.mcp.methods.resources.template_matchers`)"""
    prompts: dict[str, dict[str, Any]]
    """name -> the prompt as ``prompts/list`` lists it"""
    legacy_tools: list[dict[str, Any]] | None
    """The 2025-era tool list, made on first use (`tools_for`)."""


def needs_wrapping(output_schema: dict[str, Any] | None) -> bool:
    """True when a legacy client cannot take this output schema as it is."""
    return output_schema is not None and output_schema.get("type") != "object"


def legacy_output_schema(output_schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema with the output under ``result`` (``$defs`` kept at the root)."""
    if not needs_wrapping(output_schema):
        return output_schema
    inner = {k: v for k, v in output_schema.items() if k != "$defs"}
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {RESULT_KEY: inner},
        "required": [RESULT_KEY],
        "additionalProperties": False,
    }
    if "$defs" in output_schema:
        wrapped["$defs"] = output_schema["$defs"]
    return wrapped


def tools_for(catalog: Catalog, era: str = "modern") -> list[dict[str, Any]]:
    """The tools as ``tools/list`` lists them in this era."""
    if era == "modern":
        return catalog.tools
    tools = []
    for tool in catalog.tools:
        if "outputSchema" in tool and needs_wrapping(tool["outputSchema"]):
            tool = {**tool, "outputSchema": legacy_output_schema(tool["outputSchema"])}
        tools.append(tool)
    return tools


def resources_for(catalog: Catalog, era: str = "modern") -> list[dict[str, Any]]:
    """The resources as ``resources/list`` lists them (the same in both eras)."""
    return catalog.resources


def surface(catalog: Catalog, era: str = "modern") -> dict[str, Any]:
    """``{"tools": [...], "resources": [...], "resourceTemplates": [...], "prompts": [...]}``: the agent-facing surface, for ``--json`` and ``--check``."""
    return {
        "tools": tools_for(catalog, era),
        "resources": resources_for(catalog, era),
        "resourceTemplates": list(catalog.templates),
        "prompts": catalog.prompts,
    }
