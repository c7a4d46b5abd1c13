"""docs/data.md, "Your users' data": the claims its transcripts do not check.

test_docs.py runs the page's transcripts (first run, upgrade, restore, a failed migration, a
newer database, opting out, `rata migrate`) and checks its example files. This module checks
the numbers and names its prose states against the code, that the restore script gives back
exactly the copy, and that the page is in the docs index.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys

import rata.upgrade as upgrade
from rata import App
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "data.md"
EXAMPLES = ROOT / "docs" / "examples" / "data"


def prose() -> str:
    return " ".join(PAGE.read_text(encoding="utf-8").split())


def test_the_number_of_copies_kept_and_their_names_are_the_codes():
    assert f"rata keeps the newest {upgrade.BACKUPS_KEPT} copies" in prose()
    assert upgrade.backup_name(2) == "app-before-0002.db" and "`app-before-0002.db`" in prose()
    assert upgrade.BACKUP.match("app-before-0002.db") and not upgrade.BACKUP.match("app-before-0002.db.mine")


def test_the_lock_file_and_the_bounded_wait_are_the_codes():
    assert f"`{upgrade.LOCK_FILE}`" in prose()
    assert f"waits for the lock at most {upgrade.LOCK_WAIT_S:g} seconds" in prose()


def test_the_opt_out_keyword_on_the_page_is_the_apps():
    assert "`migrate_on_start=False`" in prose()
    assert App("x", identifier="com.example.x", migrate_on_start=False).migrate_on_start is False
    assert App("x", identifier="com.example.x").migrate_on_start is True


def test_the_restore_script_gives_back_exactly_the_copy(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    copy = sqlite3.connect(home / "app-before-0002.db")
    copy.execute("CREATE TABLE entries (text TEXT)")
    copy.execute("INSERT INTO entries VALUES ('kept')")
    copy.commit()
    copy.close()
    current = sqlite3.connect(home / "app.db")
    current.execute("PRAGMA journal_mode = WAL")
    current.execute("CREATE TABLE entries (text TEXT, mood TEXT)")
    current.execute("INSERT INTO entries VALUES ('newer', 'fine')")
    current.commit()  # left open: its write-ahead log holds the rows, as a crashed app's would
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "restore.py"), "app-before-0002.db"],
        env={**os.environ, "RATA_HOME": str(home)}, capture_output=True, text=True, timeout=60,
    )
    current.close()
    assert done.returncode == 0, done.stderr
    restored = sqlite3.connect(home / "app.db")
    assert list(restored.iterdump()) == list(sqlite3.connect(home / "app-before-0002.db").iterdump())


def test_the_page_is_in_the_docs_index_and_the_pages_that_mention_migrations_link_it():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"^\| \[Your users' data\]\(data\.md\) \|", index, re.M)
    for page in ("commands-and-types.md", "getting-started.md", "shipping.md", "mcp.md"):
        assert "(data.md)" in (ROOT / "docs" / page).read_text(encoding="utf-8"), page
