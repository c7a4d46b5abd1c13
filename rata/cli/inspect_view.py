"""The human view of `rata mcp inspect`: tables, highlighted schemas, findings."""

from __future__ import annotations

from typing import Any

from rata.cli.console import safe
from rata.codegen.catalog import dump_json
from rata.codegen.lint import count_by_severity
from rata.typemodel import PART_KINDS

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rich.console import Console

    from rata.codegen.drift import Drift
    from rata.mcp.inspection import Inspection


def _kind(command: dict[str, Any]) -> str:
    kind = "live query" if command["live"] else "read-only" if command["readOnly"] else "writes"
    content = _content(command)
    return f"{kind}; returns {content}" if content else kind


def _content(command: dict[str, Any]) -> str:
    """The content parts a command may return (from its return annotation), e.g. ``image, text``."""
    kinds = command.get("content", [])
    if len(kinds) == len(PART_KINDS):
        return "any content part"
    return ", ".join(_PART_NAMES.get(kind, kind) for kind in kinds)


_PART_NAMES = {"resource": "embedded resource", "resource_link": "resource link"}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def render_inspection(out: Console, result: Inspection) -> None:
    from rich.table import Table

    catalog = result.catalog
    info = catalog.app
    header = safe(f"{info['name']} {info['version']}", "name")
    header.append_text(safe(f"  ({info['identifier']})  MCP surface, {result.era} era", "muted"))
    out.print(header)
    out.print()

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
    out.print(safe("Schemas (rata mcp inspect --tool NAME shows one in full)", "muted"))
    for tool in result.surface["tools"]:
        _schemas(out, tool, compact=True)

    out.print()
    if result.surface["resources"]:
        out.print(_resource_table("Resources", "uri", result.surface["resources"]))
    else:
        out.print(safe("Resources: none", "muted"))
    if result.surface.get("resourceTemplates"):
        out.print(_resource_table("Resource templates", "uriTemplate", result.surface["resourceTemplates"]))

    if result.hidden:
        out.print()
        out.print(safe("Not exposed to agents:", "muted"))
        for name, reason in result.hidden:
            line = safe(f"  {name}", "name")
            line.append_text(safe(f"  {reason}", "muted"))
            out.print(line)

    out.print()
    render_findings(out, result)
    counts = count_by_severity(result.findings)
    out.print(
        safe(
            f"{_count(len(result.surface['tools']), 'tool')}, {_count(len(result.surface['resources']), 'resource')}, "
            f"{_count(len(catalog.commands), 'command')}; lint: {_count(counts['error'], 'error')}, "
            f"{_count(counts['warning'], 'warning')}, {_count(counts['info'], 'note')}",
        )
    )


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
    _schemas(out, tool)
    findings = [f for f in result.findings if f.tool == tool["name"]]
    if findings:
        out.print()
        _findings_table(out, findings)


def _schemas(out: Console, tool: dict[str, Any], compact: bool = False) -> None:
    import json

    from rich.syntax import Syntax

    for key in ("inputSchema", "outputSchema"):
        if key not in tool:
            continue
        label = safe(f"{tool['name']} ", "name")
        label.append_text(safe("input" if key == "inputSchema" else "output", "muted"))
        out.print(label)
        text = json.dumps(tool[key], ensure_ascii=False) if compact else dump_json(tool[key]).rstrip()
        out.print(Syntax(text, "json", theme="ansi_dark", background_color="default", word_wrap=True))


def render_findings(out: Console, result: Inspection) -> None:
    if not result.findings:
        out.print(safe("Lint: no findings.", "ok"))
        return
    _findings_table(out, result.findings)


def _findings_table(out: Console, findings: list[Any]) -> None:
    from rich.table import Table

    table = Table(title="Lint", title_justify="left")
    for column in ("severity", "rule", "tool", "path", "message", "fix"):
        table.add_column(column, overflow="fold")
    for finding in findings:
        table.add_row(
            safe(finding.severity, finding.severity),
            safe(finding.rule),
            safe(finding.tool or "-"),
            safe(finding.path, "path"),
            safe(finding.message),
            safe(finding.fix, "hint"),
        )
    out.print(table)


def render_drift(out: Console, drift: Drift) -> None:
    for line in drift.summary():
        out.print(safe(line))
    for line in drift.diff:
        out.print(safe(line, "ok" if line.startswith("+") else "error" if line.startswith("-") else None))


def _resource_table(title: str, key: str, items: list[dict[str, Any]]) -> Any:
    """Resources or templates: the URI (or URI template), name, MIME type and the description's first line."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in (key, "name", "mimeType", "description"):
        table.add_column(column, overflow="fold")
    for item in items:
        table.add_row(safe(item[key], "path"), safe(item["name"]), safe(item.get("mimeType", "")), safe(_first_line(item.get("description", ""))))
    return table
