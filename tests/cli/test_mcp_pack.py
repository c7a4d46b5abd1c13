"""`rata mcp pack`: the example app and a `rata new` app as MCP Bundles, checked by the official MCPB CLI.

The CLI is `@anthropic-ai/mcpb` 2.1.2 from .ci/peers (`cd .ci/peers && npm install`), run with the
node in the same node_modules/.bin. Without it the tests that need it skip, except in CI (CI=true)
or with RATA_PEERS_REQUIRED=1, where a missing peer fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rata.testing import AgentClient
from tests.conftest import CRM, ROOT, subprocess_env
from tests.mcp.peers import PEERS_BIN, crm_command, peers_required

pytestmark = pytest.mark.subprocess

MCPB = PEERS_BIN / "mcpb"
RATA = Path(sys.executable).parent / "rata"
TASKS = ["tasks_add", "tasks_delete", "tasks_done", "tasks_list"]
COPY_IGNORING = shutil.ignore_patterns("__pycache__", "*.pyc", "dist")


@pytest.fixture(scope="module")
def mcpb() -> Path:
    if not (MCPB.exists() and (PEERS_BIN / "node").exists()):
        message = f"the MCPB CLI is not installed at {MCPB} (run: cd .ci/peers && npm install --no-audit --no-fund)"
        if peers_required():
            pytest.fail(message + "; it is required here (CI=true or RATA_PEERS_REQUIRED=1)")
        pytest.skip(message)
    return MCPB


def run_mcpb(mcpb: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": os.pathsep.join([str(PEERS_BIN), os.environ.get("PATH", "")])}
    return subprocess.run([str(mcpb), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)


def run_rata(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RATA), *args], cwd=cwd, capture_output=True, text=True, env=subprocess_env(home), timeout=180)


@pytest.fixture
def crm_project(tmp_path: Path) -> Path:
    """A copy of examples/crm, with its committed manifest.json."""
    shutil.copytree(CRM, tmp_path / "crm", ignore=COPY_IGNORING)
    return tmp_path / "crm"


@pytest.fixture(scope="module")
def tasks_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh `rata new tasks` app, as generated: it names the author MCPB requires."""
    base = tmp_path_factory.mktemp("new")
    done = run_rata("new", "tasks", cwd=base, home=base / "home")
    assert done.returncode == 0, done.stderr
    return base / "tasks"


def packed(project: Path, home: Path) -> Path:
    done = run_rata("mcp", "pack", cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    (bundle,) = (project / "dist").glob("*.mcpb")
    return bundle


def unpacked(bundle: Path, into: Path) -> Path:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(into)
    return into


def bundle_server(folder: Path, shims: Path) -> tuple[list[str], dict[str, str]]:
    """The manifest's mcp_config as a client runs it: ${__dirname} replaced, and its `python3` a bare
    interpreter (this venv's base Python without its site-packages: no rata, no app), so the bundle must carry both."""
    config = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["server"]["mcp_config"]
    shims.mkdir(exist_ok=True)
    bare = shims / config["command"]
    if not bare.exists():
        bare.write_text(f'#!/bin/sh\nexec "{getattr(sys, "_base_executable", sys.executable)}" -S "$@"\n', encoding="utf-8")
        bare.chmod(0o755)
    argv = [str(bare), *(arg.replace("${__dirname}", str(folder)) for arg in config["args"])]
    return argv, {"PATH": str(shims), "HOME": str(folder.parent), "RATA_HOME": str(folder.parent / "home"), "PYTHONIOENCODING": "utf-8"}


def listed_tools(argv: list[str], env: dict[str, str]) -> list[dict]:
    with AgentClient.spawn(argv, env=env, stderr=subprocess.DEVNULL) as client:
        return client.list_tools()


def test_the_example_app_s_manifest_passes_mcpb_validate(mcpb, crm_project, tmp_path):
    done = run_rata("mcp", "pack", cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"Kept {crm_project / 'manifest.json'} (up to date)."
    checked = run_mcpb(mcpb, "validate", "manifest.json", cwd=crm_project)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Manifest schema validation passes!" in checked.stdout


def test_the_packed_bundle_is_read_by_mcpb_info_and_unpack_and_packs_again_with_mcpb_pack(mcpb, crm_project, tmp_path):
    bundle = packed(crm_project, tmp_path / "home")
    assert bundle.name == "rata-example-crm-1.0.0.mcpb"
    info = run_mcpb(mcpb, "info", str(bundle), cwd=tmp_path)
    assert info.returncode == 0 and "File: rata-example-crm-1.0.0.mcpb" in info.stdout, info.stdout + info.stderr
    unpack = run_mcpb(mcpb, "unpack", str(bundle), str(tmp_path / "unpacked"), cwd=tmp_path)
    assert unpack.returncode == 0, unpack.stdout + unpack.stderr
    assert run_mcpb(mcpb, "validate", str(tmp_path / "unpacked"), cwd=tmp_path).returncode == 0
    again = run_mcpb(mcpb, "pack", str(tmp_path / "unpacked"), str(tmp_path / "again.mcpb"), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "name: rata-example-crm" in again.stdout and "version: 1.0.0" in again.stdout
    with zipfile.ZipFile(bundle) as ours, zipfile.ZipFile(tmp_path / "again.mcpb") as theirs:
        assert sorted(ours.namelist()) == sorted(theirs.namelist())


def test_the_server_started_from_the_unpacked_bundle_lists_the_same_tools_as_crm_mcp(crm_project, tmp_path):
    folder = unpacked(packed(crm_project, tmp_path / "home"), tmp_path / "installed" / "crm")
    argv, env = bundle_server(folder, tmp_path / "shims")
    assert subprocess.run([argv[0], "-c", "import rata"], env=env, cwd=tmp_path, capture_output=True).returncode != 0  # the bare interpreter has no rata
    from_bundle = listed_tools(argv, env)
    installed = listed_tools(crm_command(), subprocess_env(tmp_path / "home"))
    assert [tool["name"] for tool in from_bundle] == ["customers_delete", "customers_index", "customers_show", "customers_store"]
    assert from_bundle == installed


def test_a_rata_new_app_packs_validates_and_serves_its_tools_from_the_bundle(mcpb, tasks_project, tmp_path):
    bundle = packed(tasks_project, tmp_path / "home")
    assert run_mcpb(mcpb, "validate", "manifest.json", cwd=tasks_project).returncode == 0
    assert run_mcpb(mcpb, "info", str(bundle), cwd=tmp_path).returncode == 0
    manifest = json.loads((tasks_project / "manifest.json").read_text(encoding="utf-8"))
    assert [tool["name"] for tool in manifest["tools"]] == TASKS
    assert manifest["author"]["name"].strip()
    folder = unpacked(bundle, tmp_path / "installed" / "tasks")
    assert [tool["name"] for tool in listed_tools(*bundle_server(folder, tmp_path / "shims"))] == TASKS


def test_the_settings_the_app_declares_reach_its_server_through_user_config_and_the_icon_passes_mcpb(mcpb, tmp_path):
    """docs/examples/shipping: an icon, a sensitive setting and a folder setting (docs/shipping.md)."""
    project = tmp_path / "journal"
    shutil.copytree(ROOT / "docs" / "examples" / "shipping", project, ignore=COPY_IGNORING)
    bundle = packed(project, tmp_path / "home")
    checked = run_mcpb(mcpb, "validate", "manifest.json", cwd=project)
    assert checked.returncode == 0 and "Icon validation passed" in checked.stdout, checked.stdout
    folder = unpacked(bundle, tmp_path / "installed" / "journal")
    assert (folder / "icon.png").read_bytes() == (project / "icon.png").read_bytes()
    argv, env = bundle_server(folder, tmp_path / "shims")
    config = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    given = {"journal_sync_token": "s3cret", "journal_folder": str(tmp_path / "notes")}
    for name, value in config["server"]["mcp_config"]["env"].items():  # what the client does with what the user filled in
        env[name] = value.replace("${user_config.journal_sync_token}", given["journal_sync_token"]).replace(
            "${user_config.journal_folder}", given["journal_folder"]
        )
    with AgentClient.spawn(argv, env=env, stderr=subprocess.DEVNULL) as client:
        result = client.call("add_note", {"text": "hello"})
    assert result.data == f"Saved in {tmp_path / 'notes'} and synced: hello"


def test_check_passes_on_the_committed_example_manifest(crm_project, tmp_path):
    done = run_rata("mcp", "pack", "--check", cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{crm_project / 'manifest.json'} is up to date."
    assert not (crm_project / "dist").exists()


def test_check_exits_4_with_the_drift_when_the_committed_manifest_is_stale(crm_project, tmp_path):
    manifest = crm_project / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["tools"] = [tool for tool in data["tools"] if tool["name"] != "customers_show"]
    manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    done = run_rata("mcp", "pack", "--check", cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 4
    assert "added: tool customers_show" in done.stderr
    assert f"error: The bundle manifest '{manifest}' is stale." in done.stderr and "Run `rata mcp pack` and commit manifest.json." in done.stderr


def test_check_without_a_manifest_says_how_to_make_one(crm_project, tmp_path):
    (crm_project / "manifest.json").unlink()
    done = run_rata("mcp", "pack", "--check", cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 1
    assert "does not exist" in done.stderr and "rata mcp pack" in done.stderr


def test_a_manifest_rata_did_not_write_is_left_alone_unless_replace_is_given(crm_project, tmp_path):
    mine = crm_project / "manifest.json"
    mine.write_text('{"name": "my web app manifest"}\n', encoding="utf-8")
    refused = run_rata("mcp", "pack", cwd=crm_project, home=tmp_path / "home")
    assert refused.returncode == 1
    assert "exists and rata did not write it" in refused.stderr and "--replace" in refused.stderr
    assert mine.read_text(encoding="utf-8") == '{"name": "my web app manifest"}\n' and not (crm_project / "dist").exists()
    replaced = run_rata("mcp", "pack", "--replace", cwd=crm_project, home=tmp_path / "home")
    assert replaced.returncode == 0, replaced.stderr
    assert json.loads(mine.read_text(encoding="utf-8"))["name"] == "rata-example-crm"


def test_the_bundle_leaves_out_caches_version_control_venvs_app_data_and_what_mcpbignore_names(crm_project, tmp_path):
    package = crm_project / "crm"
    for junk in ["__pycache__/app.cpython-311.pyc", ".git/HEAD", ".venv/bin/python", "data/crm.db", "crm.sqlite3-wal", "server.log", ".env"]:
        (package / junk).parent.mkdir(parents=True, exist_ok=True)
        (package / junk).write_text("junk", encoding="utf-8")
    (crm_project / ".mcpbignore").write_text("# not for users\ncrm/frontend/app.css\n", encoding="utf-8")
    with zipfile.ZipFile(packed(crm_project, tmp_path / "home")) as archive:
        names = archive.namelist()
    app_files = sorted(name for name in names if name.startswith("server/lib/crm/"))
    assert app_files == [
        "server/lib/crm/__init__.py",
        "server/lib/crm/app.py",
        "server/lib/crm/frontend/app.js",
        "server/lib/crm/frontend/index.html",
        "server/lib/crm/main.py",
        "server/lib/crm/migrations/0001_create_customers.sql",
    ]
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)
    assert {"manifest.json", "server/main.py", "server/lib/rata/__init__.py", "server/lib/rata/cli/appmain.py"} <= set(names)


def test_compiled_code_for_one_platform_in_a_bundle_for_all_three_is_warned_about(crm_project, tmp_path):
    (crm_project / "crm" / "speedups.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    done = run_rata("mcp", "pack", cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert f"warning: The bundle holds compiled code (server/lib/crm/speedups.cpython-311-x86_64-linux-gnu.so), built for {sys.platform}" in done.stderr
    assert f'Set [tool.rata.bundle] platforms = ["{sys.platform}"]' in done.stderr


def test_packing_twice_gives_the_same_bytes(crm_project, tmp_path):
    first = packed(crm_project, tmp_path / "home").read_bytes()
    assert packed(crm_project, tmp_path / "home").read_bytes() == first


def test_output_puts_the_bundle_in_another_folder(crm_project, tmp_path):
    done = run_rata("mcp", "pack", "--output", str(tmp_path / "out"), cwd=crm_project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["rata-example-crm-1.0.0.mcpb"]


def tiny_wheel(folder: Path) -> Path:
    """A one-module wheel (tinydep 1.0), written by hand: pip installs it with no index and no build."""
    wheel = folder / "tinydep-1.0-py3-none-any.whl"
    files = {
        "tinydep/__init__.py": "ANSWER = 42\n",
        "tinydep-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
        "tinydep-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: rata-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files["tinydep-1.0.dist-info/RECORD"] = "".join(f"{name},,\n" for name in [*files, "tinydep-1.0.dist-info/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_the_app_s_other_dependencies_are_installed_into_the_bundle_by_pip(crm_project, tmp_path):
    wheel = tiny_wheel(tmp_path)
    pyproject = crm_project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('dependencies = ["rata-toolkit"]', f'dependencies = ["rata-toolkit", "tinydep @ {wheel.as_uri()}"]'),
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(RATA), "mcp", "pack"], cwd=crm_project, capture_output=True, text=True, env=subprocess_env(tmp_path / "home", PIP_NO_INDEX="1"), timeout=180
    )
    assert done.returncode == 0, done.stderr
    folder = unpacked(crm_project / "dist" / "rata-example-crm-1.0.0.mcpb", tmp_path / "installed" / "crm")
    assert {"server/lib/tinydep/__init__.py", "server/lib/tinydep-1.0.dist-info/METADATA"} <= {
        path.relative_to(folder).as_posix() for path in folder.rglob("*")
    }
    argv, env = bundle_server(folder, tmp_path / "shims")
    found = subprocess.run(
        [argv[0], "-c", "import sys; sys.path.insert(0, sys.argv[1]); import tinydep; print(tinydep.ANSWER)", str(folder / "server" / "lib")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert found.stdout == "42\n", found.stderr


def test_a_dependency_pip_cannot_install_is_a_clear_error(crm_project, tmp_path):
    pyproject = crm_project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('dependencies = ["rata-toolkit"]', 'dependencies = ["rata-toolkit", "no-such-package-rata-test"]'),
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(RATA), "mcp", "pack"], cwd=crm_project, capture_output=True, text=True, env=subprocess_env(tmp_path / "home", PIP_NO_INDEX="1"), timeout=180
    )
    assert done.returncode == 1
    assert "error: pip could not install the app's dependencies into the bundle (no-such-package-rata-test)" in done.stderr
    assert "Traceback" not in done.stderr and not (crm_project / "dist").exists()
