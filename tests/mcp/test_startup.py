"""Start-up from the manifest, for real: console scripts as subprocesses, their bytecode cache private to the test."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rata.testing import AgentClient
from tests.conftest import subprocess_env
from tests.mcp.peers import TOOL_NAMES, crm_command

NOTES_APP = textwrap.dedent(
    """
    import os
    import time

    from rata import App, Ctx, Mcp, command

    time.sleep(float(os.environ.get("NOTES_SLOW", "0")))  # a slow import, so the test sees the manifest answer
    if os.environ.get("NOTES_FAIL"):
        raise RuntimeError("NOTES_FAIL is set")


    def notes_count(ctx: Ctx) -> int:
        return 0


    notes_count.__doc__ = os.environ.get("NOTES_DOC", "How many notes there are.")  # a tool list that depends on more than code
    notes_count = command(can="notes.read")(notes_count)

    app = App("notes", identifier="com.example.startup-notes").commands(notes_count).mcp(Mcp().allow_abilities(["notes.*"]))
    """
)


def manifest_of(prefix: Path, source: Path) -> Path:
    """Where a child whose PYTHONPYCACHEPREFIX is `prefix` keeps the manifest of `source`."""
    return prefix / source.parent.relative_to(source.anchor) / f"{source.stem}.{sys.implementation.cache_tag}.rata-mcp.json"


@pytest.fixture
def notes(tmp_path):
    """A notes app in a package of its own, and how to start `--mcp` on it as its console script would."""
    (tmp_path / "src" / "startup_notes").mkdir(parents=True)
    (tmp_path / "src" / "startup_notes" / "__init__.py").write_text("")
    source = tmp_path / "src" / "startup_notes" / "app.py"
    source.write_text(NOTES_APP)
    script = "import sys; from rata.cli.appmain import main_for; main_for('startup_notes.app:app')"
    return {"command": [sys.executable, "-c", script, "--mcp"], "source": source, "prefix": tmp_path / "pycache", "home": tmp_path / "home"}


def run(notes, era="modern", stderr=subprocess.DEVNULL, **env):
    full = subprocess_env(notes["home"], PYTHONPYCACHEPREFIX=str(notes["prefix"]), PYTHONPATH=str(notes["source"].parent.parent), **env)
    return AgentClient.spawn(notes["command"], env=full, era=era, stderr=stderr)


def test_crm_writes_its_manifest_on_the_first_start_and_answers_the_same_from_it(tmp_path):
    prefix = tmp_path / "pycache"
    env = subprocess_env(tmp_path / "home", PYTHONPYCACHEPREFIX=str(prefix))
    source = Path(__file__).resolve().parents[2] / "examples" / "crm" / "crm" / "app.py"  # as installed (editable)
    listed = []
    for _ in range(2):
        subprocess.run([*crm_command()[:-1], "--migrate"], env=env, capture_output=True, check=True, timeout=60)
        with AgentClient.spawn(crm_command(), env=env) as client:
            listed.append(client.request("tools/list"))
            assert client.call("customers_index").data == []
        assert manifest_of(prefix, source).is_file()
    assert [tool["name"] for tool in listed[0]["tools"]] == TOOL_NAMES
    assert listed[0] == listed[1]


def test_a_start_from_a_manifest_that_lists_otherwise_corrects_itself(notes):
    with run(notes) as first:
        assert first.list_tools()[0]["description"] == "How many notes there are."
    manifest = manifest_of(notes["prefix"], notes["source"])
    assert manifest.is_file()
    with run(notes, era="legacy", NOTES_DOC="Count the notes.", NOTES_SLOW="1") as client:
        assert client.list_tools()[0]["description"] == "How many notes there are."  # from the manifest, the app still loading
        client._wait(lambda: any(n["method"] == "notifications/tools/list_changed" for n in client.notifications), 30, "no list_changed")
        assert client.list_tools()[0]["description"] == "Count the notes."
    assert json.loads(manifest.read_text())["offer"]["tools"]["modern"][0]["description"] == "Count the notes."


def test_an_app_that_fails_to_load_after_a_good_start_still_lists_and_says_why(notes):
    with run(notes) as first:
        first.list_tools()
    client = run(notes, stderr=subprocess.PIPE, NOTES_FAIL="1")
    with client:
        assert [tool["name"] for tool in client.list_tools()] == ["notes_count"]
        called = client.call("notes_count")
    with client._process.stderr as stderr:
        said = stderr.read().decode()
    assert called.is_error and "RuntimeError: NOTES_FAIL is set" in called.text
    assert "notes: the app failed to load, and each request that needs it gets this error: " in said
    assert "Importing the app 'startup_notes.app:app' failed: RuntimeError: NOTES_FAIL is set" in said


def test_editing_the_app_makes_the_next_start_load_it_first(notes):
    with run(notes) as first:
        first.list_tools()
    notes["source"].write_text(NOTES_APP.replace("How many notes there are.", "The number of notes."))
    with run(notes, NOTES_SLOW="1") as client:
        assert client.list_tools()[0]["description"] == "The number of notes."
