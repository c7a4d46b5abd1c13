"""What `database_schema` answers, cut to the call's token budget, and the text a model reads of it.

The tables, views and triggers come by name (`rata.dev_server.database.schema_objects`), each
described only when it is taken: an answer takes them while its text and its JSON stay within
the budget (`rata.dev_server.budget.Fit`), cuts between two of them, and names the next call
(``after`` set to ``next_after``, the last name shown). The text is one block a table (its
name and row count, then a line a column, index and foreign key), then the views and the
triggers with their SQL; every name, type, default and SQL line is kept to one line
(`one_line`), so a block keeps its shape whatever the database holds.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from rata import tokens
from rata.cleantext import escape
from rata.dev_server import budget, database

TOOL = "database_schema"
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
SQL_CHARS = 2_000
"""A view's or trigger's SQL is shortened in the middle past this many characters."""
VALUE_CHARS = 200
"""A column's type or default is shortened in the middle past this many characters."""


def one_line(text: str) -> str:
    """`text` on one line: a backslash and every character that is not printable (a line break among them) escaped."""
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(_ESCAPES.get(c) or (c if c.isprintable() else escape(c)) for c in text)


def _rows(count: int) -> str:
    return f"{count:,} row{'' if count == 1 else 's'}"


def table_block(table: dict[str, Any]) -> str:
    """One table: ``table NAME: N rows``, then a line a column (``name TYPE [PK] [NOT NULL] [= default]``), index and foreign key."""
    lines = [f"table {one_line(table['name'])}: {_rows(table['rows'])}"]
    for column in table.get("columns", []):
        parts = [one_line(column["name"])] + ([one_line(column["type"])] if column["type"] else [])
        parts += ["PK"] * column["primaryKey"] + ["NOT NULL"] * (not column["nullable"])
        parts += [f"= {one_line(column['default'])}"] if column["default"] is not None else []
        lines.append("  " + " ".join(parts))
    lines.extend(
        f"  index {one_line(index['name'])}{' UNIQUE' if index['unique'] else ''} ({', '.join(one_line(c) for c in index['columns'])})"
        for index in table.get("indexes", [])
    )
    for key in table.get("foreignKeys", []):
        actions = [f"ON {event} {key[field]}" for event, field in (("DELETE", "onDelete"), ("UPDATE", "onUpdate")) if key[field] != "NO ACTION"]
        lines.append(" ".join([f"  foreign key {one_line(key['column'])} -> {one_line(key['references'])}", *actions]))
    if table.get("left_out"):
        lines.append(f"  ({one_line(table['left_out'])})")
    return "\n".join(lines)


def _sql_lines(sql: str | None) -> list[str]:
    return ["  " + one_line(line) for line in (sql or "(no SQL)").split("\n")]


def view_block(view: dict[str, Any]) -> str:
    return "\n".join([f"view {one_line(view['name'])}", *_sql_lines(view["sql"])])


def trigger_block(trigger: dict[str, Any]) -> str:
    return "\n".join([f"trigger {one_line(trigger['name'])} on {one_line(trigger['table'])}", *_sql_lines(trigger["sql"])])


BLOCKS = {"table": table_block, "view": view_block, "trigger": trigger_block}


def schema_text(answer: dict[str, Any]) -> str:
    """The text of a `database_schema` answer: a block a table, view and trigger, then the note."""
    if not answer["exists"]:
        return answer["note"]
    blocks = [f"Schema of {one_line(answer['database'])}, by name:"]
    blocks += [table_block(t) for t in answer["tables"]] + [view_block(v) for v in answer["views"]] + [trigger_block(t) for t in answer["triggers"]]
    if not (answer["tables"] or answer["views"] or answer["triggers"]):
        blocks.append("(nothing)")
    return "\n".join(blocks + ([answer["note"]] if answer["note"] else []))


def new_answer(
    path: Path, exists: bool, records: list[tuple[str, dict[str, Any]]] | None = None, next_after: str | None = None, note: str = ""
) -> dict[str, Any]:
    """The answer's JSON: the records (kind, object) sorted into tables, views and triggers."""
    records = records or []
    return {
        "database": str(path),
        "exists": exists,
        "tables": [r for kind, r in records if kind == "table"],
        "views": [r for kind, r in records if kind == "view"],
        "triggers": [r for kind, r in records if kind == "trigger"],
        "next_after": next_after,
        "note": note,
    }


def schema_answer(path: Path, summary: bool, name_filter: str, after: str, limit_tokens: int, asked_tokens: int | None) -> dict[str, Any]:
    """The schema of the database at `path` from `after` on, cut to `limit_tokens` (`asked_tokens`: the call's own)."""
    conn = database.connect_read_only(path)
    try:
        answer = _answer(conn.connection(), path, summary, name_filter, after, limit_tokens, asked_tokens)
        if conn.changed():  # the app wrote meanwhile: read it again, whole
            answer = _answer(conn.connection(), path, summary, name_filter, after, limit_tokens, asked_tokens)
    finally:
        conn.close()
    return answer


def _answer(conn: sqlite3.Connection, path: Path, summary: bool, name_filter: str, after: str, limit_tokens: int, asked_tokens: int | None) -> dict[str, Any]:
    objects = database.schema_objects(conn, name_filter, after or None, summary)
    arguments = {"summary": summary or None, "filter": name_filter or None, "after": "", "budget_tokens": asked_tokens}
    worst = _note(len(objects), len(objects), "x" * 40, limit_tokens, arguments, wide="x" * 200)
    empty = new_answer(path, True, [], "x" * 40, worst)
    fit = budget.Fit(limit_tokens, schema_text(empty), empty)
    records: list[tuple[str, dict[str, Any]]] = []
    for kind, name, table, sql in objects:
        record = _bounded(database.describe(conn, kind, name, table, sql, summary))
        if not fit.add(BLOCKS[kind](record), record):
            break
        records.append((kind, record))
    wide = None
    if not records and objects:  # one object larger than the whole budget: shortened inside
        kind, name, table, sql = objects[0]
        record, wide = _shrunk(kind, _bounded(database.describe(conn, kind, name, table, sql, summary)), fit)
        records.append((kind, record))
    while records and len(records) < len(objects) and records[-1][1]["name"] == objects[len(records)][1] and len(records) > 1:
        records.pop()  # never between a table and a trigger of the same name: `after` would skip the second
    answer = _final(path, objects, records, limit_tokens, arguments, wide, name_filter, after)
    while len(records) > 1 and max(_sizes(answer)) > limit_tokens:  # a long name in the note: one object fewer
        records.pop()
        answer = _final(path, objects, records, limit_tokens, arguments, wide, name_filter, after)
    return answer


def _final(
    path: Path,
    objects: list[Any],
    records: list[tuple[str, dict[str, Any]]],
    limit_tokens: int,
    arguments: dict[str, Any],
    wide: str | None,
    name_filter: str,
    after: str,
) -> dict[str, Any]:
    next_after = records[-1][1]["name"] if len(records) < len(objects) else None
    note = _note(len(records), len(objects), next_after, limit_tokens, arguments, wide) if next_after is not None else (wide or "")
    if not objects:
        note = _nothing(name_filter, after)
    return new_answer(path, True, records, next_after, note)


def _nothing(name_filter: str, after: str) -> str:
    if after:
        return f"No table, view or trigger{f' whose name contains {name_filter!r}' if name_filter else ''} sorts after {after!r}."
    if name_filter:
        return f"No table name contains {name_filter!r}."
    return "The database has no tables yet: run `rata migrate`."


def _note(shown: int, total: int, next_after: str | None, limit_tokens: int, arguments: dict[str, Any], wide: str | None = None) -> str:
    said = [wide] if wide else []
    following = {**arguments, "after": next_after}
    said.append(budget.cut_note(f"{shown} of {total} tables, views and triggers, up to {next_after!r}", f"{total - shown} more", limit_tokens, TOOL, following))
    return " ".join(said)


def _sizes(answer: dict[str, Any]) -> tuple[int, int]:
    return tokens.estimate(schema_text(answer)), tokens.estimate(budget.compact_json(answer))


def _bounded(record: dict[str, Any]) -> dict[str, Any]:
    """A record with its SQL, column types and defaults shortened in the middle when huge."""
    if "sql" in record and record["sql"] is not None:
        record["sql"] = budget.shorten(record["sql"], SQL_CHARS)
    for column in record.get("columns", []):
        column["type"] = budget.shorten(column["type"], VALUE_CHARS)
        if column["default"] is not None:
            column["default"] = budget.shorten(column["default"], VALUE_CHARS)
    return record


def _shrunk(kind: str, record: dict[str, Any], fit: budget.Fit) -> tuple[dict[str, Any], str]:
    """One object larger than the whole budget, cut until it fits: a table to its first columns, indexes and
    foreign keys, a view's or trigger's SQL in the middle. The note says what was left out and where to read it."""
    fraction = 1.0
    while True:
        fraction /= 2
        smaller = dict(record)
        if kind == "table":
            counts = {part: len(record.get(part, [])) for part in ("columns", "indexes", "foreignKeys")}
            for part, count in counts.items():
                smaller[part] = record.get(part, [])[: int(count * fraction)]
            kept = {part: len(smaller[part]) for part in counts}
            smaller["left_out"] = ", ".join(f"{kept[p]} of {counts[p]} {p}" for p in counts if kept[p] < counts[p]) + " shown"
            said = (
                f"Table {record['name']!r} is larger than the whole budget: {smaller['left_out']}; read the rest with database_query "
                f"and PRAGMA table_info, index_list or foreign_key_list."
            )
        else:
            smaller["sql"] = budget.shorten(record["sql"] or "", int(SQL_CHARS * fraction))
            said = f"The SQL of {record['name']!r} is larger than the whole budget: it is shortened in the middle."
        if fit.fits(BLOCKS[kind](smaller), smaller) or fraction < 1e-3:
            if kind == "table":
                smaller.pop("left_out")
            return smaller, said
