"""`rata.shipping.pack`: the manifest written beside the project's pyproject.toml, the bundle in dist/, and what they refuse."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rata.errors import ConfigError
from rata.loader import load_app
from rata.shipping.bundle import GENERATOR
from rata.shipping.pack import check_manifest, compiled_code_warnings, pack

APP = '''\
from rata import App, Mcp, command


@command(can="pings.run")
def ping() -> str:
    """Answer pong."""
    return "pong"


app = App("Pinger", identifier="com.example.pinger").commands(ping)
app.mcp(Mcp().allow_abilities(["pings.run"]))
'''
PYPROJECT = """\
[project]
name = "pinger"
version = "1.2.3"
description = "Answers pong."
authors = [{ name = "Ada" }]

[tool.rata]
app = "pinger_pkg.app:app"
"""


@pytest.fixture
def pinger(tmp_path: Path):
    root = tmp_path / "pinger"
    (root / "pinger_pkg").mkdir(parents=True)
    (root / "pinger_pkg" / "app.py").write_text(APP, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    loaded = load_app(str(root))
    yield loaded
    loaded.app.close()
    sys.modules.pop("pinger_pkg.app", None)
    sys.modules.pop("pinger_pkg", None)


def test_pack_writes_the_manifest_in_the_project_and_the_bundle_in_dist(pinger):
    packed = pack(pinger, None)
    root = pinger.project
    assert (packed.manifest_path, packed.bundle_path, packed.manifest_changed) == (root / "manifest.json", root / "dist" / "pinger-1.2.3.mcpb", True)
    manifest = json.loads(packed.manifest_path.read_text(encoding="utf-8"))
    assert (manifest["display_name"], manifest["tools"], manifest["_meta"]) == ("Pinger", [{"name": "ping", "description": "Answer pong."}], GENERATOR)
    assert packed.size == packed.bundle_path.stat().st_size and packed.warnings == []
    assert pack(pinger, None).manifest_changed is False


def test_check_finds_no_drift_after_pack_and_drift_after_an_edit(pinger):
    pack(pinger, None)
    path, drift = check_manifest(pinger)
    assert not drift
    path.write_text(path.read_text(encoding="utf-8").replace("Answer pong.", "Answer ping."), encoding="utf-8")
    assert check_manifest(pinger)[1].changed == ["tool ping"]


def test_a_folder_named_manifest_json_is_refused(pinger):
    (pinger.project / "manifest.json").mkdir()
    with pytest.raises(ConfigError, match="is not a plain file"):
        pack(pinger, None, replace=True)


def test_an_app_given_as_a_module_is_not_a_project(crm_app):
    from rata.loader import LoadedApp

    with pytest.raises(ConfigError, match="is not in a project folder"):
        pack(LoadedApp(crm_app, "crm.app:app", None, {}), None)


def test_compiled_code_is_warned_about_only_when_the_bundle_claims_other_platforms():
    names = ["server/lib/fast/_speed.cpython-311-x86_64-linux-gnu.so", "server/main.py"]
    assert compiled_code_warnings(names, [sys.platform]) == []
    assert compiled_code_warnings(["server/main.py"], ["darwin", "linux", "win32"]) == []
    (warning,) = compiled_code_warnings(names, ["darwin", "linux", "win32"])
    assert warning.startswith("The bundle holds compiled code (server/lib/fast/_speed.cpython-311-x86_64-linux-gnu.so), built for")
