"""`rata mcp ...`: the app's MCP surface."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import NoReturn, Optional

import typer

from rata.cli.console import console, edge, safe, write_raw
from rata.cli.options import FORMAT_HELP, AppOption, OutputFormat
from rata.codegen.catalog import dump_json
from rata.errors import ConfigError, DriftError, RataError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App
    from rata.codegen.drift import Drift
    from rata.mcp.inspection import Inspection

app = typer.Typer(
    help="The app as an MCP server: inspect and serve it, register it with clients, ship it; and the dev server for your coding agent.",
    no_args_is_help=True,
)

EXIT_LINT = 3


class Era(str, enum.Enum):
    modern = "modern"
    legacy = "legacy"


class LintFailed(RataError):
    exit_code = EXIT_LINT


@app.command("inspect")
@edge
def inspect(
    app_spec: Optional[str] = AppOption,
    as_json: bool = typer.Option(
        False, "--json", help='Print {"tools", "resources", "resourceTemplates", "prompts"} exactly as their list methods return them.'
    ),
    era: Era = typer.Option(Era.modern, "--era", help="modern (2026-07-28) or legacy (2025-11-25); they differ in outputSchema."),
    tool: Optional[str] = typer.Option(None, "--tool", "-t", help="Show one tool in full, with its JSON schemas."),
    prompt: Optional[str] = typer.Option(None, "--prompt", "-p", help="Show one prompt in full, with its arguments' JSON schema."),
    schemas: bool = typer.Option(False, "--schemas", help="Also show the JSON schemas of every tool, template and prompt, highlighted, under its parameters."),
    strict: bool = typer.Option(False, "--strict", help="Also check every schema against the 2020-12 meta-schema; exit 3 if lint finds errors."),
    check: Optional[Path] = typer.Option(None, "--check", help="Compare with a saved --json output; exit 4 with a diff if it drifted."),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", help="How to print the lint findings (and with --check the drift): " + FORMAT_HELP
    ),
) -> None:
    """Show the tools, schemas and resources the app exposes to agents, with lint findings."""
    from rata.loader import load_app
    from rata.mcp.inspection import check_surface, inspect_app

    if tool is not None and prompt is not None:
        raise ConfigError("--tool and --prompt each show one item.", hint="Give one of them.")
    if output_format is not OutputFormat.text and (as_json or tool is not None or prompt is not None or schemas):
        raise ConfigError(
            f"--format {output_format.value} prints the lint findings and the drift, not a view of the surface.",
            hint="Leave out --json, --tool, --prompt and --schemas, or leave out --format.",
        )
    app_ = load_app(app_spec).app
    result = inspect_app(app_, era.value, strict=strict)
    save = f"rata mcp inspect --json{' --era legacy' if era is Era.legacy else ''} > {check}"
    if output_format is not OutputFormat.text:
        _report_for_ci(output_format, result, app_, check, strict=strict, save=save)
    elif check is not None:
        drift = check_surface(result, check)
        if drift:
            _drifted(drift, check, save)
        console().print(safe(f"The surface matches {check}.", "ok"))
    elif prompt is not None:
        found = _one("prompt", prompt, result)
        if as_json:
            write_raw(dump_json(found))
        else:
            from rata.cli.inspect_view import render_prompt

            render_prompt(console(), result, found)
    elif as_json:
        if tool is not None:
            write_raw(dump_json(_one("tool", tool, result)))
        else:
            write_raw(dump_json(result.surface))
    else:
        from rata.cli.inspect_view import render_inspection, render_tool

        out = console()
        if tool is not None:
            render_tool(out, result, _one("tool", tool, result))
        else:
            render_inspection(out, result, schemas=schemas)
    if strict and result.errors:
        raise LintFailed(f"Lint found {len(result.errors)} error(s).", hint="Fix them, or run without --strict.")


def _drifted(drift: Drift, check: Path, save: str) -> NoReturn:
    from rata.cli.inspect_view import render_drift

    render_drift(console(stderr=True), drift)
    raise DriftError(f"The agent-facing surface drifted from {str(check)!r}.", hint=f"If the change is intended, save it again: {save}")


def _report_for_ci(output_format: OutputFormat, result: Inspection, app: App, check: Path | None, *, strict: bool, save: str) -> None:
    """`--format github|sarif`: the lint findings (all of them, unless --check without --strict) and the drift, as CI
    reads them, on stdout; the drift's diff on stderr; then exit 4 on drift (3 on lint errors follows under --strict)."""
    from rata.cli.ci_output import base, write_reports
    from rata.codegen.ci import drift_reports, lint_reports
    from rata.codegen.locate import Locator
    from rata.mcp.inspection import check_surface

    locator = Locator(app, base())
    drift = check_surface(result, check) if check is not None else None
    reports = lint_reports(result.findings, locator) if check is None or strict else []
    if drift and check is not None:
        reports += drift_reports(drift, "surface-drift", check, locator, fix=f"If the change is intended, save it again: {save}")
    write_reports(output_format, reports)
    if drift and check is not None:
        _drifted(drift, check, save)


def _one(kind: str, name: str, result: Inspection) -> dict:
    """The tool or prompt (`kind`) named `name` as agents see it, or a `ConfigError`: hidden from agents and why, or a near name."""
    import difflib

    listed = result.surface[kind + "s"]
    found = next((item for item in listed if item["name"] == name), None)
    if found is not None:
        return found
    if kind == "tool":
        hidden, said = dict(result.hidden), f"{name!r} is a command but not a tool"
    else:
        hidden, said = {other: why for k, other, why in result.hidden_others if k == kind}, f"The {kind} {name!r} is not shown to agents"
    if name in hidden:
        raise ConfigError(f"{said}: {hidden[name]}.", hint="Grant its ability with Mcp().allow_abilities([...]).")
    names = [item["name"] for item in listed]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"Did you mean {close[0]!r}?" if close else f"{kind.capitalize()}s: {', '.join(names) or 'none'}."
    raise ConfigError(f"There is no {kind} named {name!r}.", hint=hint)


@app.command("serve")
@edge
def serve(app_spec: Optional[str] = AppOption) -> None:
    """Serve the app's MCP server on stdio (both protocol eras), as `<app> --mcp` does."""
    from rata.cli.appmain import serve_mcp
    from rata.loader import load_app

    raise typer.Exit(serve_mcp(load_app(app_spec).app))


@app.command("dev")
@edge
def dev(
    app_spec: Optional[str] = AppOption,
    budget_tokens: int = typer.Option(
        10_000, "--budget-tokens", help="Roughly how many tokens one answer may use, 1,000 to 25,000; a call's budget_tokens overrides it."
    ),
) -> None:
    """Serve the read-only dev MCP server for your coding agent on stdio (schema, migrations, logs, commands, docs)."""
    from rata.dev_server.serve import serve_dev

    raise typer.Exit(serve_dev(app_spec, budget_tokens=budget_tokens))


def _register_install() -> None:
    from rata.cli.install import install

    app.command("install")(install)


_register_install()


def _register_publish() -> None:
    from rata.cli.publish import publish

    app.command("publish")(publish)


_register_publish()


def _register_pack() -> None:
    from rata.cli.pack import pack

    app.command("pack")(pack)


_register_pack()
