"""Lint findings and drift as CI reads them: GitHub Actions workflow commands, or one SARIF 2.1.0 log.

    reports = lint_reports(findings, locator) + drift_reports(drift, "surface-drift", saved, locator)
    github_commands(reports)   # "::error file=app.py,line=12,title=rata name-too-long::...\\n", one line a report
    sarif_log(reports)         # {"$schema": ..., "version": "2.1.0", "runs": [one run]}

Both are deterministic: the reports keep the lint's order (severity, tool, rule, path), then the
drift's (added, removed, changed, each sorted), and nothing depends on the time or the machine
beyond the paths of files outside the current folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rata.cleantext import visible
from rata.codegen.drift import Drift
from rata.codegen.lint import RULES, Finding
from rata.codegen.locate import Location, Locator

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
"""The base the relative paths of a SARIF log are under: the repository's root, for GitHub code scanning."""
INFORMATION_URI = "https://pypi.org/project/rata-toolkit/"

DRIFT_RULES: dict[str, tuple[str, str]] = {
    "surface-drift": ("error", "The agent-facing surface differs from the file saved with rata mcp inspect --json (rata mcp inspect --check)."),
    "catalog-drift": ("error", "The committed catalog differs from the one rata codegen writes for the app (rata codegen --check)."),
}
ALL_RULES = {**RULES, **DRIFT_RULES}
"""Every rule a report can have: the lint rules, then the drift rules."""

GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


@dataclass(frozen=True)
class Report:
    """One finding, as CI shows it: a rule, a severity (``error``, ``warning``, ``info``), a message, a place."""

    rule: str
    severity: str
    message: str
    location: Location | None


def lint_reports(findings: list[Finding], locator: Locator) -> list[Report]:
    """One report per lint finding, at the definition it is about (`Locator.finding`)."""
    out = []
    for finding in findings:
        who = finding.tool or finding.subject
        said = f"{who} {finding.path}: " if who else f"{finding.path}: "
        out.append(Report(finding.rule, finding.severity, f"{said}{finding.message} {finding.fix}", locator.finding(finding)))
    return out


def drift_reports(drift: Drift, rule: str, saved: Path, locator: Locator, *, fix: str) -> list[Report]:
    """One report per drifted item (added, removed, changed): at its definition while it exists, else at the saved
    file's line that holds it; one report at the saved file when only other parts changed (the diff says which)."""
    out = []
    shown = locator.path(saved)[0]
    for label, keys in (("added", drift.added), ("removed", drift.removed), ("changed", drift.changed)):
        for key in keys:
            kind, _, name = key.partition(" ")
            location = locator.item(kind, name) if label != "removed" else None
            if location is None:
                location = locator.in_file(saved, kind, name)
            said = {
                "added": f"The {kind} {name!r} is new: {shown} does not have it.",
                "removed": f"The {kind} {name!r} in {shown} is gone from the app.",
                "changed": f"The {kind} {name!r} differs from {shown}.",
            }[label]
            out.append(Report(rule, "error", f"{said} {fix}", location))
    if drift and not out:
        out.append(Report(rule, "error", f"{shown} differs from the app (see the diff). {fix}", locator.in_file(saved, None, None)))
    return out


def shown(text: str) -> str:
    """`text` with every hidden character but CR and LF (ESC, bidi overrides, a file name's undecodable bytes) written
    as a visible escape (``\\x1b``, `rata.cleantext.visible`): what a workflow command carries of it."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(char if char in "\r\n" else visible(char) for char in text)


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner unescapes it (``%``, CR, LF); hidden characters `shown`."""
    return shown(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): the message escapes, and ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_commands(reports: list[Report]) -> str:
    """One GitHub Actions workflow command a report (``::error``, ``::warning``, ``::notice``), each on its own line."""
    lines = []
    for report in reports:
        properties = []
        if report.location is not None:
            properties.append(f"file={escape_property(report.location.file)}")
            if report.location.line is not None:
                properties.append(f"line={report.location.line}")
        properties.append(f"title={escape_property(f'rata {report.rule}')}")
        lines.append(f"::{GITHUB_COMMANDS[report.severity]} {','.join(properties)}::{escape_data(report.message)}\n")
    return "".join(lines)


def _artifact(location: Location) -> dict[str, Any]:
    """The file as a URI: its name's own bytes percent-encoded, so a name that is not UTF-8 is still named exactly."""
    if location.absolute:
        return {"uri": Path(location.file).as_uri()}
    return {"uri": quote(os.fsencode(location.file), safe="/"), "uriBaseId": SRCROOT}


def sarif_log(reports: list[Report], version: str) -> dict[str, Any]:
    """One SARIF 2.1.0 log with one run of rata (`version`): every rule, and one result a report."""
    index = {rule: i for i, rule in enumerate(ALL_RULES)}
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": help_text},
            "help": {"text": help_text},
            "defaultConfiguration": {"level": SARIF_LEVELS[severity]},
        }
        for rule, (severity, help_text) in ALL_RULES.items()
    ]
    results = []
    for report in reports:
        result: dict[str, Any] = {
            "ruleId": report.rule,
            "ruleIndex": index[report.rule],
            "level": SARIF_LEVELS[report.severity],
            "message": {"text": report.message},
        }
        if report.location is not None:
            physical: dict[str, Any] = {"artifactLocation": _artifact(report.location)}
            if report.location.line is not None:
                physical["region"] = {"startLine": report.location.line}
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    driver = {"name": "rata", "version": version, "informationUri": INFORMATION_URI, "rules": rules}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [{"tool": {"driver": driver}, "results": results}]}
