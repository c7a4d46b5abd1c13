"""The page script's snapshot in real headless Chromium, against golden files.

Goldens live in ``tests/debug_build/golden/``; after a deliberate change, rewrite them with
``RATA_UPDATE_GOLDEN=1 python -m pytest tests/debug_build`` and review the diff.
"""

from __future__ import annotations

import re

import pytest

from rata.debug_build import page_script
from tests.debug_build.conftest import Page, assert_golden


@pytest.mark.parametrize("name", ["roles", "names", "states", "hiding", "masking"])
def test_snapshot_matches_its_golden(page: Page, name: str):
    page.open(f"/{name}.html")
    assert_golden(name, page.text())


def test_a_password_value_never_appears_anywhere_in_the_result(page: Page):
    page.open("/masking.html")
    result = page.snapshot()
    for secret in ["hunter2", "s3cret!", "old-secret", "123456", "4111111111111111", "737", "private notes"]:
        assert secret not in repr(result)
    assert '/value: "Ada"' in result["text"]


def test_bounds_cap_lines_at_1000_with_a_note_and_cut_text_at_200(page: Page):
    page.open("/bounds.html")
    assert page.js("document.querySelectorAll('*').length") >= 18_000
    result = page.snapshot()
    lines = result["text"].split("\n")
    assert result["lines"] == 1000
    assert len(lines) == 1001
    assert result["truncatedLines"] > 16_000
    assert lines[-1] == f"# \u2026 {result['truncatedLines']} more lines not shown (limit 1000)"
    assert max(len(line) for line in lines) < 260
    assert_golden("bounds", "\n".join(lines[:12] + ["..."] + lines[-3:]))


def test_limits_can_be_set_per_call(page: Page):
    page.open("/bounds.html")
    result = page.snapshot(maxLines=5, maxText=10)
    assert result["text"].split("\n") == [
        '- heading "A long pag\u2026" [level=1] [ref=e1]',
        "- paragraph: lorem ipsu\u2026",
        '- button "Press very\u2026" [ref=e2]',
        "- table [ref=e3]:",
        "  - row [ref=e4]:",
        f"# \u2026 {result['truncatedLines']} more lines not shown (limit 5)",
    ]


def test_a_ref_keeps_its_number_and_new_elements_get_new_ones(page: Page):
    page.open("/refs.html")
    before = [int(n) for n in re.findall(r"\[ref=e(\d+)\]", page.text())]
    add = page.ref("button", "Add item")
    assert page.act(kind="click", ref=add)["ok"]
    after = [int(n) for n in re.findall(r"\[ref=e(\d+)\]", page.text())]
    assert page.ref("button", "Add item") == add
    assert set(before) < set(after)
    assert min(set(after) - set(before)) > max(before)
    assert len(after) == len(set(after))


def test_refs_and_stale_refs_across_changes_and_navigation(page: Page):
    """One window's history: refs stay, removed elements' refs fail, a new document never reuses a number."""
    page.open("/refs.html")
    story = ["## first snapshot", page.text()]
    remove_first = page.ref("button", "Remove")
    rename = page.ref("button", "Rename me")
    page.act(kind="click", ref=remove_first)
    page.act(kind="click", ref=rename)
    page.act(kind="click", ref=page.ref("button", "Add item"))
    story += ["## after removing the first item, renaming a button and adding an item", page.text()]
    story += ["## clicking the removed item's ref", page.act(kind="click", ref=remove_first)["error"]]
    old_add = page.ref("button", "Add item")
    page.window.navigate("/refs.html?again")
    story += ["## the old document's ref after navigation, before a snapshot", page.act(kind="click", ref=old_add)["error"]]
    story += ["## the new document, numbered on from the window's refBase", page.text()]
    story += ["## the old ref after the new snapshot", page.act(kind="click", ref=old_add)["error"]]
    assert_golden("refs", "\n".join(story))


def test_a_subtree_snapshot_by_ref_keeps_the_other_refs_usable(page: Page):
    page.open("/refs.html")
    page.snapshot()
    items = page.ref("listitem")
    add = page.ref("button", "Add item")
    assert page.text(root=items) == f'- listitem [ref={items}]:\n  - text: First\n  - button "Remove" [ref={page.ref("button", "Remove")}]'
    assert page.act(kind="click", ref=add)["ok"]


def test_parts_from_a_line_join_into_the_whole_rendering_and_every_parts_refs_resolve(page: Page):
    page.open("/bounds.html")
    whole = page.snapshot(maxLines=100_000)
    assert whole["truncatedLines"] == 0 and whole["totalLines"] == whole["lines"] > 18_000
    parts, first_ref = [], None
    for start in range(0, whole["lines"], 5_000):
        part = page.snapshot(fromLine=start, maxLines=start + 5_000, moreLine=False)
        assert part["fromLine"] == start and part["lines"] == min(5_000, whole["lines"] - start)
        assert (part["truncatedLines"] > 0) is (start + 5_000 < whole["lines"])  # only the last part leaves nothing out
        parts += part["text"].split("\n")
        first_ref = first_ref or re.search(r'button "Press very[^"]*" \[ref=(e\d+)\]', part["text"]).group(1)
    assert parts == whole["text"].split("\n")  # in order, none twice, none left out
    assert page.act(kind="click", ref=page.ref("button", "After the table"))["ok"]  # the last part's
    assert page.act(kind="click", ref=first_ref)["ok"]  # and the first part's: a later part keeps the earlier refs
    past = page.snapshot(fromLine=whole["lines"] + 10, maxLines=whole["lines"] + 20)
    assert past["text"] == "" and past["lines"] == 0 and past["totalLines"] == whole["lines"]


def test_showing_lists_live_queries_newest_first_at_most_16_cut_at_200(page: Page):
    page.open("/blank.html")
    ids = page.js("[1, 2, 3].map((n) => window.__rata_dev.noteLive('customers_index', {page: n}))")
    page.js(f"window.__rata_dev.dropLive({ids[1]})")
    assert page.snapshot()["showing"] == ['customers_index {"page":3}', 'customers_index {"page":1}']
    page.js("for (let n = 0; n < 20; n++) window.__rata_dev.noteLive('q' + n, {text: 'x'.repeat(300)})")
    showing = page.snapshot()["showing"]
    assert len(showing) == 16
    assert showing[0].startswith('q19 {"text":"xxx')
    assert len(showing[0]) == 201 and showing[0].endswith("\u2026")


def test_the_namespace_is_one_non_enumerable_global_and_installs_once(page: Page):
    page.open("/blank.html")
    assert page.js("Object.keys(window).includes('__rata_dev')") is False
    assert page.js("typeof window.__rata_dev.snapshot") == "function"
    page.window.add_document_script(page_script())  # a second install is a no-op
    assert page.js("window.__rata_dev.version") == 1


def test_the_script_is_ascii_and_ships_in_the_package():
    source = page_script()
    assert source.isascii()
    assert "window.__rata_dev" in source
