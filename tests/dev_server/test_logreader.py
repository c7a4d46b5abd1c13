"""Reading the app's JSON-lines logs backwards, across rotated files, on real files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from rata.dev_server import logreader
from rata.dev_server.logreader import read_entries
from tests.dev_server.helpers import AppLogger, at, entry, write_lines


def numbered(start: int, stop: int, **fields) -> list[str]:
    """Entries number start..stop-1, one minute apart, oldest first (as a file holds them)."""
    return [entry(at(i), message=f"entry {i}", **fields) for i in range(start, stop)]


def rotated_logs(logs: Path) -> None:
    """crm.log.2 holds 0-9, crm.log.1 holds 10-19, crm.log holds 20-29: the order rotation leaves them in."""
    write_lines(logs / "crm.log.2", numbered(0, 10))
    write_lines(logs / "crm.log.1", numbered(10, 20))
    write_lines(logs / "crm.log", numbered(20, 30))


def messages(scan: logreader.Scan) -> list[str]:
    return [e["message"] for e in scan.entries]


def test_the_log_files_are_the_current_one_then_its_rotations_newest_first(tmp_path):
    rotated_logs(tmp_path)
    write_lines(tmp_path / "other.log", numbered(0, 1))
    assert [p.name for p in logreader.log_files(tmp_path, "crm")] == ["crm.log", "crm.log.1", "crm.log.2"]


def test_entries_come_newest_first_across_the_rotated_files(tmp_path):
    rotated_logs(tmp_path)
    scan = read_entries(tmp_path, "crm", limit=30)
    assert messages(scan) == [f"entry {i}" for i in range(29, -1, -1)]
    assert scan.files == ["crm.log", "crm.log.1", "crm.log.2"]
    assert scan.stopped_early is False


def test_the_limit_stops_the_read_in_the_first_file_that_has_enough(tmp_path):
    rotated_logs(tmp_path)
    scan = read_entries(tmp_path, "crm", limit=12)
    assert messages(scan) == [f"entry {i}" for i in range(29, 17, -1)]
    assert scan.files == ["crm.log", "crm.log.1"]  # crm.log.2 is never opened


def test_the_default_limit_is_twenty(tmp_path):
    rotated_logs(tmp_path)
    assert len(read_entries(tmp_path, "crm").entries) == 20


def test_the_rotation_the_app_writes_reads_back_in_order(tmp_path):
    with AppLogger(tmp_path, max_bytes=1_000, backups=5) as log:
        for i in range(40):
            log.info("line %d", i, extra={"n": i})
    logs = tmp_path / "logs"
    assert (logs / "crm.log.1").is_file() and (logs / "crm.log.2").is_file()
    scan = read_entries(logs, "crm", limit=500)
    kept = [e["n"] for e in scan.entries]
    assert kept == list(range(39, 39 - len(kept), -1))  # newest first, nothing skipped, across every file kept
    assert scan.entries[0] == {"ts": scan.entries[0]["ts"], "level": "INFO", "logger": "crm", "message": "line 39", "n": 39}


def test_a_minimum_level_keeps_that_level_and_worse(tmp_path):
    levels = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "INFO"]
    write_lines(tmp_path / "crm.log", [entry(at(i), level, message=level.lower()) for i, level in enumerate(levels)])
    assert messages(read_entries(tmp_path, "crm", min_level="WARNING")) == ["critical", "error", "warning"]
    assert messages(read_entries(tmp_path, "crm", min_level="error")) == ["critical", "error"]


def test_a_logger_filter_keeps_names_that_start_with_it(tmp_path):
    names = ["crm", "crm.billing", "rata.mcp", "crm.billing.invoices", "rata"]
    write_lines(tmp_path / "crm.log", [entry(at(i), logger=name, message=name) for i, name in enumerate(names)])
    assert messages(read_entries(tmp_path, "crm", logger="crm.billing")) == ["crm.billing.invoices", "crm.billing"]
    assert messages(read_entries(tmp_path, "crm", logger="rata")) == ["rata", "rata.mcp"]


def test_a_pattern_matches_the_message_or_the_traceback(tmp_path):
    write_lines(
        tmp_path / "crm.log",
        [
            entry(at(0), message="customer 7 stored"),
            entry(at(1), "ERROR", message="import failed", exception='Traceback (most recent call last):\nKeyError: "customer_id"'),
            entry(at(2), message="customer 8 stored"),
            entry(at(3), message="nothing to see"),
        ],
    )
    assert messages(read_entries(tmp_path, "crm", pattern=r"customer \d+")) == ["customer 8 stored", "customer 7 stored"]
    assert messages(read_entries(tmp_path, "crm", pattern="KeyError")) == ["import failed"]


def test_filters_combine(tmp_path):
    write_lines(
        tmp_path / "crm.log",
        [
            entry(at(0), "ERROR", "crm.billing", "invoice 1 failed"),
            entry(at(1), "ERROR", "crm", "invoice 2 failed"),
            entry(at(2), "INFO", "crm.billing", "invoice 3 failed"),
            entry(at(3), "ERROR", "crm.billing", "payment failed"),
            entry(at(4), "ERROR", "crm.billing", "invoice 5 failed"),
        ],
    )
    scan = read_entries(tmp_path, "crm", min_level="ERROR", logger="crm.billing", pattern="^invoice", since=at(0.5))
    assert messages(scan) == ["invoice 5 failed"]


def test_since_keeps_entries_at_or_after_the_time(tmp_path):
    rotated_logs(tmp_path)
    assert messages(read_entries(tmp_path, "crm", limit=100, since=at(25))) == [f"entry {i}" for i in range(29, 24, -1)]
    assert messages(read_entries(tmp_path, "crm", limit=100, since=at(15))) == [f"entry {i}" for i in range(29, 14, -1)]


def test_since_stops_at_the_first_older_entry_without_reading_further_back(tmp_path):
    write_lines(tmp_path / "crm.log.2", numbered(0, 3000))  # big and old: must not be opened
    write_lines(tmp_path / "crm.log.1", numbered(3000, 6000))  # far larger than one block
    write_lines(tmp_path / "crm.log", numbered(6000, 6010))
    scan = read_entries(tmp_path, "crm", limit=500, since=at(5995))
    assert messages(scan) == [f"entry {i}" for i in range(6009, 5994, -1)]
    assert scan.files == ["crm.log", "crm.log.1"]
    assert scan.scanned_bytes <= (tmp_path / "crm.log").stat().st_size + logreader.BLOCK
    assert scan.scanned_bytes < (tmp_path / "crm.log.1").stat().st_size
    assert scan.stopped_early is False


def test_since_compares_times_across_time_zones(tmp_path):
    write_lines(tmp_path / "crm.log", [entry(at(0), message="nine utc"), entry(at(60), message="ten utc")])
    half_past_eleven_in_paris = dt.datetime(2026, 7, 28, 11, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert messages(read_entries(tmp_path, "crm", since=half_past_eleven_in_paris)) == ["ten utc"]


def test_a_small_answer_from_a_large_file_reads_one_block_from_its_end(tmp_path):
    big = tmp_path / "crm.log"
    write_lines(big, [entry(at(0), message="old")] * 40_000 + numbered(1, 11))
    assert big.stat().st_size > 40 * logreader.BLOCK
    scan = read_entries(tmp_path, "crm", limit=5)
    assert messages(scan) == [f"entry {i}" for i in range(10, 5, -1)]
    assert scan.scanned_bytes == logreader.BLOCK


def test_a_line_longer_than_a_block_is_read_whole(tmp_path):
    long_trace = "Traceback (most recent call last):\n" + "  frame\n" * 30_000 + "ValueError: boom"
    lines = [entry(at(0), message="before"), entry(at(1), "ERROR", message="long", exception=long_trace), entry(at(2), message="after")]
    write_lines(tmp_path / "crm.log", lines)
    assert len(long_trace) > 2 * logreader.BLOCK
    scan = read_entries(tmp_path, "crm", limit=10)
    assert messages(scan) == ["after", "long", "before"]
    assert scan.unreadable_lines == 0
    assert scan.entries[1]["exception"].endswith("ValueError: boom")


def test_the_scan_stops_at_its_byte_budget_and_says_so(tmp_path):
    # More than MAX_SCAN_BYTES of entries, none of which matches: the read must give up, not read it all.
    filler = "x" * 16_000
    line = entry(at(0), message=filler) + "\n"
    count = logreader.MAX_SCAN_BYTES // len(line) + 200
    with open(tmp_path / "crm.log", "w", encoding="utf-8") as handle:
        handle.write(line * count)
    write_lines(tmp_path / "crm.log.1", [entry(at(-1), message="needle")])
    assert (tmp_path / "crm.log").stat().st_size > logreader.MAX_SCAN_BYTES
    try:
        scan = read_entries(tmp_path, "crm", pattern="needle")
    finally:
        (tmp_path / "crm.log").unlink()  # 64 MiB: not kept in the temporary folders
    assert scan.entries == []
    assert scan.stopped_early is True
    assert scan.scanned_bytes == logreader.MAX_SCAN_BYTES
    assert scan.files == ["crm.log"]


def test_a_long_message_is_cut_and_says_how_long_it_was(tmp_path):
    message = "m" * (logreader.MESSAGE_CHARS * 3)
    write_lines(tmp_path / "crm.log", [entry(at(0), message=message)])
    (got,) = read_entries(tmp_path, "crm").entries
    assert got["message"].startswith("m" * logreader.MESSAGE_CHARS)
    assert len(got["message"]) < logreader.MESSAGE_CHARS + 100
    assert f"cut, {len(message)} chars" in got["message"]


def test_a_long_traceback_keeps_its_end_and_says_it_was_cut(tmp_path):
    trace = "Traceback (most recent call last):\n" + "".join(f'  File "x.py", line {i}, in f\n' for i in range(2_000)) + "KeyError: 'customer_id'"
    write_lines(tmp_path / "crm.log", [entry(at(0), "ERROR", message="failed", exception=trace)])
    (got,) = read_entries(tmp_path, "crm").entries
    assert len(trace) > logreader.TRACEBACK_CHARS
    assert got["exception"].startswith("... (cut")
    assert got["exception"].endswith("KeyError: 'customer_id'")
    assert len(got["exception"]) < logreader.TRACEBACK_CHARS + 100


def test_a_huge_extra_field_is_cut_too_so_every_entry_is_bounded(tmp_path):
    # Extras are part of the app's log format (logger.info("...", extra={...})); a request body logged as an extra
    # must not come back whole.
    write_lines(tmp_path / "crm.log", [entry(at(0), message="request", body="b" * 200_000)])
    (got,) = read_entries(tmp_path, "crm").entries
    shown = json.dumps(got)
    assert len(shown) < logreader.MESSAGE_CHARS + logreader.TRACEBACK_CHARS + 1_000
    assert "cut" in shown


def test_short_entries_come_back_as_written(tmp_path):
    line = entry(at(0), "WARNING", "crm.billing", "invoice overdue", invoice=7, customer={"id": 1})
    write_lines(tmp_path / "crm.log", [line])
    assert read_entries(tmp_path, "crm").entries == [json.loads(line)]


def test_lines_that_are_not_json_objects_are_counted_and_skipped(tmp_path):
    path = tmp_path / "crm.log"
    write_lines(path, [entry(at(0), message="first"), "not json at all", "[1, 2]", entry(at(1), message="second")])
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"ts": "2026-07-28T09:02:00+00:00", "level": "INFO", "mess')  # a line still being written
    scan = read_entries(path.parent, "crm")
    assert messages(scan) == ["second", "first"]
    assert scan.unreadable_lines == 3


def test_no_log_files_is_an_empty_scan_not_an_error(tmp_path):
    scan = read_entries(tmp_path / "logs-that-do-not-exist", "crm")
    assert (scan.entries, scan.files, scan.scanned_bytes, scan.stopped_early) == ([], [], 0, False)


def test_the_json_formatter_and_the_reader_agree_on_tracebacks(tmp_path):
    with AppLogger(tmp_path) as log:
        log.info("starting")
        try:
            int("seven")
        except ValueError:
            log.exception("could not parse %s", "seven")
    scan = read_entries(tmp_path / "logs", "crm", min_level="ERROR")
    (error,) = scan.entries
    assert error["level"] == "ERROR" and error["logger"] == "crm" and error["message"] == "could not parse seven"
    assert error["exception"].startswith("Traceback (most recent call last):")
    assert "ValueError: invalid literal for int() with base 10: 'seven'" in error["exception"]
