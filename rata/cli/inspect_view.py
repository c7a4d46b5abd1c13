"""The human view of `rata mcp inspect`: tables, highlighted schemas, findings."""

from __future__ import annotations

import re
from typing import Any

from rata.app import CONFIRM
from rata.cli.console import safe
from rata.codegen import readable
from rata.codegen.catalog import dump_json
from rata.codegen.lint import count_by_severity
from rata.codegen.sanitize import clean_line
from rata.typemodel import PART_KINDS

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from rata.codegen.catalog import Catalog
    from rata.codegen.drift import Drift
    from rata.mcp.inspection import Inspection


def _kind(command: dict[str, Any]) -> str:
    kind = "live query" if command["live"] else "read-only" if command["readOnly"] else "writes"
    content = _content(command)
    return f"{kind}; returns {content}" if content else kind


def _content(command: dict[str, Any]) -> str:
    """The content parts a command may return (from its return annotation), e.g. ``image, text``."""
    kinds: list[str] = command.get("content", [])
    if len(kinds) == len(PART_KINDS):
        return "any content part"
    return ", ".join(_PART_NAMES.get(kind, kind) for kind in kinds)


_PART_NAMES = {"resource": "embedded resource", "resource_link": "resource link"}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def render_inspection(out: Console, result: Inspection, *, schemas: bool = False) -> None:
    """The whole surface: the tools table and each tool's parameters and result (`schemas`: with its JSON schemas), the
    resources, the templates and the prompts with their parameters, what agents do not see and why, the lint."""
    catalog = result.catalog
    info = catalog.app
    header = safe(f"{info['name']} {info['version']}", "name")
    header.append_text(safe(f"  ({info['identifier']})  MCP surface, {result.era} era", "muted"))
    out.print(header)
    out.print()

    _tools(out, result, schemas=schemas)

    out.print()
    if result.surface["resources"]:
        out.print(_resource_table("Resources", "uri", result.surface["resources"]))
    else:
        out.print(safe("Resources: none", "muted"))
    _templates(out, result, schemas=schemas)
    _prompts(out, result, schemas=schemas)
    _hidden(out, result)

    out.print()
    render_findings(out, result)
    counts = count_by_severity(result.findings)
    shown = result.surface
    listed = [_count(len(shown["tools"]), "tool"), _count(len(shown["resources"]), "resource")]
    listed += [_count(len(shown[key]), noun) for key, noun in (("resourceTemplates", "template"), ("prompts", "prompt")) if shown.get(key)]
    out.print(safe(f"{', '.join(listed)} ({_count(len(catalog.commands), 'command')})"))
    out.print(safe(f"lint: {_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, {_count(counts['info'], 'note')}"))


def _tools(out: Console, result: Inspection, *, schemas: bool) -> None:
    """The tools as a table, what they do during a call, then each one's parameters and result."""
    from rich.table import Table

    catalog = result.catalog
    if not result.surface["tools"]:
        out.print(safe("Tools: none", "muted"))
        return
    table = Table(title="Tools", title_justify="left", show_lines=False, expand=False)
    for column in ("name", "ability", "confirm", "kind", "description"):
        table.add_column(column, overflow="fold")
    for tool in result.surface["tools"]:
        command = catalog.command(tool["name"]) or {}
        table.add_row(
            safe(tool["name"], "name"),
            safe(command.get("ability") or ""),
            safe("yes" if command.get("agent") == "confirm" else "no", "warning" if command.get("agent") == "confirm" else None),
            safe(_kind(command)),
            safe(_first_line(tool.get("description", ""))),
        )
    out.print(table)
    if result.talks:
        out.print(safe("During a call (seen in each command's own code):", "muted"))
        for name, said in result.talks.items():
            line = safe(f"  {name}", "name")
            line.append_text(safe(f"  {', '.join(said)}"))
            out.print(line)

    out.print()
    hint = "the JSON schemas: --schemas" if not schemas else "--tool NAME shows one tool in full"
    out.print(safe(f"Parameters and results ({hint})", "muted"))
    for tool in result.surface["tools"]:
        out.print()
        _signature(out, tool, catalog.command(tool["name"]) or {}, title=True)
        if schemas:
            out.print()
            _schemas(out, tool)


def _templates(out: Console, result: Inspection, *, schemas: bool) -> None:
    """The resource templates as a table, then each one's parameters (the ``{name}`` parts of its URI)."""
    templates = result.surface.get("resourceTemplates", [])
    if not templates:
        return
    out.print()
    out.print(_resource_table("Resource templates", "uriTemplate", templates))
    for template in templates:
        out.print()
        _title(out, template["uriTemplate"], template.get("description", ""))
        schema = _template_schema(result.catalog, template)
        _parameters(out, schema)
        _definitions(out, schema)
        if schemas:
            out.print()
            _schema(out, template["uriTemplate"], "parameters", schema)


def _template_schema(catalog: Catalog, template: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of a template's parameters: a declared template's own (``resourceDetails``), or its command's
    arguments that are in the URI (the others take their defaults)."""
    detail = next((d for d in catalog.resource_details if d.get("template") and d["uri"] == template["uriTemplate"]), None)
    schema = (detail or {}).get("inputSchema") or (catalog.command(template["name"]) or {}).get("inputSchema") or {}
    names = _EXPRESSION.findall(template["uriTemplate"])
    properties = schema.get("properties", {})
    kept = {**schema, "properties": {name: properties[name] for name in names if name in properties}}
    if "required" in schema:
        kept["required"] = [name for name in schema["required"] if name in names]
    return kept


_EXPRESSION = re.compile(r"\{([A-Za-z0-9_]+)\}")


def _prompts(out: Console, result: Inspection, *, schemas: bool) -> None:
    """The prompts as a table, then each one's arguments: the ability, the access, and a table of the arguments."""
    from rich.table import Table

    prompts = result.surface.get("prompts", [])
    out.print()
    if not prompts:
        out.print(safe("Prompts: none", "muted"))
        return
    details = {detail["name"]: detail for detail in result.catalog.prompt_details}
    titled = any(prompt.get("title") for prompt in prompts)
    table = Table(title="Prompts", title_justify="left")
    for column in ("name", "ability", *(("title",) if titled else ()), "description"):
        table.add_column(column, overflow="fold")
    for prompt in prompts:
        detail = details.get(prompt["name"], {})
        title = (safe(prompt.get("title", "")),) if titled else ()
        table.add_row(safe(prompt["name"], "name"), safe(detail.get("ability") or ""), *title, safe(_first_line(prompt.get("description", ""))))
    out.print(table)
    out.print()
    out.print(safe("Prompt arguments (the user fills them in when picking the prompt)", "muted"))
    for prompt in prompts:
        out.print()
        _title(out, prompt["name"], prompt.get("description", ""))
        _prompt_arguments(out, prompt, details.get(prompt["name"], {}), schemas=schemas)


def render_prompt(out: Console, result: Inspection, prompt: dict[str, Any]) -> None:
    """One prompt in full (``--prompt NAME``): its ability and access, its whole description, its arguments and their
    JSON schema, and its lint findings."""
    detail = next((d for d in result.catalog.prompt_details if d["name"] == prompt["name"]), {})
    out.print(safe(prompt["name"], "name"))
    out.print()
    out.print(safe(prompt.get("description", "(no description)")))
    out.print()
    _prompt_arguments(out, prompt, detail, schemas=True)
    findings = [f for f in result.findings if f.tool == f"prompt:{prompt['name']}"]
    if findings:
        out.print()
        _findings(out, findings)


def _prompt_arguments(out: Console, prompt: dict[str, Any], detail: dict[str, Any], *, schemas: bool) -> None:
    """``ability ...; granted`` (or with confirmation), the title, the arguments as a table (`schemas`: and as JSON)."""
    access = "with confirmation (offered: the user picks it)" if detail.get("agent") == CONFIRM else "granted"
    line = safe("  ability ", "muted")
    line.append_text(safe(f"{detail.get('ability') or ''}; {access}" + (f"; title: {prompt['title']}" if prompt.get("title") else "")))
    out.print(line)
    schema = detail.get("inputSchema", {})
    _parameters(out, schema)
    _definitions(out, schema)
    if schemas:
        out.print()
        _schema(out, prompt["name"], "arguments", schema)


def _hidden(out: Console, result: Inspection) -> None:
    """The commands, prompts and declared resources agents do not see, each with the reason."""
    others = result.hidden_others
    if not result.hidden and not others:
        return
    out.print()
    out.print(safe("Not exposed to agents:", "muted"))
    for kind, name, reason in [("", name, reason) for name, reason in result.hidden] + [(f"{kind} ", name, reason) for kind, name, reason in others]:
        line = safe(f"  {kind}", "muted")
        line.append_text(safe(name, "name"))
        line.append_text(safe(f"  {reason}", "muted"))
        out.print(line)


def render_tool(out: Console, result: Inspection, tool: dict[str, Any]) -> None:
    command = result.catalog.command(tool["name"]) or {}
    out.print(safe(tool["name"], "name"))
    details = [
        ("ability", command.get("ability") or ""),
        ("agent access", "with confirmation" if command.get("agent") == "confirm" else "allowed"),
        ("kind", _kind(command)),
        ("annotations", ", ".join(f"{k}={str(v).lower()}" for k, v in tool.get("annotations", {}).items())),
    ]
    if command.get("content"):
        details.insert(3, ("returns", _content(command)))
    if tool["name"] in result.talks:
        details.append(("during a call", ", ".join(result.talks[tool["name"]])))
    for label, value in details:
        line = safe(f"  {label}: ", "muted")
        line.append_text(safe(value))
        out.print(line)
    out.print()
    out.print(safe(tool.get("description", "(no description)")))
    out.print()
    _signature(out, tool, command, title=False)
    out.print()
    _schemas(out, tool)
    findings = [f for f in result.findings if f.tool == tool["name"]]
    if findings:
        out.print()
        _findings(out, findings)


def _signature(out: Console, tool: dict[str, Any], command: dict[str, Any], *, title: bool) -> None:
    """A tool's parameters as a table, its result in a line (its fields as a table when they do not fit on one), and
    the `$defs` both use, each once, as tables of their own."""
    if title:
        _title(out, tool["name"], tool.get("description", ""))
    _parameters(out, tool.get("inputSchema"))
    output = tool.get("outputSchema")
    found = readable.fields(output)
    if _returns(out, output, found, _content(command)):
        out.print(_indented(_rows_table(found, out.width - 2, "field")))
    _definitions(out, tool.get("inputSchema"), output)


def _title(out: Console, name: str, description: str) -> None:
    """``name  first line of the description``: the heading of a tool's (or a prompt's, or a template's) section."""
    line = safe(clean_line(name, readable.MAX_NAME), "name")
    line.append_text(safe(f"  {clean_line(_first_line(description), readable.MAX_DESCRIPTION)}", "muted"))
    out.print(line)


def _parameters(out: Console, schema: Any) -> None:
    """The rows of an arguments schema (any JSON schema of an object) as a table, or ``no parameters``."""
    rows = readable.parameters(schema)
    out.print(_indented(_rows_table(rows, out.width - 2, "parameter")) if rows else safe("  no parameters", "muted"))


def _definitions(out: Console, *schemas: Any) -> None:
    """The `$defs` the schemas use, each once: its name, its type and description, and its fields as a table."""
    seen: set[str] = set()
    for definition in (found for schema in schemas for found in readable.definitions(schema)):
        if definition.name in seen:
            continue
        seen.add(definition.name)
        line = safe(f"  {definition.name}", "name")
        line.append_text(safe(f"  {definition.type}" + (f": {definition.description}" if definition.description else ""), "muted"))
        out.print(line)
        if definition.rows:
            out.print(_indented(_rows_table(definition.rows, out.width - 2, "field")))


_COLUMNS = (("type", 14, 28), ("required", 12, 16), ("constraints", 10, 24))
"""The middle columns of a parameter table, each with the width it may shrink to and its widest (a longer cell folds);
the name column is like them (14, 24); the description takes the rest, at least 18 columns when it can."""


def _rows_table(rows: list[readable.Row], width: int, first: str) -> Any:
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    columns = [(first, 14, 24), *_COLUMNS]
    cells = [[row.name, row.type, row.need, row.rules] for row in rows]
    if not any(row.rules for row in rows):  # no constraints at all: no empty column (nor for descriptions, below)
        columns, cells = columns[:3], [cell[:3] for cell in cells]
    natural = [max(cell_len(name), *(cell_len(cell[index]) for cell in cells)) for index, (name, _, _) in enumerate(columns)]
    widths = [min(size, widest) for size, (_, _, widest) in zip(natural, columns, strict=False)]
    room = width - 2 * len(widths) - min(18, max(cell_len("description"), *(cell_len(row.description) for row in rows)))
    while sum(widths) > room:
        slack = [size - floor for size, (_, floor, _) in zip(widths, columns, strict=False)]
        if max(slack) <= 0:
            break
        widths[slack.index(max(slack))] -= 1
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=False, collapse_padding=True)
    for index, ((name, _, _), size) in enumerate(zip(columns, widths, strict=False)):
        table.add_column(name, overflow="fold", style="name" if index == 0 else None, width=size)
    described = any(row.description for row in rows)
    if described:
        table.add_column("description", overflow="fold")
    for row, cell in zip(rows, cells, strict=False):
        table.add_row(*(safe(text, "muted" if text == "no" else None) for text in cell), *([safe(row.description)] if described else []))
    return table


def _indented(renderable: Any) -> Any:
    from rich.padding import Padding

    return Padding(renderable, (0, 0, 0, 2), expand=False)


def _returns(out: Console, output: Any, found: list[readable.Row], content: str) -> bool:
    """Print ``returns list[object]: id integer, name string?`` (a ``?``: the field may be missing), ``returns nothing``,
    or the content parts; True when the fields did not fit on the line (the caller shows them as a table)."""
    line = safe("  returns ", "muted")
    if output is None:
        line.append_text(safe(content or "nothing"))
        out.print(line)
        return False
    line.append_text(safe(readable.type_text(output)))
    compact = ", ".join(f"{row.name}{'' if row.need == 'yes' else '?'} {row.type}" for row in found)
    tail = f"; with content: {content}" if content else ""
    fits = len(line) + 2 + len(compact) + len(tail) <= out.width
    if found and fits:
        line.append_text(safe(": ", "muted"))
        line.append_text(safe(compact))
    line.append_text(safe(tail))
    out.print(line)
    return bool(found) and not fits


def _schemas(out: Console, tool: dict[str, Any]) -> None:
    for key in ("inputSchema", "outputSchema"):
        if key in tool:
            _schema(out, tool["name"], "input" if key == "inputSchema" else "output", tool[key])


def _schema(out: Console, name: str, label: str, schema: Any) -> None:
    """``NAME LABEL`` and the schema as highlighted JSON under it."""
    from rich.syntax import Syntax

    heading = safe(f"{name} ", "name")
    heading.append_text(safe(label, "muted"))
    out.print(heading)
    out.print(Syntax(dump_json(schema).rstrip(), "json", theme="ansi_dark", background_color="default", word_wrap=True))


def render_findings(out: Console, result: Inspection) -> None:
    if not result.findings:
        out.print(safe("Lint: no findings.", "ok"))
        return
    _findings(out, result.findings)


def _findings(out: Console, findings: list[Any]) -> None:
    """The lint findings as paragraphs, at any width: the severity, rule, tool and path; the message; then the fix, its code
    (between backticks in the finding) each on a line of its own, unbroken when the terminal is wide enough for it."""
    from rich.cells import cell_len

    out.print(safe("Lint", "name"))
    for finding in findings:
        out.print()
        head = safe(finding.severity, finding.severity)
        head.append_text(safe(f"  {finding.rule}", "name"))
        head.append_text(safe(f"  {' '.join(part for part in (finding.tool, finding.path) if part)}", "path"))
        _paragraph(out, head, 0)
        _paragraph(out, safe(finding.message), 2)
        for index, part in enumerate(finding.fix.split("`")):
            if index % 2:  # code
                code = clean_line(part, len(part))
                _paragraph(out, safe(code, "cmd"), 4 if cell_len(code) + 4 <= out.width else 0)  # one line, unless wider than the terminal
            elif part.strip(" .,;:") or index == 0:
                _paragraph(out, safe(("fix: " if index == 0 else "") + part.strip(), "hint"), 2)
    out.print()


def _paragraph(out: Console, text: Text, indent: int) -> None:
    """`text` wrapped at spaces to the width (a word wider than that folded), each line `indent` columns in, no trailing spaces."""
    for line in text.wrap(out, max(out.width - indent, 1)):
        line.rstrip()
        out.print(safe(" " * indent) + line, soft_wrap=True)


def render_drift(out: Console, drift: Drift) -> None:
    for line in drift.summary():
        out.print(safe(line))
    for line in drift.diff:
        out.print(safe(line, "ok" if line.startswith("+") else "error" if line.startswith("-") else None))


URI_WIDTH = 34
"""The longest URIs a resource table keeps on one line; a table with a longer one folds its URIs."""


def _resource_table(title: str, key: str, items: list[dict[str, Any]]) -> Any:
    """Resources or templates: the URI (or URI template), name, MIME type, size in bytes (when known), and the title
    and the description's first line."""
    from rich.table import Table

    sized = any("size" in item for item in items)
    table = Table(title=title, title_justify="left")
    # A URI is read whole when it fits URI_WIDTH: the other columns fold instead. A longer one folds too.
    whole = max((len(str(item[key])) for item in items), default=0) <= URI_WIDTH
    for column in (key, "name", "mimeType", *(("size",) if sized else ()), "description"):
        table.add_column(column, overflow="fold", justify="right" if column == "size" else "left", no_wrap=whole and column == key)
    for item in items:
        size = (safe(f"{item['size']:,} B" if isinstance(item.get("size"), int) else ""),) if sized else ()
        about = [text for text in (item.get("title", ""), _first_line(item.get("description", ""))) if text]
        table.add_row(safe(item[key], "path"), safe(item["name"]), safe(item.get("mimeType", "")), *size, safe(": ".join(about)))
    return table
