"""The app's window (`__app_package__/frontend/`) in headless Chromium: the live list and the form that adds a task.

These tests need Chromium or Chrome: on PATH (`chromium`, `google-chrome`, ...) or named by RATA_CHROMIUM.
Without one they are skipped, saying so.
"""

from __future__ import annotations

import pytest

from rata.testing import chromium_missing, open_window

TITLES = "Array.from(document.querySelectorAll('#tasks li span'), (title) => title.textContent)"
SUMMARY = "document.getElementById('summary').textContent"


@pytest.fixture
def page(app):
    missing = chromium_missing()
    if missing:
        pytest.skip(f"the window tests need Chromium: {missing}")
    with open_window(app) as page:
        page.until(f"{SUMMARY} !== 'Loading tasks'", True)
        yield page


def test_the_list_shows_the_tasks_to_do(app, page):
    page.until(SUMMARY, "Nothing to do.")
    app.call("tasks_add", title="Water the plants")  # a write from outside the window: the live list follows
    page.until(TITLES, ["Water the plants"])
    page.until(SUMMARY, "1 task to do")


def test_the_form_adds_a_task_and_done_takes_it_off_the_list(app, page):
    page.type("#title", "Write the first test")
    page.click("#add")
    page.until(TITLES, ["Write the first test"])
    assert page.js("document.getElementById('title').value") == ""
    page.click("#tasks li button")
    page.until(TITLES, [])
    assert [task["done"] for task in app.call("tasks_list", include_done=True)] == [True]


def test_a_blank_title_is_refused_under_the_form(page):
    page.type("#title", "   ")
    page.click("#add")
    page.until("document.getElementById('add-error').hidden", False)
    assert page.js("document.getElementById('add-error').textContent") == "The title must not be blank."
    assert page.js("document.getElementById('title').getAttribute('aria-invalid')") == "true"
