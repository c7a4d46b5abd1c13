"""The official MCP Python SDK (mcp 2.3.0) as the client for resource templates and declared resources.

Against `crm --mcp` (its template `app://customers_show/{id}`) and the docs' library app
(text, a blob, a file, a function template), each a real subprocess, in the SDK's three modes:
"auto", "2026-07-28" (pinned) and "legacy" (the 2025-11-25 handshake). The SDK validates every
result against the wire types of its era.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters

from tests.mcp.peers import crm_home, migrated_folder, search_path  # noqa: F401 - fixtures
from tests.mcp.sdk_types import text
from tests.mcp.test_sdk_peer import ADA, MODES, TEST_SECONDS, connected, store

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

LIBRARY = Path(__file__).resolve().parents[2] / "docs" / "examples" / "mcp" / "library"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


async def test_the_crm_template_is_listed_and_an_instance_reads_as_the_customer(crm_home, mode):
    with anyio.fail_after(TEST_SECONDS):
        async with connected(crm_home, mode) as client:
            templates = await client.list_resource_templates()
            ada = await store(client, ADA)
            read = await client.read_resource(f"app://customers_show/{ada['id']}")
            with pytest.raises(MCPError) as missing:
                await client.read_resource("app://customers_show/99")
            with pytest.raises(MCPError) as bad:
                await client.read_resource("app://customers_show/ada")
    assert [(t.uri_template, t.name, t.mime_type) for t in templates.resource_templates] == [
        ("app://customers_show/{id}", "customers_show", "application/json")
    ]
    (content,) = read.contents
    assert str(content.uri) == f"app://customers_show/{ada['id']}" and json.loads(text(content)) == ada
    assert missing.value.error.code == (-32002 if mode == "legacy" else -32602) and missing.value.error.message == "Resource not found"
    assert bad.value.error.code == -32602 and "id: must be an integer" in bad.value.error.message


@pytest.fixture
def library_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, str(LIBRARY / "library_app.py"), "--migrate"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return home


def library(home: Path, mode: str) -> Client:
    env = {"RATA_HOME": str(home), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    params = StdioServerParameters(command=sys.executable, args=[str(LIBRARY / "library_app.py"), "--mcp"], env=env)
    return Client(params, mode=mode, read_timeout_seconds=10, client_info=types.Implementation(name="rata-peer-tests", version="1.0"))


async def test_declared_text_blob_file_and_function_template_read_through_the_sdk(library_home, mode):
    LOGO = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")  # library_app.LOGO

    with anyio.fail_after(TEST_SECONDS):
        async with library(library_home, mode) as client:
            resources = await client.list_resources()
            templates = await client.list_resource_templates()
            await client.call_tool("books_add", {"title": "Dune", "author": "Frank Herbert"})
            about = await client.read_resource("library://about")
            logo = await client.read_resource("library://logo")
            guide = await client.read_resource("library://guide")
            title = await client.read_resource("library://books/1/title")
    assert [str(r.uri) for r in resources.resources] == ["library://about", "library://books.csv", "library://guide", "library://logo"]
    assert [t.uri_template for t in templates.resource_templates] == ["library://books/{id}/title"]
    assert text(about.contents[0]) == "A small library." and about.contents[0].mime_type == "text/plain"
    assert isinstance(logo.contents[0], types.BlobResourceContents) and base64.b64decode(logo.contents[0].blob) == LOGO
    assert guide.contents[0].mime_type == "text/markdown" and text(guide.contents[0]).startswith("# The library")
    assert text(title.contents[0]) == "Dune"


ASKING_APP = '''
from dataclasses import dataclass

from rata import App, Ctx, Mcp, resource


@dataclass
class Why:
    reason: str


@resource("ask://secret", can="secrets.read", description="Told to whoever says why.")
def secret(ctx: Ctx) -> str:
    answer = ctx.ask(Why, "Why do you want the secret?")
    return f"told, because {answer.value.reason}" if answer.accepted else "not told"


app = App("asking", identifier="com.example.asking").resources(secret).mcp(Mcp().allow_abilities(["secrets.read"]))

if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
'''


async def test_a_resource_that_asks_is_answered_through_the_sdk_in_each_mode(tmp_path, mode):
    """2026-07-28: input_required and the SDK's retry with the answer; 2025-11-25: elicitation/create mid-read."""
    from tests.mcp.test_sdk_peer import Answers

    (tmp_path / "asking.py").write_text(ASKING_APP, encoding="utf-8")
    env = {"RATA_HOME": str(tmp_path / "home"), "PATH": search_path(), "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"}
    params = StdioServerParameters(command=sys.executable, args=[str(tmp_path / "asking.py"), "--mcp"], env=env)
    answers = Answers("accept", {"reason": "curiosity"})
    client = Client(params, mode=mode, elicitation_callback=answers, read_timeout_seconds=10, client_info=types.Implementation(name="t", version="1"))
    with anyio.fail_after(TEST_SECONDS):
        async with client:
            read = await client.read_resource("ask://secret")
    assert text(read.contents[0]) == "told, because curiosity"
    assert [asked.message for asked in answers.asked] == ["Why do you want the secret?"]
