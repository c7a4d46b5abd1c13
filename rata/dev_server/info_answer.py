"""The texts a model reads of `migration_status` and `app_info`, and `migration_status` cut to the token budget.

Both are ``key: value`` lines; `migration_status` has one line a migration
(``0001 create_customers: applied 2026-07-28T09:00:00Z``), taken by version while the answer, as
text and as JSON, stays within the budget (`rata.dev_server.budget.Fit`); a cut names the next
call (``after`` set to ``next_after``, the last version shown). Every value from the database
or the disk is kept to one line (`rata.dev_server.schema_answer.one_line`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rata.dev_server import budget
from rata.dev_server.schema_answer import one_line

TOOL = "migration_status"


def migration_line(state: dict[str, Any]) -> str:
    """One migration: ``0001 create_customers: applied 2026-07-28T09:00:00Z`` (pending, changed, missing)."""
    when = f" {one_line(state['applied_at'])}" if state["applied_at"] else ""
    return f"{state['version']:04d} {one_line(state['name'])}: {state['state']}{when}"


def migrations_text(answer: dict[str, Any]) -> str:
    """The text of a `migration_status` answer: where, then a line a migration, then the note."""
    lines = [f"migrations_dir: {one_line(answer['migrations_dir'])}", f"database: {one_line(answer['database'])}"]
    lines += [migration_line(state) for state in answer["migrations"]] or ["(no migrations)"]
    return "\n".join(lines + ([answer["note"]] if answer["note"] else []))


def new_report(folder: Path, path: Path, states: list[dict[str, Any]], next_after: int | None, note: str) -> dict[str, Any]:
    return {"migrations_dir": str(folder), "database": str(path), "migrations": states, "next_after": next_after, "note": note}


def migration_answer(
    folder: Path, path: Path, states: list[dict[str, Any]], notes: list[str], after: int | None, limit_tokens: int, asked_tokens: int | None
) -> dict[str, Any]:
    """`states` (every migration, by version; `notes` about all of them) from after version `after`, cut to `limit_tokens`."""
    candidates = [state for state in states if after is None or state["version"] > after]
    arguments: dict[str, Any] = {"after": None, "budget_tokens": asked_tokens}
    worst = " ".join([*notes, _cut(len(candidates), len(candidates), 10**18, limit_tokens, arguments)])
    empty = new_report(folder, path, [], 10**18, worst)
    fit = budget.Fit(limit_tokens, migrations_text(empty), empty)
    shown = max(budget.take(candidates, fit, migration_line), 1 if candidates else 0)
    said = list(notes)
    next_after = None
    if shown < len(candidates):
        next_after = candidates[shown - 1]["version"]
        said.append(_cut(shown, len(candidates), next_after, limit_tokens, arguments))
    elif after is not None and not candidates:
        said.append(f"No migration has a version after {after}.")
    return new_report(folder, path, candidates[:shown], next_after, " ".join(said))


def _cut(shown: int, total: int, next_after: int, limit_tokens: int, arguments: dict[str, Any]) -> str:
    return budget.cut_note(
        f"{shown} of {total} migrations, up to version {next_after}", f"{total - shown} more", limit_tokens, TOOL, {**arguments, "after": next_after}
    )


def app_info_text(info: dict[str, Any]) -> str:
    """The text of an `app_info` answer: a ``key: value`` line each, a line a log file and a dependency."""
    lines = []
    for key, value in info.items():
        if key == "note":
            continue
        if key == "dependencies":
            lines.append("dependencies:" + ("" if value else " (none)"))
            lines += [
                f"  {one_line(d['name'])}: {one_line(d['required'])}, installed {one_line(d['installed']) if d['installed'] else '(not installed)'}"
                for d in value
            ]
        elif key == "log_files":
            lines.append(f"log_files: {', '.join(one_line(name) for name in value) if value else '(none)'}")
        else:
            lines.append(f"{key}: {_value(value)}")
    return "\n".join(lines + ([info["note"]] if info["note"] else []))


def _value(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return one_line(str(value))
