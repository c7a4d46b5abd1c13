"""The plan of `rata mcp install`: the launch command, a client's entry and snippet, and `--write`.

`plan_install` works out the launch command and the client's entry and returns a `Plan`
(snippet, files per OS, add command, install link, warnings). `write_plan` merges the entry
into the client's project-scoped file: other servers, unknown keys and (in JSONC files)
comments are kept, the file is replaced atomically, an unchanged entry is not rewritten, and a
file that does not parse is left as it is.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rata.install import clients as _clients
from rata.install.clients import ALL, PROJECT, USER, Client, Launch
from rata.install.files import InstallError, WriteRefusedError, edit
from rata.install.merge import merge_text
from rata.loader import LoadedApp

DEV_NAME = "rata"
VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PORTABLE_NAME = re.compile(r"^[a-z][a-z0-9]{0,9}$")
CREATED, UPDATED, UNCHANGED = "created", "updated", "unchanged"



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
        for c in _clients.CLIENTS
    ]


def get_client(name: str) -> Client:
    found = _clients.find_client(name)
    meant = _clients.AMBIGUOUS.get(name.strip().lower())
    if found is None and meant:
        titles = {c.key: c.title for c in _clients.CLIENTS}
        which = " or ".join(f"--client {key} ({titles[key]})" for key in meant)
        raise InstallError(f"{name!r} names more than one MCP client.", hint=f"Say which: {which}.")
    if found is None:
        import difflib

        names = _clients.client_names() + [a for c in _clients.CLIENTS for a in c.aliases]
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


NEW_PROJECT_VENV = ".venv"
"""The virtual environment a new app's README creates in the project, and its `.mcp.json` names."""


def in_project_launch(program: str, env: dict[str, str] | None = None) -> Launch:
    """`rata mcp dev` as a project file names it: the project's own environment, relative to the project.

    The one rule for the dev entry of a file teams commit (`.mcp.json`), used by `--dev --write` and by
    `rata new`: `program` is the environment's `rata` relative to the project (``.venv/bin/rata``), so the
    entry holds no path of one machine and starts without the environment on the client's PATH; the
    client starts it in the project folder, where `rata mcp dev` finds the app by itself.
    """
    return Launch(program, ("mcp", "dev"), dict(env or {}))


def new_project_dev_file() -> tuple[str, str]:
    """The project file `rata new` registers `rata mcp dev` in, and its text: Claude Code's `.mcp.json`,
    naming the project's ``.venv`` (POSIX layout) by `in_project_launch`, as `--dev --write` run from it does."""
    client = _clients.find_client("claude-code")
    assert client is not None and client.project_file is not None
    launch = in_project_launch(f"{NEW_PROJECT_VENV}/bin/rata")
    return client.project_file, client.render(client.document(DEV_NAME, client.entry(DEV_NAME, launch)))


def _inside(program: str, project: Path | None) -> str | None:
    """`program` relative to `project` (with '/'), when it lies inside it."""
    if project is None:
        return None
    folder = Path(os.path.realpath(project))
    path = Path(os.path.realpath(os.path.dirname(program)), os.path.basename(program))  # not the script itself: it may be a link
    return path.relative_to(folder).as_posix() if folder in path.parents else None


def resolve_launch(loaded: LoadedApp, *, spec: str | None = None, dev: bool = False, cwd: Path | None = None, in_project: bool = False) -> Launch:
    """The absolute command that starts the app's server (or `rata mcp dev` for it) from any folder.

    With `dev` and `in_project` (a client that starts a project file's servers in the project folder),
    an environment inside the project is named relative to it instead (`in_project_launch`).
    """
    cwd = cwd or Path.cwd()
    env = _base_env()
    if dev:
        rata = _script("rata")
        command, base = (str(rata), ("mcp", "dev")) if rata else (_python(), ("-m", "rata", "mcp", "dev"))
        relative = _inside(command, loaded.project) if in_project and rata else None
        if relative is not None:
            return in_project_launch(relative, env)
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
    rule = client.name_rule(name) if client.name_rule else None
    if rule:
        out.append(rule)
    if client.tool_limit is None:
        return out
    long = [(t, shown) for t in tools if (shown := client.visible_tool_name(name, t)) and len(shown) > client.tool_limit]
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
    launch = resolve_launch(loaded, spec=spec, dev=dev, in_project=client.in_project)
    server = client.entry(name, launch)
    snippet = client.render(client.document(name, server))
    files = [(USER, os_name, path) for os_name, path in client.user_files]
    project_file = client.project_path(name)
    if project_file:
        files.insert(0, (PROJECT, ALL, project_file))
    warnings += tool_warnings(client, name, tools)
    for key, value in launch.env.items():
        if any(c in value for c in "${") or value.startswith("!"):
            warnings.append(f"The value of {key} contains '$', '{{' or a leading '!', which some clients rewrite.")
    return Plan(client, name, dev, launch, server, snippet, files, project_file, client.add_command(name, launch), client.install_link(name, launch), warnings)


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

    edited = edit(path, change)
    status = CREATED if edited.old is None else UNCHANGED if edited.new == edited.old else UPDATED
    shown = os.path.islink(path) or Path(os.path.realpath(project)) not in edited.target.parents
    return WriteResult(path, status, client.trust, edited.target if shown else None, tuple(kept) if status == UPDATED else ())
