"""`rata mcp pack [--check]`: the app as an MCP Bundle (`manifest.json` and a `.mcpb` file), or check the manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from rata.cli.console import console, edge, safe
from rata.cli.options import AppOption
from rata.errors import DriftError


@edge
def pack(
    app_spec: Optional[str] = AppOption,
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="The folder for the .mcpb file. Default: dist/ in the project."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 4 with a diff if the committed manifest.json is stale."),
    replace: bool = typer.Option(False, "--replace", help="Overwrite a manifest.json that rata did not write."),
) -> None:
    """Bundle the app for Claude Desktop and other MCPB clients: manifest.json in the project, and a .mcpb file."""
    from rata.loader import load_app
    from rata.shipping.pack import check_manifest
    from rata.shipping.pack import pack as pack_app

    loaded = load_app(app_spec)
    out = console()
    if check:
        path, drift = check_manifest(loaded)
        if drift:
            from rata.cli.inspect_view import render_drift

            render_drift(console(stderr=True), drift)
            raise DriftError(f"The bundle manifest {str(path)!r} is stale.", hint="Run `rata mcp pack` and commit manifest.json.")
        out.print(safe(f"{path} is up to date.", "ok"))
        return
    packed = pack_app(loaded, output, replace=replace)
    verb = "Wrote" if packed.manifest_changed else "Kept"
    out.print(safe(f"{verb} {packed.manifest_path}{'' if packed.manifest_changed else ' (up to date)'}.", "ok"))
    size = f"{packed.size / 1024:,.0f} kB" if packed.size >= 1024 else f"{packed.size} bytes"
    out.print(safe(f"Wrote {packed.bundle_path} ({packed.files} files, {size}).", "ok"))
    for warning in packed.warnings:
        line = safe("warning: ", "warning")
        line.append_text(safe(warning))
        console(stderr=True).print(line)
