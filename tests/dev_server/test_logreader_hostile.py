"""The log reader treats every line as untrusted: hostile lines, huge lines and hostile patterns, on real files.

Whatever a log holds, reading it never raises, never hangs, and returns only JSON a strict
encoder takes (no NaN, no lone surrogate), cleaned of what a reader cannot see.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rata.dev_server import logreader
from rata.dev_server.logreader import read_entries
from rata.errors import RataError
from tests.dev_server.helpers import at, entry, write_lines

ORDINARY = "an ordinary message of seventy characters, as apps write them all day"
CATASTROPHIC = [
    "(?:.|.)*Q",  # the issue's: two alternatives for every character, then no Q
    "(a+)+$",  # nested repeats
    "(x+x+)+y",  # overlapping repeats
    "(?:a|aa)*c",  # overlapping alternatives
    "(.*a){25}",  # a counted repeat of a greedy star
]
HOSTILE_TEXT = "\x1b[31mred\x07 \u202egnp.exe\u202c zero\u200bwidth \u2066isolate\u2069"


def strict(value: object) -> str:
    """`value` as JSON a strict peer takes: no NaN or infinity, valid UTF-8 (no lone surrogate)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")
    return text


def append(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:
        handle.write(data)


def good(i: int, level: str = "ERROR") -> bytes:
    return (entry(at(i), level, message=f"good {i}") + "\n").encode()


def messages(scan: logreader.Scan) -> list[str | None]:
    return [e.get("message") for e in scan.entries]


# --- hostile lines -----------------------------------------------------------------------------


HOSTILE_LINES = {
    "NaN": b'{"ts": "2026-07-28T09:00:00+00:00", "level": "ERROR", "logger": "crm", "message": "nan", "value": NaN}',
    "Infinity": b'{"ts": "2026-07-28T09:00:00+00:00", "level": "ERROR", "logger": "crm", "message": "inf", "value": -Infinity}',
    "a 5,000-digit number": b'{"level": "ERROR", "message": "big", "value": ' + b"9" * 5_000 + b"}",
    "an exponent past a float": b'{"level": "ERROR", "message": "huge float", "value": 1e999}',
    "2,000-deep nesting": b'{"level": "ERROR", "message": "deep", "value": ' + b"[" * 2_000 + b"]" * 2_000 + b"}",
    "2,000-deep unclosed nesting": b'{"level": "ERROR", "message": "deep", "value": ' + b"[" * 2_000,
    "a lone surrogate escape": b'{"level": "ERROR", "message": "client \\udfff", "client": "\\ud800x"}',
    "a lone surrogate escape in a key": b'{"level": "ERROR", "message": "key", "\\udfff": 1}',
    "invalid UTF-8": b'{"level": "ERROR", "message": "bytes \xff\xfe\xc3"}',
    "odd types": b'{"ts": 7, "level": "ERROR", "logger": ["crm"], "message": {"text": "object"}, "exception": 12}',
    "a non-string level": b'{"level": ["ERROR"], "message": "list level"}',
    "an array": b"[1, 2, 3]",
    "a string": b'"ERROR"',
    "a null byte": b'{"level": "ERROR", "message": "nul \\u0000 here"}',
    "a hostile message": json.dumps({"level": "ERROR", "message": HOSTILE_TEXT, HOSTILE_TEXT: HOSTILE_TEXT}).encode(),
    "50,000 keys": json.dumps({"level": "ERROR", "message": "wide", **{f"k{i}": i for i in range(50_000)}}).encode(),
}


@pytest.mark.parametrize("name", list(HOSTILE_LINES))
def test_a_hostile_line_neither_breaks_the_read_nor_hides_its_neighbours(tmp_path, name):
    log = tmp_path / "crm.log"
    append(log, good(0) + HOSTILE_LINES[name] + b"\n" + good(2))
    cases: list[dict[str, Any]] = [{}, {"min_level": "ERROR"}, {"logger": "crm"}, {"since": at(-1)}]
    for kwargs in cases:
        scan = read_entries(tmp_path, "crm", **kwargs)
        strict(scan.entries)
        assert scan.entries[0]["message"] == "good 2"
        assert scan.entries[-1]["message"] == "good 0"


def test_nan_and_infinities_come_back_as_strings(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["NaN"] + b"\n" + HOSTILE_LINES["Infinity"] + b"\n" + HOSTILE_LINES["an exponent past a float"] + b"\n")
    assert [e["value"] for e in read_entries(tmp_path, "crm").entries] == ["1e999", "-Infinity", "NaN"]


def test_a_number_too_long_for_python_comes_back_as_its_text_cut(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["a 5,000-digit number"] + b"\n")
    (got,) = read_entries(tmp_path, "crm").entries
    assert got["value"] == "9" * logreader.NUMBER_CHARS + "…(+4900 chars)"


def test_nesting_too_deep_to_parse_is_an_unreadable_line(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["2,000-deep nesting"] + b"\n")
    scan = read_entries(tmp_path, "crm")
    assert (scan.entries, scan.unreadable_lines) == ([], 1)


def test_nesting_that_parses_but_is_deep_is_shown_as_its_json_text(tmp_path):
    value = json.loads("[" * 50 + "]" * 50)
    append(tmp_path / "crm.log", (entry(at(0), message="deep", value=value) + "\n").encode())
    (got,) = read_entries(tmp_path, "crm").entries
    assert got["value"] == "[" * 50 + "]" * 50


def test_lone_surrogates_and_invalid_utf8_become_replacement_characters(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["a lone surrogate escape"] + b"\n" + HOSTILE_LINES["invalid UTF-8"] + b"\n")
    new, old = read_entries(tmp_path, "crm").entries
    assert new["message"] == "bytes \ufffd\ufffd\ufffd"
    assert (old["message"], old["client"]) == ("client \ufffd", "\ufffdx")


def test_text_from_the_log_is_cleaned_of_controls_bidi_overrides_and_zero_width_characters(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["a hostile message"] + b"\n")
    (got,) = read_entries(tmp_path, "crm").entries
    cleaned = "[31mred gnp.exe zerowidth isolate"
    assert got == {"level": "ERROR", "message": cleaned, cleaned: cleaned}


def test_a_traceback_keeps_its_newlines_but_loses_its_escape_sequences(tmp_path):
    trace = "Traceback (most recent call last):\n  File \"app.py\"\n\x1b]0;owned\x07KeyError: 'x'"
    append(tmp_path / "crm.log", (entry(at(0), "ERROR", message="failed", exception=trace) + "\n").encode())
    (got,) = read_entries(tmp_path, "crm").entries
    assert got["exception"] == "Traceback (most recent call last):\n  File \"app.py\"\n]0;ownedKeyError: 'x'"


def test_odd_types_in_the_known_fields_are_shown_but_never_match_a_filter(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["odd types"] + b"\n")
    (got,) = read_entries(tmp_path, "crm").entries
    assert got == {"ts": 7, "level": "ERROR", "logger": ["crm"], "message": {"text": "object"}, "exception": 12}
    assert read_entries(tmp_path, "crm", logger="crm").entries == []


def test_an_entry_shows_at_most_fifty_fields_and_counts_the_rest(tmp_path):
    append(tmp_path / "crm.log", HOSTILE_LINES["50,000 keys"] + b"\n")
    (got,) = read_entries(tmp_path, "crm").entries
    assert len(got) == logreader.MAX_FIELDS + 1
    assert got["fields_left_out"] == 50_002 - logreader.MAX_FIELDS


# --- huge lines --------------------------------------------------------------------------------


def test_a_line_longer_than_the_bound_is_skipped_and_counted_and_its_neighbours_read(tmp_path):
    log = tmp_path / "crm.log"
    append(log, good(0))
    append(log, b'{"level": "ERROR", "message": "' + b"x" * (3 * logreader.MAX_LINE_BYTES) + b'"}\n')
    append(log, good(2))
    scan = read_entries(tmp_path, "crm")
    assert messages(scan) == ["good 2", "good 0"]
    assert scan.unreadable_lines == 1


def test_a_line_just_under_the_bound_is_read_whole(tmp_path):
    message = "y" * (logreader.MAX_LINE_BYTES - 100)
    append(tmp_path / "crm.log", (entry(at(0), message=message) + "\n").encode())
    (got,) = read_entries(tmp_path, "crm").entries
    assert got["message"].startswith("y" * logreader.MESSAGE_CHARS) and f"cut, {len(message)} chars" in got["message"]


def test_a_huge_first_line_without_a_newline_is_skipped(tmp_path):
    append(tmp_path / "crm.log", b"z" * (2 * logreader.MAX_LINE_BYTES))
    scan = read_entries(tmp_path, "crm")
    assert (scan.entries, scan.unreadable_lines) == ([], 1)


def test_a_huge_line_is_read_in_linear_time(tmp_path):
    # 64 MiB of one line: the old reader joined every block to what it had read so far (quadratic, 64 MiB held);
    # now its bytes are dropped as they are read, so the scan costs about what ordinary lines cost.
    log = tmp_path / "crm.log"
    append(log, good(0))
    with open(log, "ab") as handle:
        handle.write(b'{"message": "')
        for _ in range(70):
            handle.write(b"x" * 1024 * 1024)
    append(log, b'"}\n' + good(2))
    try:
        started = time.perf_counter()
        scan = read_entries(tmp_path, "crm", min_level="ERROR", limit=5)
        seconds = time.perf_counter() - started
    finally:
        log.unlink()
    assert messages(scan) == ["good 2"]
    assert scan.stopped_early is True and scan.scanned_bytes == logreader.MAX_SCAN_BYTES
    assert seconds < 3, f"{seconds:.1f} s for one huge line"


def test_a_fifo_in_place_of_a_log_file_is_not_read(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "crm.log")
    assert read_entries(tmp_path, "crm").files == []


# --- patterns ----------------------------------------------------------------------------------


@pytest.fixture
def one_second(monkeypatch):
    monkeypatch.setattr(logreader, "PATTERN_SECONDS", 1.0)


def children() -> set[int]:
    """The processes whose parent is this one (Linux's /proc)."""
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == os.getpid():
                found.add(int(pid))
    return found


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_catastrophic_pattern_stops_at_its_time_budget_and_says_so(tmp_path, one_second, pattern):
    text = ORDINARY if pattern == CATASTROPHIC[0] else "a" * 40 + "x" * 40 + "!"
    write_lines(tmp_path / "crm.log", [entry(at(i), message=text) for i in range(3)])
    before = children() if Path("/proc").is_dir() else set()
    started = time.perf_counter()
    scan = read_entries(tmp_path, "crm", pattern=pattern)
    assert time.perf_counter() - started < 1.0 + 2.0
    assert scan.stopped_early is True
    assert scan.pattern_stopped == "the pattern search ran out of its 1 seconds"
    assert scan.files == ["crm.log"]
    if Path("/proc").is_dir():
        assert children() - before == set()  # the child was killed and reaped


def test_entries_found_before_the_time_ran_out_come_back(tmp_path, one_second):
    write_lines(tmp_path / "crm.log", [entry(at(0), message=ORDINARY), entry(at(1), message="Q found"), entry(at(2), message="Q again")])
    scan = read_entries(tmp_path, "crm", pattern="(?:.|.)*Q")
    assert messages(scan) == ["Q again", "Q found"]
    assert scan.pattern_stopped


def test_an_ordinary_pattern_reads_the_log_in_the_child_and_finishes(tmp_path):
    write_lines(tmp_path / "crm.log", [entry(at(0), message="customer 7"), entry(at(1), message=ORDINARY), entry(at(2), "ERROR", message="customer 8")])
    scan = read_entries(tmp_path, "crm", pattern=r"customer \d", limit=5)
    assert messages(scan) == ["customer 8", "customer 7"]
    assert (scan.stopped_early, scan.pattern_stopped, scan.files) == (False, "", ["crm.log"])
    assert scan.scanned_bytes == (tmp_path / "crm.log").stat().st_size


def test_a_pattern_that_is_not_a_regular_expression_is_an_error_with_the_fix(tmp_path):
    write_lines(tmp_path / "crm.log", [entry(at(0), message="x")])
    with pytest.raises(RataError) as caught:
        read_entries(tmp_path, "crm", pattern="(unclosed")
    assert "not a valid regular expression" in caught.value.message and "\\(" in (caught.value.hint or "")


def test_a_pattern_longer_than_the_bound_is_refused_before_any_work(tmp_path):
    with pytest.raises(RataError) as caught:
        read_entries(tmp_path, "crm", pattern="a" * (logreader.PATTERN_CHARS + 1))
    assert f"at most {logreader.PATTERN_CHARS}" in caught.value.message


# --- properties --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(exclude_categories=()), max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(st.characters(exclude_categories=()), max_size=8), inner, max_size=4),
    max_leaves=12,
)
KNOWN = ["ts", "level", "logger", "message", "exception"]
entries = st.dictionaries(st.sampled_from(KNOWN) | st.text(max_size=6), json_values, max_size=6)
json_lines = st.one_of(
    entries.map(lambda e: json.dumps(e, ensure_ascii=True).encode()),  # lone surrogates as \ud800 escapes, NaN bare
    entries.map(lambda e: json.dumps(e, ensure_ascii=False).encode("utf-8", "surrogatepass")),  # and as raw bytes
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.sampled_from(list(HOSTILE_LINES.values())),
)
files = st.lists(st.lists(json_lines, max_size=8), min_size=1, max_size=3)  # crm.log, crm.log.1, crm.log.2


def write_files(logs: Path, contents: list[list[bytes]]) -> None:
    for i, lines in enumerate(contents):
        path = logs / ("crm.log" if i == 0 else f"crm.log.{i}")
        path.write_bytes(b"\n".join(lines) + (b"\n" if lines and len(lines) % 2 else b""))


@given(contents=files, level=st.sampled_from([None, "DEBUG", "ERROR"]), logger=st.sampled_from([None, "crm", "rata"]))
def test_reading_any_log_never_raises_and_returns_only_strict_json(tmp_path_factory, contents, level, logger):
    logs = tmp_path_factory.mktemp("logs")
    write_files(logs, contents)
    started = time.perf_counter()
    for limit in (1, 500):
        scan = read_entries(logs, "crm", limit=limit, min_level=level, logger=logger, since=at(0) if limit == 1 else None)
        strict(scan.entries)
        assert all(isinstance(e, dict) for e in scan.entries)
        assert len(scan.entries) + scan.unreadable_lines <= sum(len(lines) for lines in contents) + 1
    assert time.perf_counter() - started < 2


@settings(max_examples=15)
@given(contents=files, pattern=st.sampled_from(["a", "^\\{", "(?:.|.)*Q", "[\\ud800-\\udfff]", "\\x00"]))
def test_reading_any_log_with_a_pattern_never_raises_and_returns_only_strict_json(tmp_path_factory, monkeypatch_module, contents, pattern):
    logs = tmp_path_factory.mktemp("logs")
    write_files(logs, contents)
    scan = read_entries(logs, "crm", pattern=pattern, limit=500)
    strict(scan.entries)
    strict(scan.files)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(logreader, "PATTERN_SECONDS", 1.0)
        yield patch
