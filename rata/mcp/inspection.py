"""`rata mcp inspect` as a library call: the surface an app shows agents, its lint, its drift.

    result = inspect_app(load_app("examples/crm").app, era="modern")
    result.surface          # {"tools": [...], "resources": [...]}, as tools/list and resources/list return them
    result.findings         # lint findings
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rata.app import CONFIRM, App
from rata.codegen.catalog import Catalog, build_catalog
from rata.codegen.drift import Drift, compare, read_json_file
from rata.codegen.lint import Finding, lint
from rata.errors import ConfigError
from rata.mcp.surface import ERAS, surface

TALKS = {
    "ask": "asks the user",
    "ask_all": "asks the user",
    "progress": "reports progress",
    "sample": "asks the client's model",
    "roots": "reads the client's roots",
    "SampleRequest": "asks the client's model",
    "RootsRequest": "reads the client's roots",
}
"""The `Ctx` methods that talk to the client during a call (`rata.talk`), and what `rata mcp inspect` says of a tool that calls one."""


@dataclass(frozen=True)
class Inspection:
    catalog: Catalog
    era: str
    surface: dict[str, Any]
    findings: list[Finding]
    talks: dict[str, list[str]]
    """tool -> what it does during a call (`TALKS`), for the tools whose code calls those `Ctx` methods."""

    @property
    def hidden(self) -> list[tuple[str, str]]:
        """Commands that are not tools, each with the reason."""
        return [(command["name"], _reason(command["ability"])) for command in self.catalog.commands if command["agent"] is None]

    @property
    def hidden_others(self) -> list[tuple[str, str, str]]:
        """Prompts and declared resources agents do not see, each as (kind, name or URI, reason), the kind being
        ``prompt``, ``resource`` or ``template``: not granted, or (a resource) granted only with a confirmation a read
        cannot ask for."""
        out = [("prompt", p["name"], _reason(p["ability"])) for p in self.catalog.prompt_details if p["agent"] is None]
        for item in self.catalog.resource_details:
            kind = "template" if item["template"] else "resource"
            if item["agent"] is None:
                out.append((kind, item["uri"], _reason(item["ability"])))
            elif item["agent"] == CONFIRM:
                out.append((kind, item["uri"], f"{item['ability']} is granted only with confirmation (a read cannot ask)"))
        return out

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def _reason(ability: str | None) -> str:
    return "no ability (can=...)" if not ability else f"{ability} is not granted to agents"


def inspect_app(app: App, era: str = "modern", *, strict: bool = False) -> Inspection:
    """Build the catalog, project it for `era` (``modern`` or ``legacy``), and lint it (`strict`: with the meta-schema check)."""
    if era not in ERAS:
        raise ConfigError(f"Unknown era {era!r}.", hint="Use --era modern (2026-07-28) or --era legacy (2025-11-25).")
    catalog = build_catalog(app)
    shown = surface(catalog, era)
    talking = {tool["name"]: talks(app.specs[tool["name"]].fn) for tool in shown["tools"] if tool["name"] in app.specs}
    return Inspection(catalog, era, shown, lint(catalog, meta_schema=strict), {name: said for name, said in talking.items() if said})


def talks(fn: Any) -> list[str]:
    """What a command's own code does during a call, read from the attribute names its code uses (``ctx.ask``,
    ``ctx.progress``, ...): known for the calls written in the command itself, not for those in helpers it calls."""
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    names: set[str] = set()
    stack = [code] if code is not None else []
    while stack:
        current = stack.pop()
        names.update(current.co_names, current.co_freevars)
        stack.extend(const for const in current.co_consts if hasattr(const, "co_names"))
    return list(dict.fromkeys(said for name, said in TALKS.items() if name in names))


def check_surface(inspection: Inspection, saved: Path) -> Drift:
    """Compare the current surface with one saved by ``rata mcp inspect --json``."""
    expected = read_json_file(saved, "surface", f"rata mcp inspect --json > {saved}")
    if not isinstance(expected, dict) or "tools" not in expected:
        raise ConfigError(
            f"{str(saved)!r} is not a saved surface (no \"tools\" key).",
            hint=f"Save one with: rata mcp inspect --json > {saved}",
        )
    return compare(expected, inspection.surface, saved_name=str(saved), current_name="current app")
