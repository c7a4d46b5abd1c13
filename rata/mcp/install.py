"""`rata mcp install`: register an app's MCP server (or `rata mcp dev`) with an MCP client.

`plan_install` works out the launch command and the client's entry and returns a `Plan`
(snippet, files per OS, add command, install link, warnings). `write_plan` merges the entry
into the client's project-scoped file: other servers, unknown keys and (in JSONC files)
comments are kept, the file is replaced atomically, an unchanged entry is not rewritten, and a
file that does not parse is left as it is.
"""

from __future__ import annotations

import copy
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rata.loader import LoadedApp
from rata.mcp import clients as _clients
from rata.mcp import install_file
from rata.mcp.clients import CLIENTS, PROJECT, USER, Client, Launch
from rata.mcp.install_file import EntryExistsError, InstallError, WriteRefusedError

DEV_NAME = "rata"
VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PORTABLE_NAME = re.compile(r"^[a-z][a-z0-9]{0,9}$")
CREATED, UPDATED, UNCHANGED = "created", "updated", "unchanged"


__all__ = ["EntryExistsError", "InstallError", "WriteRefusedError"]


@dataclass
class Plan:
    """Everything `rata mcp install` shows for one client."""

    client: Client
    name: str
    dev: bool
    launch: Launch
    entry: dict[str, Any]
    snippet: str
    files: list[tuple[str, str, str]]  # (scope, OS, path)
    project_file: str | None
    add_command: str | None
    link: str | None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client.key,
            "title": self.client.title,
            "name": self.name,
            "dev": self.dev,
            "format": self.client.syntax,
            "entry": self.entry,
            "snippet": self.snippet,
            "files": [{"scope": s, "os": o, "path": p} for s, o, p in self.files],
            "project_file": self.project_file,
            "add_command": self.add_command,
            "link": self.link,
            "trust": self.client.trust,
            "note": self.client.note,
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class WriteResult:
    path: Path
    status: str  # created, updated, unchanged
    trust: str | None
    target: Path | None = None  # the file written, when `path` is a link to it
    kept: tuple[str, ...] = ()  # what a replaced entry kept of the old one (keys, env.VARIABLE)


# --- the client table, for --list --------------------------------------------------------------


def client_table() -> list[dict[str, Any]]:
    """One row per client: names, format, files per scope and what `--write` does."""
    return [
        {
            "client": c.key,
            "aliases": list(c.aliases),
            "title": c.title,
            "format": c.syntax,
            "key": c.server_key,
            "project_file": c.project_file,
            "user_files": [{"os": o, "path": p} for o, p in c.user_files],
            "write": f"merges into {c.project_file}" if c.project_file else "refuses (no project-scoped file); prints the snippet",
            "trust": c.trust,
        }
        for c in CLIENTS
    ]


def get_client(name: str) -> Client:
    found = _clients.find_client(name)
    if found is None:
        import difflib

        names = _clients.client_names() + [a for c in CLIENTS for a in c.aliases]
        close = difflib.get_close_matches(name.lower(), names, n=1)
        raise InstallError(
            f"There is no MCP client named {name!r}.",
            hint=(f"Did you mean {close[0]!r}? " if close else "") + "See them all with: rata mcp install --list",
        )
    return found


# --- the launch command ------------------------------------------------------------------------


def _scripts_dir() -> Path:
    return Path(os.path.abspath(sys.executable)).parent


def _script(name: str) -> Path | None:
    for candidate in (name, f"{name}.exe"):
        path = _scripts_dir() / candidate
        if path.is_file():
            return path
    return None


def _python() -> str:
    return os.path.abspath(sys.executable)  # not resolved: a venv's python is a symlink that must stay one


def console_script(loaded: LoadedApp) -> Path | None:
    """The app's own console script in this environment (`crm`, made with `main_for`), if it has one."""
    module = loaded.target.partition(":")[0]
    if ".py" in loaded.target or not module:
        return None
    top = module.split(".")[0]
    if top == "rata":
        return None
    scripts = [ep for ep in importlib.metadata.entry_points(group="console_scripts") if ep.module.split(".")[0] == top]
    scripts.sort(key=lambda ep: ep.name != loaded.app.name)
    for ep in scripts:
        path = _script(ep.name)
        if path is not None:
            return path
    return None


def _app_spec(loaded: LoadedApp, spec: str | None, cwd: Path) -> tuple[str, dict[str, str]]:
    """An `--app` value that works from any folder, and any environment it needs."""
    if loaded.project is not None:
        return str(loaded.project), {}
    target = spec or loaded.target
    file_part, sep, attr = target.partition(".py:")
    if target.endswith(".py") or sep:
        file = Path(file_part + ".py" if sep else target)
        file = file if file.is_absolute() else cwd / file
        return str(file.resolve()) + (f":{attr}" if sep else ""), {}
    module = target.partition(":")[0]
    found = importlib.util.find_spec(module.split(".")[0])
    origin = Path(found.origin).resolve() if found is not None and found.origin else None
    if origin is not None and cwd.resolve() in origin.parents and "site-packages" not in origin.parts:
        return target, {"PYTHONPATH": str(cwd.resolve())}  # importable only from the folder it was found in
    return target, {}


def _base_env() -> dict[str, str]:
    home = os.environ.get("RATA_HOME")
    return {"RATA_HOME": os.path.abspath(os.path.expanduser(home))} if home else {}


def resolve_launch(loaded: LoadedApp, *, spec: str | None = None, dev: bool = False, cwd: Path | None = None) -> Launch:
    """The absolute command that starts the app's server (or `rata mcp dev` for it) from any folder."""
    cwd = cwd or Path.cwd()
    env = _base_env()
    if dev:
        rata = _script("rata")
        command, base = (str(rata), ("mcp", "dev")) if rata else (_python(), ("-m", "rata", "mcp", "dev"))
        app_spec, extra = _app_spec(loaded, spec, cwd)
        env.update(extra)
        if loaded.project is not None:
            return Launch(command, base, env, cwd=str(loaded.project), cwd_args=("--app", app_spec))
        return Launch(command, (*base, "--app", app_spec), env)
    script = console_script(loaded)
    if script is not None:
        return Launch(str(script), ("--mcp",), env)
    app_spec, extra = _app_spec(loaded, spec, cwd)
    env.update(extra)
    return Launch(_python(), ("-m", "rata", "mcp", "serve", "--app", app_spec), env)


# --- the plan ----------------------------------------------------------------------------------


def check_name(name: str) -> list[str]:
    """Refuse a server key no client accepts; warn about one that is not portable."""
    if not VALID_NAME.match(name):
        raise InstallError(
            f"The server name {name!r} is not valid: clients accept only letters, digits, '_' and '-' (Codex refuses to start the server).",
            hint="Pass --name with 1-10 lowercase letters and digits, e.g. --name crm.",
        )
    if PORTABLE_NAME.match(name):
        return []
    return [f"The server name {name!r} is not portable: use 1-10 lowercase letters and digits (no '_' or '-'), which every client keeps as is."]


def tool_warnings(client: Client, name: str, tools: list[str]) -> list[str]:
    """Tools whose model-visible name is too long for this client, with this server key."""
    out: list[str] = []
    if client.key == "gemini" and "_" in name:
        out.append(f"Gemini CLI splits policy names on the first '_': {name!r} should not contain '_'.")
    if client.tool_limit is None:
        return out
    long = [(t, shown) for t in tools if (shown := _clients.visible_tool_name(client, name, t)) and len(shown) > client.tool_limit]
    if long:
        what = "server + tool name" if client.tool_format == "{server}{tool}" else "tool name"
        listed = ", ".join(f"{shown!r} ({len(shown)})" for _, shown in long[:3]) + (f" and {len(long) - 3} more" if len(long) > 3 else "")
        out.append(
            f"{client.title} limits the {what} to {client.tool_limit} characters; with the server name {name!r} these are longer: {listed}. "
            "Use a shorter --name or shorter command names."
        )
    return out


def app_tool_names(loaded: LoadedApp) -> list[str]:
    from rata.codegen.catalog import build_catalog

    return [tool["name"] for tool in build_catalog(loaded.app).tools]


def plan_install(client: Client, loaded: LoadedApp, tools: list[str], *, name: str | None = None, dev: bool = False, spec: str | None = None) -> Plan:
    """What to write for `client`: the entry, the snippet, the files, the add command and link."""
    name = name or (DEV_NAME if dev else loaded.app.name)
    warnings = check_name(name)
    launch = resolve_launch(loaded, spec=spec, dev=dev)
    server = _clients.entry(client, name, launch)
    snippet = _clients.render(client, _clients.document(client, name, server))
    files = [(USER, os_name, path) for os_name, path in client.user_files]
    project_file = client.project_path(name)
    if project_file:
        files.insert(0, (PROJECT, _clients.ALL, project_file))
    warnings += tool_warnings(client, name, tools)
    for key, value in launch.env.items():
        if any(c in value for c in "${") or value.startswith("!"):
            warnings.append(f"The value of {key} contains '$', '{{' or a leading '!', which some clients rewrite.")
    return Plan(client, name, dev, launch, server, snippet, files, project_file, _clients.add_command(client, name, launch), _clients.install_link(client, name, launch), warnings)


# --- writing -----------------------------------------------------------------------------------


def current_project(cwd: Path) -> Path:
    """The project `--write` works in: the nearest folder upward with a pyproject.toml or .git, else `cwd`."""
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder
    return cwd


def write_plan(plan: Plan, project: Path, *, replace: bool = False) -> WriteResult:
    """Merge the plan's entry into the client's project-scoped file under `project`.

    The file is edited under a lock, through its links, and replaced atomically. An entry of the
    same name that differs is replaced only with `replace` (keeping what rata does not set).

    Raises:
        EntryExistsError: a different entry of that name is there and `replace` is false.
        WriteRefusedError: the client has no project file, or the file cannot be read, parsed,
            edited safely or written. Nothing was changed.
    """
    client = plan.client
    if plan.project_file is None:
        raise WriteRefusedError(
            f"{client.title} has no project-scoped file, and rata does not edit another application's user settings.",
            hint="Paste the snippet above into the file listed for your OS" + (", or run the add command shown." if plan.add_command else "."),
        )
    path = project / plan.project_file
    kept: list[str] = []

    def change(old: str | None) -> str:
        merged = merge_text(client, plan.name, plan.entry, plan.snippet, old, replace=replace, where=str(path))
        kept[:] = merged.kept
        return merged.text

    edited = install_file.edit(path, change)
    status = CREATED if edited.old is None else UNCHANGED if edited.new == edited.old else UPDATED
    shown = os.path.islink(path) or Path(os.path.realpath(project)) not in edited.target.parents
    return WriteResult(path, status, client.trust, edited.target if shown else None, tuple(kept) if status == UPDATED else ())


# --- merging text ------------------------------------------------------------------------------

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
    if client.family == "continue":
        return _merge_whole_file(name, snippet, old, replace, where)
    if client.syntax == "toml":
        return _merge_toml(client, name, entry, old, replace, where)
    return _merge_json(client, name, entry, snippet, old, replace, where)


def merge_entry(client: Client, existing: Any, ours: dict[str, Any]) -> tuple[Any, tuple[str, ...]]:
    """Rata's entry over an existing one: rata's launch keys win, the rest of the old entry stays.

    Environment variables merge one by one (rata sets only its own); keys rata writes only as
    defaults (`disabled`, `autoApprove`, `enabled`, ...) keep the user's value. Returns the
    merged entry and what it kept of the old one.
    """
    if not isinstance(existing, dict):
        return ours, ()
    defaults = _clients.default_keys(client)
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
    if client.syntax == "toml":
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
    from rata.mcp import jsonc

    return text.replace("\n", "\r\n") if like and jsonc.line_break(like) == "\r\n" else text


def _merge_json(client: Client, name: str, entry: dict[str, Any], snippet: str, old: str | None, replace: bool, where: str) -> Merged:
    from rata.mcp import jsonc

    top = client.server_key
    if old is None or _blank(old):
        return Merged(_with_breaks(snippet, old))
    if client.syntax == "json":
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


def _merge_toml(client: Client, name: str, entry: dict[str, Any], old: str | None, replace: bool, where: str) -> Merged:
    import tomllib

    import tomli_w

    from rata.mcp import tomledit

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
        import yaml  # type: ignore[import-untyped]
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
