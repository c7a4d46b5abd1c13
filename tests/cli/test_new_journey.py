"""A newcomer's first hour, the way they run it: `rata new todo` from a fresh venv, the generated README followed
literally, the generated tests, `rata mcp install --dev` finding `.mcp.json` up to date, Claude Code's own health
check starting `rata mcp dev` with the project's venv off PATH, and `rata dev --headless` used through the window
tools of `rata mcp dev`.

Two fresh venvs are made once for the module (python3 -m venv): one with rata installed from this checkout, which
runs `rata new`; and the project's own `.venv`, which the README makes. pip reaches only what it needs for rata's
own dependencies and the app's build backend (hatchling). The README's set-up commands are read from the README, so
the test breaks when the README drifts from what works.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from rata.scaffold import NEXT_STEPS
from tests.conftest import ROOT
from tests.dev_server.test_windows import ref_of, text_of
from tests.mcp.peers import PEERS_BIN, Background, peers_required
from tests.windows.shared import require_chromium

pytestmark = pytest.mark.subprocess

SET_UP = "## Set up"
TASK = "Try the window tools"


@dataclass(frozen=True)
class Journey:
    project: Path
    env: dict[str, str]  # the user's environment, without any venv on PATH
    setup: subprocess.CompletedProcess[str]  # the README's set-up commands, run in one shell

    @property
    def rata(self) -> str:
        return str(self.project / ".venv" / "bin" / "rata")


def readme_block(readme: str, heading: str) -> list[str]:
    """The commands of the first ```sh block under `heading`, one a line."""
    section = readme.split(heading + "\n", 1)[1]
    found = re.search(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    assert found is not None, f"no ```sh block under {heading!r}"
    return [line.split("  #")[0].strip() for line in found.group(1).splitlines() if line.strip()]


def user_env(root: Path) -> dict[str, str]:
    """The user's shell: this machine's environment with no virtual environment active and a scratch RATA_HOME."""
    mine = Path(sys.executable).parent
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "RATA_HOME")}
    env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep) if part and Path(part) != mine)
    env.update({"RATA_HOME": str(root / "rata-home"), "NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"})
    return env


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def journey(tmp_path_factory: pytest.TempPathFactory) -> Journey:
    require_chromium()  # the generated window tests and `rata dev --headless` need it: skipped locally, a failure in CI
    root = tmp_path_factory.mktemp("journey")
    env = user_env(root)
    python = getattr(sys, "_base_executable", sys.executable)  # the interpreter under this venv, as `python3` would be
    run([python, "-m", "venv", str(root / "rata-venv")], root, env)
    run([str(root / "rata-venv" / "bin" / "pip"), "install", "-q", "-e", str(ROOT)], root, env)
    run([str(root / "rata-venv" / "bin" / "rata"), "new", "todo"], root, env)
    project = root / "todo"

    readme = (project / "README.md").read_text(encoding="utf-8")
    commands = readme_block(readme, SET_UP)
    assert commands == list(NEXT_STEPS)  # what `rata new` prints is what the README says
    script = "set -eu\n" + "".join(f"echo '$ {command}'\n{command}\n" for command in commands)
    shell = {**env, "PATH": os.pathsep.join([str(root / "rata-venv" / "bin"), env["PATH"]])}  # `rata new` ran from that venv
    setup = run(["bash", "-c", script], project, shell, timeout=400)
    return Journey(project, env, setup)


def test_the_readme_s_set_up_installs_rata_and_the_app_and_the_generated_tests_pass_in_a_fresh_venv(journey):
    said = journey.setup.stdout + journey.setup.stderr
    assert "applied  0001_create_tasks.sql" in said
    summary = journey.setup.stdout.strip().splitlines()[-1]  # pytest's, the README's last command
    assert re.fullmatch(r"=* ?\d+ passed in [\d.]+s ?=*", summary), said  # no test skipped: the window tests ran in Chromium
    assert (journey.project / "requirements-rata.txt").read_text(encoding="utf-8").splitlines()[-1] == f"-e {ROOT}"
    run(["git", "init", "-q"], journey.project, journey.env)
    ignored = run(["git", "check-ignore", "requirements-rata.txt", ".venv"], journey.project, journey.env).stdout
    assert ignored.split() == ["requirements-rata.txt", ".venv"]


def test_install_dev_finds_the_new_mcp_json_up_to_date(journey):
    before = (journey.project / ".mcp.json").read_bytes()
    env = {key: value for key, value in journey.env.items() if key != "RATA_HOME"}  # RATA_HOME set would add an env entry
    done = run([journey.rata, "mcp", "install", "--dev", "--client", "claude-code", "--write"], journey.project, env)
    assert "is already up to date ('rata' for Claude Code)" in done.stdout + done.stderr
    assert (journey.project / ".mcp.json").read_bytes() == before
    assert str(journey.project.parent) not in before.decode()  # no path of this machine in the committed file


def test_claude_code_starts_rata_mcp_dev_from_mcp_json_with_the_venv_off_path(journey, tmp_path):
    claude = PEERS_BIN / "claude"
    if not (claude.exists() and (PEERS_BIN / "node").exists()):
        message = f"claude is not installed at {claude} (run: cd .ci/peers && npm install --no-audit --no-fund)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    env = {
        **journey.env,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PATH": os.pathsep.join([str(PEERS_BIN), "/usr/bin", "/bin"]),  # node for the client; no venv, no rata
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    assert subprocess.run(["bash", "-c", "command -v rata"], env=env, capture_output=True, check=False).returncode != 0
    listed = run([str(claude), "mcp", "list"], journey.project, env, timeout=120).stdout
    assert re.search(r"(?m)^rata: \.venv/bin/rata mcp dev - \S* ?Connected$", listed), listed


@pytest.mark.anyio
async def test_rata_dev_headless_shows_the_window_and_an_agent_adds_a_task_through_its_form(journey):
    build = Background([journey.rata, "dev", "--headless", "--app", str(journey.project)], journey.env, ready="is running in dev mode")
    try:
        server = StdioServerParameters(command=journey.rata, args=["mcp", "dev"], cwd=journey.project, env=journey.env)
        with anyio.fail_after(60):
            async with Client(server, read_timeout_seconds=30) as client:
                windows = await client.call_tool("app_windows", {})
                assert text_of(windows).startswith('main "Tasks" route / '), text_of(windows)

                seen = text_of(await client.call_tool("window_snapshot", {}))
                assert 'heading "Tasks" [level=1]' in seen and "Nothing to do." in seen, seen
                assert "tasks_list" in seen.split("showing (live queries, newest first):")[1]

                typed = await client.call_tool("window_act", {"action": "type", "ref": ref_of(seen, r'textbox "New task"'), "text": TASK})
                assert not typed.is_error, text_of(typed)
                added = await client.call_tool("window_act", {"action": "click", "ref": ref_of(text_of(typed), r'button "Add task"')})
                after = text_of(added)
                assert not added.is_error and re.search(r"Ran: .*tasks_add \d+ ms ok", after), after
                assert f'button "Mark {TASK} done"' in after and "1 task to do" in after, after
    finally:
        said = build.stop()
    assert "Traceback" not in said, said
