"""Content parts (`rata.content`) reach a window's page in their documented JSON form, in real headless Chromium."""

from __future__ import annotations

import base64

import pytest

from rata.windows.adapter import WindowSpec
from rata.windows.chromium import ChromiumBackend
from rata.windows.host import WindowHost
from tests.mcp.reports import PNG, rich_app
from tests.windows.test_host import Page


@pytest.fixture
def page(tmp_path, browser):
    app = rich_app()
    app.root = tmp_path
    (tmp_path / "frontend").mkdir()
    (tmp_path / "frontend" / "index.html").write_text("<!doctype html><title>Reports</title><img id=chart>")
    host = WindowHost(app, ChromiumBackend(app.name, browser=browser))
    host.open(WindowSpec("main", title="Reports"))
    yield Page(host, "main")
    for label in host.labels():
        host.close_window(label)
    host.close()
    app.close()


def test_a_page_gets_typed_data_and_parts_and_shows_the_image_from_its_base64(page):
    report = page.invoke("report", {"quarter": "Q1"})["value"]
    assert report["data"] == {"quarter": "Q1", "total": 1200}
    assert [part["type"] for part in report["content"]] == ["image", "text"]
    assert base64.b64decode(report["content"][0]["data"]) == PNG
    page.js(
        "(rata.invoke('report', {quarter: 'Q1'}).then(function (sheet) {"
        " var photo = sheet.content.filter(function (part) { return part.type === 'image'; })[0];"
        " document.getElementById('chart').src = 'data:' + photo.mimeType + ';base64,' + photo.data; }), 0)"
    )
    assert page.until("document.getElementById('chart').complete && document.getElementById('chart').naturalWidth || null") == 2


def test_a_part_that_cannot_be_sent_rejects_the_call_with_the_fix(page):
    refused = page.invoke("mislabelled")
    assert refused["ok"] is False
    assert "declared as 'image/jpeg', but its bytes are image/png" in refused["message"]
    assert "mime_type='image/png'" in refused["hint"]
