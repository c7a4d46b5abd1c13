"""`rata mcp publish`: the app's MCP Registry entry (`server.json`), written and checked; never sent.

Publishing is the registry's own tool's job (`mcp-publisher login`, `mcp-publisher publish`): it
holds the login. rata writes the file it publishes (``--dry-run``), checks a committed one in CI
(``--check``, exit 4 when stale) and prints the README line PyPI needs (``--mcp-name``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from rata.cli.console import console, edge, safe, write_raw
from rata.cli.options import AppOption
from rata.errors import ConfigError, DriftError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:  # the library is imported when the command runs, not when `rata --help` starts
    from rata.shipping.registry import Entry


@edge
def publish(
    app_spec: Optional[str] = AppOption,
    dry_run: bool = typer.Option(False, "--dry-run", help="Write server.json and show what would be published; nothing is sent."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 4 with a diff if the committed server.json is stale."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="The server.json to write or check. Default: server.json in the project."),
    force: bool = typer.Option(False, "--force", help="With --dry-run: replace a server.json that rata did not write."),
    mcp_name: bool = typer.Option(False, "--mcp-name", help="Print only the README line the registry checks on PyPI (<!-- mcp-name: ... -->)."),
) -> None:
    """Write the app's MCP Registry entry (server.json) for its PyPI package, or check it; publish it with mcp-publisher."""
    from rata.shipping.project import load_project
    from rata.shipping.registry import DEFAULT_FILE, PUBLISHER_URL, build_entry, plan_write

    if sum((dry_run, check, mcp_name)) > 1:
        raise ConfigError("--dry-run, --check and --mcp-name each do one thing.", hint="Give one of them.")
    if force and not dry_run:
        raise ConfigError("--force works only with --dry-run.", hint="Add --dry-run, or drop --force.")
    if not (dry_run or check or mcp_name):
        raise ConfigError(
            "rata does not publish to the MCP Registry itself: the registry's own tool, mcp-publisher, logs you in and publishes.",
            hint=f"Run `rata mcp publish --dry-run` to write server.json, then `mcp-publisher login github` and `mcp-publisher publish` ({PUBLISHER_URL}).",
        )
    project = load_project(app_spec)
    entry = build_entry(project)
    if mcp_name:
        write_raw(entry.ownership_line + "\n")
        return
    path = out if out is not None else project.root / DEFAULT_FILE
    shown_path = _relative(path)
    if check:
        _check(path, shown_path, entry)
        console().print(safe(f"{shown_path} is up to date.", "ok"))
        return
    action = plan_write(path, entry, force=force, shown_as=shown_path)
    if action == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entry.text, encoding="utf-8")
    verb = "Wrote" if action == "write" else "Kept"
    write_raw(entry.text)
    notes = console(stderr=True)  # the entry on stdout; what to do with it on stderr, unwrapped so it stays copyable
    notes.print(safe(f"{verb} {shown_path}: the MCP Registry entry of {entry.name} {entry.version}. Nothing was published.", "ok"))
    for note in entry.notes:
        line = safe("warning: ", "warning")
        line.append_text(safe(note))
        notes.print(line)
    notes.print(safe("To publish it with the registry's own tool, mcp-publisher:"))
    for step in _steps(entry, project.name, entry.version, shown_path):
        notes.print(safe(f"  {step}"))

def _check(path: Path, shown_path: str, entry: Entry) -> None:
    from rata.codegen.drift import compare, read_json_file

    saved = read_json_file(path, "server.json", "rata mcp publish --dry-run")
    current = json.loads(entry.text)
    drift = compare(saved, current, saved_name=shown_path, current_name="current project")
    if drift:
        from rata.cli.inspect_view import render_drift

        render_drift(console(stderr=True), drift)
        raise DriftError(f"{shown_path!r} is stale against the project.", hint="Run `rata mcp publish --dry-run` and commit the file.")


def _steps(entry: Entry, package: str, version: str, shown_path: str) -> list[str]:
    namespace = entry.name.split("/")[0]
    if namespace.startswith("io.github."):
        login = "mcp-publisher login github"
    else:
        domain = ".".join(reversed(namespace.split(".")))
        login = f"mcp-publisher login dns --domain {domain}   (or http: see the registry's authentication docs)"
    if entry.readme_declares_name:
        upload = f"1. Upload {package} {version} to PyPI, with the README that holds {entry.ownership_line}."
    else:
        upload = f"1. Put {entry.ownership_line} in the README that PyPI shows, and upload {package} {version} to PyPI."
    return [
        upload,
        f"2. mcp-publisher validate {shown_path}   (the registry's own checks, run locally)",
        f"3. {login}",
        f"4. mcp-publisher publish {shown_path}",
    ]


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
