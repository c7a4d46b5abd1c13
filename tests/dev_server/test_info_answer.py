"""`migration_status` and `app_info` as a model reads them: ``key: value`` lines, a line a migration, within the token budget.

Thousands of migrations on a real SQLite file come in parts; following ``next_after`` until
there is none gives every migration once, by version.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from rata import migrations, tokens
from rata.dev_server import budget
from rata.dev_server.info_answer import app_info_text, migration_answer, migrations_text
from rata.testing import AgentClient
from tests.dev_server.helpers import copy_crm, dev_command, dev_env, seed_crm

COUNT = 3_000


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """3,000 migrations, the first 1,000 applied to a real database (one of them changed since, one gone)."""
    base = tmp_path_factory.mktemp("migrations")
    folder = base / "migrations"
    folder.mkdir()
    for version in range(1, COUNT + 1):
        (folder / f"{version:04d}_create_table_number_{version}.sql").write_text(f"CREATE TABLE t{version} (id INTEGER PRIMARY KEY);\n", encoding="utf-8")
    applied = base / "applied"
    applied.mkdir()
    for path in sorted(folder.iterdir())[:1000]:
        shutil.copy(path, applied / path.name)
    with closing(sqlite3.connect(base / "app.db")) as conn:
        conn.execute("PRAGMA synchronous = OFF")  # a test's file: no need to wait for the disk 1,000 times
        migrations.migrate(conn, applied)
    (folder / "0002_create_table_number_2.sql").write_text("CREATE TABLE t2 (id INTEGER PRIMARY KEY, x TEXT);\n", encoding="utf-8")
    (folder / "0003_create_table_number_3.sql").unlink()
    return folder, base / "app.db"


def states(folder: Path, path: Path) -> list[dict[str, Any]]:
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        return [{"version": s.version, "name": s.name, "state": s.state, "applied_at": s.applied_at} for s in migrations.status(conn, folder)]


def sizes(answer: dict[str, Any]) -> tuple[int, int]:
    return tokens.estimate(migrations_text(answer)), tokens.estimate(budget.compact_json(answer))


def test_thousands_of_migrations_come_within_the_budget_with_the_next_call(many):
    folder, path = many
    every = states(folder, path)
    answer = migration_answer(folder, path, every, ["2000 pending: apply with `rata migrate`."], None, budget.DEFAULT_TOKENS, None)
    assert max(sizes(answer)) <= budget.DEFAULT_TOKENS
    shown = len(answer["migrations"])
    assert 50 < shown < COUNT and answer["next_after"] == shown
    assert answer["note"].startswith("2000 pending: apply with `rata migrate`. Cut to fit the 10,000-token budget: ")
    assert f'Get them with migration_status {{"after": {shown}}}.' in answer["note"]
    lines = migrations_text(answer).splitlines()
    assert lines[2:5] == [
        "0001 create_table_number_1: applied " + every[0]["applied_at"],
        "0002 create_table_number_2: changed " + every[1]["applied_at"],
        "0003 create_table_number_3: missing " + every[2]["applied_at"],
    ]


@pytest.mark.parametrize("limit_tokens", [budget.MIN_TOKENS, budget.DEFAULT_TOKENS])
def test_following_next_after_gives_every_migration_once_by_version(many, limit_tokens):
    folder, path = many
    every = states(folder, path)
    parts, after = [], None
    while True:
        parts.append(migration_answer(folder, path, every, [], after, limit_tokens, None))
        assert max(sizes(parts[-1])) <= limit_tokens
        after = parts[-1]["next_after"]
        if after is None:
            break
    assert [s for part in parts for s in part["migrations"]] == every
    assert parts[-1]["note"] == ""


def test_an_after_past_the_last_version_says_so(many):
    folder, path = many
    answer = migration_answer(folder, path, states(folder, path), [], 10**30, budget.DEFAULT_TOKENS, None)
    assert answer["migrations"] == [] and answer["note"] == f"No migration has a version after {10**30}."


def test_app_info_is_a_key_value_line_each_with_a_line_a_dependency():
    info = {"name": "crm", "project": None, "database_exists": False, "log_files": ["crm.log", "crm.log.1"], "commands": 6,
            "dependencies": [{"name": "httpx", "required": "httpx>=0.27", "installed": "0.28.1"},
                             {"name": "evil\nname", "required": "evil", "installed": None}],
            "note": "No database yet."}  # fmt: skip
    assert app_info_text(info).splitlines() == [
        "name: crm", "project: (none)", "database_exists: no", "log_files: crm.log, crm.log.1", "commands: 6", "dependencies:",
        "  httpx: httpx>=0.27, installed 0.28.1", "  evil\\nname: evil, installed (not installed)", "No database yet.",
    ]  # fmt: skip


@pytest.mark.subprocess
def test_through_the_real_server_many_migrations_come_in_parts_and_app_info_is_text(tmp_path):
    project = copy_crm(tmp_path / "project")
    home, cache = tmp_path / "home", tmp_path / "cache"
    seed_crm(home, [])
    (folder,) = [p for p in project.rglob("migrations") if p.is_dir()]
    for version in range(2, 1_001):
        (folder / f"{version:04d}_add_table_{version}.sql").write_text(f"CREATE TABLE t{version} (id INTEGER);\n", encoding="utf-8")
    with AgentClient.spawn(dev_command(project), env=dev_env(home, cache)) as agent:
        first = agent.call("migration_status", {"budget_tokens": 1_000})
        rest = agent.call("migration_status", {"after": 990})
        info = agent.call("app_info")
        refused = agent.call("migration_status", {"after": "x"})
    assert not first.is_error and first.text.splitlines()[2].startswith("0001 create_customers: applied ")
    assert max(tokens.estimate(first.text), tokens.estimate(budget.compact_json(first.data))) <= 1_000
    assert first.data["next_after"] is not None and f'migration_status {{"after": {first.data["next_after"]}, "budget_tokens": 1000}}' in first.text
    assert [m["version"] for m in rest.data["migrations"]] == list(range(991, 1_001)) and rest.data["next_after"] is None
    assert "999 pending: apply with `rata migrate`." in rest.text
    assert info.text.startswith("name: crm\nidentifier: com.example.crm\n") and "\ndatabase_exists: yes\n" in info.text
    assert refused.is_error and "after" in refused.text
