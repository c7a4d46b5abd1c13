import json
import logging
import subprocess
import sys

from rata.folder import AppFolder
from rata.logs import BACKUPS, configure_logging, log_file, log_info


def test_logs_are_json_lines_in_the_app_folder(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "logtest")
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
    try:
        assert configure_logging(folder, "twice") is first
    finally:
        for name in ("twice", "rata"):
            logging.getLogger(name).removeHandler(first)
        first.close()


def test_logs_rotate_and_keep_a_bounded_number_of_files(tmp_path):
    folder = AppFolder(tmp_path / "app")
    handler = configure_logging(folder, "rotating")
    handler.maxBytes = 2_000
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
    seen: list[logging.LogRecord] = []
    capture = logging.Handler()
    capture.emit = seen.append
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
    assert [(r.name, r.getMessage(), r.tool) for r in seen] == [("rata.mcp", "tool call", "t")]
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
