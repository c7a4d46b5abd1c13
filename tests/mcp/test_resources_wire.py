"""Resource templates on the wire of a real `crm --mcp` process: exact shapes and error codes, in both eras.

Each request goes on its own run of the server (a read runs on a worker, so answers to several
reads may come in any order); the lines are compared whole.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import subprocess_env
from tests.mcp.peers import crm_command, crm_home, migrated_folder  # noqa: F401 - fixtures

pytestmark = pytest.mark.subprocess

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
INFO = {"io.modelcontextprotocol/serverInfo": {"name": "crm", "version": "1.0.0"}}
HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
TEMPLATE = {"uriTemplate": "app://customers_show/{id}", "name": "customers_show", "description": "Show one customer.", "mimeType": "application/json"}


def exchange(home, era: str, method: str, params: dict) -> dict:
    """The server's answer to one request (id 1), sent alone in this era."""
    if era == "modern":
        lines = [{"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": ENVELOPE, **params}}]
    else:
        lines = [*HANDSHAKE, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    done = subprocess.run(crm_command(), input=text, capture_output=True, text=True, env=subprocess_env(home), timeout=30, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return next(answer for answer in answers if answer.get("id") == 1)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_templates_list_on_the_wire(crm_home, era):
    answer = exchange(crm_home, era, "resources/templates/list", {})
    if era == "modern":
        assert answer == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"resourceTemplates": [TEMPLATE], "ttlMs": 3600000, "cacheScope": "public", "resultType": "complete", "_meta": INFO},
        }
    else:
        assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"resourceTemplates": [TEMPLATE]}}


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_missing_row_and_a_bad_value_on_the_wire(crm_home, era):
    missing = exchange(crm_home, era, "resources/read", {"uri": "app://customers_show/99"})
    assert missing == {
        "jsonrpc": "2.0", "id": 1,
        "error": {"code": -32602 if era == "modern" else -32002, "message": "Resource not found",
                  "data": {"uri": "app://customers_show/99", "reason": "id: no customer has the id 99"}},
    }  # fmt: skip
    bad = exchange(crm_home, era, "resources/read", {"uri": "app://customers_show/1.5"})
    assert bad["error"]["code"] == -32602
    assert bad["error"]["data"] == {"uri": "app://customers_show/1.5", "errors": {"id": [bad["error"]["data"]["errors"]["id"][0]]}}
    assert bad["error"]["message"].startswith("Invalid params: app://customers_show/1.5 holds a value its template cannot take: id: ")


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_an_instance_reads_on_the_wire(crm_home, era):
    subprocess.run(
        [*crm_command()[:-1], "--mcp"], input="".join(json.dumps(line) + "\n" for line in [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"_meta": ENVELOPE, "name": "customers_store", "arguments": {"name": "Ada", "email": "ada@example.com"}}}
        ]), capture_output=True, text=True, env=subprocess_env(crm_home), timeout=30, check=True,
    )  # fmt: skip
    answer = exchange(crm_home, era, "resources/read", {"uri": "app://customers_show/%31"})
    (content,) = answer["result"]["contents"]
    assert content["uri"] == "app://customers_show/%31" and content["mimeType"] == "application/json"
    assert json.loads(content["text"])["name"] == "Ada"
    if era == "modern":
        assert (answer["result"]["ttlMs"], answer["result"]["cacheScope"], answer["result"]["resultType"]) == (0, "private", "complete")
    else:
        assert set(answer["result"]) == {"contents"}
