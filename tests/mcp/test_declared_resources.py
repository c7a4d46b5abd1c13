"""Declared resources (`rata.resources`): text, blobs, files, functions and function templates, through the server."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rata import App, Ctx, Mcp, Resource, command, resource
from rata.errors import CodegenError
from rata.mcp import wire
from rata.testing import AgentClient, InputRequested
from tests.mcp.fixtures import era  # noqa: F401 - pytest fixture

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


@command(can="notes.write")
def notes_add(ctx: Ctx, body: str) -> None:
    ctx.db.execute("INSERT INTO notes (body) VALUES (?)", (body,))


@command(can="notes.write")
def tags_add(ctx: Ctx, name: str) -> None:
    ctx.db.execute("INSERT INTO tags (name) VALUES (?)", (name,))


@command(can="notes.read", live=True)
def notes_show(ctx: Ctx, n: int) -> str:
    """One note, by its row number."""
    row = ctx.db.execute("SELECT body FROM notes WHERE rowid = ?", (n,)).fetchone()
    if row is None:
        from rata import ValidationErrors

        raise ValidationErrors({"n": f"no note {n}"})
    return row["body"]


@resource("lab://notes.csv", can="notes.read", mime_type="text/csv", description="Every note, one a line.")
def notes_csv(ctx: Ctx) -> str:
    return "body\n" + "".join(f"{row['body']}\n" for row in ctx.db.execute("SELECT body FROM notes ORDER BY rowid"))


@resource("lab://notes/{n}", can="notes.read")
def note(ctx: Ctx, n: int) -> str:
    row = ctx.db.execute("SELECT body FROM notes WHERE rowid = ?", (n,)).fetchone()
    if row is None:
        from rata import ValidationErrors

        raise ValidationErrors({"n": f"no note {n}"})
    return row["body"]


@resource("lab://pixel", can="notes.read", mime_type="image/png")
def pixel() -> bytes:
    return PNG


@dataclass
class Why:
    reason: str


@resource("lab://secret", can="notes.read")
def secret(ctx: Ctx) -> str:
    answer = ctx.ask(Why, "Why do you want the secret?")
    return f"told, because {answer.value.reason}" if answer.accepted else "not told"


@resource("lab://wrong", can="notes.read")
def wrong() -> str:
    return 42  # type: ignore[return-value] - what a buggy function does


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[App]:
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "0001_notes.sql").write_text("CREATE TABLE notes (body TEXT); CREATE TABLE tags (name TEXT);")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\nRead me.\n")
    (tmp_path / "docs" / "logo.png").write_bytes(PNG)
    (tmp_path.parent / "outside.txt").write_text("private")
    os.symlink(tmp_path.parent / "outside.txt", tmp_path / "docs" / "escape.txt")
    app = (
        App("lab", identifier="com.example.reslab", root=tmp_path)
        .commands(notes_add, tags_add, notes_show)
        .resources(
            Resource("lab://about", text="A lab.", title="About", can="notes.read"),
            Resource("lab://logo-bytes", data=PNG, mime_type="image/png", can="notes.read"),
            Resource.file("lab://guide", "docs/guide.md", can="notes.read"),
            Resource.file("lab://logo", "docs/logo.png", can="notes.read"),
            Resource.file("lab://escape", "docs/escape.txt", can="notes.read"),
            Resource("lab://hidden", text="no grant", can="notes.admin"),
            Resource("lab://confirmed", text="needs a yes", can="notes.delete"),
            Resource("lab://nobody", text="no ability"),
            notes_csv, note, pixel, secret, wrong,
        )
        .mcp(Mcp().allow_abilities(["notes.read", "notes.write"]).confirm("notes.delete"))
    )
    app.folder = tmp_path / "home"
    app.migrate()
    yield app
    app.close()


@pytest.fixture
def agent(lab, era):
    with AgentClient(lab, era=era) as client:
        yield client


def test_declared_resources_are_listed_by_uri_and_only_when_granted_outright(agent):
    listed = {r["uri"]: r for r in agent.list_resources()}
    assert list(listed) == sorted(listed)
    assert sorted(listed) == [
        "lab://about", "lab://escape", "lab://guide", "lab://logo", "lab://logo-bytes", "lab://notes.csv", "lab://pixel", "lab://secret", "lab://wrong",
    ]  # fmt: skip
    assert listed["lab://about"] == {"uri": "lab://about", "name": "about", "title": "About", "mimeType": "text/plain", "size": 6}
    assert listed["lab://notes.csv"] == {"uri": "lab://notes.csv", "name": "notes_csv", "description": "Every note, one a line.", "mimeType": "text/csv"}
    assert listed["lab://guide"]["mimeType"] == "text/markdown" and listed["lab://logo"]["mimeType"] == "image/png"
    assert agent.list_templates() == [
        {"uriTemplate": "lab://notes/{n}", "name": "note", "mimeType": "text/plain"},
        {"uriTemplate": "app://notes_show/{n}", "name": "notes_show", "description": "One note, by its row number.", "mimeType": "application/json"},
    ]  # by name


@pytest.mark.parametrize("uri", ["lab://hidden", "lab://confirmed", "lab://nobody", "lab://nope"])
def test_a_resource_not_granted_outright_reads_as_if_it_did_not_exist(agent, uri):
    answer = agent.request_raw("resources/read", {"uri": uri})
    assert answer["error"] == {"code": -32602 if agent.era == "modern" else -32002, "message": "Resource not found", "data": {"uri": uri}}


def test_text_and_blob_contents_have_their_exact_shapes(agent):
    text = agent.request("resources/read", {"uri": "lab://about"})["contents"]
    assert text == [{"uri": "lab://about", "mimeType": "text/plain", "text": "A lab."}]
    blob = agent.request("resources/read", {"uri": "lab://logo-bytes"})["contents"]
    assert blob == [{"uri": "lab://logo-bytes", "mimeType": "image/png", "blob": base64.b64encode(PNG).decode()}]
    assert agent.read("lab://pixel") == PNG and agent.read("lab://logo") == PNG


def test_a_file_is_read_at_read_time_and_never_outside_the_apps_folder(agent, lab):
    assert agent.read("lab://guide") == "# Guide\n\nRead me.\n"
    (lab.root / "docs" / "guide.md").write_text("changed")
    assert agent.read("lab://guide") == "changed"
    answer = agent.request_raw("resources/read", {"uri": "lab://escape"})
    assert answer["error"]["code"] == wire.INTERNAL_ERROR and "outside the app's folder" in answer["error"]["message"]


def test_a_function_runs_in_its_unit_of_work_with_ctx(agent):
    assert agent.read("lab://notes.csv") == "body\n"
    agent.call("notes_add", {"body": "first"})
    assert agent.read("lab://notes.csv") == "body\nfirst\n"


def test_a_function_template_converts_its_values_and_a_refused_value_is_not_found(agent):
    agent.call("notes_add", {"body": "first"})
    assert agent.read("lab://notes/1") == "first"
    bad = agent.request_raw("resources/read", {"uri": "lab://notes/one"})["error"]
    assert bad["code"] == wire.INVALID_PARAMS and "n:" in bad["message"]
    missing = agent.request_raw("resources/read", {"uri": "lab://notes/7"})["error"]
    assert missing["message"] == "Resource not found" and missing["data"] == {"uri": "lab://notes/7", "reason": "n: no note 7"}


def test_a_function_that_returns_the_wrong_type_is_a_clear_error(agent):
    error = agent.request_raw("resources/read", {"uri": "lab://wrong"})["error"]
    assert error["code"] == wire.INTERNAL_ERROR
    assert "lab://wrong returned int" in error["message"] and "must return str (text) or bytes" in error["message"]


def test_a_function_that_asks_is_answered_in_either_era(agent):
    assert agent.read("lab://secret", answers=[{"reason": "curiosity"}]) == "told, because curiosity"
    with pytest.raises(InputRequested):
        agent.read("lab://secret")


def test_a_function_that_asks_answers_input_required_in_2026(lab):
    with AgentClient(lab, era="modern") as client:
        first = client.request("resources/read", {"uri": "lab://secret"})
        assert first["resultType"] == "input_required" and "requestState" in first
        assert [r["method"] for r in first["inputRequests"].values()] == ["elicitation/create"]


def test_a_subscription_to_a_function_resource_fires_on_its_table_and_not_on_another(lab, era):
    with AgentClient(lab, era=era) as client:
        client.read("lab://notes.csv")  # its reads are known once it ran
        with client.listen("lab://notes.csv", "lab://about") as listen:
            assert listen.honored["resourceSubscriptions"] == ["lab://about", "lab://notes.csv"] if era == "modern" else True
            client.call("tags_add", {"name": "other table"})
            client.call("notes_add", {"body": "its table"})
            listen.wait_for_update("lab://notes.csv")
            assert listen.updates() == ["lab://notes.csv"]  # one update: not for tags, never for fixed text


@pytest.mark.parametrize("uri", ["app://notes_show/1", "lab://notes/1"])
def test_a_subscription_to_a_template_instance_fires_on_a_write_to_its_table_and_not_to_another(lab, era, uri):
    with AgentClient(lab, era=era) as client:
        client.call("notes_add", {"body": "first"})
        client.read(uri)  # its reads are known once it ran: before that, any write counts
        with client.listen(uri) as listen:
            client.call("tags_add", {"name": "another table"})
            client.call("tags_add", {"name": "and again"})
            assert listen.updates() == []
            client.call("notes_add", {"body": "its table"})
            listen.wait_for_update(uri)
            assert listen.updates() == [uri]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: Resource("no scheme", text="x", can="a.b"), "whitespace"),
        (lambda: Resource("noscheme", text="x", can="a.b"), "no scheme"),
        (lambda: Resource("lab://a b", text="x", can="a.b"), "whitespace"),
        (lambda: Resource("lab://a\x07", text="x", can="a.b"), "control"),
        (lambda: Resource("lab://<a>", text="x", can="a.b"), "characters a URI cannot hold"),
        (lambda: Resource("app://mine", text="x", can="a.b"), "rata's scheme"),
        (lambda: Resource("lab://x", can="a.b"), "exactly one"),
        (lambda: Resource("lab://x", text="x", mime_type="text\nplain", can="a.b"), "not a type/subtype"),
        (lambda: Resource("lab://x", text="x", data=b"x", can="a.b"), "exactly one"),
        (lambda: Resource.file("lab://x", "../secret.txt", can="a.b"), "leaves the app's folder"),
        (lambda: Resource.file("lab://x", "/etc/passwd", can="a.b"), "leaves the app's folder"),
        (lambda: App("x", "com.x").resources(Resource("lab://a", text="1"), Resource("lab://a", text="2")), "Two resources"),
        (lambda: App("x", "com.x").resources(resource("lab://{a}/{b}")(_one)), "the template names"),
        (lambda: App("x", "com.x").resources(resource("lab://{+a}")(_one)), "operator"),
        (lambda: App("x", "com.x").resources(resource("lab://x")(_untyped)), "-> str"),
        (lambda: App("x", "com.x").resources(notes_add), "is not a resource"),
    ],
)
def test_a_bad_declaration_is_a_codegen_error_naming_the_fix(make, says):
    with pytest.raises(CodegenError) as caught:
        make()
    assert says in str(caught.value)


def _one(a: str) -> str:
    return a


def _untyped():
    return "x"
