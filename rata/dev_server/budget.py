"""Token budgets for what the dev tools answer: every answer fits, and says how to get the rest.

What an agent reads costs its context: Claude Code warns above 10,000 tokens in one tool
result and refuses one above 25,000, other clients cut silently. So each dev tool that can
return a lot takes records (log entries, rows, tables, lines) while its answer stays within
a budget, stops at a record boundary, never inside one, and ends with a note naming what was
left out and the exact arguments of the call that gets the next part (`next_call`).

The budget holds for both forms a client may hand its model: the text block (the tool's
rendering for a model, ``@command(text=...)``) and the JSON of ``structuredContent``. Each is
estimated on its own (`rata.tokens.estimate`) and each must fit; the JSON is the larger of the
two, so in practice it decides where the cut falls.

The budget of one call is its ``budget_tokens`` argument, else the server's (`rata mcp dev
--budget-tokens N`, default `DEFAULT_TOKENS`), within `MIN_TOKENS` and `MAX_TOKENS`. A single
record larger than the whole budget is the one thing cut inside: its long fields are
shortened in the middle (`shorten`), and the note says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from rata import tokens
from rata.errors import RataError
from rata.tokens import compact_json
from rata.typemodel import Field

DEFAULT_TOKENS = 10_000
"""Claude Code's warning line for one tool result: the strictest popular client's."""
MIN_TOKENS = 1_000
MAX_TOKENS = 25_000
"""Claude Code refuses a tool result over 25,000 tokens (its MAX_MCP_OUTPUT_TOKENS default)."""
RESERVE = 300
"""Tokens kept out of the records' share for an answer's fixed parts: headers, counts, the note and the next call."""

BudgetTokens = Annotated[int, Field(ge=MIN_TOKENS, le=MAX_TOKENS)]
BUDGET_DOC = (
    f"Roughly how many tokens the answer may use ({MIN_TOKENS:,} to {MAX_TOKENS:,}; default: the server's budget, "
    f"{DEFAULT_TOKENS:,} unless `rata mcp dev --budget-tokens` says otherwise). What does not fit is left for the next call, which the answer names."
)


class BudgetError(RataError):
    """A budget outside `MIN_TOKENS`..`MAX_TOKENS` (the server-wide setting; a call's argument is checked by its schema)."""


def checked(value: int) -> int:
    """`value` as the server's budget, or `BudgetError` naming the bounds."""
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_TOKENS <= value <= MAX_TOKENS:
        raise BudgetError(
            f"--budget-tokens {value!r} is outside {MIN_TOKENS:,} to {MAX_TOKENS:,}.",
            hint=f"Pick a number in that range; {DEFAULT_TOKENS:,} (the default) fits every popular client.",
        )
    return value


def budget_of(ctx: Any, asked: int | None) -> int:
    """The budget of one call: what it asked for (`asked`, checked by its schema), else the server's."""
    if asked is not None:
        return asked
    return int(getattr(ctx.app, "budget_tokens", DEFAULT_TOKENS))


class Fit:
    """Records taken while the answer's text and its JSON each stay within `budget` tokens.

    Start it with the answer's fixed parts (`text`, `value`: the answer with no records), then
    `add` each record's text and JSON value in order until it returns False: that record and the
    ones after it are the next call's. Sizes add up record by record (a rounded-up estimate of
    each, never less than the estimate of the whole)."""

    __slots__ = ("budget", "text_tokens", "json_tokens", "taken")

    def __init__(self, budget: int, text: str = "", value: Any = None, reserve: int = RESERVE) -> None:
        self.budget = budget - reserve
        self.text_tokens = tokens.estimate(text)
        self.json_tokens = tokens.estimate(compact_json(value)) if value is not None else 0
        self.taken = 0

    def fits(self, text: str, value: Any) -> bool:
        """True when one more record (its text and JSON value) would still fit; counts nothing."""
        return self._sizes(text, value) is not None

    def add(self, text: str, value: Any) -> bool:
        """Take the record when it fits (True); False, taking nothing, when it would not."""
        sizes = self._sizes(text, value)
        if sizes is None:
            return False
        self.text_tokens, self.json_tokens = sizes
        self.taken += 1
        return True

    def room(self) -> int:
        """Tokens left for records in the larger of the two forms (never below 0)."""
        return max(0, self.budget - max(self.text_tokens, self.json_tokens))

    def _sizes(self, text: str, value: Any) -> tuple[int, int] | None:
        text_tokens = self.text_tokens + tokens.estimate(text) + 1  # + its line break or separator
        json_tokens = self.json_tokens + tokens.estimate(compact_json(value)) + 1
        if max(text_tokens, json_tokens) > self.budget:
            return None
        return text_tokens, json_tokens


def take(records: list[Any], fit: Fit, text: Callable[[Any], str], value: Callable[[Any], Any] = lambda record: record) -> int:
    """How many of `records`, from the first, fit (`Fit.add` each until one does not)."""
    for count, record in enumerate(records):
        if not fit.add(text(record), value(record)):
            return count
    return len(records)


def shorten(text: str, chars: int) -> str:
    """`text` cut in the middle to about `chars` characters, saying how many were left out (its head and tail kept)."""
    if len(text) <= chars:
        return text
    keep = max(chars - 40, 2)
    head, tail = keep * 2 // 3, keep - keep * 2 // 3
    return f"{text[:head]} [... {len(text) - head - tail:,} characters left out ...] {text[len(text) - tail:] if tail else ''}"


def next_call(tool: str, arguments: dict[str, Any]) -> str:
    """The exact call that gets the next part, as an agent writes it: ``read_log_entries {"before": "...", "limit": 20}``.

    Arguments with the value None are left out (they are the defaults)."""
    given = {name: value for name, value in arguments.items() if value is not None}
    return f"{tool} {json.dumps(given, ensure_ascii=False, separators=(', ', ': '))}"


def cut_note(shown: str, left: str, budget: int, tool: str, arguments: dict[str, Any]) -> str:
    """The note of an answer cut to its budget: what it shows, what it left out, and the call that gets the rest.

    ``cut_note("the newest 412 entries", "older entries", 10_000, "read_log_entries", {...})`` reads
    "Cut to fit the 10,000-token budget: this shows the newest 412 entries; older entries did not fit.
    Get them with read_log_entries {...}."
    """
    return f"Cut to fit the {budget:,}-token budget: this shows {shown}; {left} did not fit. Get them with {next_call(tool, arguments)}."
