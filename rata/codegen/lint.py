"""Lint the agent-facing surface for what real MCP clients trip over.

Each finding has a rule id, a severity (``error``, ``warning``, ``info``), the tool it is
about, a JSON path into that tool, a message and a fix. Rules:

=========================  ========  ===================================================
``name-too-long``          error     ``mcp__<server>__<tool>`` over 64 characters (Claude
                                     Code, Codex) or server + tool over 60 (Cursor)
``name-charset``           warning   characters outside ``[A-Za-z0-9_-]`` (Claude Desktop
                                     refuses the tool; others rewrite the name)
``name-collision``         error     two tools that clients rename to the same name
                                     (lowercased, anything but ``[a-z0-9_]`` -> ``_``)
``too-many-tools``         error     more than 128 tools (VS Code's limit); warning above
                                     100 (Windsurf's)
``description-missing``    warning   a tool without a description
``description-too-long``   warning   a description over 1,024 characters
``param-description``      info      a parameter without a description
``schema-untyped``         warning   a schema that allows any value (no type, enum, ...)
``schema-boolean``         warning   ``true``/``false`` used as a schema
``schema-type-array``      warning   ``"type": [...]``; several clients want one type
``schema-remote-ref``      error     a ``$ref`` that is not local (``#...``)
``schema-not-strict``      warning   (error with ``--strict``) a schema OpenAI's strict mode (and openai-agents'
                                     and pydantic-ai's strict conversions) cannot take
                                     without changing what it accepts: an untyped or
                                     boolean part, an object open to other properties,
                                     ``allOf``/``not``/``if``/``patternProperties``/...,
                                     ``anyOf`` at the root, over 10 levels of objects,
                                     5,000 properties, 1,000 enum values or 120,000
                                     characters of names and enum/const values, or one
                                     enum of over 250 strings with over 15,000 characters
``schema-invalid``         error     not a valid JSON Schema 2020-12 (checked against
                                     the meta-schema with ``jsonschema``; only with
                                     ``meta_schema=True``, i.e. ``--strict``)
``unbounded-list``         warning   a tool that returns a list with no integer parameter
                                     named like a bound (``limit``, ``max``, ``count``,
                                     ``page_size``, ... `rata.tokens.BOUND_NAMES`) that has
                                     a maximum
``grant-unmatched``        warning   a granted ability pattern that matches no command
                                     or prompt, or declared resource
``prompt-name``            warning   a prompt name with characters outside
                                     ``[A-Za-z0-9_-]`` (clients offer prompts as slash
                                     commands, ``/mcp__<server>__<prompt>``), or one too
                                     long for that (over 64 characters with the prefix)
``prompt-description``     warning   a prompt without a description (the user picks it by
                                     its description), or one over 1,024 characters
``prompt-argument``        warning   an argument name with characters outside
                                     ``[A-Za-z0-9_]``, which a client's
                                     ``name=value`` form cannot always carry; info for an
                                     argument without a description
``resource-confirm``       warning   a declared resource whose ability is granted only
                                     with confirmation: a read cannot ask, so it is not
                                     served
``resource-description``   warning   a resource or resource template without a description
``resource-name``          warning   a resource or template name that is blank or over 128
                                     characters
``template-syntax``        error     a URI template clients cannot parse: an expression
                                     other than a plain ``{name}`` (operators such as
                                     ``+#./;?&``, a name outside ``[A-Za-z0-9_]``)
=========================  ========  ===================================================

A prompt's findings name it in ``tool`` as ``prompt:<name>``; their ``path`` is into its
``prompts/list`` entry.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from rata import tokens
from rata.abilities import AbilityPattern
from rata.codegen.catalog import Catalog
from rata.codegen.sanitize import subschemas

CLAUDE_CODE_LIMIT = 64
CURSOR_LIMIT = 60
VSCODE_TOOL_LIMIT = 128
WINDSURF_TOOL_LIMIT = 100
DESCRIPTION_LIMIT = 1024
RAW_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
SEVERITIES = ("error", "warning", "info")

RULES: dict[str, tuple[str, str]] = {
    "name-too-long": (
        "error",
        "A tool name too long once clients prefix it: over 64 characters as mcp__<server>__<tool> (Claude Code, Codex), or server + tool over 60 (Cursor).",
    ),
    "name-charset": (
        "warning",
        "A tool name with characters outside A-Z, a-z, 0-9, '_' and '-': Claude Desktop refuses the tool and other clients rewrite the name.",
    ),
    "name-collision": ("error", "Two tools that clients which rewrite names (lowercased, anything but [a-z0-9_] turned into '_') turn into the same name."),
    "too-many-tools": ("error", "More tools than clients accept: VS Code at most 128 (an error), Windsurf at most 100 (a warning)."),
    "description-missing": ("warning", "A tool without a description, so the model must guess what it does."),
    "description-too-long": ("warning", "A description over 1,024 characters, which clients may cut."),
    "param-description": ("info", "A parameter without a description."),
    "schema-untyped": ("warning", "A schema that allows any value (no type, enum, const, ...), which tells the model nothing."),
    "schema-boolean": ("warning", "true or false used as a schema; some clients reject boolean schemas."),
    "schema-type-array": ("warning", "A 'type' that is a list; several clients want one type."),
    "schema-remote-ref": ("error", "A $ref that is not local (#...); clients must not fetch it."),
    "schema-not-strict": ("warning", "A schema OpenAI's strict mode cannot take without changing what it accepts (an error under --strict)."),
    "schema-invalid": ("error", "A schema that is not valid JSON Schema 2020-12 (checked against the meta-schema under --strict)."),
    "unbounded-list": ("warning", "A tool that returns a list and has no integer parameter with a maximum that bounds its length."),
    "grant-unmatched": ("warning", "A granted ability pattern that matches no command, prompt or declared resource."),
    "prompt-name": ("warning", "A prompt name clients cannot offer as a slash command: characters outside A-Z, a-z, 0-9, '_' and '-', or too long."),
    "prompt-description": ("warning", "A prompt without a description (the user picks it by its description), or one over 1,024 characters."),
    "prompt-argument": ("warning", "A prompt argument name with characters outside A-Z, a-z, 0-9 and '_' (a note for an argument without a description)."),
    "resource-confirm": ("warning", "A declared resource whose ability agents are granted only with confirmation: a read cannot ask, so it is not served."),
    "resource-description": ("warning", "A resource or resource template without a description."),
    "resource-name": ("warning", "A resource or template name that is blank or over 128 characters."),
    "template-syntax": ("error", "A URI template clients cannot parse: an expression other than a plain {name}."),
}
"""Every rule: its usual severity and what it checks, in one sentence (the rules of a SARIF report)."""

_TYPED_KEYS = {"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not"}

# OpenAI's strict mode (Structured Outputs, "Supported schemas"): a subset of JSON Schema in which every
# object lists its properties, all required, and is closed; these keywords are not in the subset, and
# converters (openai-agents' ensure_strict_json_schema, pydantic-ai's strict mode) cannot rewrite them.
STRICT_UNSUPPORTED = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas")
STRICT_UNSUPPORTED += ("patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "contains")
# The size limits are those of https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas
# ("Objects have limitations on nesting depth and size", "Limitations on total string size", "Limitations on enum size").
STRICT_MAX_DEPTH = 10
"""Levels of nested objects strict mode accepts."""
STRICT_MAX_PROPERTIES = 5_000
"""Object properties in one schema, all objects together."""
STRICT_MAX_ENUM = 1_000
"""Enum values in one schema, all enums together."""
STRICT_MAX_CHARS = 120_000
"""Characters of every property name, definition name, enum value and const value in one schema, together."""
STRICT_LONG_ENUM = 250
"""Values above which one enum of strings is held to `STRICT_MAX_ENUM_CHARS`."""
STRICT_MAX_ENUM_CHARS = 15_000
"""Characters of the values of one enum of strings, together, when it has more than `STRICT_LONG_ENUM` values."""


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    tool: str | None
    path: str
    message: str
    fix: str
    subject: str | None = None
    """The URI of the resource or template a finding about one is about (``tool`` is None for those)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def client_name(name: str) -> str:
    """How clients that sanitise tool names rewrite them."""
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def lint(catalog: Catalog, server: str | None = None, *, meta_schema: bool = False) -> list[Finding]:
    """Every finding for the catalog's tools; `server` is the key clients register it under.

    `meta_schema` also checks each distinct schema against the 2020-12 meta-schema
    (``schema-invalid``); that takes a few milliseconds a schema, so it is for CI (``--strict``).
    """
    server = server or catalog.app["name"]
    findings: list[Finding] = []
    findings += _names(catalog, server)
    findings += _counts(catalog)
    checked: dict[str, list[tuple[str, str]]] = {}
    for tool in catalog.tools:
        findings += _descriptions(tool)
        findings += _schemas(tool, checked if meta_schema else None)
        findings += _unbounded(tool)
    for prompt in catalog.prompts:
        findings += prompt_findings(prompt, server)
    findings += _grants(catalog)
    findings += _resources(catalog)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (order[f.severity], f.tool or "", f.rule, f.path))


def _names(catalog: Catalog, server: str) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[str, str] = {}
    for tool in catalog.tools:
        name = tool["name"]
        out += _name_length(server, name)
        if not RAW_NAME.match(name):
            out.append(
                Finding(
                    "name-charset", "warning", name, "/name",
                    f"{name!r} has characters outside A-Z, a-z, 0-9, '_' and '-': Claude Desktop refuses such tools and other clients rewrite them.",
                    "Use only letters, digits, '_' and '-' in command names (@command(name=...)).",
                )
            )
        renamed = client_name(name)
        if renamed in seen:
            out.append(
                Finding(
                    "name-collision", "error", name, "/name",
                    f"Clients that rewrite tool names turn both {seen[renamed]!r} and {name!r} into {renamed!r}.",
                    "Rename one so they differ in lowercase letters, digits or underscores.",
                )
            )
        else:
            seen[renamed] = name
    return out


def _name_length(server: str, name: str) -> list[Finding]:
    prefixed = f"mcp__{client_name(server)}__{client_name(name)}"
    problems: list[str] = []
    longest = len(name)
    if len(prefixed) > CLAUDE_CODE_LIMIT:
        problems.append(f"Claude Code and Codex call it {prefixed!r} ({len(prefixed)} characters, limit {CLAUDE_CODE_LIMIT})")
        longest = min(longest, CLAUDE_CODE_LIMIT - (len(prefixed) - len(name)))
    if len(server) + len(name) > CURSOR_LIMIT:
        problems.append(f"Cursor drops tools whose server + tool name exceeds {CURSOR_LIMIT} characters ({len(server) + len(name)} here)")
        longest = min(longest, CURSOR_LIMIT - len(server))
    if not problems:
        return []
    return [
        Finding(
            "name-too-long", "error", name, "/name",
            "; ".join(problems) + ".",
            f"Shorten the command name to at most {max(longest, 1)} characters (@command(name=...)), or register the server under a shorter name.",
        )
    ]


def _counts(catalog: Catalog) -> list[Finding]:
    n = len(catalog.tools)
    if n > VSCODE_TOOL_LIMIT:
        return [Finding("too-many-tools", "error", None, "/tools", f"{n} tools; VS Code accepts at most {VSCODE_TOOL_LIMIT}.", "Grant agents fewer abilities.")]
    if n > WINDSURF_TOOL_LIMIT:
        return [
            Finding("too-many-tools", "warning", None, "/tools", f"{n} tools; Windsurf accepts at most {WINDSURF_TOOL_LIMIT}.", "Grant agents fewer abilities.")
        ]
    return []


def _descriptions(tool: dict[str, Any]) -> list[Finding]:
    name = tool["name"]
    out: list[Finding] = []
    description = tool.get("description", "")
    if not description:
        out.append(
            Finding(
                "description-missing",
                "warning",
                name,
                "/description",
                "The tool has no description, so the model must guess what it does.",
                "Give the command a docstring.",
            )
        )
    elif len(description) > DESCRIPTION_LIMIT:
        out.append(
            _too_long("description-too-long", "warning", name, description, "Keep the docstring's summary and body short; move detail to the Args section.")
        )
    for prop, schema in tool["inputSchema"].get("properties", {}).items():
        if isinstance(schema, dict) and not schema.get("description"):
            out.append(
                Finding(
                    "param-description", "info", name, f"/inputSchema/properties/{prop}",
                    f"The parameter {prop!r} has no description.",
                    f"Describe it in the docstring's Args section ({prop}: ...).",
                )
            )
    return out


def _unbounded(tool: dict[str, Any]) -> list[Finding]:
    """``unbounded-list``: a tool that returns a list and has no integer bound (`rata.tokens.BOUND_NAMES`) with a maximum."""
    output = tool.get("outputSchema")
    if not isinstance(output, dict):
        return []
    properties = output.get("properties")
    if output.get("type") == "object" and isinstance(properties, dict) and list(properties) == ["result"]:
        output = properties["result"]  # the 2025-11-25 wrapping of a result that is not an object
    if not isinstance(output, dict) or output.get("type") != "array":
        return []
    if tokens.has_bound(tool.get("inputSchema", {})):
        return []
    return [
        Finding(
            "unbounded-list", "warning", tool["name"], "/outputSchema",
            "The tool returns a list and has no argument that bounds its length, so a large result is refused whole (over the app's result limit).",
            "Add a bound with a maximum: `limit: Annotated[int, Field(ge=1, le=500)] = 50`.",
        )
    ]


def _too_long(rule: str, severity: str, who: str, description: str, fix: str) -> Finding:
    return Finding(rule, severity, who, "/description", f"The description is {len(description)} characters; clients may cut it at {DESCRIPTION_LIMIT}.", fix)


def _schemas(tool: dict[str, Any], checked: dict[str, list[tuple[str, str]]] | None) -> list[Finding]:
    out: list[Finding] = []
    for key in ("inputSchema", "outputSchema"):
        if key in tool:
            _walk(tool["name"], tool[key], f"/{key}", out)
            out += strict_problems(tool["name"], tool[key], f"/{key}", strict=checked is not None)
            if checked is not None:
                for where, message in _meta_schema_errors(tool[key], checked):
                    out.append(Finding("schema-invalid", "error", tool["name"], f"/{key}{where}", message, "Fix the type or constraint that produced it."))
    return out


def _meta_schema_errors(schema: Any, checked: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """(JSON pointer, message) for each way `schema` breaks the 2020-12 meta-schema; each distinct schema checked once."""
    import json

    key = json.dumps(schema, sort_keys=True)
    if key not in checked:
        from jsonschema import Draft202012Validator

        validator = Draft202012Validator(Draft202012Validator.META_SCHEMA)
        errors = sorted(validator.iter_errors(schema), key=lambda e: [str(p) for p in e.path])
        checked[key] = [("".join(f"/{part}" for part in e.path), f"Not valid JSON Schema 2020-12: {e.message}.") for e in errors]
    return checked[key]


def _walk(name: str, schema: Any, path: str, out: list[Finding]) -> None:
    if isinstance(schema, bool):
        out.append(
            Finding(
                "schema-boolean",
                "warning",
                name,
                path,
                f"The schema is the boolean {str(schema).lower()}.",
                "Use an object schema; some clients reject boolean schemas.",
            )
        )
        return
    if not isinstance(schema, dict):
        return
    if not _TYPED_KEYS & set(schema):
        out.append(
            Finding(
                "schema-untyped",
                "warning",
                name,
                path,
                "This schema accepts any value, which tells the model nothing.",
                "Give the value a concrete type instead of rata.JsonValue.",
            )
        )
    if isinstance(schema.get("type"), list):
        out.append(
            Finding(
                "schema-type-array",
                "warning",
                name,
                f"{path}/type",
                f"'type' is a list {schema['type']}.",
                "Use anyOf with one type each; some clients accept only a single type.",
            )
        )
    ref = schema.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        out.append(
            Finding(
                "schema-remote-ref",
                "error",
                name,
                f"{path}/$ref",
                f"The $ref {ref!r} points outside the schema; clients must not fetch it.",
                "Inline the referenced schema.",
            )
        )
    for suffix, sub in subschemas(schema):
        if not (isinstance(sub, bool) and suffix == "/additionalProperties"):  # `additionalProperties: false` is the closed-object idiom
            _walk(name, sub, path + suffix, out)


def strict_problems(name: str | None, schema: Any, path: str = "", *, strict: bool = False) -> list[Finding]:
    """``schema-not-strict`` findings: each part of `schema` that OpenAI's strict mode rejects (an error under ``--strict``)."""
    out: list[Finding] = []

    def problem(where: str, message: str, fix: str) -> None:
        message = f"OpenAI's strict mode rejects this schema: {message}"
        if strict:
            out.append(Finding("schema-not-strict", "error", name, where, message, fix))
        else:
            out.append(Finding("schema-not-strict", "warning", name, where, message, fix))

    if isinstance(schema, dict) and "anyOf" in schema:
        problem(f"{path}/anyOf", "the root is an anyOf.", "Return an object (a dataclass or TypedDict) that holds the union.")
    totals = {"properties": 0, "enum": 0, "deepest": 0, "chars": 0}

    def visit(sub: Any, where: str, depth: int) -> None:
        if isinstance(sub, bool):
            problem(where, f"the boolean schema {str(sub).lower()}.", "Use an object schema with a type.")
            return
        if not isinstance(sub, dict):
            return
        if not {"type", "enum", "const", "anyOf", "$ref"} & set(sub):
            fix = "Give the value a concrete type (a union of the types it can be) instead of rata.JsonValue."
            problem(where, "a part without a type (it allows any value).", fix)
        for key in STRICT_UNSUPPORTED:
            if key in sub:
                problem(f"{where}/{key}", f"{key!r} is not in the strict subset.", "Express the constraint with a concrete type, or check it in the command.")
        is_object = sub.get("type") == "object" or (isinstance(sub.get("type"), list) and "object" in sub["type"])
        if is_object:
            depth += 1
            totals["deepest"] = max(totals["deepest"], depth)
            extra = sub.get("additionalProperties", False)
            if extra is not False:
                fix = "Use a dataclass or TypedDict, or a list of key/value pairs, instead of dict[str, ...]."
                problem(f"{where}/additionalProperties", "an object that allows properties it does not list (a dict).", fix)
            totals["properties"] += len(sub.get("properties", {})) if isinstance(sub.get("properties"), dict) else 0
        for key in ("properties", "$defs", "definitions"):  # property and definition names
            if isinstance(sub.get(key), dict):
                totals["chars"] += sum(len(name) for name in sub[key])
        if isinstance(sub.get("const"), str):
            totals["chars"] += len(sub["const"])
        if isinstance(sub.get("enum"), list):
            totals["enum"] += len(sub["enum"])
            chars = sum(len(value) for value in sub["enum"] if isinstance(value, str))
            totals["chars"] += chars
            if len(sub["enum"]) > STRICT_LONG_ENUM and chars > STRICT_MAX_ENUM_CHARS:
                fix = "Use a string with a check in the command instead of a large Literal or Enum."
                limit = f"over {STRICT_LONG_ENUM} values, the limit is {STRICT_MAX_ENUM_CHARS:,}"
                problem(f"{where}/enum", f"an enum of {len(sub['enum']):,} values with {chars:,} characters; {limit}.", fix)
        for suffix, inner in subschemas(sub):
            if suffix == "/additionalProperties" or suffix.split("/")[1] in STRICT_UNSUPPORTED:
                continue  # reported above
            visit(inner, where + suffix, depth)

    visit(schema, path, 0)
    if totals["deepest"] > STRICT_MAX_DEPTH:
        problem(path, f"{totals['deepest']} levels of nested objects; the limit is {STRICT_MAX_DEPTH}.", "Flatten the type.")
    if totals["properties"] > STRICT_MAX_PROPERTIES:
        problem(path, f"{totals['properties']:,} object properties; the limit is {STRICT_MAX_PROPERTIES:,}.", "Split the command or its type.")
    if totals["enum"] > STRICT_MAX_ENUM:
        fix = "Use a string with a check in the command instead of a large Literal or Enum."
        problem(path, f"{totals['enum']:,} enum values; the limit is {STRICT_MAX_ENUM:,}.", fix)
    if totals["chars"] > STRICT_MAX_CHARS:
        message = f"{totals['chars']:,} characters of property names, definition names, enum and const values; the limit is {STRICT_MAX_CHARS:,}."
        problem(path, message, "Split the command or its type, or shorten its names and values.")
    return out


def _grants(catalog: Catalog) -> list[Finding]:
    abilities = [c["ability"] for c in [*catalog.commands, *catalog.prompt_details] if c["ability"]]
    abilities += [r["ability"] for r in catalog.resource_details if r["ability"]]
    out: list[Finding] = []
    for kind in ("agent", "confirm"):
        for text in catalog.grants.get(kind, []):
            pattern = AbilityPattern.parse(text)
            if not any(pattern.matches(a) for a in abilities):
                out.append(
                    Finding(
                        "grant-unmatched", "warning", None, f"/grants/{kind}",
                        f"The agent grant {text!r} matches no command's or prompt's ability.",
                        "Fix the spelling, or remove it from Mcp().allow_abilities / .confirm.",
                    )
                )
    return out


ARGUMENT_NAME = re.compile(r"^[A-Za-z0-9_]+$")


def prompt_findings(prompt: dict[str, Any], server: str) -> list[Finding]:
    """What clients trip over in one listed prompt (a ``prompts/list`` entry)."""
    name = prompt["name"]
    command = f"/mcp__{client_name(server)}__{client_name(name)}"
    found: list[tuple[str, str, str, str, str]] = []  # rule, severity, path, message, fix
    if not RAW_NAME.match(name):
        said = f"{name!r} has characters outside A-Z, a-z, 0-9, '_' and '-': clients offer a prompt as a slash command and rewrite or refuse such names."
        found.append(("prompt-name", "warning", "/name", said, "Use only letters, digits, '_' and '-' (@prompt(name=...))."))
    if len(command) - 1 > CLAUDE_CODE_LIMIT:
        said = f"Claude Code offers it as {command!r} ({len(command) - 1} characters, over {CLAUDE_CODE_LIMIT})."
        found.append(("prompt-name", "warning", "/name", said, "Shorten the prompt's name (@prompt(name=...)), or register the server under a shorter name."))
    description = prompt.get("description", "")
    if not description:
        found.append(
            (
                "prompt-description",
                "warning",
                "/description",
                "The prompt has no description, so the user cannot tell what it does.",
                "Give the function a docstring.",
            )
        )
    for index, argument in enumerate(prompt.get("arguments", [])):
        arg = argument["name"]
        if not ARGUMENT_NAME.match(arg):
            said = f"The argument {arg!r} has characters outside A-Z, a-z, 0-9 and '_', which a client's name=value form may not carry."
            found.append(("prompt-argument", "warning", f"/arguments/{index}/name", said, "Rename the parameter with ASCII letters, digits and '_'."))
        if not argument.get("description"):
            said = f"The argument {arg!r} has no description; the client shows it to the user as they fill it in."
            found.append(("prompt-argument", "info", f"/arguments/{index}/description", said, f"Describe it in the docstring's Args section ({arg}: ...)."))
    out = [Finding(rule, severity, f"prompt:{name}", path, said, fix) for rule, severity, path, said, fix in found]
    if len(description) > DESCRIPTION_LIMIT:
        out.append(_too_long("prompt-description", "warning", f"prompt:{name}", description, "Keep the docstring's summary short."))
    return out


def _resources(catalog: Catalog) -> list[Finding]:
    from rata.resources import template_problem

    out: list[Finding] = [
        Finding(
            "resource-confirm", "warning", None, "/resourceDetails",
            f"The resource {detail['uri']} needs {detail['ability']!r}, which agents are granted only with confirmation: "
            "a read cannot ask the user to confirm, so it is not served.",
            "Grant its ability with Mcp().allow_abilities([...]), or give the resource another ability.",
            detail["uri"],
        )
        for detail in catalog.resource_details
        if detail["agent"] == "confirm"
    ]  # fmt: skip
    for key, field, items in (("resources", "uri", catalog.resources), ("templates", "uriTemplate", catalog.templates)):
        for index, item in enumerate(items):
            uri, path = item[field], f"/{key}/{index}"
            name = item.get("name", "")
            if not name.strip() or len(name) > 128:
                out.append(
                    Finding(
                        "resource-name",
                        "warning",
                        None,
                        f"{path}/name",
                        f"{uri} has a name that is blank or over 128 characters.",
                        "Give it a short name (name=...).",
                        uri,
                    )
                )
            if not item.get("description"):
                out.append(
                    Finding(
                        "resource-description", "warning", None, f"{path}/description",
                        f"{uri} has no description, so the model must guess what it holds.", "Give it one (description=..., or a docstring).", uri,
                    )
                )  # fmt: skip
            problem = template_problem(uri) if key == "templates" else None
            if problem is not None:
                said = f"The URI template {uri} has {problem}."
                out.append(Finding("template-syntax", "error", None, f"{path}/uriTemplate", said, "Use plain {name} expressions.", uri))
    return out


def count_by_severity(findings: list[Finding]) -> dict[str, int]:
    return {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
