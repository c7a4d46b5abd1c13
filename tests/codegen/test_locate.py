"""Where CI reports point: each finding at the `def` of what it is about, or where the App is made."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rata.codegen.ci import drift_reports
from rata.codegen.drift import compare
from rata.codegen.lint import lint
from rata.codegen.locate import Location, Locator
from rata.mcp.inspection import inspect_app
from tests.cli.test_mcp_inspect import LINTY

PLACES = """
from rata import App, Mcp, Resource, command, prompt, resource


@prompt(can="notes.view")
def summary(topic: str) -> str:
    return topic


@resource(
    "notes://today",
    can="notes.view",
)
def today() -> str:
    return ""


@command(can="notes.view", live=True)
def notes_show(id: int) -> str:
    return ""


app = App("notes", identifier="com.example.notes").resources(
    Resource("notes://about", text="About.", can="notes.view"), today
).commands(notes_show).prompts(summary).mcp(Mcp().allow_abilities(["notes.view", "typo.*"]))
"""


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def def_line(path: Path, name: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(f"def {name}("))


def load(path: Path):
    from rata.loader import load_app

    return load_app(str(path)).app


def test_each_lint_finding_about_a_tool_points_at_the_def_of_its_command(tmp_path):
    path = write(tmp_path, "linty.py", LINTY)
    app = load(path)
    where = Locator(app, tmp_path)
    found = {(f.rule, f.tool): where.finding(f) for f in inspect_app(app).findings}
    long_name = "list_every_single_thing_in_the_warehouse_with_all_their_details_please"
    assert found[("name-too-long", long_name)] == Location("linty.py", def_line(path, long_name))
    assert found[("name-charset", "Thing.Get")] == Location("linty.py", def_line(path, "thing_get_dotted"))
    assert found[("name-collision", "thing_get")] == Location("linty.py", def_line(path, "thing_get"))
    app_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith("app = App("))
    assert found[("grant-unmatched", None)] == Location("linty.py", app_line)


def test_prompts_and_resources_point_at_their_functions_and_a_fixed_resource_at_the_app(tmp_path):
    path = write(tmp_path, "places.py", PLACES)
    app = load(path)
    where = Locator(app, tmp_path)
    lines = path.read_text().splitlines()
    app_line = next(n for n, line in enumerate(lines, 1) if line.startswith("app = App("))
    found = {(f.rule, f.tool, f.subject): where.finding(f) for f in lint(inspect_app(app).catalog)}
    assert found[("prompt-description", "prompt:summary", None)] == Location("places.py", def_line(path, "summary"))
    assert found[("resource-description", None, "notes://today")] == Location("places.py", def_line(path, "today"))
    assert found[("resource-description", None, "notes://about")] == Location("places.py", app_line)
    assert found[("grant-unmatched", None, None)] == Location("places.py", app_line)
    assert where.resource("app://notes_show/{id}") == Location("places.py", def_line(path, "notes_show"))


def test_a_file_outside_the_base_keeps_its_absolute_path(tmp_path):
    path = write(tmp_path, "linty.py", LINTY)
    where = Locator(load(path), tmp_path / "elsewhere")
    location = where.command("thing_get")
    assert location == Location(path.resolve().as_posix(), def_line(path, "thing_get"), absolute=True)


def test_a_drifted_item_points_at_its_definition_or_at_its_line_in_the_saved_file(tmp_path):
    import json

    path = write(tmp_path, "linty.py", LINTY)
    app = load(path)
    current = inspect_app(app).surface
    saved = json.loads(json.dumps(current))
    saved["tools"] = [t for t in saved["tools"] if t["name"] != "thing_get"]
    saved["tools"][0]["description"] = "Old."
    saved["tools"].append({"name": "gone", "description": "", "inputSchema": {"type": "object"}})
    saved_file = tmp_path / "mcp-surface.json"
    saved_file.write_text(json.dumps(saved, indent=2))
    drift = compare(saved, current, saved_name="mcp-surface.json", current_name="current app")
    reports = drift_reports(drift, "surface-drift", saved_file, Locator(app, tmp_path), fix="Save it again.")
    gone_line = next(n for n, line in enumerate(saved_file.read_text().splitlines(), 1) if '"name": "gone"' in line)
    assert [(r.message, r.location) for r in reports] == [
        ("The tool 'thing_get' is new: mcp-surface.json does not have it. Save it again.", Location("linty.py", def_line(path, "thing_get"))),
        ("The tool 'gone' in mcp-surface.json is gone from the app. Save it again.", Location("mcp-surface.json", gone_line)),
        ("The tool 'Thing.Get' differs from mcp-surface.json. Save it again.", Location("linty.py", def_line(path, "thing_get_dotted"))),
    ]
    assert all(r.rule == "surface-drift" and r.severity == "error" for r in reports)


def test_a_drift_outside_tools_resources_and_commands_is_one_report_at_the_saved_file(tmp_path):
    path = write(tmp_path, "linty.py", LINTY)
    app = load(path)
    saved_file = tmp_path / "s.json"
    saved_file.write_text("{}")
    drift = compare({"prompts": [1]}, {"prompts": []}, saved_name="s.json", current_name="current app")
    reports = drift_reports(drift, "surface-drift", saved_file, Locator(app, tmp_path), fix="Save it again.")
    assert [(r.message, r.location) for r in reports] == [("s.json differs from the app (see the diff). Save it again.", Location("s.json", 1))]
