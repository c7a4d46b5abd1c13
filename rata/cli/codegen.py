"""`rata codegen [--check]`: write or verify the committed catalog file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from rata.cli.console import console, edge, safe, write_raw
from rata.cli.options import FORMAT_HELP, AppOption, OutputFormat
from rata.codegen.catalog import build_catalog, catalog_json
from rata.codegen.drift import compare, read_json_file
from rata.errors import ConfigError, DriftError
from rata.loader import LoadedApp, load_app

DEFAULT_FILE = "rata.catalog.json"


def catalog_path(loaded: LoadedApp, out: Path | None) -> Path:
    """``--out``, else ``[tool.rata] catalog``, else rata.catalog.json in the project (or cwd)."""
    if out is not None:
        return out
    base = loaded.project or Path.cwd()
    return base / loaded.settings.get("catalog", DEFAULT_FILE)


@edge
def codegen(
    app: Optional[str] = AppOption,
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Where to write the catalog. Default: [tool.rata] catalog, else rata.catalog.json in the project."
    ),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 4 with a diff if the file is stale."),
    stdout: bool = typer.Option(False, "--stdout", help="Print the catalog instead of writing it."),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", help="With --check, how to print the drift: " + FORMAT_HELP),
) -> None:
    """Write the app's catalog (tools, resources, commands, schemas) as JSON, or check it."""
    import json

    if output_format is not OutputFormat.text and not check:
        said = output_format.value
        raise ConfigError(f"--format {said} reports the drift that --check finds.", hint=f"Add --check: rata codegen --check --format {said}")
    loaded = load_app(app)
    text = catalog_json(build_catalog(loaded.app))
    if stdout:
        write_raw(text)
        return
    path = catalog_path(loaded, out)
    out_console = console()
    if check:
        saved = read_json_file(path, "catalog", f"rata codegen --out {path}")
        drift = compare(saved, json.loads(text), saved_name=str(path), current_name="current app")
        if output_format is not OutputFormat.text:
            from rata.cli.ci_output import base, write_reports
            from rata.codegen.ci import drift_reports
            from rata.codegen.locate import Locator

            fix = "Run `rata codegen` and commit the file."
            write_reports(output_format, drift_reports(drift, "catalog-drift", path, Locator(loaded.app, base()), fix=fix))
        if drift:
            from rata.cli.inspect_view import render_drift

            render_drift(console(stderr=True), drift)
            raise DriftError(f"The catalog {str(path)!r} is stale.", hint="Run `rata codegen` and commit the file.")
        if output_format is OutputFormat.text:
            out_console.print(safe(f"{path} is up to date.", "ok"))
        return
    if path.exists() and path.read_text(encoding="utf-8") == text:
        out_console.print(safe(f"{path} is up to date.", "ok"))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    out_console.print(safe(f"Wrote {path}.", "ok"))
