"""Each test gets its own app folder (RATA_HOME), so nothing touches your real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from __app_package__.app import app as the_app


@pytest.fixture(autouse=True)
def rata_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "rata-home"
    monkeypatch.setenv("RATA_HOME", str(home))
    return home


@pytest.fixture
def app(rata_home: Path):
    """The app, with a fresh, migrated database."""
    the_app.migrate()
    yield the_app
    the_app.close()
