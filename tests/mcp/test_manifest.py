"""An app's manifest: written beside its bytecode, trusted only while the code it describes is unchanged."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from rata.mcp import manifest
from rata.mcp.app_server import AppServer

APP_SOURCE = '''
import os
from rata import App, Ctx, Mcp, command


@command(can="notes.read")
def notes_count(ctx: Ctx) -> int:
    """How many notes there are."""
    return 0


app = App("notes", identifier="com.example.notes-{tag}").commands(notes_count).mcp(
    Mcp(instructions=os.environ.get("NOTES_HINT", "Count notes.")).allow_abilities(["notes.*"])
)
'''


@pytest.fixture
def notes(tmp_path, monkeypatch):
    """A one-command app in a package of its own (``<pkg>.app:app``), its bytecode cache under tmp_path."""
    package = f"notes_{tmp_path.name.replace('-', '_')}"
    source = tmp_path / "src" / package
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "app.py").write_text(APP_SOURCE.format(tag=package))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    monkeypatch.setenv("RATA_HOME", str(tmp_path / "home"))
    module = importlib.import_module(f"{package}.app")
    yield f"{package}.app:app", module.app, source / "app.py"
    for name in [name for name in sys.modules if name.startswith(package)]:
        del sys.modules[name]


def written(ref, app):
    offer = AppServer(app, send=lambda data: None).offer()
    path = manifest.write(ref, app, offer)
    assert path is not None
    return path, offer


def test_the_manifest_lives_where_python_keeps_the_modules_bytecode(notes):
    ref, _, source = notes
    expected = importlib.util.cache_from_source(str(source)).removesuffix(".pyc") + ".rata-mcp.json"
    assert manifest.manifest_file(ref) == expected
    assert expected.endswith(f"app.{sys.implementation.cache_tag}.rata-mcp.json")


def test_a_written_manifest_reads_back_while_the_code_is_unchanged(notes):
    ref, app, _ = notes
    _, offer = written(ref, app)
    found = manifest.read(ref)
    assert found is not None
    assert found.offer == offer
    assert found.name == "notes"
    assert [tool["name"] for tool in found.offer["tools"]["modern"]] == ["notes_count"]
    assert found.offer["instructions"] == "Count notes."


def test_it_records_the_apps_and_rata_s_source_files_but_not_the_standard_library(notes):
    ref, app, source = notes
    path, _ = written(ref, app)
    files = [entry[0] for entry in json.loads(Path(path).read_text())["files"]]
    assert str(source) in files
    assert str(Path(manifest.__file__).resolve()) in files
    assert os.path.join(os.path.dirname(os.__file__), "json", "__init__.py") not in files
    assert files == sorted(files)


def test_editing_a_source_file_makes_the_manifest_stale(notes):
    ref, app, source = notes
    written(ref, app)
    source.write_text(source.read_text() + "\n# edited\n")
    assert manifest.read(ref) is None


def test_a_source_file_touched_without_a_change_also_makes_it_stale(notes):
    ref, app, source = notes
    written(ref, app)
    status = source.stat()
    os.utime(source, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    assert manifest.read(ref) is None


@pytest.mark.parametrize(
    "change",
    [
        {"python": "3.12.0 (other)"},
        {"optimize": 2},
        {"format": 0},
        {"ref": "elsewhere:app"},
        {"offer": {"tools": []}},
        {"files": []},
        {"app": {"name": "notes"}},
    ],
    ids=["another-python", "another-O-level", "another-format", "another-app", "a-bad-offer", "no-files", "a-bad-app"],
)
def test_a_manifest_made_for_anything_else_is_not_used(notes, change):
    ref, app, _ = notes
    path, _ = written(ref, app)
    data = json.loads(Path(path).read_text())
    data.update(change)
    Path(path).write_text(json.dumps(data))
    assert manifest.read(ref) is None


def test_an_unreadable_manifest_is_the_same_as_none(notes):
    ref, app, _ = notes
    path, _ = written(ref, app)
    Path(path).write_text('{"format": 1, "ref": ')
    assert manifest.read(ref) is None


def test_a_manifest_that_cannot_be_written_is_skipped_quietly(notes, tmp_path):
    ref, app, _ = notes
    written = manifest.manifest_file(ref)
    assert written is not None
    blocked = Path(written).parent
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("a file where the folder should be")
    assert manifest.write(ref, app, AppServer(app, send=lambda data: None).offer()) is None
    assert manifest.read(ref) is None


def test_a_module_that_is_not_there_has_no_manifest():
    assert manifest.manifest_file("no_such_package_here.app:app") is None
    assert manifest.read("no_such_package_here.app:app") is None


def test_the_folder_follows_rata_home_when_the_manifest_is_read(notes, monkeypatch, tmp_path):
    ref, app, _ = notes
    written(ref, app)
    monkeypatch.setenv("RATA_HOME", str(tmp_path / "elsewhere"))
    found = manifest.read(ref)
    assert found is not None and found.folder_location() == str(tmp_path / "elsewhere")


def test_a_folder_the_app_sets_itself_is_recorded(notes, tmp_path):
    ref, app, _ = notes
    app.folder = tmp_path / "its-own"
    try:
        written(ref, app)
    finally:
        app.folder = None
    found = manifest.read(ref)
    assert found is not None and found.folder_location() == str(tmp_path / "its-own")


def test_info_and_instructions_in_a_manifest_are_cleaned_when_it_is_read(notes):
    """A manifest written by an older rata, or edited by hand, still reaches no client uncleaned."""
    ref, app, _ = notes
    path, _ = written(ref, app)
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    data["offer"]["info"] = {"name": "notes\u202e\x1b[2J", "version": "1.0\n\x07" + "9" * 500}
    data["offer"]["instructions"] = "Count\u200b notes.\x1b]0;owned\x07" + "x" * 20_000
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    offer = manifest.read(ref).offer
    assert offer["info"]["name"] == "notes[2J"
    assert offer["info"]["version"].startswith("1.0 9") and len(offer["info"]["version"]) == 128
    assert offer["instructions"].startswith("Count notes.]0;owned") and len(offer["instructions"]) == 10_000
