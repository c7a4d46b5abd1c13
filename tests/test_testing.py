"""rata.testing's window helpers: `open_window` drives an app's frontend in its own headless Chromium."""

from __future__ import annotations

import pytest

from rata.errors import WindowError
from rata.testing import chromium_missing, open_window
from tests.windows.shared import require_chromium

NAMES = "Array.from(document.querySelectorAll('#rows tr td:first-child'), (cell) => cell.textContent)"


def test_a_test_drives_the_crm_window_and_sees_the_live_list_follow(crm_app):
    require_chromium()
    crm_app.migrate()
    crm_app.call("customers_store", name="Grace Hopper", email="grace@example.com")
    with open_window(crm_app) as page:
        page.until(NAMES, ["Grace Hopper"])
        page.click("#new-customer")
        page.type("#new-name", "Ada Lovelace")
        page.type("#new-email", "ada@example.com")
        page.click("#new-save")
        page.until(NAMES, ["Ada Lovelace", "Grace Hopper"])
        with pytest.raises(AssertionError, match="stayed"):
            page.until("document.title", "not the title", timeout=0.2)
    assert [customer["name"] for customer in crm_app.call("customers_index")] == ["Ada Lovelace", "Grace Hopper"]


def test_chromium_missing_says_why_and_how_to_get_it(monkeypatch):
    require_chromium()
    assert chromium_missing() is None
    monkeypatch.setenv("RATA_CHROMIUM", "/nonexistent/chromium")
    reason = chromium_missing()
    assert reason is not None and "'/nonexistent/chromium'" in reason and "Install Chromium" in reason


def test_an_app_without_a_frontend_is_refused_by_name(tmp_path):
    from rata import App

    bare = App("bare", identifier="test.bare", root=tmp_path)
    with pytest.raises(WindowError, match="has no frontend to show"), open_window(bare):
        pass
