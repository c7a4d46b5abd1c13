"""The MCP Inspector v2 CLI (a TypeScript client) listing and getting the prompts of `tests/mcp/prompts_app.py`, in its three eras."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from tests.mcp.test_inspector_peer import Run, era, inspector  # noqa: F401 - fixtures
from tests.mcp.test_inspector_peer import inspect as inspect_server

pytestmark = pytest.mark.subprocess

APP = Path(__file__).resolve().parent / "prompts_app.py"


def inspect(inspector: Path, home: Path, era: str, *method: str) -> Run:
    return inspect_server(inspector, home, era, *method, server=[sys.executable, str(APP), "--mcp"])


def test_the_inspector_lists_the_granted_prompts(inspector, rata_home, era):
    run = inspect(inspector, rata_home, era, "prompts/list")
    assert run.rc == 0, run
    prompts = run.json["result"]["prompts"]
    assert [p["name"] for p in prompts] == ["context_first", "follow_up", "pictured"]
    assert prompts[1]["arguments"] == [
        {"name": "customer_id", "description": "The customer to write to.", "required": True},
        {"name": "tone", "description": "How the email should sound.", "required": False},
    ]


def test_the_inspector_gets_a_prompt_with_arguments_as_text(inspector, rata_home, era):
    run = inspect(inspector, rata_home, era, "prompts/get", "--prompt-name", "follow_up", "--prompt-args", "customer_id=42", "tone=brief")
    assert run.rc == 0, run
    assert run.json["result"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "Write a brief follow-up email to customer #42."}}]


def test_the_inspector_gets_an_image_and_hears_a_bad_argument(inspector, rata_home, era):
    pictured = inspect(inspector, rata_home, era, "prompts/get", "--prompt-name", "pictured")
    assert pictured.rc == 0, pictured
    image = pictured.json["result"]["messages"][0]["content"]
    assert image["type"] == "image" and base64.b64decode(image["data"]).startswith(b"\x89PNG")
    bad = inspect(inspector, rata_home, era, "prompts/get", "--prompt-name", "follow_up", "--prompt-args", "customer_id=forty")
    assert bad.rc != 0 and "customer_id: must be an integer, not a string" in bad.stdout + bad.stderr, bad
