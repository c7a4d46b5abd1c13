"""A hostile URI against a template whose separators a value could also hold: the real server answers it at once and serves on.

A backtracking matcher took 10.9 s for ``rt://day/`` plus 2,030 dashes against
``rt://day/{year}-{month}-{day}``, holding the GIL, and with five values 300 characters got no
answer in a minute; `rata.resources.UriTemplate` scans once instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rata.mcp import wire
from rata.resources import MAX_URI
from tests.conftest import subprocess_env

pytestmark = pytest.mark.subprocess
DAYS = Path(__file__).with_name("days.py")
META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}}


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def read(id: int | str, uri: str) -> bytes:
    return line({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"_meta": META, "uri": uri}})


def serve_days(tmp_path: Path, data: bytes) -> dict:
    app_file = tmp_path / "days_app.py"
    app_file.write_text(DAYS.read_text())
    command = [sys.executable, "-m", "rata", "mcp", "serve", "--app", str(app_file)]
    result = subprocess.run(command, input=data, capture_output=True, env=subprocess_env(tmp_path / "home"), timeout=60)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return {answer["id"]: answer for answer in map(json.loads, result.stdout.decode().splitlines())}


def test_uris_that_made_a_backtracking_matcher_search_for_minutes_are_answered_at_once_and_the_server_serves_on(tmp_path):
    hostile = {
        "three": "rt://day/" + "-" * 2030 + "/",
        "five": "rt://span/" + "-" * 300 + "/",
        "five, the longest a uri may be": "rt://span/" + "-" * (MAX_URI - len("rt://span/") - 1) + "/",
        "dashes and values": "rt://span/" + "a-" * ((MAX_URI - 12) // 2) + "/",
    }
    call = line({"jsonrpc": "2.0", "id": "quick", "method": "tools/call", "params": {"_meta": META, "name": "quick", "arguments": {}}})
    answers = serve_days(tmp_path, b"".join(read(name, uri) for name, uri in hostile.items()) + call + read("good", "rt://day/2026-12-07"))
    for name in hostile:
        assert answers[name]["error"]["code"] == wire.INVALID_PARAMS, name
    assert answers["quick"]["result"]["structuredContent"] == "quick done"
    assert answers["good"]["result"]["contents"][0]["text"] == "2026|12|07"


def test_a_value_that_holds_the_separator_is_read_back_whole_when_percent_encoded(tmp_path):
    answers = serve_days(tmp_path, read(1, "rt://day/20%2D26-12-07") + read(2, "rt://span/a-b-c-d-e-f-g"))
    assert answers[1]["result"]["contents"][0]["text"] == "20-26|12|07"
    assert answers[2]["result"]["contents"][0]["text"] == "a|b|c|d|e-f-g"  # each value ends where its separator first follows
