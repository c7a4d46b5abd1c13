"""A window snapshot within its token budget: an 18,000-element page in a real `rata dev --headless`, real Chromium,
the real `rata mcp dev` over stdio; following ``from_line`` shows the page's one whole rendering line by line, once each.

The whole rendering is what page.js gives when asked for every line (the dev bridge's ``snapshot`` method with
the largest ``max_lines``), in the same window. The pure cutting (`snapshot_text`) is checked on hostile
snapshots too: a huge title, a flood of live queries, a line nested thousands deep, a ``from_line`` past the end.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rata import tokens
from rata.debug_build.bridge import MAX_LINES_ASKED
from rata.dev_server import budget
from rata.dev_server.snapshot_answer import PastTheEnd, lines_to_ask, snapshot_text
from rata.endpoint import DEV, connect
from rata.folder import AppFolder
from rata.testing import AgentClient
from tests.mcp.peers import Background, project_env
from tests.windows.shared import require_chromium

RATA = str(Path(sys.executable).parent / "rata")
PAGES = Path(__file__).parents[1] / "debug_build" / "pages"
APP = '''\
from rata import App, Mcp, command


@command(can="big.view", read_only=True)
def big_count() -> int:
    """Count nothing."""
    return 0


app = App("big", identifier="test.budget.bigpage", version="1.0.0").commands(big_count).mcp(Mcp().allow_abilities(["big.*"]))
'''
NOTE = re.compile(r'Get them with window_snapshot (\{.*?\})\. Or show one part alone: window_snapshot \{"window": "main", "root": "eN"\}')


class BigPage:
    """A scratch project whose one window shows tests/debug_build/pages/bounds.html (18,000 elements), under `rata dev --headless`."""

    def __init__(self, root: Path) -> None:
        (root / "bigpage" / "frontend").mkdir(parents=True)
        (root / "bigpage" / "__init__.py").write_text("")
        (root / "bigpage" / "app.py").write_text(APP)
        (root / "bigpage" / "frontend" / "index.html").write_text((PAGES / "bounds.html").read_text(encoding="utf-8"), encoding="utf-8")
        (root / "pyproject.toml").write_text('[project]\nname = "bigpage"\nversion = "1.0.0"\n\n[tool.rata]\napp = "bigpage.app:app"\n')
        self.home = root / "home"
        self.env = {**os.environ, **project_env(root, self.home)}
        self.dev = Background([RATA, "dev", "--headless", "--app", "bigpage.app:app"], self.env, ready="is running in dev mode")

    def agent(self) -> AgentClient:
        return AgentClient.spawn([RATA, "mcp", "dev", "--app", "bigpage.app:app"], env=self.env, timeout=60)

    def bridge(self, method: str, **params: Any) -> Any:
        """One request to the dev bridge, as `rata mcp dev` sends it."""
        connection = connect(AppFolder(self.home), DEV)
        assert connection is not None
        try:
            connection.send(json.dumps({"id": 1, "method": method, "params": params}).encode() + b"\n")
            answer = json.loads(connection.rfile.readline())
        finally:
            connection.close()
        assert "result" in answer, answer
        return answer["result"]


@pytest.fixture
def big_page(tmp_path: Path) -> Iterator[BigPage]:
    require_chromium()
    page = BigPage(tmp_path / "project")
    yield page
    page.dev.stop()


def tree_lines(text: str) -> list[str]:
    """The tree's lines of a window_snapshot answer: after the head (and its `lines a to b` line), up to the next blank line."""
    head, _, rest = text.partition("\n\n")
    return rest.rstrip("\n").split("\n\n")[0].split("\n")


@pytest.mark.subprocess
def test_following_from_line_shows_an_18000_element_page_line_by_line_once_each_within_the_budget(big_page: BigPage):
    whole = big_page.bridge("snapshot", window="main", max_lines=MAX_LINES_ASKED)
    every_line = whole["text"].split("\n")
    assert whole["truncated_lines"] == 0 and len(every_line) == whole["total_lines"] > 18_000
    with big_page.agent() as agent:
        shown: list[str] = []
        arguments: dict[str, Any] = {}
        parts = 0
        while True:
            started = time.perf_counter()
            answer = agent.call("window_snapshot", arguments)
            seconds = time.perf_counter() - started
            assert not answer.is_error, answer.text
            text = answer.text
            assert tokens.estimate(text) <= budget.DEFAULT_TOKENS and "structuredContent" not in answer.raw
            assert seconds < 10, f"part {parts + 1} took {seconds:.1f} s"
            part = tree_lines(text)
            first = len(shown) + 1
            assert text.split("\n")[1] == f"lines {first:,} to {first + len(part) - 1:,} of {'about ' if NOTE.search(text) else ''}{whole['total_lines']:,}:"
            shown += part
            parts += 1
            note = NOTE.search(text)
            if note is None:
                break
            assert f"this shows lines {first:,} to {len(shown):,} of the snapshot" in text
            arguments = json.loads(note.group(1))
            assert arguments == {"window": "main", "from_line": len(shown) + 1}
        assert shown == every_line  # in order, none twice, none left out
        assert parts > 2

        last_button = re.search(r'button "After the table" \[ref=(e\d+)\]', "\n".join(part)) if part else None
        assert last_button, "the page's last button is in the last part"
        clicked = agent.call("window_act", {"action": "click", "ref": last_button.group(1)})
        assert not clicked.is_error, clicked.text
        assert 'Did: click button "After the table"' in clicked.text
        assert tokens.estimate(clicked.text) <= budget.DEFAULT_TOKENS
        assert 'Get them with window_snapshot {"window": "main", "from_line": ' in clicked.text

        table = next(index for index, line in enumerate(every_line) if line.startswith("- table [ref="))
        after = every_line.index(next(line for line in every_line if line.startswith('- button "After the table"')))
        root = re.search(r"\[ref=(e\d+)\]", every_line[table]).group(1)
        subtree: list[str] = []
        arguments = {"root": root}
        while True:  # the table alone, part by part: the same lines as in the whole rendering
            text = agent.call("window_snapshot", arguments).text
            assert tokens.estimate(text) <= budget.DEFAULT_TOKENS
            subtree += tree_lines(text)
            note = NOTE.search(text)
            if note is None:
                break
            arguments = json.loads(note.group(1))
            assert arguments == {"window": "main", "root": root, "from_line": len(subtree) + 1}
        assert subtree == every_line[table:after]
        stale = agent.call("window_snapshot", {"root": "e99999999"})
        assert stale.is_error and "Ref e99999999 is not in the latest snapshot" in stale.text

        past = agent.call("window_snapshot", {"from_line": len(every_line) + 1})
        assert past.is_error and f"from_line {len(every_line) + 1:,} is past the end of the snapshot" in past.text
        small = agent.call("window_snapshot", {"budget_tokens": budget.MIN_TOKENS})
        assert tokens.estimate(small.text) <= budget.MIN_TOKENS and '"budget_tokens": 1000' in small.text


def snap(text: str, **fields: Any) -> dict[str, Any]:
    return {"window": "main", "route": "/", "title": "T", "text": text, "from_line": 0, "total_lines": text.count("\n") + 1 if text else 0, **fields}


@pytest.mark.parametrize(
    "case, fields",
    [
        ("a title of a million characters", {"title": "x" * 1_000_000}),
        ("a route of a million characters", {"route": "/" + "é" * 1_000_000}),
        ("a thousand live queries of 200 characters", {"showing": ["q" * 200] * 1000}),
        ("a line nested ten thousand deep", {"text": " " * 20_000 + "- button [ref=e1]"}),
        ("a hundred thousand short lines", {"text": "\n".join(["- img"] * 100_000)}),
        ("long lines of four-byte characters", {"text": "\n".join(["- text: " + "\U0001f600" * 200] * 5000)}),
        (
            "everything at once, in four-byte characters, after an action that said a lot",
            {"title": "\U0001f600" * 5000, "route": "/" + "\U0001f600" * 5000, "showing": ["\U0001f600" * 200] * 16,
             "text": "\n".join(["- text: " + "\U0001f600" * 200] * 50), "intro": "Did: " + "\U0001f600" * 100_000},
        ),  # fmt: skip
    ],
)
@pytest.mark.parametrize("limit", [budget.MIN_TOKENS, budget.DEFAULT_TOKENS, budget.MAX_TOKENS])
def test_a_hostile_snapshot_still_fits_its_budget(case: str, fields: dict[str, Any], limit: int):
    fields = dict(fields)
    intro = fields.pop("intro", "")
    given = snap(fields.pop("text", "- heading [level=1]"), **fields)
    text = snapshot_text(given, limit, {"window": "main"}, intro=intro)
    assert tokens.estimate(text) <= limit, case
    first = given["text"].split("\n")[0].lstrip()
    assert first[:8] in text.split("title: ", 1)[1], f"{case}: no line of the tree shown"


def test_a_line_longer_than_the_whole_budget_is_shortened_and_the_note_says_so():
    text = snapshot_text(snap(" " * 20_000 + "- button [ref=e1]\n- img", total_lines=2), budget.MIN_TOKENS, {"window": "main"})
    assert "characters left out" in text and "[ref=e1]" in text
    assert "Line 1 was longer than the whole budget and is shortened in the middle." in text
    assert 'window_snapshot {"window": "main", "from_line": 2}' in text


def test_a_from_line_past_the_end_is_an_error_saying_where_the_end_is():
    with pytest.raises(PastTheEnd, match=r"from_line 41 is past the end of the snapshot: window 'main' now shows 40 lines"):
        snapshot_text(snap("", from_line=40, total_lines=40), budget.DEFAULT_TOKENS, {"window": "main"})


def test_the_page_is_asked_for_no_more_lines_than_the_budget_can_show():
    for limit in (budget.MIN_TOKENS, budget.DEFAULT_TOKENS, budget.MAX_TOKENS):
        shortest = ["- img"] * (lines_to_ask(limit) + 100)  # the shortest line a page can render
        assert budget.take(shortest, budget.Fit(limit), str) <= lines_to_ask(limit)
    assert lines_to_ask(budget.MAX_TOKENS) < 10_000
