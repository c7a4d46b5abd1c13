import json
import logging
import math
import os
import re
import subprocess
import sys
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rata import logs
from rata.folder import AppFolder
from rata.logs import BACKUPS, LINE_BYTES, JsonLinesFile, configure_logging, format_line, log_file, log_info


def test_logs_are_json_lines_in_the_app_folder(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "logtest")
    assert handler is not None
    try:
        logging.getLogger("logtest").info("customer %s added", "Ada", extra={"customer_id": 7})
        logging.getLogger("rata").warning("from rata")
        handler.flush()
        lines = [json.loads(line) for line in log_file(folder, "logtest").read_text().splitlines()]
        assert [(e["level"], e["logger"], e["message"]) for e in lines] == [
            ("INFO", "logtest", "customer Ada added"),
            ("WARNING", "rata", "from rata"),
        ]
        assert lines[0]["customer_id"] == 7
        assert list(lines[0])[:4] == ["ts", "level", "logger", "message"]
    finally:
        for name in ("logtest", "rata"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()


def test_configuring_twice_adds_one_handler(tmp_path):
    folder = AppFolder(tmp_path / "app")
    first = configure_logging(folder, "twice")
    assert first is not None
    try:
        assert configure_logging(folder, "twice") is first
    finally:
        for name in ("twice", "rata"):
            logging.getLogger(name).removeHandler(first)
        first.close()


def test_logs_rotate_and_keep_a_bounded_number_of_files(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "rotating")
    assert handler is not None
    rotating: Any = handler  # a RotatingJsonLines, a class built on first use, so the checker knows it as a Handler
    rotating.maxBytes = 2_000
    try:
        for i in range(400):
            logging.getLogger("rotating").info("line %d %s", i, "x" * 50)
        files = sorted(p.name for p in folder.logs.iterdir())
        assert files[0] == "rotating.log"
        assert len(files) == 1 + BACKUPS
    finally:
        for name in ("rotating", "rata"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()


def _lines(folder: AppFolder, name: str) -> list[dict]:
    return [json.loads(line) for line in log_file(folder, name).read_text(encoding="utf-8").splitlines()]


def test_a_line_written_directly_is_the_line_logging_writes(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "direct")
    assert handler is not None
    fields = {"tool": "customers_show", "client": "claude-code", "outcome": "ok", "duration_ms": 0.25}
    try:
        logging.getLogger("rata.mcp").info("tool call", extra=fields)
        log_info("rata.mcp", "tool call", fields)
        through_logging, direct = _lines(folder, "direct")
    finally:
        for name in ("direct", "rata"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()
    assert list(direct) == list(through_logging) == ["ts", "level", "logger", "message", "client", "duration_ms", "outcome", "tool"]
    assert {**direct, "ts": None} == {**through_logging, "ts": None}


def test_a_record_anything_else_would_see_goes_through_logging(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "shared")
    assert handler is not None
    seen: list[logging.LogRecord] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    capture = Capture()
    logging.getLogger("rata").addHandler(capture)
    try:
        log_info("rata.mcp", "tool call", {"tool": "t", "outcome": "ok"})
        logging.getLogger("rata.mcp").disabled = True
        log_info("rata.mcp", "tool call", {"tool": "hidden", "outcome": "ok"})
    finally:
        logging.getLogger("rata.mcp").disabled = False
        logging.getLogger("rata").removeHandler(capture)
        for name in ("shared", "rata"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()
    assert [(r.name, r.getMessage(), r.__dict__["tool"]) for r in seen] == [("rata.mcp", "tool call", "t")]
    assert [line["tool"] for line in _lines(folder, "shared")] == ["t"]


def test_without_logging_imported_the_configuration_waits_and_lines_still_reach_the_file(tmp_path):
    code = f"""
import json, sys
from rata.folder import AppFolder
from rata.logs import configure_logging, get_logger, log_info
folder = AppFolder(__import__("pathlib").Path({str(tmp_path / "app")!r}))
assert configure_logging(folder, "waiting") is None
log_info("rata.mcp", "tool call", {{"tool": "t"}})
imported_before = "logging" in sys.modules
get_logger("waiting").info("after", extra={{"n": 1}})
import logging
logging.getLogger("rata").warning("rata too")
print(json.dumps(imported_before))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) is False
    lines = _lines(AppFolder(tmp_path / "app"), "waiting")
    assert [(e["logger"], e["message"]) for e in lines] == [("rata.mcp", "tool call"), ("waiting", "after"), ("rata", "rata too")]
    assert lines[0]["tool"] == "t" and lines[1]["n"] == 1


# --- every line strict JSON, of bounded length, whatever it is given ---------------------------

def strict_loads(line: str) -> dict:
    """A line as a strict peer reads it: no NaN or Infinity, no lone surrogate, one JSON object."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    entry = json.loads(line, parse_constant=refuse)
    assert isinstance(entry, dict)
    assert not re.search("[\ud800-\udfff]", json.dumps(entry, ensure_ascii=False)), "a lone surrogate"
    return entry


def written(tmp_path, fields: dict, *, message: str = "tool call", logger: str = "rata.mcp") -> list[str]:
    """Lines as `log_info`'s direct path writes them to a real file."""
    file = JsonLinesFile(tmp_path / "direct.log")
    try:
        logs._write([file], logger, message, fields)
    finally:
        file.close()
    data = (tmp_path / "direct.log").read_bytes()
    return data.decode("utf-8").split("\n")[:-1]  # strict UTF-8: a lone surrogate written raw would fail here


def test_nan_and_infinities_are_written_as_strings(tmp_path):
    values = {"nan": math.nan, "inf": math.inf, "ninf": -math.inf}
    (direct,) = written(tmp_path, values)
    assert {k: strict_loads(direct)[k] for k in values} == {"nan": "NaN", "inf": "Infinity", "ninf": "-Infinity"}
    through_logging = strict_loads(format_line(0.0, "INFO", "crm", "m", {"value": [math.nan, {"x": math.inf}]}))
    assert through_logging["value"] == ["NaN", {"x": "Infinity"}]


def test_a_lone_surrogate_in_a_client_name_is_written_as_a_replacement_character(tmp_path):
    (line,) = written(tmp_path, {"tool": "t", "client": "evil\udfff", "outcome": "ok"})
    assert "\\udfff" not in line
    assert strict_loads(line)["client"] == "evil\ufffd"


def test_a_huge_client_name_is_cut_with_a_marker_so_a_call_cannot_flush_the_log(tmp_path):
    client = "c" * 1_500_000
    (line,) = written(tmp_path, {"tool": "t" * 5_000, "client": client, "outcome": "ok", "duration_ms": 1.0})
    entry = strict_loads(line)
    assert entry["client"] == "c" * logs.TEXT_CHARS + f"…(+{len(client) - logs.TEXT_CHARS} chars)"
    assert entry["tool"] == "t" * logs.TEXT_CHARS + "…(+4000 chars)"
    assert len(line) < 3 * logs.TEXT_CHARS


def test_a_long_message_logger_name_and_field_name_are_cut():
    entry = strict_loads(format_line(0.0, "INFO", "l" * 1_000, "m" * 10_000, {"k" * 1_000: 1}))
    assert entry["logger"] == "l" * logs.NAME_CHARS + "…(+800 chars)"
    assert entry["message"] == "m" * logs.MESSAGE_CHARS + "…(+6000 chars)"
    assert entry["k" * logs.NAME_CHARS + "…(+800 chars)"] == 1


def test_a_long_traceback_keeps_its_start_and_its_end():
    trace = "Traceback (most recent call last):\n" + "  frame\n" * 10_000 + "KeyError: 'x'"
    entry = strict_loads(format_line(0.0, "ERROR", "crm", "failed", {"exception": trace}))
    assert entry["exception"].startswith("Traceback (most recent call last):\n")
    assert entry["exception"].endswith("KeyError: 'x'")
    assert len(entry["exception"]) < logs.EXCEPTION_CHARS + 100


def test_values_json_cannot_hold_are_written_as_text():
    class Odd:
        def __repr__(self) -> str:
            return "<odd>"

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    entry = strict_loads(format_line(0.0, "INFO", "crm", "m", {"odd": Odd(), "broken": Broken(), "big": 10**5000, "keys": {(1, 2): 3}, "set": {1}}))
    assert entry["odd"] == "<odd>"
    assert entry["broken"] == "<Broken that cannot be shown>"
    assert entry["big"] == "<integer of 16610 bits>"
    assert entry["keys"] == {"(1, 2)": 3}
    assert entry["set"] == "{1}"


def test_deep_nesting_is_cut_at_a_bounded_depth():
    value: list = []
    for _ in range(5_000):
        value = [value]
    entry = strict_loads(format_line(0.0, "INFO", "crm", "m", {"deep": value}))
    assert json.dumps(entry["deep"]).count("[") == logs.VALUE_DEPTH


def test_a_line_over_the_bound_keeps_its_head_and_counts_the_fields_left_out():
    line = format_line(0.0, "ERROR", "crm", "\x00" * 10_000, {f"field{i}": "\x01" * 1_000 for i in range(200)} | {"exception": "\x02" * 50_000})
    entry = strict_loads(line)
    assert len(line.encode()) <= LINE_BYTES
    assert list(entry)[:4] == ["ts", "level", "logger", "message"]
    assert entry["fields_left_out"] > 0


def test_arguments_that_do_not_fit_the_message_still_leave_a_line(tmp_path):
    handler = logs.RotatingJsonLines(tmp_path / "badargs.log")
    handler.setFormatter(logs.JsonLinesFormatter())
    logger = logging.Logger("badargs")  # not under the root logger: only the JSON-lines handler sees the record
    logger.addHandler(handler)
    try:
        logger.info("%d customers", "many")
    finally:
        handler.close()
    (entry,) = [strict_loads(line) for line in (tmp_path / "badargs.log").read_text(encoding="utf-8").split("\n")[:-1]]
    assert entry["message"] == "'%d customers' % ('many',) (the arguments do not fit the message)"


any_text = st.text(st.characters(exclude_categories=()), max_size=3_000)
any_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(0, 9).map(lambda n: 10 ** (5_000 + n))
    | st.floats(allow_nan=True, allow_infinity=True)
    | any_text
    | st.binary(max_size=20)
    | st.builds(object),
    lambda inner: st.lists(inner, max_size=300) | st.tuples(inner, inner) | st.dictionaries(any_text | st.integers(), inner, max_size=5),
    max_leaves=40,
)
fields = st.dictionaries(st.sampled_from(["tool", "client", "exception", "message", "level"]) | any_text | st.integers(), any_value, max_size=8)


@given(fields=fields, message=any_text, logger=any_text)
def test_any_fields_make_a_strict_json_line_of_bounded_length(tmp_path_factory, fields, message, logger):
    line = format_line(1_785_000_000.123, "INFO", logger, message, fields)
    strict_loads(line)
    assert "\n" not in line and len(line.encode("utf-8")) <= LINE_BYTES
    for direct in written(tmp_path_factory.mktemp("direct"), fields, message=message, logger=logger):
        strict_loads(direct)
        assert len(direct.encode("utf-8")) <= LINE_BYTES


@given(fields=st.dictionaries(st.sampled_from(["tool", "client", "outcome", "duration_ms"]), any_value, max_size=4))
def test_the_tool_call_line_is_strict_json_whatever_the_client_sends(tmp_path_factory, fields):
    (line,) = written(tmp_path_factory.mktemp("direct"), fields)
    strict_loads(line)
    assert len(line.encode("utf-8")) <= LINE_BYTES


def test_a_value_that_contains_itself_is_cut_at_the_depth_bound():
    loop: list = []
    loop.append(loop)
    entry = strict_loads(format_line(0.0, "INFO", "crm", "m", {"loop": loop, "blob": b"\x00" * 1_000_000}))
    assert json.dumps(entry["loop"]).count("[") == logs.VALUE_DEPTH
    assert entry["blob"].endswith("(of 1000000 bytes)") and len(entry["blob"]) < 2 * logs.TEXT_CHARS


def test_a_log_file_and_its_rotated_successors_are_made_0600_whatever_the_umask(tmp_path):
    previous = os.umask(0o022)
    try:
        writer = JsonLinesFile(tmp_path / "app.log", max_bytes=64, backups=2)
        for n in range(6):
            writer.write(json.dumps({"n": n, "pad": "x" * 40}))
        writer.close()
    finally:
        os.umask(previous)
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["app.log", "app.log.1", "app.log.2"]
    assert {name: (tmp_path / name).stat().st_mode & 0o777 for name in made} == dict.fromkeys(made, 0o600)


FIRST_RECORDS_AT_ONCE = """
import os, sys, threading
sys.setswitchinterval(1e-6)  # switch threads as often as the loading server makes them (rata.mcp.loading)
from rata.folder import AppFolder
from rata.logs import LazyLogger, configure_logging
assert "logging" not in sys.modules  # so the configuration waits for it
folder = AppFolder(sys.argv[1])
configure_logging(folder, "race")
barrier = threading.Barrier(8)
def first_record(i):
    barrier.wait()
    LazyLogger("rata").error("record %d", i)
threads = [threading.Thread(target=first_record, args=(i,)) for i in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(len(open(os.path.join(folder.logs_dir, "race.log")).read().splitlines()))
"""


def test_threads_whose_first_records_come_at_once_all_reach_the_file_none_stderr(tmp_path):
    """A thread that finds the waiting configuration being applied by another waits for it, instead of logging to stderr."""
    for attempt in range(5):
        done = subprocess.run([sys.executable, "-c", FIRST_RECORDS_AT_ONCE, str(tmp_path / f"app-{attempt}")], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "8", "")
