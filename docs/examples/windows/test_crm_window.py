"""A test of crm's window: the form adds a customer, and the live list shows it."""

import pytest
from crm.app import app

from rata.testing import chromium_missing, open_window

NAMES = "Array.from(document.querySelectorAll('#rows td:first-child'), (cell) => cell.textContent)"


@pytest.fixture
def page():
    if chromium_missing():
        pytest.skip(chromium_missing())
    app.migrate()
    with open_window(app) as page:
        yield page
    app.close()


def test_the_form_adds_a_customer_and_the_live_list_shows_it(page):
    page.click("#new-customer")
    page.type("#new-name", "Ada Lovelace")
    page.type("#new-email", "ada@example.com")
    page.click("#new-save")
    page.until(NAMES, ["Ada Lovelace"])
    assert page.js("document.getElementById('summary').textContent") == "1 customer"
