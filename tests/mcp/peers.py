"""Shared by the real-peer tests: the example app's console script, and a migrated app folder for it.

Test modules import the fixtures they use (``from tests.mcp.peers import crm_home``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env

TOOL_NAMES = ["customers_delete", "customers_index", "customers_show", "customers_store"]
INDEX_URI = "app://customers_index"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
# The npm peers pinned in .ci/peers (`cd .ci/peers && npm install`), node 22 among them.
PEERS_BIN = Path(__file__).resolve().parents[2] / ".ci" / "peers" / "node_modules" / ".bin"


def peers_required() -> bool:
    """A missing peer fails instead of skipping: in CI (CI=true) or with RATA_PEERS_REQUIRED=1."""
    return os.environ.get("CI", "").lower() in ("true", "1") or os.environ.get("RATA_PEERS_REQUIRED") == "1"


def crm_command() -> list[str]:
    """`crm --mcp`: the console script next to this interpreter (or its module, if the script is missing)."""
    script = shutil.which("crm", path=str(Path(sys.executable).parent))
    return [script, "--mcp"] if script else [sys.executable, "-m", "crm.main", "--mcp"]


def search_path() -> str:
    """PATH for a server child: this interpreter's folder first, then the caller's PATH."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def project_env(root: Path, home: Path) -> dict[str, str]:
    """The environment for a scratch project's `rata dev` or server: its folder first on PYTHONPATH, RATA_HOME, no bytecode."""
    return {
        "RATA_HOME": str(home),
        "PATH": search_path(),
        "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "NO_COLOR": "1",
    }


@pytest.fixture(scope="session")
def migrated_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An app folder migrated once by the app's own `crm --migrate`; each test gets a copy."""
    folder = tmp_path_factory.mktemp("migrated") / "rata-home"
    migrate = [*crm_command()[:-1], "--migrate"]
    result = subprocess.run(migrate, capture_output=True, text=True, env=subprocess_env(folder), timeout=30)
    assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture
def crm_home(rata_home: Path, migrated_folder: Path) -> Path:
    """This test's own app folder, already migrated (a copy of `migrated_folder`)."""
    shutil.copytree(migrated_folder, rata_home)
    return rata_home


class Background:
    """A process left running in the background, as a user would (`crm --headless`, `rata dev`).

    It has started once its standard error says `ready`; `stop` ends it and returns all it said.
    """

    def __init__(self, argv: list[str], env: dict[str, str], ready: str) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.said = ""
        while ready not in self.said:
            assert self.process.stderr is not None
            line = self.process.stderr.readline().decode()
            if not line:
                raise AssertionError(f"{' '.join(argv)} did not start: {self.said}{self.stop()}")
            self.said += line

    def stop(self, sig: int = signal.SIGTERM) -> str:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            _, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return self.said + err.decode()


class Heard:
    """A 2025-era SDK client's message handler: the list changes it was told of (``event`` set at the first)."""

    def __init__(self) -> None:
        import anyio

        self.lists: list[str] = []
        self.event = anyio.Event()

    async def __call__(self, message: object) -> None:
        import mcp_types as types

        notification = getattr(message, "root", message)
        if isinstance(notification, (types.ToolListChangedNotification, types.ResourceListChangedNotification, types.PromptListChangedNotification)):
            self.lists.append(notification.method)
            self.event.set()
