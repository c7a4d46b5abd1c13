"""The codegen pass: an app's commands -> its catalog.

The catalog is the one source of truth the agent-facing surfaces are projected from:

- ``tools``: the commands granted to agents, as MCP ``Tool`` objects (2026-07-28 shape);
- ``resources``: ``app://<command>`` for each granted live command whose arguments all
  have defaults (and that needs no confirmation: a read cannot ask the user), then the
  app's declared resources (`rata.resources`) that are granted outright, by URI;
- ``templates``: ``app://<command>/{p1}/...`` for each such live command with required
  arguments, and the declared template resources, by name;
- ``commands``: every command, tool or not, with its ability and schemas;
- ``prompts``: the prompts granted to agents, as MCP ``Prompt`` objects (``prompts/list``), and
  ``prompt_details``: every prompt with its ability, its access and its arguments' JSON schema.

Everything in it is cleaned (`rata.codegen.sanitize`) and bounded, sorted by name, and
serialised with `catalog_json` to the same bytes on every run.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rata._record import Record
from rata.app import ALLOW, CONFIRM, App, Mcp
from rata.codegen.sanitize import check_bounds, clean_schema, clean_text
from rata.codegen.schema import object_schema, value_schema
from rata.command_spec import CommandSpec
from rata.resources import Resource, command_template
from rata.typemodel import PART_KINDS, Scalar, content_kinds, data_node

RESOURCE_SCHEME = "app://"
CONFIRM_NOTE = "The user is asked to confirm each call."


class Catalog(Record):
    """Tools, resources and commands of one app, ready to serialise."""

    __slots__ = ("app", "tools", "resources", "commands", "grants", "templates", "resource_details", "prompts", "prompt_details")
    _defaults: ClassVar[dict[str, Any]] = {"templates": (), "resource_details": (), "prompts": [], "prompt_details": []}
    app: dict[str, str]
    tools: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    commands: list[dict[str, Any]]
    grants: dict[str, list[str]]
    templates: list[dict[str, Any]]
    """The ``resources/templates/list`` list (`ResourceTemplate` objects)."""
    resource_details: list[dict[str, Any]]
    """Every declared resource, served or not: ``{"uri", "ability", "agent", "template"}`` (for lint, grants and
    inspect), and a template's ``inputSchema`` (its parameters' JSON schema)."""
    prompts: list[dict[str, Any]]
    prompt_details: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "grants": self.grants,
            "tools": self.tools,
            "resources": self.resources,
            "templates": list(self.templates),
            "resourceDetails": list(self.resource_details),
            "commands": self.commands,
            "prompts": self.prompts,
            "promptDetails": self.prompt_details,
        }

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.tools if t["name"] == name), None)

    def command(self, name: str) -> dict[str, Any] | None:
        return next((c for c in self.commands if c["name"] == name), None)


def dump_json(value: Any) -> str:
    """Deterministic JSON text: two-space indent, keys in their built order, UTF-8, final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def catalog_json(catalog: Catalog) -> str:
    return dump_json(catalog.to_dict())


def build_catalog(app: App) -> Catalog:
    """Run the codegen pass over every command of `app`."""
    commands: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    resources: list[dict[str, Any]] = []
    templates: list[dict[str, Any]] = []
    for name in sorted(app.specs):
        spec = app.specs[name]
        input_schema, output_schema = command_schemas(spec)
        access = app.agent_access(spec)
        description = clean_text(spec.description)
        entry = {
            "name": spec.name,
            "description": description,
            "ability": spec.can,
            "live": spec.live,
            "readOnly": spec.read_only,
            "agent": access,
            "inputSchema": input_schema,
            "outputSchema": output_schema,
        }
        kinds = content_kinds(spec.returns)
        if kinds:  # the content parts it may return; its outputSchema is the JSON form a frontend gets (rata.content)
            entry["content"] = [kind for kind in PART_KINDS if kind in kinds]
        commands.append(entry)
        if access is None:
            continue
        # a tool whose result is shown as content of its own (`@command(present=...)`) has no structured result to describe
        tool_output = None if spec.present is not None else output_schema if not kinds else tool_output_schema(spec)
        tools.append(_tool(spec, description, input_schema, tool_output, access))
        if spec.live and not spec.has_required_params and access != CONFIRM:
            resources.append(
                {
                    "uri": f"{RESOURCE_SCHEME}{spec.name}",
                    "name": spec.name,
                    "description": description,
                    "mimeType": "application/json",
                }
            )
        elif spec.live and access != CONFIRM:
            templates.append({"uriTemplate": command_template(spec), "name": spec.name, "description": description, "mimeType": "application/json"})
    declared, declared_templates = declared_resources(app)
    resources.extend(declared)
    templates = sorted(templates + declared_templates, key=lambda t: (t["name"], t["uriTemplate"]))
    mcp = app.mcp_config
    grants = {
        "frontend": app.frontend_grant.texts(),
        "agent": mcp.grant.texts() if mcp else [],
        "confirm": mcp.confirm_grant.texts() if mcp else [],
    }
    info = {"name": app.name, "identifier": app.identifier, "version": app.version}
    details = [_resource_detail(item, mcp) for item in app.declared.values()]
    prompts, prompt_details = build_prompts(app)
    return Catalog(info, tools, resources, commands, grants, templates, sorted(details, key=lambda d: d["uri"]), prompts, prompt_details)


def declared_resources(app: App) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The app's declared resources granted outright to agents, as listed: (resources by URI, templates)."""
    mcp = app.mcp_config
    resources, templates = [], []
    for item in app.declared.values():
        if mcp is None or item.can is None or mcp.access(item.can) != ALLOW:
            continue  # not granted, or only with a confirmation a read cannot ask for
        entry: dict[str, Any] = {"uriTemplate": item.uri} if item.template is not None else {"uri": item.uri}
        entry["name"] = clean_text(item.name)
        if item.title:
            entry["title"] = clean_text(item.title)
        if item.description:
            entry["description"] = clean_text(item.description)
        entry["mimeType"] = item.mime_type
        size = len(item.text.encode("utf-8", "surrogatepass")) if item.text is not None else len(item.data) if item.data is not None else None
        if size is not None:
            entry["size"] = size
        (templates if item.template is not None else resources).append(entry)
    return sorted(resources, key=lambda r: r["uri"]), templates


def _resource_detail(item: Resource, mcp: Mcp | None) -> dict[str, Any]:
    """A declared resource's detail; a template's with its parameters' JSON schema (``inputSchema``)."""
    detail: dict[str, Any] = {"uri": item.uri, "ability": item.can, "agent": mcp.access(item.can) if mcp is not None and item.can else None}
    detail["template"] = item.template is not None
    if item.template is not None and item.spec is not None:
        detail["inputSchema"] = input_schema(item.spec.params, f"resource template {item.uri!r}, input schema")
    return detail


def input_schema(params: Any, where: str) -> dict[str, Any]:
    """The cleaned, bounded JSON schema of a command's, prompt's or resource template's arguments (`params`)."""
    fields = [(p.name, p.node, p.required, p.default, clean_text(p.description)) for p in params]
    schema = clean_schema(object_schema(fields))
    check_bounds(schema, where)
    return schema


def build_prompts(app: App) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The granted prompts as ``prompts/list`` lists them, and every prompt's detail (ability, access, input schema)."""
    prompts: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for name in sorted(app.prompt_specs):
        spec = app.prompt_specs[name]
        access = app.mcp_config.access(spec.can) if app.mcp_config is not None else None
        details.append({"name": name, "ability": spec.can, "agent": access, "inputSchema": input_schema(spec.params, f"prompt {name!r}, input schema")})
        if access is None:
            continue
        listed: dict[str, Any] = {"name": name}
        if spec.title:
            listed["title"] = clean_text(spec.title)
        description = clean_text(spec.description)
        if description:
            listed["description"] = description
        arguments = []
        for param in spec.params:
            argument: dict[str, Any] = {"name": param.name}
            if param.description:
                argument["description"] = clean_text(param.description)
            argument["required"] = param.required
            arguments.append(argument)
        listed["arguments"] = arguments
        prompts.append(listed)
    return prompts, details


def command_schemas(spec: CommandSpec) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The cleaned, bounded input schema and output schema (None when it returns nothing)."""
    arguments = input_schema(spec.params, f"command {spec.name!r}, input schema")
    if spec.returns_nothing:
        return arguments, None
    output_schema = clean_schema(value_schema(spec.returns))
    check_bounds(output_schema, f"command {spec.name!r}, output schema")
    return arguments, output_schema


def tool_output_schema(spec: CommandSpec) -> dict[str, Any] | None:
    """A tool's outputSchema: its typed data's (the T of `rata.Content[T]`), none for content parts alone."""
    data = data_node(spec.returns)
    if data is None or (isinstance(data, Scalar) and data.kind == "null"):
        return None
    schema = clean_schema(value_schema(data))
    check_bounds(schema, f"command {spec.name!r}, output schema")
    return schema


def _tool(spec: CommandSpec, description: str, input_schema: dict[str, Any], output_schema: dict[str, Any] | None, access: str) -> dict[str, Any]:
    if access == CONFIRM:
        description = f"{description}\n\n{CONFIRM_NOTE}" if description else CONFIRM_NOTE
    tool: dict[str, Any] = {"name": spec.name}
    if description:
        tool["description"] = description
    tool["inputSchema"] = input_schema
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    tool["annotations"] = tool_annotations(spec, access)
    return tool


def tool_annotations(spec: CommandSpec, access: str) -> dict[str, bool]:
    """MCP hints: read-only for live and read-only commands, destructive for confirmed ones.

    Every tool acts on the app's own data, so none is open-world. A plain write is left
    with the protocol's default (destructive) rather than a claim rata cannot back.
    """
    if spec.read_only and access != CONFIRM:
        return {"readOnlyHint": True, "openWorldHint": False}
    if access == CONFIRM:
        return {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}
    return {"readOnlyHint": False, "openWorldHint": False}
