from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rata.cli.main import app

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.fixture
def rata(rata_home):
    """Run `rata ARGS` in-process with a fixed 100-column console; returns the click Result."""
    runner = CliRunner()

    def run(*args: str, cwd: Path | None = None):
        env = {"COLUMNS": "100", "NO_COLOR": "1", "RATA_HOME": str(rata_home), "TERM": "dumb"}
        old = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            return runner.invoke(app, list(args), env=env, catch_exceptions=False)
        finally:
            os.chdir(old)

    return run


def matches_snapshot(name: str, text: str) -> bool:
    """Compare with tests/cli/snapshots/NAME; RATA_UPDATE_SNAPSHOTS=1 rewrites it instead."""
    path = SNAPSHOTS / name
    if os.environ.get("RATA_UPDATE_SNAPSHOTS") == "1" or not path.exists() and not os.environ.get("CI"):
        path.write_text(text, encoding="utf-8")
    return path.read_text(encoding="utf-8") == text
