"""`app_calls`' answer: the commands the windows called, newest last, within the token budget, with the call for older ones.

The debug build keeps its windows' last calls (`rata.windows.calls`); `app_calls` shows the
newest that fit the budget and `limit`, oldest first so the newest is last. When older calls
are left (the budget or `limit` stopped it), ``next_before`` is the ``seq`` of the oldest shown
and the note gives the exact call that shows the ones before it: following ``before`` until
``next_before`` is null reads the whole log once, newest part first, each part in order.

The text a model reads is one line a call: ``#12 14:03:07 main customers_store(name="Ada",
email="ada@example.com") live 6 ms ok`` (or ``error: <message>``), then the note.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from rata.dev_server import budget
from rata.dev_server.shapes import NamedValue, named_values


class CallRow(TypedDict):
    """A command a window called, as the debug build logged it (secret arguments left out, long values cut;
    each argument a name and a value, a list or object value as its JSON text)."""

    seq: int
    window: str
    command: str
    kind: str
    args: list[NamedValue]
    started: str
    ms: float
    ok: bool
    error: str | None


class CallList(TypedDict):
    """The windows' latest calls, oldest first, within the token budget; ``next_before`` gets the older ones."""

    calls: list[CallRow]
    next_before: int | None
    note: str


def call_row(raw: dict[str, Any]) -> CallRow:
    return CallRow(**{**raw, "args": named_values(raw.get("args") or {})})


def call_line(row: CallRow) -> str:
    """One call as a model reads it: seq, time, window, the command with its arguments, its kind, time taken, ok or the error."""
    args = ", ".join(f"{arg['name']}={_value(arg['value'])}" for arg in row["args"])
    started = row["started"].partition("T")[2] or row["started"]
    kind = " live" if row["kind"] == "live" else ""
    outcome = "ok" if row["ok"] else f"error: {' '.join(str(row['error'] or '').split())}"
    return f"#{row['seq']} {started} {row['window']} {row['command']}({args}){kind} {row['ms']:.0f} ms {outcome}"


def calls_text(answer: CallList) -> str:
    calls = answer["calls"]
    head = f"{len(calls)} call{'s' * (len(calls) != 1)}, oldest first:" if calls else "No calls yet."
    return "\n".join([head, *(call_line(row) for row in calls)] + ([answer["note"]] if answer["note"] else []))


def fit_calls(rows: list[CallRow], older: bool, limit: int, arguments: dict[str, Any]) -> CallList:
    """The newest of `rows` (oldest first) that fit `limit` tokens. `older`: the log has calls before `rows` too.

    `arguments` repeat the request (window, limit, budget_tokens) in the note's call; it adds ``before``."""
    empty = CallList(calls=[], next_before=None, note="")
    worst_note = budget.cut_note("the newest 200 calls, up to #1000000000", "older calls", limit, "app_calls", {**arguments, "before": 10**9})
    fit = budget.Fit(limit, calls_text(empty) + "\n" + worst_note, {**empty, "next_before": 10**9, "note": worst_note})
    newest_first = rows[::-1]
    shown = budget.take(newest_first, fit, call_line)
    shortened = False
    if shown == 0 and rows:  # one call larger than the whole budget: its long values cut in the middle
        newest_first[0] = _shortened(newest_first[0], max(40, fit.room() // 3))
        shown, shortened = 1, True
    calls = newest_first[:shown][::-1]
    left = shown < len(rows) or older
    note, next_before = "", None
    if left:
        next_before = calls[0]["seq"]
        what = f"the newest {shown} calls, from #{calls[0]['seq']}"
        note = budget.cut_note(what, "older calls", limit, "app_calls", {**arguments, "before": next_before})
        if shown == len(rows):  # `limit` stopped it, not the budget
            rest = budget.next_call("app_calls", {**arguments, "before": next_before})
            note = f"This shows {what} (limit {arguments['limit']}); older calls are left. Get them with {rest}."
    if shortened:
        note = (note + " " if note else "") + f"Call #{calls[-1]['seq']} was larger than the whole budget: its long values are shortened in the middle."
    return CallList(calls=calls, next_before=next_before, note=note)


def _shortened(row: CallRow, chars: int) -> CallRow:
    each = max(20, chars // (len(row["args"]) + 2))
    args = [
        NamedValue(name=budget.shorten(a["name"], 60), value=budget.shorten(a["value"], each) if isinstance(a["value"], str) else a["value"])
        for a in row["args"]
    ]
    error = budget.shorten(row["error"], each) if row["error"] else row["error"]
    return CallRow(**{**row, "args": args, "error": error, "command": budget.shorten(row["command"], 200)})


def _value(value: Any) -> str:
    """An argument's value in a call line: a text quoted (its quotes and line breaks escaped), anything else as written."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
