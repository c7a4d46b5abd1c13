"""Merge rata's entry into a client file's text, keeping every byte outside it; and the diff shown when it differs.

`merge_text` picks the client's way: a file of its own (Continue) is replaced whole, a shared
file is edited in its format (JSON and JSONC with `jsonc`, TOML with `tomledit`) and parsed again
to check the edit. `merge_entry` is rata's entry over an existing one of the same name.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rata.install.clients import Client
from rata.install.files import EntryExistsError, WriteRefusedError
from rata.install.formats import JSON, JSONC, TOML, Format

ENV_KEYS = ("env", "environment", "envs")
MAX_DIFF_LINES = 80
MAX_DIFF_WIDTH = 240
MAX_DIFF_INPUT = 4000  # lines of both sides together, beyond which no line-by-line diff is computed


@dataclass(frozen=True)
class Merged:
    text: str  # the file's new text (the old text when nothing changes)
    kept: tuple[str, ...] = ()


def merge_text(client: Client, name: str, entry: dict[str, Any], snippet: str, old: str | None, *, replace: bool = False, where: str = "the file") -> Merged:
    """The client file's text with `entry` under `name`; every byte outside that entry is kept.

    Raises:
        EntryExistsError: a different entry of that name is there and `replace` is false.
        WriteRefusedError: `old` does not parse, or cannot be edited without changing anything else.
    """
    if client.own_file:
        return _merge_whole_file(name, snippet, old, replace, where)
    merge = _MERGE.get(client.format)
    if merge is None:
        raise WriteRefusedError(
            f"rata cannot merge an entry into a {client.syntax.upper()} file such as {where!r}; it was left unchanged.",
            hint="Paste the snippet above yourself.",
        )
    return merge(client, name, entry, snippet, old, replace, where)


def merge_entry(client: Client, existing: Any, ours: dict[str, Any]) -> tuple[Any, tuple[str, ...]]:
    """Rata's entry over an existing one: rata's launch keys win, the rest of the old entry stays.

    Environment variables merge one by one (rata sets only its own); keys rata writes only as
    defaults (`disabled`, `autoApprove`, `enabled`, ...) keep the user's value. Returns the
    merged entry and what it kept of the old one.
    """
    if not isinstance(existing, dict):
        return ours, ()
    defaults = client.default_keys()
    out = dict(existing)
    kept = [key for key in existing if key not in ours]
    for key, value in ours.items():
        old = existing.get(key)
        if key in ENV_KEYS and isinstance(value, dict) and isinstance(old, dict):
            out[key] = {**old, **value}
            kept += [f"{key}.{var}" for var in old if var not in value]
        elif key in defaults and key in existing:
            if old != value:
                kept.append(key)
        else:
            out[key] = value
    return out, tuple(kept)


def _settle(client: Client, name: str, servers: dict[str, Any], ours: dict[str, Any], replace: bool, where: str) -> tuple[Any, tuple[str, ...]] | None:
    """The value to write under `name`, and what it kept; None when the file already has it."""
    if name not in servers:
        return ours, ()
    existing = servers[name]
    merged, kept = merge_entry(client, existing, ours)
    if same(merged, existing):
        return None
    if not replace:
        raise _exists(where, name, entry_diff(client, name, where, existing, merged, ours))
    return merged, kept


def _exists(where: str, name: str, diff: str) -> EntryExistsError:
    return EntryExistsError(
        f"{where!r} already has a server named {name!r} that differs from what rata would write; it was left unchanged.",
        hint=(
            "Compare them above. Pass --replace to write rata's entry (it keeps the entry's other keys and environment variables), "
            "or --name to add it under another name."
        ),
        diff=diff,
    )


def same(a: Any, b: Any) -> bool:
    """Equal as data, with NaN equal to NaN (TOML has nan)."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _masked(value: Any, ours: dict[str, Any]) -> Any:
    """`value` with the values of environment variables rata does not set hidden (they are kept as they are)."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in ENV_KEYS:
        if isinstance(out.get(key), dict):
            mine = ours.get(key) if isinstance(ours.get(key), dict) else {}
            out[key] = {var: (v if var in mine else "***") for var, v in out[key].items()}
    return out


def _show(client: Client, name: str, value: Any) -> str:
    if client.format is TOML:
        import tomli_w

        try:
            return tomli_w.dumps({"mcp_servers": {name: value}})
        except (TypeError, ValueError):
            return repr(value)
    text = json.dumps({name: value}, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps({name: value}, indent=2)
    return text


def entry_diff(client: Client, name: str, where: str, existing: Any, merged: Any, ours: dict[str, Any]) -> str:
    """A unified diff from the entry in the file to the one rata would write (hidden: other env values)."""
    return _diff(_show(client, name, _masked(existing, ours)), _show(client, name, _masked(merged, ours)), where)


def _diff(a: str, b: str, where: str) -> str:
    """A unified diff, bounded: at most MAX_DIFF_LINES lines of at most MAX_DIFF_WIDTH characters."""
    import difflib

    old, new = a.splitlines(), b.splitlines()
    if len(old) + len(new) > MAX_DIFF_INPUT:  # difflib is quadratic at worst: show both sides' heads instead
        half = MAX_DIFF_LINES // 2
        lines = [f"--- {where} (now): {len(old)} lines", *("-" + line for line in old[:half])]
        lines += [f"+++ rata's entry: {len(new)} lines", *("+" + line for line in new[:half])]
    else:
        lines = list(difflib.unified_diff(old, new, f"{where} (now)", "rata's entry", lineterm=""))
    lines = [line if len(line) <= MAX_DIFF_WIDTH else line[:MAX_DIFF_WIDTH] + f"... ({len(line)} characters)" for line in lines]
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... and {len(lines) - MAX_DIFF_LINES} more lines"]
    return "\n".join(lines) + "\n"


def _unparsable(where: str, detail: str) -> WriteRefusedError:
    return WriteRefusedError(
        f"{where!r} cannot be parsed ({detail}); it was left unchanged.",
        hint="Fix the file (the client cannot read it either), or paste the snippet above yourself.",
    )


def _unreadable(where: str, error: BaseException) -> WriteRefusedError:
    if isinstance(error, RecursionError):
        return _unparsable(where, "it is nested too deeply")
    return _unparsable(where, "it holds a number too long to read, more than 4,300 digits")


def _blank(old: str | None) -> bool:
    return old is None or not old.strip(" \t\r\n")


def _with_breaks(text: str, like: str | None) -> str:
    """`text` (LF) with the line breaks of `like`."""
    from rata.install import jsonc

    return text.replace("\n", "\r\n") if like and jsonc.line_break(like) == "\r\n" else text


def _merge_json(client: Client, name: str, entry: dict[str, Any], snippet: str, old: str | None, replace: bool, where: str) -> Merged:
    from rata.install import jsonc

    top = client.server_key
    if old is None or _blank(old):
        return Merged(_with_breaks(snippet, old))
    if client.format is JSON:
        try:
            json.loads(old)
        except json.JSONDecodeError as error:
            raise _unparsable(where, f"{error.msg} at line {error.lineno}, column {error.colno}; {client.title} wants strict JSON") from None
        except (ValueError, RecursionError) as error:
            raise _unreadable(where, error) from None
    try:
        current = jsonc.loads(old)
    except jsonc.JsoncError as error:
        raise _unparsable(where, str(error)) from None
    if not isinstance(current, dict) or not isinstance(current.get(top, {}), dict):
        raise _unparsable(where, f"its top level, or its {top!r}, is not an object")
    settled = _settle(client, name, current.get(top, {}), entry, replace, where)
    if settled is None:
        return Merged(old)
    value, kept = settled
    try:
        return Merged(jsonc.set_server(old, top, name, value), kept)
    except jsonc.JsoncError as error:
        raise WriteRefusedError(
            f"rata cannot edit {where!r} without changing more than its entry ({error}); it was left unchanged.", hint="Paste the snippet above yourself."
        ) from None


def _merge_toml(client: Client, name: str, entry: dict[str, Any], snippet: str, old: str | None, replace: bool, where: str) -> Merged:
    import tomllib

    import tomli_w

    from rata.install import tomledit

    if old is None or _blank(old):
        return Merged((old or "") + _with_breaks(tomli_w.dumps({"mcp_servers": {name: entry}}), old))
    try:
        current = tomllib.loads(old)
    except tomllib.TOMLDecodeError as error:
        raise _unparsable(where, str(error)) from None
    except (ValueError, RecursionError) as error:
        raise _unreadable(where, error) from None
    servers = current.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise _unparsable(where, "its mcp_servers is not a table")
    settled = _settle(client, name, servers, entry, replace, where)
    if settled is None:
        return Merged(old)
    value, kept = settled
    try:
        new = tomledit.set_entry(old, ["mcp_servers", name], tomli_w.dumps({"mcp_servers": {name: value}}))
        expected = copy.deepcopy(current)
        expected.setdefault("mcp_servers", {})[name] = value
        ok = same(tomllib.loads(new), expected)
    except (ValueError, TypeError, RecursionError):
        ok = False
    if not ok:
        raise WriteRefusedError(
            f"{where!r} defines mcp_servers.{name} in a form rata cannot replace safely (an inline table or dotted keys); it was left unchanged.",
            hint=f"Remove the old {name!r} entry, or paste the snippet above yourself.",
        )
    return Merged(new, kept)


def _merge_whole_file(name: str, snippet: str, old: str | None, replace: bool, where: str) -> Merged:
    """A per-server drop-in file (Continue's `.continue/mcpServers/NAME.yaml`): it holds only this server."""
    if old is None:
        return Merged(snippet)
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        try:
            yaml.safe_load(old)
        except yaml.YAMLError as error:
            raise _unparsable(where, str(error).splitlines()[0]) from None
        except (ValueError, RecursionError) as error:
            raise _unreadable(where, error) from None
    if old.replace("\r\n", "\n") == snippet:
        return Merged(old)
    if not replace:
        raise _exists(where, name, _diff(old.replace("\r\n", "\n"), snippet, where))
    return Merged(_with_breaks(snippet, old))


# How an entry is merged into a shared file, per format (YAML files are only ever a client's own, or printed).
_MERGE: dict[Format, Callable[[Client, str, dict[str, Any], str, str | None, bool, str], Merged]] = {JSON: _merge_json, JSONC: _merge_json, TOML: _merge_toml}
