"""crm's frontend in headless Chromium: the list, search, the new-customer form, delete, agents' writes."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from rata.testing import AgentClient
from rata.windows.adapter import WindowSpec
from rata.windows.chromium import ChromiumBackend
from rata.windows.host import WindowHost
from tests.windows.shared import shared_browser


class Page:
    def __init__(self, window: Any) -> None:
        self.window = window

    def js(self, expression: str) -> Any:
        return self.window.eval_json(expression)

    def text(self, selector: str) -> str:
        return self.js(f"document.querySelector({json.dumps(selector)}).textContent.trim()")

    def until(self, expression: str, expected: Any, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while (value := self.js(expression)) != expected:
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression} stayed {value!r}, not {expected!r}")
            time.sleep(0.02)

    def click(self, selector: str) -> None:
        self.js(f"document.querySelector({json.dumps(selector)}).click(), 0")

    def type(self, selector: str, text: str) -> None:
        self.js(
            f"(function (el) {{ el.focus(); el.value = {json.dumps(text)}; el.dispatchEvent(new Event('input', {{bubbles: true}})); }})"
            f"(document.querySelector({json.dumps(selector)})), 0"
        )

    def names(self) -> list[str]:
        return self.js("Array.prototype.map.call(document.querySelectorAll('#rows tr td:first-child'), function (td) { return td.textContent; })")

    def until_names(self, names: list[str]) -> None:
        self.until("Array.prototype.map.call(document.querySelectorAll('#rows tr td:first-child'), function (td) { return td.textContent; })", names)


@pytest.fixture
def crm(crm_app):
    crm_app.migrate()
    return crm_app


@pytest.fixture
def open_page(crm):
    """Open crm's main window (call it after adding the customers it should start with)."""
    hosts: list[WindowHost] = []

    def open_page() -> Page:
        host = WindowHost(crm, ChromiumBackend(crm.name, browser=shared_browser()))
        hosts.append(host)
        page = Page(host.open(WindowSpec("main", title="CRM", width=1000, height=700)))
        page.until("rata._inflight === 0 && document.getElementById('summary').textContent !== 'Loading customers'", True)
        return page

    yield open_page
    for host in hosts:
        host.close_window("main")
        host.close()


@pytest.fixture
def page(open_page) -> Page:
    return open_page()


def test_adding_a_customer_through_the_form_shows_it_in_the_list(crm, page):
    assert page.text("#summary") == "No customers yet."
    page.click("#new-customer")
    assert page.js("document.getElementById('new-dialog').open") is True
    page.type("#new-name", "Ada Lovelace")
    page.type("#new-email", "ada@example.com")
    page.click("#new-save")
    page.until_names(["Ada Lovelace"])
    assert page.js("document.getElementById('new-dialog').open") is False
    assert page.text("#summary") == "1 customer"
    assert [c["email"] for c in crm.call("customers_index")] == ["ada@example.com"]


def test_validation_errors_show_next_to_their_fields_and_keep_the_form_open(crm, page):
    crm.call("customers_store", name="Ada", email="ada@example.com")
    page.click("#new-customer")
    page.type("#new-name", "Ada Again")
    page.type("#new-email", "ADA@example.com")
    page.click("#new-save")
    page.until("document.getElementById('new-email-error').textContent", "Email has already been taken")
    assert page.js("document.getElementById('new-email').getAttribute('aria-invalid')") == "true"
    assert page.js("document.getElementById('new-name').hasAttribute('aria-invalid')") is False
    assert page.js("document.getElementById('new-dialog').open") is True
    page.type("#new-email", "not an email")
    page.click("#new-save")
    page.until("document.getElementById('new-email-error').textContent", "Email must be an email address like ada@example.com")


def test_the_search_field_narrows_the_list_as_you_type(crm, open_page):
    crm.call("customers_store", name="Ada Lovelace", email="ada@example.com")
    crm.call("customers_store", name="Grace Hopper", email="grace@example.com")
    page = open_page()
    assert page.names() == ["Grace Hopper", "Ada Lovelace"]
    page.type("#search", "grace")
    page.until_names(["Grace Hopper"])
    assert page.text("#summary") == '1 customer matching "grace"'
    page.type("#search", "nobody")
    page.until_names([])
    assert page.text("#summary") == 'No customer matches "nobody".'


def test_delete_asks_first_in_an_in_page_dialog(crm, page):
    crm.call("customers_store", name="Ada Lovelace", email="ada@example.com")
    page.until_names(["Ada Lovelace"])
    page.click("#rows button[aria-label='Delete Ada Lovelace']")
    assert page.js("document.getElementById('delete-dialog').open") is True
    assert page.text("#delete-question") == "Delete Ada Lovelace (ada@example.com)? This cannot be undone."
    page.click("#delete-cancel")
    assert page.js("document.getElementById('delete-dialog').open") is False
    assert len(crm.call("customers_index")) == 1
    page.click("#rows button[aria-label='Delete Ada Lovelace']")
    page.click("#delete-confirm")
    page.until_names([])
    assert page.js("document.getElementById('delete-dialog').open") is False
    assert crm.call("customers_index") == []


def test_an_agents_write_updates_the_list_and_shows_a_banner(crm, page):
    page.until("rata._inflight", 0)
    time.sleep(0.1)  # the page's channel subscription reaches the host
    with AgentClient(crm) as agent:
        assert not agent.call("customers_store", {"name": "Grace Hopper", "email": "grace@example.com"}).is_error
    page.until_names(["Grace Hopper"])
    page.until("document.getElementById('agent-banner').hidden", False)
    assert page.text("#agent-banner") == "An agent called customers_store"
