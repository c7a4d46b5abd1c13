"""The bundle's first run, as Claude Desktop starts it: `rata mcp pack` of the example app, unzipped, its
manifest's own ``server.mcp_config`` command run by a bare Python (a fresh venv without pip: neither rata nor
the app installed), on an empty data folder, and with no RATA_HOME at all (HOME a scratch folder, as a client
that passes no environment). The official MCP SDK client lists the tools and calls them: they answer with data.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from tests.conftest import CRM, subprocess_env

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

RATA = Path(sys.executable).parent / "rata"
TOOLS = ["customers_delete", "customers_index", "customers_show", "customers_store"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example app's bundle, packed from a copy of the project and unzipped where a client installs it."""
    base = tmp_path_factory.mktemp("bundle")
    project = base / "crm"
    shutil.copytree(CRM, project, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "dist"))
    done = subprocess.run([str(RATA), "mcp", "pack"], cwd=project, capture_output=True, text=True, env=subprocess_env(base / "packing-home"), timeout=180)
    assert done.returncode == 0, done.stderr
    (bundle,) = (project / "dist").glob("*.mcpb")
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(base / "installed")
    return base / "installed"


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a fresh venv's `python3`, made without pip: it has neither rata nor the app."""
    where = tmp_path_factory.mktemp("bare") / "venv"
    venv.create(where, with_pip=False, symlinks=True)
    folder = where / ("Scripts" if sys.platform == "win32" else "bin")
    nothing = subprocess.run([str(folder / "python3"), "-c", "import rata"], capture_output=True, env={"PATH": str(folder)}, cwd=where, timeout=60)
    assert nothing.returncode != 0  # the bundle must carry rata itself
    return folder


def server(installed: Path, bare: Path, env: dict[str, str]) -> StdioServerParameters:
    """The manifest's mcp_config as the client runs it: ${__dirname} replaced, its command found on the client's PATH."""
    config = json.loads((installed / "manifest.json").read_text(encoding="utf-8"))["server"]["mcp_config"]
    command = shutil.which(config["command"], path=str(bare))
    assert command is not None
    args = [arg.replace("${__dirname}", str(installed)) for arg in config["args"]]
    return StdioServerParameters(command=command, args=args, env={"PATH": str(bare), **env}, cwd=str(installed))


async def first_session(parameters: StdioServerParameters) -> tuple[list[str], CallToolResult, CallToolResult]:
    with anyio.fail_after(60):
        async with Client(parameters, mode="legacy", read_timeout_seconds=30) as client:
            tools = sorted(tool.name for tool in (await client.list_tools()).tools)
            added = await client.call_tool("customers_store", {"name": "Ada", "email": "ada@example.com"})
            listed = await client.call_tool("customers_index", {})
    return tools, added, listed


async def test_the_bundle_on_a_bare_python_and_an_empty_data_folder_lists_its_tools_and_answers_with_data(installed, bare_python, tmp_path):
    data = tmp_path / "data"
    data.mkdir()  # empty, as a client's fresh install
    tools, added, listed = await first_session(server(installed, bare_python, {"RATA_HOME": str(data), "HOME": str(tmp_path)}))
    assert tools == TOOLS
    assert not added.is_error and added.structured_content["name"] == "Ada"
    assert not listed.is_error and listed.structured_content == {"result": [added.structured_content]}
    assert (data / "app.db").is_file()


async def test_the_bundle_with_no_rata_home_keeps_its_data_in_the_platform_folder_under_home(installed, bare_python, tmp_path):
    if sys.platform != "linux":
        pytest.skip("the platform folder checked here is Linux's; the first run itself is the test above")
    tools, added, listed = await first_session(server(installed, bare_python, {"HOME": str(tmp_path)}))
    assert tools == TOOLS
    assert not listed.is_error and [row["email"] for row in listed.structured_content["result"]] == ["ada@example.com"]
    assert (tmp_path / ".local" / "share" / "com.example.crm" / "app.db").is_file()
