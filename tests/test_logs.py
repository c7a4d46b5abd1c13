import json
import logging

from rata.folder import AppFolder
from rata.logs import BACKUPS, configure_logging, log_file


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
