"""Shared fixtures: every test gets its own app folder, so nothing touches the real home."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property-based tests run with a fixed seed and a bounded budget, so CI is repeatable and stays quick.
# RATA_HYPOTHESIS=deep widens the search for a local hunt (same seed, ten times the examples).
settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
settings.register_profile("deep", parent=settings.get_profile("ci"), max_examples=1000)
settings.load_profile("deep" if os.environ.get("RATA_HYPOTHESIS") == "deep" else "ci")

ROOT = Path(__file__).resolve().parent.parent
CRM = ROOT / "examples" / "crm"


@pytest.fixture(autouse=True)
def rata_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "rata-home"
    monkeypatch.setenv("RATA_HOME", str(home))
    return home


@pytest.fixture(params=["unix", "tcp"])
def endpoint_transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs the test once over each endpoint transport, chosen as a user would (``RATA_ENDPOINT``, which child processes inherit):
    the Unix socket of Linux and macOS, and the loopback TCP of Windows, so that the Windows path is a tested path."""
    if request.param == "unix" and sys.platform.startswith("win"):
        pytest.skip("Windows has only the TCP endpoint")
    monkeypatch.setenv("RATA_ENDPOINT", request.param)
    return request.param


@pytest.fixture
def anyio_backend() -> str:
    """The async tests (`pytest.mark.anyio`) run on asyncio only, the loop the MCP SDK client is tested on."""
    return "asyncio"


@pytest.fixture
def crm_app():
    """The example app, imported fresh-enough for in-process tests (its folder is per test)."""
    if str(CRM) not in sys.path:
        sys.path.insert(0, str(CRM))
    from crm.app import app

    yield app
    app.close()


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for a child process: this interpreter's, with RATA_HOME and a fixed width."""
    env = dict(os.environ)
    env.update({"RATA_HOME": str(home), "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env
