"""What `database_query` answers, cut to the call's token budget, and the text a model reads of it.

`run_query_isolated` (`rata.dev_server.database`) gives the rows after ``offset`` (at most
``limit``, and no more than any budget lets through); `query_answer` takes them while the
answer, as text and as JSON, stays within the budget (`rata.dev_server.budget.Fit`), cuts at a
row boundary, and names the next call (``offset`` set to ``next_offset``). `query_text` is
the text: one compact table, a header line and a line a row, cells between `` | ``.

A cell is written so that the table keeps its shape whatever the database holds (`cell_text`):
a backslash, a ``|``, a line break, a tab and any other character that is not printable are
escaped (``\\\\``, ``\\|``, ``\\n``, ``\\r``, ``\\t``, ``\\xNN``, ``\\uNNNN``); NULL is ``NULL``,
the text ``NULL`` is ``\\NULL``, an empty text is ``""`` and the text ``""`` is ``\\""``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rata import tokens
from rata.cleantext import escape
from rata.dev_server import budget, database

TOOL = "database_query"
_PLAIN = re.compile(r"[^\\|]*")
_ESCAPES = {"\\": "\\\\", "|": "\\|", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)
SQL_IN_NOTE = 20
"""The SQL is repeated in the note's next call while its JSON takes at most 1/SQL_IN_NOTE of the budget; a longer one is named "the same sql"."""
ELLIPSIS = "…"


def cell_text(value: Any) -> str:
    """One cell as the text table writes it (see the module's docstring): one line, no bare ``|``."""
    if value is None:
        return "NULL"
    if not isinstance(value, str):
        return str(value)
    if value == "":
        return '""'
    if value.isprintable() and _PLAIN.fullmatch(value):
        text = value
    else:
        text = "".join(_ESCAPES.get(c) or (c if c.isprintable() or c == " " else escape(c)) for c in value)
    return "\\" + text if text in ("NULL", '""') else text


def row_line(cells: list[Any]) -> str:
    """A row (or the header) as one line of the table."""
    return " | ".join(cell_text(cell) for cell in cells)


def query_text(answer: dict[str, Any]) -> str:
    """The text of a `database_query` answer: the table, then the counts, then the note."""
    lines = [row_line(answer["columns"]) if answer["columns"] else "(the statement returns no columns)"]
    lines += [row_line(row) for row in answer["rows"]]
    count = answer["row_count"]
    counts = f"{count} row{'' if count == 1 else 's'} in {answer['elapsed_ms']} ms"
    if answer["more_rows"]:
        counts += f"; more follow from offset {answer['next_offset']}"
    lines.append(counts + ".")
    if answer["note"]:
        lines.append(answer["note"])
    return "\n".join(lines)


def empty_answer(note: str) -> dict[str, Any]:
    return _answer([], [], False, None, 0.0, note)


def _answer(columns: list[str], rows: list[list[Any]], more: bool, next_offset: int | None, elapsed_ms: float, note: str) -> dict[str, Any]:
    return {
        "columns": columns,
        "rows": rows,
        "row_count": len(rows),
        "more_rows": more,
        "next_offset": next_offset,
        "elapsed_ms": elapsed_ms,
        "note": note,
    }


def query_answer(path: Path, sql: str, limit: int, offset: int, limit_tokens: int, asked_tokens: int | None) -> dict[str, Any]:
    """Run `sql` on the database at `path` (its own process) and cut its rows to `limit_tokens` (`asked_tokens`: the call's own)."""
    result = database.run_query_isolated(path, sql, limit, offset=offset, fetch_bytes=limit_tokens * tokens.BYTES_PER_TOKEN)
    notes = _notes_before(result, offset)
    columns, rows = list(result.columns), list(result.rows)
    arguments = {
        "sql": _sql_for_note(sql, limit_tokens),
        "limit": None if limit == database.DEFAULT_ROWS else limit,
        "offset": 0,
        "budget_tokens": asked_tokens,
    }
    wide = f"Row {offset + 1} is wider than the whole budget: its long cells (and column names) are shortened to fit."
    worst = _note([*notes, wide], offset, offset + limit, limit, limit_tokens, arguments, sql, shown=limit, budget_cut=True)

    def fit_for(columns: list[str]) -> budget.Fit:
        empty = _answer(columns, [], True, offset + limit, result.elapsed_ms, worst)
        return budget.Fit(limit_tokens, query_text(empty), empty)

    fit = fit_for(columns)
    fetched = len(rows)
    shown = budget.take(rows, fit, row_line)
    if shown == 0 and (rows or not fit.fits("", None)):
        columns, rows = _shrunk(columns, rows[:1], fit_for)
        shown = len(rows)
        notes.append(wide if rows else "The column names are wider than the whole budget: they are shortened to fit.")
    more = result.more_rows or shown < fetched
    next_offset = offset + shown if more else None
    budget_cut = shown < fetched or fetched < limit
    note = _note(notes, offset, next_offset, limit, limit_tokens, arguments, sql, shown=shown, budget_cut=budget_cut)
    return _answer(columns, rows[:shown], more, next_offset, result.elapsed_ms, note)


def _notes_before(result: database.QueryResult, offset: int) -> list[str]:
    notes = []
    if result.columns_total > len(result.columns):
        notes.append(f"The result has {result.columns_total} columns; only the first {database.MAX_COLUMNS} are shown: select fewer columns.")
    if result.skipped < offset:
        notes.append(f"The result has only {result.skipped} rows: offset {offset} is past its end.")
    return notes


def _note(
    notes: list[str], offset: int, next_offset: int | None, limit: int, limit_tokens: int, arguments: dict[str, Any], sql: str, *, shown: int, budget_cut: bool
) -> str:
    """The answer's note: what was said before, what was left out and the call that gets it, and whether the order is stable."""
    said = list(notes)
    if next_offset is not None:
        following = {**arguments, "offset": next_offset}
        if budget_cut:
            said.append(budget.cut_note(f"{shown} rows from offset {offset}", "the rows after them", limit_tokens, TOOL, following))
        else:
            said.append(f"This shows {shown} rows from offset {offset} (limit {limit}); more follow. Get them with {budget.next_call(TOOL, following)}.")
    if (next_offset is not None or offset > 0) and not _ORDER_BY.search(sql):
        said.append("The statement has no ORDER BY, so SQLite may return its rows in another order on the next call: add one to page through them.")
    return " ".join(said)


def _sql_for_note(sql: str, limit_tokens: int) -> str:
    """The SQL as the note's next call repeats it, or "<the same sql>" when repeating it would take much of the budget."""
    if tokens.estimate(budget.compact_json(sql)) * SQL_IN_NOTE <= limit_tokens:
        return sql
    return "<the same sql>"


def _shrunk(columns: list[str], rows: list[list[Any]], fit_for: Any) -> tuple[list[str], list[list[Any]]]:
    """The first row (and the column names) with their long cells shortened until they fit: the one cut inside a record."""
    for chars in (160, 80, 40, 20, 10, 5, 0):
        names = [_clip(name, chars) for name in columns]
        row = [[_clip(cell, chars) for cell in row] for row in rows]
        fit = fit_for(names)
        if fit.add(row_line(row[0]), row[0]) if row else fit.fits("", None):
            return names, row
    return [_clip(name, 0) for name in columns], [[ELLIPSIS] * len(row) for row in rows]


def _clip(value: Any, chars: int) -> Any:
    """A cell cut to about `chars` characters: in the middle, saying how much was left out, or at its end with an ellipsis when tiny."""
    if chars == 0 and value is not None:
        return ELLIPSIS
    if not isinstance(value, str) or len(value) <= chars:
        return value
    return budget.shorten(value, chars) if chars >= 80 else value[:chars] + ELLIPSIS
