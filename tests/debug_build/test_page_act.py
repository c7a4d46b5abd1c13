"""The page script's actions in real headless Chromium: click, type, press, select, navigate, and settling."""

from __future__ import annotations

import time

import pytest

from tests.debug_build.conftest import Page


@pytest.fixture
def act_page(page: Page) -> Page:
    page.open("/act.html")
    page.snapshot()
    return page


def test_click_sends_the_events_a_click_makes_and_focuses(act_page: Page):
    result = act_page.act(kind="click", ref=act_page.ref("button", "Clicked 0 times"))
    assert result == {"ok": True, "kind": "click", "target": 'button "Clicked 0 times" [ref=e2]', "dialogs": []}
    seen = act_page.js("window.clickSeen")
    assert seen["detail"] == 1 and seen["focused"] is True and seen["x"] > 0 and seen["y"] > 0
    assert act_page.js("window.events") == ["mousedown"]
    assert '- button "Clicked 1 times" [focused] [ref=e2]' in act_page.text()


def test_click_refuses_a_disabled_element_naming_it(act_page: Page):
    result = act_page.act(kind="click", ref=act_page.ref("button", "Cannot click"))
    assert result == {"ok": False, "kind": "click", "error": 'button "Cannot click" [ref=e3] is disabled.'}


def test_click_refuses_a_covered_element_naming_what_covers_it(act_page: Page):
    result = act_page.act(kind="click", ref=act_page.ref("button", "Under the cover"))
    assert result["ok"] is False
    assert result["error"].startswith('button "Under the cover" [ref=e4] is covered by dialog "Please wait" [ref=e5] at (')


def test_clicking_an_option_selects_it(act_page: Page):
    assert act_page.act(kind="click", ref=act_page.ref("option", "Silver"))["did"] == 'chose "Silver"'
    assert act_page.js("[document.getElementById('tier').value, window.events]") == ["s", ["tier s"]]


def test_a_link_click_follows_it(act_page: Page):
    act_page.act(kind="click", ref=act_page.ref("link", "Jump"))
    assert act_page.js("location.hash") == "#section"


def test_type_sets_the_value_and_fires_input_and_change(act_page: Page):
    result = act_page.act(kind="type", ref=act_page.ref("textbox", "Plain"), text="Ada")
    assert result["ok"] is True and "warning" not in result
    assert act_page.js("[document.getElementById('plain').value, window.events]") == ["Ada", ["input Ada", "change Ada"]]


def test_type_reaches_a_react_style_controlled_input(act_page: Page):
    # The imitation really is strict: a plain assignment plus an input event does not reach its state.
    act_page.js("(() => { const el = document.getElementById('controlled'); el.value = 'naive'; el.dispatchEvent(new Event('input', {bubbles: true})); })()")
    assert act_page.js("document.getElementById('controlled-echo').textContent") == "Hello, "
    assert act_page.act(kind="type", ref=act_page.ref("textbox", "Controlled"), text="Ada Lovelace")["ok"]
    assert act_page.js("document.getElementById('controlled-echo').textContent") == "Hello, Ada Lovelace"
    assert '/value: "Ada Lovelace"' in act_page.text()


def test_type_into_a_textarea_and_a_contenteditable(act_page: Page):
    assert act_page.act(kind="type", ref=act_page.ref("textbox", "Notes"), text="Likes tea\nand cake")["ok"]
    assert act_page.act(kind="type", ref=act_page.ref("textbox", "Editor"), text="Rich text")["ok"]
    assert act_page.js("[document.getElementById('notes').value, document.getElementById('editor').textContent]") == ["Likes tea\nand cake", "Rich text"]


def test_type_warns_when_the_field_does_not_take_the_text(act_page: Page):
    result = act_page.act(kind="type", ref=act_page.ref("spinbutton", "Age"), text="forty")
    assert result["ok"] is True
    assert result["warning"] == 'the field now holds "" (it did not take the text as typed)'


def test_type_refuses_read_only_and_non_text_fields(act_page: Page):
    assert act_page.act(kind="type", ref=act_page.ref("textbox", "Read only"), text="x")["error"] == 'textbox "Read only" [ref=e11] is read-only.'
    assert "is not a text field" in act_page.act(kind="type", ref=act_page.ref("checkbox", "VIP"), text="x")["error"]


def test_type_with_submit_presses_enter_and_submits_the_form(act_page: Page):
    result = act_page.act(kind="type", ref=act_page.ref("textbox", "Name"), text="Ada", submit=True)
    assert result["did"] == 'submitted form "New customer" [ref=e21]'
    assert act_page.js("window.events") == ["submitted Ada by Save"]


def test_enter_in_a_form_with_an_invalid_field_says_why_it_did_not_submit(act_page: Page):
    result = act_page.act(kind="press", ref=act_page.ref("textbox", "Email"), key="Enter")
    assert result["ok"] is True
    assert result["warning"].startswith('the form was not submitted: textbox "Name" [ref=e22] (')
    assert act_page.js("window.events || []") == []


def test_press_sends_keydown_with_key_code_and_keycode(act_page: Page):
    act_page.act(kind="press", ref=act_page.ref("textbox", "Plain"), key="a")
    assert act_page.js("window.lastKey") == {"key": "a", "code": "KeyA", "keyCode": 65, "target": "plain"}
    assert act_page.js("document.getElementById('plain').value") == "a"


def test_tab_and_shift_tab_move_focus(act_page: Page):
    act_page.act(kind="click", ref=act_page.ref("textbox", "Plain"))
    assert act_page.act(kind="press", key="Tab")["did"] == 'focused textbox "Controlled" [ref=e7]'
    assert act_page.act(kind="press", key="Shift+Tab")["did"] == 'focused textbox "Plain" [ref=e6]'
    assert act_page.js("document.activeElement.id") == "plain"


def test_space_toggles_a_checkbox(act_page: Page):
    assert act_page.act(kind="press", ref=act_page.ref("checkbox", "VIP"), key="Space")["ok"]
    assert act_page.js("[document.getElementById('vip').checked, window.events]") == [True, ["vip true"]]


def test_escape_closes_the_open_dialog(act_page: Page):
    act_page.act(kind="click", ref=act_page.ref("button", "Open dialog"))
    text = act_page.text()
    assert text.startswith('- dialog "Confirm"')  # a modal dialog hides the rest of the page
    assert act_page.act(kind="press", key="Escape")["did"] == 'closed dialog "Confirm" [ref=e29]'
    assert act_page.js("document.getElementById('dialog').open") is False
    assert poll(act_page, lambda state: act_page.js("window.events") is not None) and act_page.js("window.events") == ["dialog closed"]


def test_click_refuses_an_element_behind_a_modal_dialog(act_page: Page):
    counter = act_page.ref("button", "Clicked 0 times")
    act_page.act(kind="click", ref=act_page.ref("button", "Open dialog"))
    result = act_page.act(kind="click", ref=counter)
    assert result["error"] == 'button "Clicked 0 times" [ref=e2] is behind the open dialog "Confirm"; close it first (press Escape).'


def test_an_unknown_key_is_refused(act_page: Page):
    assert act_page.act(kind="press", key="Hyper+Q")["error"].startswith('Unknown key "Hyper+Q"')


def test_select_by_value_or_label_fires_change(act_page: Page):
    assert act_page.act(kind="select", ref=act_page.ref("combobox", "Tier"), values=["Silver"])["did"] == 'selected "Silver"'
    assert act_page.act(kind="select", ref=act_page.ref("listbox", "Tags"), values=["new", "old"])["did"] == 'selected "new", "old"'
    assert act_page.js("window.events") == ["tier s", "tags new,old"]


def test_select_refuses_a_missing_or_disabled_option(act_page: Page):
    tier = act_page.ref("combobox", "Tier")
    missing = act_page.act(kind="select", ref=tier, values=["Platinum"])["error"]
    assert missing == 'combobox "Tier" [ref=e12] has no option "Platinum"; it has "Bronze", "Silver", "Gold".'
    assert act_page.act(kind="select", ref=tier, values=["g"])["error"] == 'Option "g" of combobox "Tier" [ref=e12] is disabled.'


def test_navigate_stays_within_the_app(act_page: Page):
    assert act_page.act(kind="navigate", url="https://example.com/")["error"].startswith("navigate stays within the app (http://fixtures.rata.localhost)")
    assert act_page.act(kind="navigate", url="/blank.html") == {"ok": True, "did": "navigating to /blank.html", "kind": "navigate", "dialogs": []}
    deadline = time.monotonic() + 5
    arrived = "location.pathname === '/blank.html' && document.readyState !== 'loading' && !!window.__rata_dev"
    while not act_page.js(arrived) and time.monotonic() < deadline:  # the path changes while the new document still loads
        time.sleep(0.05)
    assert act_page.js("document.readyState") in ("interactive", "complete")
    assert act_page.act(kind="click", ref="e2")["error"].startswith("Ref e2 is not in the latest snapshot")


def test_a_confirm_does_not_block_and_is_reported(act_page: Page):
    result = act_page.act(kind="click", ref=act_page.ref("button", "Delete Ada"))
    assert result["dialogs"] == [{"seq": 1, "kind": "confirm", "message": "Delete Ada?", "answer": True}]
    assert act_page.js("document.getElementById('delete').textContent") == "Deleted"
    act_page.js("window.__rata_dev.setDialogAnswers({confirm: false})")
    act_page.js("document.getElementById('delete').textContent = 'Delete Ada'")
    act_page.snapshot()
    act_page.act(kind="click", ref=act_page.ref("button", "Delete Ada"))
    assert act_page.js("document.getElementById('delete').textContent") == "Delete Ada"
    assert act_page.js("window.__rata_dev.dialogs(1)")[0]["answer"] is False


def test_bad_requests_say_what_is_missing(act_page: Page):
    assert act_page.act(kind="click")["error"] == "click needs a ref from the latest snapshot."
    assert act_page.act(kind="fly", ref="e1")["error"].startswith('Unknown action "fly"')
    assert act_page.act(kind="type", ref=act_page.ref("textbox", "Plain"))["error"] == "type needs text."


def test_settle_state_counts_requests_in_flight(act_page: Page):
    assert act_page.js("(() => { fetch('/blank.html'); return window.__rata_dev.settleState().pendingFetch; })()") == 1
    assert poll(act_page, lambda state: state["pendingFetch"] == 0)["pendingFetch"] == 0


def test_polling_until_the_dom_is_quiet_catches_an_update_300_ms_after_a_click(act_page: Page):
    act_page.js("new Promise(requestAnimationFrame), null")
    before = act_page.js("window.__rata_dev.settleState()")
    assert before["readyState"] == "complete"
    act_page.act(kind="click", ref=act_page.ref("button", "Load later"))
    started = time.monotonic()
    state = poll(act_page, lambda s: s["pendingFetch"] == 0 and s["msSinceMutation"] >= 500 and time.monotonic() - started >= 0.1)
    assert state["doc"] == before["doc"]
    assert act_page.js("window.loadedAt - window.clickedAt") >= 300
    assert "Loaded 300 ms later" in act_page.text()


def test_ms_since_mutation_restarts_at_each_change(act_page: Page):
    quiet = poll(act_page, lambda s: s["msSinceMutation"] >= 150)["msSinceMutation"]
    assert quiet >= 150
    act_page.js("document.body.append(document.createElement('i'))")  # observers hear of it after this script
    assert act_page.js("window.__rata_dev.settleState().msSinceMutation") < quiet


def poll(page: Page, done, timeout: float = 5.0) -> dict:
    """settleState every 50 ms until `done(state)`, as the host's settle loop does."""
    deadline = time.monotonic() + timeout
    while True:
        state = page.js("window.__rata_dev.settleState()")
        if done(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.05)
