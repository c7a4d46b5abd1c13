"""A window snapshot as a model reads it, cut at a line to fit the token budget, with the call that gets the rest.

The page renders its accessibility tree one node a line (rata/debug_build/page.js). A page can
have tens of thousands of lines, so `window_snapshot` and `window_act` ask the page for no more
lines than their budget could show (`lines_to_ask`: the shortest line, ``- img``, costs
`MIN_LINE_TOKENS`), keep the lines that fit (`budget.Fit`, the text being the whole answer:
these tools answer with text only), and end with a note naming how many lines were left and
the exact call that continues where this part stopped (``window_snapshot {"from_line": N}``),
or that narrows the snapshot to one element (``root``). Line N of a part is line N of the
page's one whole rendering, so following ``from_line`` until no note is left shows each line
once, in order (while the page does not change).

Every byte here comes from the page and is hostile: the title and route are shortened, the
live-query list is bounded, and a line longer than the whole budget (a page nested thousands
deep) is shortened in the middle, which the note says.
"""

from __future__ import annotations

from typing import Any

from rata import tokens
from rata.dev_server import budget
from rata.errors import RataError

MIN_LINE_TOKENS = 3
"""The fewest tokens a line can cost: the shortest, ``- img`` (5 bytes), estimates 2, plus its line break."""
MAX_FROM_LINE = 10_000_000
HEAD_CHARS = 120
"""A title or route is cut to this many characters, so the head stays small even in a budget of `budget.MIN_TOKENS`."""


class PastTheEnd(RataError):
    """`from_line` is after the snapshot's last line (the page has fewer lines, or changed since)."""


def lines_to_ask(limit: int) -> int:
    """How many lines to ask the page for: no more than a budget of `limit` tokens could show."""
    return max(1, (limit - budget.RESERVE) // MIN_LINE_TOKENS)


def head_of(snap: dict[str, Any]) -> str:
    route = budget.shorten(str(snap.get("route", "")), HEAD_CHARS)
    title = budget.shorten(str(snap.get("title", "")), HEAD_CHARS)
    return f"window: {snap.get('window')}  route: {route}  title: {title}"


def showing_of(snap: dict[str, Any], limit: int) -> list[str]:
    """The live queries the page shows, as lines, while they take at most a tenth of the budget."""
    lines = ["", "showing (live queries, newest first):"]
    fit = budget.Fit(limit // 10, "\n".join(lines), reserve=0)
    taken = budget.take([f"- {line}" for line in snap.get("showing") or []], fit, str)
    return lines + [f"- {line}" for line in (snap.get("showing") or [])[:taken]] if taken else []


def snapshot_text(snap: dict[str, Any], limit: int, arguments: dict[str, Any], intro: str = "") -> str:
    """`snap` (the bridge's snapshot, lines ``from_line + 1`` on) as text within `limit` tokens: `intro` (what an
    action did), the window's head, the lines that fit, the live queries, then the note when lines were left.

    `arguments` are the window_snapshot arguments that repeat the request (window, root, budget_tokens):
    the note adds ``from_line``."""
    first = int(snap.get("from_line") or 0) + 1
    lines = str(snap.get("text") or "").split("\n") if snap.get("text") else []
    total = max(int(snap.get("total_lines") or 0), first - 1 + len(lines))
    if not lines and first > 1:
        raise PastTheEnd(
            f"from_line {first:,} is past the end of the snapshot: window {snap.get('window')!r} now shows {total:,} lines.",
            hint="Take the snapshot from the start (window_snapshot without from_line): the page may have changed since the part that named this line.",
        )
    head = ([budget.shorten(intro, limit // 6), ""] if intro else []) + [head_of(snap)]  # under a quarter of the budget
    showing = showing_of(snap, limit)
    worst_note = _note(first, first + len(lines), total, limit, arguments, shortened=True)
    fixed = "\n".join([*head, "lines 1 to 1 of about 1:", "", *showing, "", worst_note])
    fit = budget.Fit(limit, fixed)
    shown = budget.take(lines, fit, str)
    shortened = False
    if shown == 0 and lines:  # one line longer than the whole budget (nested thousands deep): cut in the middle
        lines[0] = budget.shorten(lines[0], max(100, fit.room() * tokens.BYTES_PER_TOKEN // tokens.MAX_BYTES_PER_CHAR))
        shown, shortened = 1, True
    last = first + shown - 1
    cut = last < total or shortened
    parts = [*head]
    if cut or first > 1:
        parts.append(f"lines {first:,} to {last:,} of {'about ' if last < total else ''}{total:,}:")
    parts += ["", *lines[:shown], *showing]
    if cut:
        parts += ["", _note(first, last, total, limit, arguments, shortened) if last < total else _shortened_only(first)]
    return "\n".join(parts) + "\n"


def _note(first: int, last: int, total: int, limit: int, arguments: dict[str, Any], shortened: bool) -> str:
    rest = {**arguments, "from_line": last + 1}
    note = budget.cut_note(
        f"lines {first:,} to {last:,} of the snapshot", f"about {total - last:,} more lines", limit, "window_snapshot", rest
    )
    narrow = budget.next_call("window_snapshot", {"window": arguments.get("window"), "root": "eN"})
    note += f" Or show one part alone: {narrow}, with the ref of an element around it."
    return note + (f" Line {first:,} was longer than the whole budget and is shortened in the middle." if shortened else "")


def _shortened_only(first: int) -> str:
    return f"Line {first:,} was longer than the whole budget and is shortened in the middle; it is the snapshot's last line."
