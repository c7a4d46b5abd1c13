"""`app_calls` within its token budget: a full call log of hostile calls fits in both forms, and following
``next_before`` reads the whole log once, in order; a client's hostile ``before`` or ``from_line`` is a clear isError.

The real debug build's log is followed end to end in tests/dev_server/test_windows.py; here the log is the
bridge's filter (`DevBridge.do_calls`) over made-up records, so the worst case (200 calls, every argument 200
characters of quotes and line breaks, errors of 10,000 characters) is cheap to build.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.debug_build.bridge import DevBridge
from rata.dev_server import budget
from rata.dev_server.calls_answer import call_row, calls_text, fit_calls
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.testing import AgentClient
from rata.windows.calls import CALL_LOG_SIZE

CRM = Path(__file__).parents[2] / "examples" / "crm"
HOSTILE = '"\n\\' * 66 + "é"  # 200 characters of quotes, line breaks and backslashes, each escaped in both forms


def record(seq: int) -> SimpleNamespace:
    return SimpleNamespace(
        seq=seq, window="main", command="customers_store", kind="live" if seq % 3 == 0 else "invoke",
        args={"name": HOSTILE, "email": HOSTILE, "tags": [HOSTILE[:50]] * 3}, started=time.time(), duration_ms=seq * 1.5,
        ok=seq % 4 != 0, error=None if seq % 4 else "boom " * 2_000,
    )  # fmt: skip


class Host:
    """Just what `DevBridge.do_calls` reads of a window host: the call log and the windows."""

    def __init__(self, count: int) -> None:
        self.calls = [record(seq) for seq in range(1, count + 1)]

    def window(self, label: str) -> Any:
        return label


def read(bridge: DevBridge, limit: int, before: int | None, budget_tokens: int) -> dict[str, Any]:
    """What `app_calls` does with the bridge's answer."""
    rows = [call_row(row) for row in bridge.do_calls(limit=min(limit + 1, CALL_LOG_SIZE), before=before)]
    return dict(fit_calls(rows[-limit:], len(rows) > limit, budget_tokens, {"window": None, "limit": limit, "budget_tokens": budget_tokens}))


@pytest.mark.parametrize("budget_tokens", [budget.MIN_TOKENS, budget.DEFAULT_TOKENS, budget.MAX_TOKENS])
@pytest.mark.parametrize("limit", [1, 20, CALL_LOG_SIZE])
def test_following_next_before_reads_a_full_log_of_hostile_calls_once_in_order_within_the_budget(budget_tokens: int, limit: int):
    bridge = DevBridge(Host(CALL_LOG_SIZE))
    followed: list[int] = []
    before = None
    while True:
        answer = read(bridge, limit, before, budget_tokens)
        text = calls_text(answer)  # type: ignore[arg-type] - the bridge's answer, read as the tool reads it
        assert tokens.estimate(text) <= budget_tokens and tokens.estimate(budget.compact_json(answer)) <= budget_tokens
        assert not text.startswith(("{", "[")) and '"seq"' not in text
        assert answer["calls"], "every part shows at least one call"
        followed = [row["seq"] for row in answer["calls"]] + followed
        if answer["next_before"] is None:
            assert answer["calls"][0]["seq"] == 1
            break
        assert answer["next_before"] == answer["calls"][0]["seq"]
        assert budget.next_call("app_calls", {"limit": limit, "budget_tokens": budget_tokens, "before": answer["next_before"]}) in answer["note"]
        before = answer["next_before"]
    assert followed == list(range(1, CALL_LOG_SIZE + 1))


def test_a_call_line_has_its_seq_window_command_arguments_time_and_outcome():
    row = call_row({"seq": 7, "window": "main", "command": "customers_store", "kind": "invoke", "args": {"name": "Ada", "n": 2, "on": True, "x": None},
                    "started": "2026-12-02T05:00:01", "ms": 6.4, "ok": False, "error": "no such table:\n customers"})  # fmt: skip
    answer = fit_calls([row], False, budget.DEFAULT_TOKENS, {"window": None, "limit": 20, "budget_tokens": None})
    assert (
        calls_text(answer) == '1 call, oldest first:\n#7 05:00:01 main customers_store(name="Ada", n=2, on=true, x=null) 6 ms error: no such table: customers'
    )
    assert answer["next_before"] is None and answer["note"] == ""


def test_one_call_larger_than_the_whole_budget_is_shortened_and_the_note_says_so():
    huge = call_row({"seq": 1, "window": "main", "command": "c", "kind": "invoke", "args": {f"a{i}": "x" * 200 for i in range(60)},
                     "started": "2026-12-02T05:00:01", "ms": 1.0, "ok": False, "error": "e" * 50_000})  # fmt: skip
    answer = fit_calls([huge], False, budget.MIN_TOKENS, {"window": None, "limit": 20, "budget_tokens": budget.MIN_TOKENS})
    assert len(answer["calls"]) == 1 and "characters left out" in (answer["calls"][0]["error"] or "")
    assert "Call #1 was larger than the whole budget" in answer["note"]
    assert tokens.estimate(calls_text(answer)) <= budget.MIN_TOKENS


@pytest.fixture(scope="module")
def dev() -> AgentClient:
    return AgentClient(dev_app(Target("crm.app:app", CRM)))


FRACTIONS = st.floats().filter(lambda number: not number.is_integer())  # 3.0 is the whole number 3 in JSON Schema
NOT_A_WHOLE_NUMBER = st.one_of(
    st.text(max_size=20), FRACTIONS, st.booleans(), st.none(), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(value=st.one_of(NOT_A_WHOLE_NUMBER, st.integers(max_value=0), st.integers(min_value=10**7 + 1)))
def test_a_hostile_from_line_is_an_error_naming_it(dev: AgentClient, value: Any):
    result = dev.call("window_snapshot", {"from_line": value})
    assert result.is_error and "from_line:" in result.text and "Traceback" not in result.text, result.text


@settings(max_examples=60, deadline=None)
@given(value=st.one_of(st.text(max_size=20), FRACTIONS, st.booleans(), st.lists(st.integers(), max_size=3), st.integers(max_value=0)))
def test_a_hostile_before_is_an_error_naming_it(dev: AgentClient, value: Any):
    result = dev.call("app_calls", {"before": value})
    assert result.is_error and "before:" in result.text and "Traceback" not in result.text, result.text


@settings(max_examples=30, deadline=None)
@given(from_line=st.integers(min_value=1, max_value=10**7), before=st.integers(min_value=1, max_value=2**63))
def test_a_good_from_line_or_before_reaches_the_debug_build(dev: AgentClient, from_line: int, before: int):
    for name, arguments in (("window_snapshot", {"from_line": from_line}), ("app_calls", {"before": before})):
        result = dev.call(name, arguments)
        assert result.is_error and "No debug build of crm is running" in result.text, result.text


@pytest.mark.parametrize("before", [0, -1, 1.5, "12", True, [3], 2**70])
def test_the_bridge_refuses_a_before_that_is_not_a_whole_number_or_lists_the_calls_below_it(before: Any):
    bridge = DevBridge(Host(5))
    answer = json.loads(bridge.handle_line(json.dumps({"id": 1, "method": "calls", "params": {"before": before}}).encode()))
    if isinstance(before, int) and not isinstance(before, bool):
        assert [row["seq"] for row in answer["result"]] == ([] if before <= 1 else [1, 2, 3, 4, 5])
    else:
        assert answer["error"]["message"].startswith("before is a whole number")
