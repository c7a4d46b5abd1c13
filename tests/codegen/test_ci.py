"""CI formats: GitHub workflow commands escaped as the runner unescapes them, and SARIF logs the official schema accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rata.cleantext import visible
from rata.codegen.ci import ALL_RULES, Report, escape_data, escape_property, github_commands, sarif_log, shown
from rata.codegen.lint import RULES
from rata.codegen.locate import Location

SCHEMA = json.loads((Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def sarif_errors(log: dict) -> list[str]:
    from jsonschema import Draft4Validator

    return [error.message for error in Draft4Validator(SCHEMA).iter_errors(log)]


def unescape_data(text: str) -> str:
    """What GitHub's runner does to a command's message (actions/runner ActionCommand.cs, _escapeDataMappings: '%' last)."""
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(text: str) -> str:
    """What the runner does to a property value (_escapePropertyMappings: CR, LF, ':', ',', then '%')."""
    for token, replacement in (("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C"), ("%", "%25")):
        text = text.replace(replacement, token)
    return text


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Split a workflow command as the runner does: '::name props::message', props split at ',' then at the first '='."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, message = line[2:end], line[end + 2 :]
    name, _, props = head.partition(" ")
    properties = {}
    for part in props.split(",") if props else []:
        key, _, value = part.partition("=")
        properties[key] = unescape_property(value)
    return name, properties, unescape_data(message)


HOSTILE = "50% done\r\n::error file=evil.py,line=1::pwned, and: more %0A"


def test_every_lint_rule_has_a_severity_and_a_help_text():
    source = (Path(__file__).parents[2] / "rata" / "codegen" / "lint.py").read_text(encoding="utf-8")
    body = source[source.index("def client_name") :]
    used = set(re.findall(r'"([a-z]+(?:-[a-z]+)+)"', body)) - {"additionalProperties"}
    assert used <= set(RULES), used - set(RULES)
    assert all(severity in ("error", "warning", "info") and help_text.endswith(".") for severity, help_text in ALL_RULES.values())


def test_a_message_with_newlines_percent_and_colons_stays_one_command_and_reads_back_whole():
    out = github_commands([Report("name-charset", "warning", HOSTILE, Location("a,b:c.py", 7))])
    assert out.count("\n") == 1 and out.endswith("\n")
    assert out == "::warning file=a%2Cb%3Ac.py,line=7,title=rata name-charset::50%25 done%0D%0A::error file=evil.py,line=1::pwned, and: more %250A\n"
    assert parse_command(out[:-1]) == ("warning", {"file": "a,b:c.py", "line": "7", "title": "rata name-charset"}, HOSTILE)


def test_severities_become_error_warning_and_notice_and_a_report_without_a_place_has_no_file():
    reports = [Report("schema-invalid", "error", "e", Location("x.py", 3)), Report("grant-unmatched", "warning", "w", None)]
    reports.append(Report("param-description", "info", "i", Location("/abs/x.py", None, absolute=True)))
    assert github_commands(reports).splitlines() == [
        "::error file=x.py,line=3,title=rata schema-invalid::e",
        "::warning title=rata grant-unmatched::w",
        "::notice file=/abs/x.py,title=rata param-description::i",
    ]
    assert github_commands([]) == ""


@given(st.text())
def test_any_message_round_trips_through_the_github_escaping_with_its_hidden_characters_shown(message):
    assert unescape_data(escape_data(message)) == shown(message)
    assert all(visible(char) == char for char in escape_data(message))  # nothing hidden is left raw
    assert "\n" not in escape_data(message) and "\r" not in escape_data(message)


@given(st.text())
def test_any_property_round_trips_and_cannot_add_a_property_or_end_the_head(value):
    escaped = escape_property(value)
    assert unescape_property(escaped) == shown(value)
    assert not set(",:\r\n") & set(escaped)


@given(st.text(), st.text(min_size=1))
def test_a_whole_command_parses_back_to_its_file_and_message(message, file):
    line = github_commands([Report("name-too-long", "error", message, Location(file, 12))])
    assert line.endswith("\n") and line.count("\n") == 1
    assert parse_command(line[:-1]) == ("error", {"file": shown(file), "line": "12", "title": "rata name-too-long"}, shown(message))


def test_a_file_names_escape_and_undecodable_bytes_never_reach_file_raw():
    name = "evil\x1b[31m\u202e" + b"\xff".decode("utf-8", "surrogateescape") + ".py"
    line = github_commands([Report("name-too-long", "error", "m", Location(name, 1))])
    assert line == "::error file=evil\\x1b[31m\\u202e\\udcff.py,line=1,title=rata name-too-long::m\n"


def test_a_sarif_log_with_no_reports_is_an_empty_run_the_schema_accepts():
    log = sarif_log([], "1.2.3")
    assert sarif_errors(log) == []
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    run = log["runs"][0]
    assert run["results"] == []
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("rata", "1.2.3") and driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == list(ALL_RULES)
    assert all(rule["help"]["text"] for rule in driver["rules"])


def test_sarif_results_point_at_relative_uris_under_srcroot_or_at_absolute_file_uris():
    reports = [
        Report("name-too-long", "error", HOSTILE, Location("src/my app.py", 4)),
        Report("grant-unmatched", "warning", "w", Location("/elsewhere/app.py", 9, absolute=True)),
        Report("param-description", "info", "i", None),
        Report("surface-drift", "error", "d", Location("mcp-surface.json", 1)),
    ]
    log = sarif_log(reports, "0.1.0")
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("name-too-long", "error"),
        ("grant-unmatched", "warning"),
        ("param-description", "note"),
        ("surface-drift", "error"),
    ]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert results[0]["message"]["text"] == HOSTILE
    assert results[0]["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "src/my%20app.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 4}}}
    ]
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///elsewhere/app.py"}
    assert "locations" not in results[2]


def test_the_same_reports_give_the_same_log():
    reports = [Report("name-too-long", "error", "m", Location("a.py", 1))]
    assert json.dumps(sarif_log(reports, "1")) == json.dumps(sarif_log(list(reports), "1"))
