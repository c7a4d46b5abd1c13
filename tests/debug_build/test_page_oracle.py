"""Roles and names from the page script, checked against Chromium's own accessibility tree.

For every element of a fixture page, Chromium's answer comes from the DevTools
``Accessibility`` domain (``getPartialAXTree`` on the element's DOM node) and ours from
``window.__rata_dev.inspect`` on the same node. They must agree, apart from the short
list of known, deliberate differences below.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.debug_build.conftest import Page

# Chromium's names for roles the snapshot spells the ARIA way.
CHROME_ROLES = {"image": "img", "DisclosureTriangle": "button"}

# Roles Chromium gives to elements the snapshot leaves out as structure (their text stays, as text lines).
STRUCTURE = {"generic", "none", "LabelText", "Legend", "Figcaption", "emphasis", "strong", "DescriptionList", "LineBreak", "sectionheader", "sectionfooter"}

# Known differences, each deliberate: (Chromium's role, ours) -> why.
KNOWN_ROLES = {
    ("Date", "textbox"): "a date field: Chromium has its own Date role; for an agent it is a field to type in",
    ("generic", "textbox"): "contenteditable: Chromium says generic (with an editable state); a textbox tells the agent to type",
    ("rowgroup", ""): "thead/tfoot: Chromium exposes some table sections; the snapshot leaves them all out, they are noise",
    ("form", ""): "an unnamed form: Chromium still says form; html-aam makes it a landmark only when named, and the snapshot follows html-aam",
}

# Roles whose names are not compared: Chromium names grid rows from their cells; the snapshot leaves row names to authors.
UNCOMPARED_NAMES = {"row"}


def chrome_and_ours(page: Page) -> list[dict[str, Any]]:
    session = page.window.session
    session.send("DOM.enable")
    session.send("Accessibility.enable")
    document = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    found = []
    for node_id in session.send("DOM.querySelectorAll", {"nodeId": document, "selector": "body *"})["nodeIds"]:
        ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})["nodes"][0]
        handle = session.send("DOM.resolveNode", {"nodeId": node_id})["object"]["objectId"]
        inspect = "function () { return [this.outerHTML.slice(0, 60), window.__rata_dev.inspect(this)]; }"
        ours = session.send("Runtime.callFunctionOn", {"objectId": handle, "functionDeclaration": inspect, "returnByValue": True})["result"]["value"]
        found.append(
            {
                "html": ours[0],
                "ignored": ax.get("ignored", False),
                "chrome_role": ax.get("role", {}).get("value", ""),
                "chrome_name": " ".join(str(ax.get("name", {}).get("value", "")).split()),
                "role": ours[1]["role"],
                "name": ours[1]["name"],
            }
        )
    return found


def differences(rows: list[dict[str, Any]]) -> list[str]:
    problems = []
    for row in rows:
        if row["ignored"]:
            continue
        chrome = CHROME_ROLES.get(row["chrome_role"], row["chrome_role"])
        ours = row["role"]
        if (row["chrome_role"], ours) in KNOWN_ROLES:
            continue
        if chrome in STRUCTURE:
            if ours not in ("", "none", "generic"):
                problems.append(f"role: Chromium {row['chrome_role']!r}, ours {ours!r}: {row['html']}")
            continue
        if chrome != ours:
            problems.append(f"role: Chromium {row['chrome_role']!r}, ours {ours!r}: {row['html']}")
        elif ours not in UNCOMPARED_NAMES and row["chrome_name"] != row["name"]:
            problems.append(f"name of {ours}: Chromium {row['chrome_name']!r}, ours {row['name']!r}: {row['html']}")
    return problems


@pytest.mark.parametrize("fixture", ["names", "roles"])
def test_roles_and_names_agree_with_chromiums_accessibility_tree(page: Page, fixture: str):
    page.open(f"/{fixture}.html")
    rows = chrome_and_ours(page)
    compared = [row for row in rows if not row["ignored"] and row["chrome_role"] not in STRUCTURE and row["chrome_name"]]
    assert len(compared) >= 40  # the comparison covers the page, not a handful of nodes
    assert differences(rows) == []


def test_the_comparison_notices_a_wrong_name(page: Page):
    page.open("/names.html")
    rows = chrome_and_ours(page)
    button = next(row for row in rows if row["html"].startswith('<button id="b1"'))
    button["name"] = "Something else"
    assert differences(rows) == [f"name of button: Chromium 'Plain text', ours 'Something else': {button['html']}"]
