"""The example app end to end: its console script, its migrations, its commands."""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
import subprocess
import sys

import pytest

from rata import CommandRequest, Origin, ValidationErrors
from rata.errors import ConfirmationRequiredError, ForbiddenError
from tests.conftest import subprocess_env


def crm_command() -> list[str]:
    script = shutil.which("crm", path=str(__import__("pathlib").Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "crm.main"]


@pytest.mark.subprocess
def test_crm_migrate_creates_the_database_in_the_app_folder(tmp_path):
    home = tmp_path / "home"
    result = subprocess.run([*crm_command(), "--migrate"], capture_output=True, text=True, env=subprocess_env(home), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # stdout is kept for the protocol
    assert "applied 0001_create_customers.sql" in result.stderr
    with sqlite3.connect(home / "app.db") as conn:
        assert conn.execute("SELECT version, name FROM rata_migrations").fetchall() == [(1, "create_customers")]
    assert (home / "instance.token").stat().st_mode & 0o777 == 0o600
    assert (home / "logs").is_dir()


@pytest.mark.subprocess
@pytest.mark.skipif(importlib.util.find_spec("webview") is not None, reason="pywebview is installed here: crm would open its window")
def test_crm_without_arguments_opens_its_window_or_says_how_to_get_the_desktop_extra(tmp_path):
    result = subprocess.run(crm_command(), capture_output=True, text=True, env=subprocess_env(tmp_path / "home"), timeout=60)
    assert result.returncode == 1
    assert "error: The desktop window needs pywebview, which is not installed." in result.stderr
    assert 'pip install "rata-toolkit[desktop]"' in result.stderr
    assert not (tmp_path / "home" / "mcp.sock").exists()


@pytest.mark.subprocess
def test_crm_help_names_every_way_to_run_it(tmp_path):
    result = subprocess.run([*crm_command(), "--help"], capture_output=True, text=True, env=subprocess_env(tmp_path / "home"), timeout=60)
    assert result.returncode == 0
    for option in ("--migrate", "--mcp", "--headless", "opens its window"):
        assert option in result.stdout


@pytest.fixture
def crm(crm_app):
    crm_app.migrate()
    return crm_app


def test_storing_listing_and_showing_customers(crm):
    ada = crm.call("customers_store", name="Ada Lovelace", email="ada@example.com")
    crm.call("customers_store", name="Grace Hopper", email="grace@example.com")
    assert ada["id"] == 1 and ada["email"] == "ada@example.com"
    assert [c["name"] for c in crm.call("customers_index")] == ["Grace Hopper", "Ada Lovelace"]
    assert [c["name"] for c in crm.call("customers_index", search="ada")] == ["Ada Lovelace"]
    assert crm.call("customers_show", id=1)["name"] == "Ada Lovelace"


def test_a_bad_or_duplicate_email_is_a_validation_error(crm):
    crm.call("customers_store", name="Ada", email="ada@example.com")
    with pytest.raises(ValidationErrors) as duplicate:
        crm.call("customers_store", name="Ada Again", email="ADA@example.com")
    assert duplicate.value.to_dict() == {"email": ["has already been taken"]}
    with pytest.raises(ValidationErrors) as bad:
        crm.call("customers_store", name=" ", email="not-an-email")
    assert bad.value.to_dict() == {"email": ["must be an email address like ada@example.com"], "name": ["must not be blank"]}


def test_the_limit_is_bounded_by_its_constraint(crm):
    with pytest.raises(ValidationErrors) as caught:
        crm.call("customers_index", limit=0)
    assert caught.value.to_dict() == {"limit": ["must be at least 1"]}


def test_agents_get_view_and_create_delete_with_confirmation_and_never_update_or_reset(crm):
    agent = Origin.agent("claude-desktop")
    crm.dispatch(CommandRequest("customers_store", {"name": "Ada", "email": "ada@example.com"}, origin=agent))
    with pytest.raises(ForbiddenError):
        crm.dispatch(CommandRequest("customers_update", {"id": 1, "name": "X"}, origin=agent))
    with pytest.raises(ForbiddenError):
        crm.dispatch(CommandRequest("app_reset", origin=agent))
    with pytest.raises(ConfirmationRequiredError):
        crm.dispatch(CommandRequest("customers_delete", {"id": 1}, origin=agent))
    crm.dispatch(CommandRequest("customers_delete", {"id": 1}, origin=agent, confirmed=True))
    assert crm.call("customers_index") == []


def test_update_changes_only_what_is_given(crm):
    crm.call("customers_store", name="Ada", email="ada@example.com")
    updated = crm.dispatch(CommandRequest("customers_update", {"id": 1, "name": "Ada L."}, origin=Origin.frontend()))
    assert (updated["name"], updated["email"]) == ("Ada L.", "ada@example.com")


@pytest.mark.subprocess
def test_the_committed_surface_and_catalog_of_the_example_are_current(tmp_path):
    from tests.conftest import CRM

    env = subprocess_env(tmp_path / "home")
    for args in (["mcp", "inspect", "--check", "mcp-surface.json"], ["codegen", "--check"]):
        result = subprocess.run([sys.executable, "-m", "rata", *args], cwd=CRM, capture_output=True, text=True, env=env, timeout=60)
        assert result.returncode == 0, result.stderr
