"""The app's window (`__app_package__/frontend/`) in headless Chromium: the live list and the form that adds a task.

These tests need Chromium or Chrome: on PATH (`chromium`, `google-chrome`, ...) or named by RATA_CHROMIUM.
Without one they are skipped, saying so.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from rata.errors import WindowError
from rata.windows.adapter import WindowSpec
from rata.windows.cdp import find_chromium
from rata.windows.chromium import ChromiumBackend
from rata.windows.host import WindowHost

LIST = "Array.from(document.querySelectorAll('#tasks li span'), (title) => title.textContent)"


class Page:
    """The window's page, driven as a user would: type, click, then wait for what it shows."""

    def __init__(self, window: Any) -> None:
        self.window = window

    def js(self, expression: str) -> Any:
        return self.window.eval_json(expression)

    def until(self, expression: str, expected: Any, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while (value := self.js(expression)) != expected:
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression} stayed {value!r}, not {expected!r}")
            time.sleep(0.02)

    def type(self, selector: str, text: str) -> None:
        self.js(f"(el => {{ el.focus(); el.value = {json.dumps(text)}; el.dispatchEvent(new Event('input', {{bubbles: true}})); }})"
                f"(document.querySelector({json.dumps(selector)})), 0")

    def click(self, selector: str) -> None:
        self.js(f"document.querySelector({json.dumps(selector)}).click(), 0")


@pytest.fixture
def page(app):
    try:
        find_chromium()
    except WindowError as error:
        pytest.skip(f"the window tests need Chromium: {error.message} {error.hint or ''}")
    host = WindowHost(app, ChromiumBackend(app.name))
    try:
        page = Page(host.open(WindowSpec("main", title="Tasks")))
        page.until("document.getElementById('summary').textContent !== 'Loading tasks'", True)
        yield page
    finally:
        host.close()


def test_the_list_shows_the_tasks_to_do(app, page):
    page.until("document.getElementById('summary').textContent", "Nothing to do.")
    app.call("tasks_add", title="Water the plants")  # a write from outside the window: the live list follows
    page.until(LIST, ["Water the plants"])
    page.until("document.getElementById('summary').textContent", "1 task to do")


def test_the_form_adds_a_task_and_done_takes_it_off_the_list(app, page):
    page.type("#title", "Write the first test")
    page.click("#add")
    page.until(LIST, ["Write the first test"])
    assert page.js("document.getElementById('title').value") == ""
    page.click("#tasks li button")
    page.until(LIST, [])
    assert [task["done"] for task in app.call("tasks_list", include_done=True)] == [True]


def test_a_blank_title_is_refused_under_the_form(page):
    page.type("#title", "   ")
    page.click("#add")
    page.until("document.getElementById('add-error').hidden", False)
    assert page.js("document.getElementById('add-error').textContent") == "The title must not be blank."
    assert page.js("document.getElementById('title').getAttribute('aria-invalid')") == "true"
