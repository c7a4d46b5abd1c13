"""read_log_entries and last_error keep within the token budget, in their text and their JSON, and say how to get the rest.

The logs are real: written by the app's own handler (`RotatingJsonLines`, rotation included),
and read through the real dev server, in process (`AgentClient(dev_app(...))`); one test in
`test_dev_server.py` does the same through `rata mcp dev` as a subprocess.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.dev_server import budget, logcursor, logreader, logs_answer
from rata.dev_server.shapes import LogEntry, log_entry
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.testing import AgentClient, ToolResult
from tests.conftest import CRM
from tests.dev_server.helpers import AppLogger, copy_crm, dev_command, dev_env

APP = str(CRM / "crm" / "app.py")
BIG = 600


def chained(depth: int) -> None:
    """Raise an exception caused by `depth` others: a long traceback of distinct parts."""
    if depth == 0:
        raise KeyError("missing customer")
    try:
        chained(depth - 1)
    except Exception as error:
        raise RuntimeError(f"step {depth} failed") from error


def log_long_errors(log: logging.Logger, count: int, start: int = 0) -> None:
    """`count` error entries as long as an entry is shown: a 4,000-character message, a long traceback and 20 fields of 500 characters."""
    for i in range(start, start + count):
        try:
            chained(12)
        except RuntimeError:
            log.exception(f"import {i} failed: " + "x" * 4_000, extra={f"field_{k:02}": f"v{i}-" + "y" * 500 for k in range(20)})


def write_big_log(home: Path) -> None:
    """600 long errors, about 10 MB over five files (the current one and four rotations)."""
    with AppLogger(home, max_bytes=2_000_000, backups=5) as log:
        log_long_errors(log, BIG)


@pytest.fixture(scope="module")
def big_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("big") / "rata-home"
    write_big_log(home)
    return home


@pytest.fixture
def big(big_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RATA_HOME", str(big_home))
    return big_home


def agent(tmp_path: Path, budget_tokens: int = budget.DEFAULT_TOKENS) -> AgentClient:
    return AgentClient(dev_app(Target(APP, tmp_path), budget_tokens))


def sizes(result: ToolResult) -> tuple[int, int]:
    """The answer's size in tokens: its text, and its structuredContent as compact JSON."""
    return tokens.estimate(result.text), tokens.estimate(budget.compact_json(result.raw["structuredContent"]))


def answer(client: AgentClient, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    result = client.call(name, arguments or {})
    assert not result.is_error, result.text
    assert not result.text.lstrip().startswith(("{", "[")), "the text is JSON"
    return result.raw["structuredContent"]


def follow(client: AgentClient, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Every entry, following `before` until an answer has none; and how many calls that took."""
    entries, calls, before = [], 0, None
    while True:
        got = answer(client, "read_log_entries", {**arguments, **({"before": before} if before else {})})
        calls += 1
        entries += got["entries"]
        before = got["before"]
        if before is None:
            return entries, calls
        assert called(got["note"]) == {"limit": 20, **arguments, "before": before}


def called(note: str) -> dict[str, Any]:
    """The arguments of the call a note names (``... read_log_entries {"limit": 500, ...}.``)."""
    return json.JSONDecoder().raw_decode(note[note.index("read_log_entries {") + len("read_log_entries ") :])[0]


def unbounded(home: Path, **filters: Any) -> list[LogEntry]:
    """What one read with no limit and no budget gives, in the answer's shape."""
    return [log_entry(raw) for raw in logreader.read_entries(home / "logs", "crm", limit=100_000, **filters).entries]


def messages(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    return [entry["message"].split(" failed")[0] for entry in entries]


# --- the worst case: 600 long errors ---------------------------------------------------------------


def test_five_hundred_long_errors_fit_the_budget_in_both_forms_and_name_the_exact_next_call(big, tmp_path):
    with agent(tmp_path) as client:
        result = client.call("read_log_entries", {"limit": 500})
    text_tokens, json_tokens = sizes(result)
    assert text_tokens <= budget.DEFAULT_TOKENS and json_tokens <= budget.DEFAULT_TOKENS
    got = result.raw["structuredContent"]
    assert 1 <= len(got["entries"]) < 500 and got["before"]
    assert got["note"].startswith("Cut to fit the 10,000-token budget") and called(got["note"]) == {"limit": 500, "before": got["before"]}
    assert got["note"] in result.text


def test_following_before_until_there_is_none_gives_every_entry_an_unbounded_read_gives_once_in_order(big, tmp_path):
    with agent(tmp_path) as client:
        entries, calls = follow(client, {"limit": 500})
    assert entries == unbounded(big) and len(entries) == BIG
    assert calls > 1


def test_a_smaller_limit_is_a_limit_per_call_and_following_still_gives_everything(big, tmp_path):
    with agent(tmp_path, budget.MAX_TOKENS) as client:
        first = answer(client, "read_log_entries", {"limit": 3})
        entries, _calls = follow(client, {"limit": 3})
    assert len(first["entries"]) == 3 and "This is the limit of 3 entries" in first["note"]
    assert entries == unbounded(big)


def test_a_filter_is_repeated_in_the_next_call_and_following_it_gives_what_it_matches(big, tmp_path):
    arguments = {"limit": 500, "pattern": r"import \d*7 failed", "level": "ERROR"}  # the pattern: a scan in a child process
    with agent(tmp_path) as client:
        entries, calls = follow(client, arguments)
    expected = unbounded(big, pattern=r"import \d*7 failed", min_level="ERROR")
    assert entries == expected and len(entries) == BIG // 10 and calls > 1


def test_through_rata_mcp_dev_the_worst_case_fits_and_following_before_gives_every_entry_once(big, tmp_path):
    command = [*dev_command(copy_crm(tmp_path / "project")), "--budget-tokens", "5000"]
    with AgentClient.spawn(command, env=dev_env(big, tmp_path / "cache")) as client:
        first = client.call("read_log_entries", {"limit": 500})
        last = client.call("last_error")
        entries, calls = follow(client, {"limit": 500})
    assert max(sizes(first)) <= 5_000 and max(sizes(last)) <= 5_000
    assert called(first.raw["structuredContent"]["note"]) == {"limit": 500, "before": first.raw["structuredContent"]["before"]}
    assert messages(entries) == messages(unbounded(big)) and calls == BIG  # each entry (about 4,500 tokens) alone, shortened inside
    assert all("characters left out" in entry["message"] for entry in entries)


# --- the text ------------------------------------------------------------------------------------


def test_the_text_is_one_line_per_entry_with_its_fields_then_its_traceback_indented(tmp_path, rata_home):
    with AppLogger(rata_home) as log:
        log.warning("invoice overdue", extra={"invoice": 7, "customer": "Ada Lovelace"})
        try:
            {}["missing"]  # noqa: B018 - a real traceback
        except KeyError:
            log.exception("import failed")
    with agent(tmp_path) as client:
        text = client.call("read_log_entries").text
    head, error, *traceback, warning = text.splitlines()
    assert head.startswith("2 entries, newest first (") and "crm.log" in head
    assert error.endswith(" ERROR crm: import failed")
    assert traceback[0] == "    Traceback (most recent call last):" and traceback[-1] == "    KeyError: 'missing'"
    assert all(line.startswith("    ") for line in traceback)
    assert warning.endswith(' WARNING crm: invoice overdue customer="Ada Lovelace" invoice=7')
    assert '{"' not in text and '"message"' not in text  # no entry as JSON


def test_last_error_is_its_entry_as_text(tmp_path, rata_home):
    with AppLogger(rata_home) as log:
        try:
            {}["missing"]  # noqa: B018
        except KeyError:
            log.exception("import failed", extra={"row": 12})
        log.info("later")
    with agent(tmp_path) as client:
        result = client.call("last_error")
    first, *traceback = result.text.splitlines()
    assert first.endswith(" ERROR crm: import failed row=12") and traceback[-1] == "    KeyError: 'missing'"
    assert result.raw["structuredContent"]["entry"]["message"] == "import failed"


# --- one entry larger than the whole budget --------------------------------------------------------


def log_giant_entry(home: Path) -> None:
    """One entry at every bound of the reader at once, in characters of three UTF-8 bytes: message, traceback, 60 fields."""
    wide = "日本語"
    with AppLogger(home, max_bytes=10_000_000) as log:
        fields = {f"{wide * 70}{k:02}": wide * 200 for k in range(60)}
        try:
            raise ValueError(wide * 3_000)
        except ValueError:
            log.exception(wide * 1_000, extra=fields)


@pytest.mark.parametrize("budget_tokens", [budget.MIN_TOKENS, budget.DEFAULT_TOKENS])
def test_one_entry_larger_than_the_whole_budget_is_shortened_inside_and_the_note_says_so(tmp_path, rata_home, budget_tokens):
    log_giant_entry(rata_home)
    with agent(tmp_path) as client:
        result = client.call("read_log_entries", {"budget_tokens": budget_tokens})
    assert max(sizes(result)) <= budget_tokens
    (entry,) = result.raw["structuredContent"]["entries"]
    assert "characters left out" in entry["message"] and "characters left out" in entry["exception"]
    assert "larger than the whole budget" in result.raw["structuredContent"]["note"] and result.raw["structuredContent"]["before"] is None
    assert "larger than the whole budget" in result.text


@pytest.mark.parametrize("budget_tokens", [budget.MIN_TOKENS, budget.DEFAULT_TOKENS])
def test_last_error_keeps_within_the_servers_budget_and_says_when_it_shortened_the_entry(tmp_path, rata_home, budget_tokens):
    log_giant_entry(rata_home)
    with agent(tmp_path, budget_tokens) as client:
        result = client.call("last_error")
    assert max(sizes(result)) <= budget_tokens
    assert "larger than the whole budget" in result.raw["structuredContent"]["note"] and "larger than the whole budget" in result.text


def test_an_entry_that_fits_is_never_shortened(tmp_path, rata_home):
    with AppLogger(rata_home) as log:
        log.error("x" * 2_000, extra={"detail": "y" * 500})
    with agent(tmp_path) as client:
        got = answer(client, "last_error")
    assert got["entry"]["message"] == "x" * 2_000 and got["note"] == ""


# --- the cursor across new entries, rotation and its bound -----------------------------------------


def test_before_holds_when_the_app_writes_new_entries_and_rotates_between_calls(tmp_path, rata_home):
    with AppLogger(rata_home, max_bytes=3_000, backups=50) as log:
        for i in range(40):
            log.info(f"entry {i}", extra={"padding": "p" * 100})
        with agent(tmp_path) as client:
            first = answer(client, "read_log_entries", {"limit": 5})
            for i in range(40, 80):  # several rotations: the file the cursor names is renamed twice or more
                log.info(f"entry {i}", extra={"padding": "p" * 100})
            rest, _calls = follow_from(client, first["before"], 5)
    assert [e["message"] for e in first["entries"]] == [f"entry {i}" for i in range(39, 34, -1)]
    assert [e["message"] for e in rest] == [f"entry {i}" for i in range(34, -1, -1)]
    assert len(logreader.log_files(rata_home / "logs", "crm")) > 3


def follow_from(client: AgentClient, before: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    entries, calls = [], 0
    while before:
        got = answer(client, "read_log_entries", {"limit": limit, "before": before})
        entries += got["entries"]
        before, calls = got["before"], calls + 1
    return entries, calls


def test_a_cursor_whose_file_rotated_away_is_an_error_saying_how_to_start_again(tmp_path, rata_home):
    with AppLogger(rata_home, max_bytes=1_000, backups=2) as log:
        for i in range(30):
            log.info(f"entry {i}", extra={"padding": "p" * 100})
        scan = logreader.read_entries(rata_home / "logs", "crm", limit=100)
        cursor = logreader.cursor(rata_home / "logs", "crm", scan.positions[-2])  # in the oldest file
        assert cursor is not None
        with agent(tmp_path) as client:
            assert answer(client, "read_log_entries", {"before": cursor})["entries"] == [log_entry(scan.entries[-1])]
            for i in range(30, 60):
                log.info(f"entry {i}", extra={"padding": "p" * 100})
            result = client.call("read_log_entries", {"before": cursor})
    # the file's inode may already be a newer file's: the cursor's fingerprint tells them apart
    assert result.is_error and ("file that is gone" in result.text or "that file is gone" in result.text)
    assert "Leave before out to start again from the newest entry" in result.text


def test_a_scan_stopped_by_its_byte_bound_gives_the_cursor_that_reads_further_back(tmp_path, rata_home, monkeypatch):
    with AppLogger(rata_home, max_bytes=100_000, backups=5) as log:
        for i in range(3_000):
            if i % 500 == 0:
                log.error(f"error {i}")
            else:
                log.info(f"entry {i}", extra={"padding": "p" * 60})
    monkeypatch.setattr(logreader, "MAX_SCAN_BYTES", 64 * 1024)
    with agent(tmp_path) as client:
        first = answer(client, "read_log_entries", {"level": "ERROR"})
        entries, calls = follow(client, {"level": "ERROR"})
    assert first["stopped_early"] and first["before"] and "Search further back with read_log_entries" in first["note"]
    assert [e["message"] for e in entries] == [f"error {i}" for i in range(2_500, -1, -500)] and calls >= 6


# --- hostile cursors -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("small") / "rata-home"
    with AppLogger(home) as log:
        for i in range(50):
            log.info(f"entry {i}")
    return home


def real_cursor(home: Path) -> str:
    scan = logreader.read_entries(home / "logs", "crm", limit=3)
    cursor = logreader.cursor(home / "logs", "crm", scan.positions[-1])
    assert cursor is not None
    return cursor


def changed(cursor: str, part: int, value: int) -> str:
    parts = cursor.split("-")
    parts[part] = f"{value:08x}" if part == 3 else str(value)
    return "-".join(parts)


@st.composite
def hostile_cursors(draw: st.DrawFn, real: str) -> str:
    kind = draw(st.sampled_from(["text", "changed", "affixed"]))
    if kind == "text":
        return draw(st.text(min_size=1, max_size=300))
    if kind == "changed":
        part = draw(st.integers(0, 3))
        value = draw(st.integers(0, 2**64 if part < 3 else 2**32 - 1))
        candidate = changed(real, part, value)
        return candidate if candidate != real else candidate + "0"
    return draw(st.sampled_from(["", " ", "-", "\n", "x"])) + real + draw(st.sampled_from(["", " ", "-1", "\x00"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_hostile_before_is_a_clear_error_naming_it_and_the_fix_never_a_traceback(small_home, tmp_path, monkeypatch, data):
    monkeypatch.setenv("RATA_HOME", str(small_home))
    before = data.draw(hostile_cursors(real_cursor(small_home)))
    if not before.strip(" ") or before == real_cursor(small_home):
        return  # an empty before is no cursor: the newest entries
    with agent(tmp_path) as client:
        result = client.call("read_log_entries", {"before": before})
    assert result.is_error, before
    assert "before" in result.text and "Leave before out to start again from the newest entry" in result.text
    assert "Traceback" not in result.text


def test_a_cursor_changed_by_one_byte_of_its_offset_is_refused(small_home):
    real = real_cursor(small_home)
    offset = int(real.split("-")[2])
    files = logreader.identified_files(small_home / "logs", "crm")
    for value in (offset - 1, offset + 1, 0, 10**12):
        with pytest.raises(logcursor.CursorError, match="does not match the log file it names"):
            logcursor.locate(files, changed(real, 2, value))


def test_the_cursor_of_the_oldest_line_of_a_file_is_the_end_of_the_next_older_one(tmp_path, rata_home):
    with AppLogger(rata_home, max_bytes=500, backups=5) as log:
        for i in range(10):
            log.info(f"entry {i}")
    files = logreader.identified_files(rata_home / "logs", "crm")
    newest, older = files[0][1], files[1]
    assert logreader.cursor(rata_home / "logs", "crm", (*newest, 0)) == logcursor.encode(older[0], (*older[1], os.path.getsize(older[0])))
    assert logreader.cursor(rata_home / "logs", "crm", (*files[-1][1], 0)) is None


def test_the_answer_says_when_no_older_entry_matches(tmp_path, small_home, monkeypatch):
    monkeypatch.setenv("RATA_HOME", str(small_home))
    scan = logreader.read_entries(small_home / "logs", "crm", limit=50)
    assert logreader.cursor(small_home / "logs", "crm", scan.positions[-1]) is None  # the oldest entry: nothing before it
    with agent(tmp_path) as client:
        got = answer(client, "read_log_entries", {"before": logreader.cursor(small_home / "logs", "crm", scan.positions[-2]), "level": "ERROR"})
    assert got["entries"] == [] and got["before"] is None and got["note"] == "No older entry matches."


def test_logs_answer_renders_values_a_model_can_read(tmp_path):
    assert logs_answer.value_text("plain") == "plain" and logs_answer.value_text("two words") == '"two words"'
    assert logs_answer.value_text(7) == "7" and logs_answer.value_text(None) == "null" and logs_answer.value_text("") == '""'
    assert logs_answer.value_text('["a","b"]') == '["a","b"]' and logs_answer.value_text('"quoted"') == '"\\"quoted\\""'
    assert logs_answer.value_text("a=b") == '"a=b"' and logs_answer.value_text("line\nbreak") == '"line\\nbreak"'


def test_a_cursor_replayed_after_the_log_was_truncated_and_rewritten_in_place_is_refused(tmp_path, rata_home, monkeypatch):
    """Same file, same inode, other bytes before the offset: the cursor's fingerprint no longer matches."""
    with AppLogger(rata_home, max_bytes=10**6) as log:
        for i in range(20):
            log.info(f"entry {i}")
    cursor = real_cursor(rata_home)
    path = rata_home / "logs" / "crm.log"
    inode = path.stat().st_ino
    with open(path, "r+b") as handle:  # truncated in place, as `: > crm.log` does, then the app writes on
        handle.truncate(0)
    with AppLogger(rata_home, max_bytes=10**6) as log:
        for i in range(40):
            log.info(f"other entry {i}")
    assert path.stat().st_ino == inode
    monkeypatch.setenv("RATA_HOME", str(rata_home))
    with agent(tmp_path) as client:
        result = client.call("read_log_entries", {"before": cursor})
    assert result.is_error and "Leave before out to start again from the newest entry" in result.text and "Traceback" not in result.text


def test_a_cursor_from_another_apps_log_is_refused(tmp_path, small_home, monkeypatch):
    other = tmp_path / "other-home"
    with AppLogger(other) as log:
        for i in range(50):
            log.info(f"entry {i}")
    monkeypatch.setenv("RATA_HOME", str(small_home))
    with agent(tmp_path) as client:
        result = client.call("read_log_entries", {"before": real_cursor(other)})
    assert result.is_error and "before" in result.text and "Traceback" not in result.text
