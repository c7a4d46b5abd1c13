"""The MCP clients `rata mcp install` knows: one row each, carrying everything about that client.

A row (`Client`) holds the client's names, its file `Format`, where its files are per scope and
OS, the key its servers live under, and its behaviour: the `Shape` that builds its entry for a
server from a `Launch`, the whole file a snippet is, its own add command and install link, and
its tool-name rule. Nothing outside this module branches on a client: adding a client is one
row in `CLIENTS` (`--client`, its help, `--list`, the snippet, `--write`, the add command and
the link all follow from it).

The shapes in use:

==================  ===================================================================
rows                shape
==================  ===================================================================
most                ``{"mcpServers": {NAME: {command, args, env}}}`` (Claude and most others)
``vscode``          ``{"servers": {NAME: {type: "stdio", command, args, env}}}``
``zed``             ``{"context_servers": {NAME: {command, args, env}}}``
``opencode``        ``{"mcp": {NAME: {type: "local", command: [program, *args], environment}}}``
``copilot-cli``     ``{"mcpServers": {NAME: {type: "stdio", command, args, env, tools: ["*"]}}}``
``codex``           ``[mcp_servers.NAME]`` and ``[mcp_servers.NAME.env]`` (TOML)
``continue``        a YAML block file with an ``mcpServers`` list
``goose``           ``extensions: {NAME: {type: stdio, cmd, args, envs}}`` (YAML)
==================  ===================================================================

The facts (files, keys, links, limits) follow the client reference of late 2026; each client's
row says where a file is only believed to be right. The add commands of Claude Code, OpenCode,
Qwen Code and GitHub Copilot CLI are run by the real clients in tests/install/test_real_clients.py.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from rata.codegen.lint import CLAUDE_CODE_LIMIT, CURSOR_LIMIT
from rata.install.formats import JSON, JSONC, TOML, YAML, Format

MAC, LINUX, WINDOWS, ALL = "macOS", "Linux", "Windows", "all"
USER, PROJECT = "user", "project"


@dataclass(frozen=True)
class Launch:
    """How a client starts the server: an absolute command that works from any folder, or, for
    `rata mcp dev` in a client that starts a project's servers in the project folder, a command
    relative to the project (`plan.in_project_launch`).

    `cwd` is the folder the server must run in, if any. A client with a working-folder field
    gets it there; every other client gets `cwd_args` appended to `args` instead.
    """

    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    cwd_args: tuple[str, ...] = ()

    def argv(self, cwd_field: bool) -> list[str]:
        """The arguments for a client with (or without) a working-folder field."""
        return [*self.args, *(() if cwd_field and self.cwd else self.cwd_args)]


Builder = Callable[["Client", str, Launch], dict[str, Any]]
Text = Callable[["Client", str, Launch], "str | None"]


@dataclass(frozen=True)
class Shape:
    """How a client's entry for one server looks: its builder, and the keys it writes only as defaults.

    A default key keeps the user's value when `--replace` merges into an existing entry.
    """

    build: Builder
    defaults: frozenset[str] = frozenset()


def _command_entry(client: Client, name: str, launch: Launch) -> dict[str, Any]:
    """The common shape: the row's fixed fields, then command, args, env, working folder, then its defaults."""
    cwd = launch.cwd if client.cwd_key else None
    out: dict[str, Any] = dict(client.before)
    out["command"] = launch.command
    out["args"] = launch.argv(client.cwd_key is not None)
    if launch.env:
        out["env"] = dict(launch.env)
    if cwd and client.cwd_key:
        out[client.cwd_key] = cwd
    out.update((k, v if not isinstance(v, list) else list(v)) for k, v in client.after)
    return out


def _opencode_entry(client: Client, name: str, launch: Launch) -> dict[str, Any]:
    cwd = launch.cwd if client.cwd_key else None
    out: dict[str, Any] = {"type": "local", "command": [launch.command, *launch.argv(client.cwd_key is not None)]}
    if launch.env:
        out["environment"] = dict(launch.env)
    if cwd:
        out["cwd"] = cwd
    return out


def _goose_entry(client: Client, name: str, launch: Launch) -> dict[str, Any]:
    args = launch.argv(client.cwd_key is not None)
    return {"type": "stdio", "name": name, "enabled": True, "cmd": launch.command, "args": args, "envs": dict(launch.env), "env_keys": [], "timeout": 300}


def _continue_entry(client: Client, name: str, launch: Launch) -> dict[str, Any]:
    return {"name": name, **_command_entry(client, name, launch)}


COMMAND = Shape(_command_entry)
OPENCODE = Shape(_opencode_entry)
GOOSE = Shape(_goose_entry, frozenset({"enabled", "timeout", "env_keys"}))
CONTINUE = Shape(_continue_entry)


def _servers_document(client: Client, name: str, server: dict[str, Any]) -> dict[str, Any]:
    return {client.server_key: {name: server}}


def _opencode_document(client: Client, name: str, server: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "https://opencode.ai/config.json", client.server_key: {name: server}}


def _continue_document(client: Client, name: str, server: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "version": "0.0.1", "schema": "v1", client.server_key: [server]}


@dataclass(frozen=True)
class Client:
    """One MCP client: its names, file format and files, its entry's shape, and its own add command and link."""

    key: str
    title: str
    format: Format
    user_files: tuple[tuple[str, str], ...]  # (OS, path)
    project_file: str | None = None  # relative to the project; {name} is the server key
    server_key: str = "mcpServers"  # the key that holds the servers in the client's file
    aliases: tuple[str, ...] = ()
    trust: str | None = None  # how the client gates a project file
    cwd_key: str | None = None  # the entry's working-folder field, if the client has one
    in_project: bool = False  # starts a project file's servers in the project folder: a command there may be relative to it
    before: tuple[tuple[str, Any], ...] = ()  # fixed fields before command (e.g. type)
    after: tuple[tuple[str, Any], ...] = ()  # fixed fields after env, written only as defaults (e.g. disabled)
    shape: Shape = COMMAND
    wrap: Callable[[Client, str, dict[str, Any]], dict[str, Any]] = _servers_document  # the whole file holding one server
    own_file: bool = False  # the project file holds this server alone, so --write replaces it whole (Continue)
    add: Text | None = None  # the client's own command that registers the server (user scope)
    link: Text | None = None  # a link that adds the server in one click
    name_rule: Callable[[str], str | None] | None = None  # a warning about the server key, if this client has a rule
    tool_format: str | None = None  # the model-visible tool name: {server}, {label}, {tool}
    tool_limit: int | None = None
    note: str | None = None

    @property
    def syntax(self) -> str:
        """The file format's name: json, jsonc, toml or yaml."""
        return self.format.name

    def project_path(self, name: str) -> str | None:
        return self.project_file.format(name=name) if self.project_file else None

    def entry(self, name: str, launch: Launch) -> dict[str, Any]:
        """The client's entry for one server (what goes under NAME)."""
        return self.shape.build(self, name, launch)

    def default_keys(self) -> frozenset[str]:
        """Keys of the entry that rata writes only as a default: an existing entry's value is kept."""
        return self.shape.defaults | {key for key, _ in self.after}

    def document(self, name: str, server: dict[str, Any]) -> dict[str, Any]:
        """A whole file holding just this server: what `rata mcp install` prints."""
        return self.wrap(self, name, server)

    def render(self, value: dict[str, Any]) -> str:
        """Text in the client's file format, ending in a newline."""
        return self.format.dump(value)

    def add_command(self, name: str, launch: Launch) -> str | None:
        """The client's own command that registers the server (user scope), if it has one."""
        return self.add(self, name, launch) if self.add else None

    def install_link(self, name: str, launch: Launch) -> str | None:
        """A link that adds the server in one click, for clients that have one."""
        return self.link(self, name, launch) if self.link else None

    def visible_tool_name(self, server: str, tool: str) -> str | None:
        """The name the model sees for `tool`, before any truncation (None if undocumented)."""
        if self.tool_format is None:
            return None
        return self.tool_format.format(server=server, label=server.lower()[:13], tool=tool)


# --- add commands and install links ------------------------------------------------------------


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _env_flags(flag: str, env: dict[str, str]) -> list[str]:
    return [part for key, value in env.items() for part in (flag, f"{key}={value}")]


def _program(launch: Launch) -> list[str]:
    return [launch.command, *launch.argv(False)]


def _claude_code_add(client: Client, name: str, launch: Launch) -> str:
    # The name comes first: `-e` takes several values and would swallow a name after it.
    return shlex.join(["claude", "mcp", "add", name, "--scope", "user", "--transport", "stdio", *_env_flags("-e", launch.env), "--", *_program(launch)])


def _vscode_add(client: Client, name: str, launch: Launch) -> str:
    return shlex.join(["code", "--add-mcp", _compact({"name": name, **client.entry(name, launch)})])


def _codex_add(client: Client, name: str, launch: Launch) -> str:
    return shlex.join(["codex", "mcp", "add", name, *_env_flags("--env", launch.env), "--", *_program(launch)])


def _gemini_style_add(program: str) -> Text:
    """`gemini mcp add` and Qwen Code's fork of it: the name and command are positionals, args after `--`."""

    def add(client: Client, name: str, launch: Launch) -> str:
        args = launch.argv(False)
        return shlex.join([program, "mcp", "add", "-s", "user", *_env_flags("-e", launch.env), name, launch.command, *(["--", *args] if args else [])])

    return add


def _devin_add(client: Client, name: str, launch: Launch) -> str:
    return shlex.join(["devin", "mcp", "add", "-s", "user", *_env_flags("-e", launch.env), name, "--", *_program(launch)])


def _cline_add(client: Client, name: str, launch: Launch) -> str | None:
    if launch.env:  # `cline mcp add` cannot set environment variables
        return None
    return shlex.join(["cline", "mcp", "add", name, "--yes", "--", *_program(launch)])


def _opencode_add(client: Client, name: str, launch: Launch) -> str:
    # OpenCode's `mcp add` has no scope: it writes the user file (~/.config/opencode/opencode.jsonc).
    return shlex.join(["opencode", "mcp", "add", name, *_env_flags("--env", launch.env), "--", *_program(launch)])


def _copilot_cli_add(client: Client, name: str, launch: Launch) -> str:
    return shlex.join(["copilot", "mcp", "add", name, *_env_flags("--env", launch.env), "--", *_program(launch)])


def _kiro_add(client: Client, name: str, launch: Launch) -> str | None:
    args = launch.argv(False)
    if any("," in a for a in args):
        return None
    joined = [f"--args={','.join(args)}"] if args else []
    return shlex.join(["kiro-cli", "mcp", "add", "--name", name, "--scope", "global", "--command", launch.command, *joined, *_env_flags("--env", launch.env)])


def _base64(text: str) -> str:
    import base64  # only for a link: `rata --help` builds --client's help from this module

    return base64.b64encode(text.encode()).decode()


def _cursor_link(client: Client, name: str, launch: Launch) -> str:
    config = _base64(_compact(client.entry(name, launch)))
    return f"cursor://anysphere.cursor-deeplink/mcp/install?name={quote(name, safe='')}&config={quote(config, safe='=')}"


def _vscode_link(client: Client, name: str, launch: Launch) -> str:
    return "vscode:mcp/install?" + quote(_compact({"name": name, **client.entry(name, launch)}), safe="")


def _kiro_link(client: Client, name: str, launch: Launch) -> str:
    plain = {k: v for k, v in client.entry(name, launch).items() if k in ("command", "args", "env")}
    return f"https://kiro.dev/launch/mcp/add?name={quote(name, safe='')}&config={quote(_compact(plain), safe='')}"


def _lmstudio_link(client: Client, name: str, launch: Launch) -> str:
    config = _base64(_compact(client.entry(name, launch)))
    return f"lmstudio://add_mcp?name={quote(name, safe='')}&config={quote(config, safe='')}"


def _gemini_name(name: str) -> str | None:
    return f"Gemini CLI splits policy names on the first '_': {name!r} should not contain '_'." if "_" in name else None


# --- the rows ----------------------------------------------------------------------------------

CLIENTS: tuple[Client, ...] = (
    Client(
        "claude",
        "Claude Desktop",
        JSON,
        (
            (MAC, "~/Library/Application Support/Claude/claude_desktop_config.json"),
            (WINDOWS, r"%APPDATA%\Claude\claude_desktop_config.json"),
            (WINDOWS + " (MSIX)", r"%LOCALAPPDATA%\Packages\Claude_<id>\LocalCache\Roaming\Claude\claude_desktop_config.json"),
            (LINUX + " (community builds)", "~/.config/Claude/claude_desktop_config.json"),
        ),
        aliases=("claude-desktop",),
        tool_format="{tool}",
        tool_limit=CLAUDE_CODE_LIMIT,
        note="Quit Claude Desktop fully and start it again to load the change (Settings > Developer > Edit Config opens the file).",
    ),
    Client(
        "claude-code",
        "Claude Code",
        JSON,
        ((ALL, "~/.claude.json (user scope: top-level mcpServers; local scope: projects[<path>].mcpServers)"),),
        ".mcp.json",
        aliases=("claudecode",),
        add=_claude_code_add,
        trust="Claude Code asks you to approve each server in .mcp.json before it starts it (\"pending approval\"; see /mcp).",
        in_project=True,
        before=(("type", "stdio"),),
        tool_format="mcp__{server}__{tool}",
        tool_limit=CLAUDE_CODE_LIMIT,
    ),
    Client(
        "cursor",
        "Cursor",
        JSON,
        ((ALL, "~/.cursor/mcp.json"), (WINDOWS, r"%USERPROFILE%\.cursor\mcp.json")),
        ".cursor/mcp.json",
        before=(("type", "stdio"),),
        link=_cursor_link,
        tool_format="{server}{tool}",
        tool_limit=CURSOR_LIMIT,
    ),
    Client(
        "vscode",
        "VS Code (GitHub Copilot Chat)",
        JSONC,
        (
            (MAC, "~/Library/Application Support/Code/User/mcp.json"),
            (LINUX, "~/.config/Code/User/mcp.json"),
            (WINDOWS, r"%APPDATA%\Code\User\mcp.json"),
        ),
        ".vscode/mcp.json",
        server_key="servers",
        aliases=("code", "vs-code"),
        trust="VS Code asks you to trust a server from .vscode/mcp.json before it starts it.",
        before=(("type", "stdio"),),
        add=_vscode_add,
        link=_vscode_link,
        tool_format="mcp_{label}_{tool}",
        tool_limit=64,
    ),
    Client(
        "codex",
        "OpenAI Codex",
        TOML,
        ((ALL, "~/.codex/config.toml (or $CODEX_HOME/config.toml)"), (WINDOWS, r"%USERPROFILE%\.codex\config.toml")),
        ".codex/config.toml",
        server_key="mcp_servers",
        trust="Codex reads .codex/config.toml only in projects you have marked as trusted.",
        cwd_key="cwd",
        add=_codex_add,
        tool_format="mcp__{server}__{tool}",
        tool_limit=CLAUDE_CODE_LIMIT,
    ),
    Client(
        "gemini",
        "Gemini CLI",
        JSON,
        ((ALL, "~/.gemini/settings.json"), (WINDOWS, r"%USERPROFILE%\.gemini\settings.json")),
        ".gemini/settings.json",
        aliases=("gemini-cli",),
        trust="Gemini CLI loads .gemini/settings.json only in folders you trust.",
        cwd_key="cwd",
        add=_gemini_style_add("gemini"),
        name_rule=_gemini_name,
        tool_format="mcp_{server}_{tool}",
        tool_limit=63,
    ),
    Client(
        "windsurf",
        "Windsurf / Devin Desktop",
        JSON,
        (
            (ALL, "~/.config/devin/mcp_config.json (Devin Desktop)"),
            (WINDOWS, r"%APPDATA%\devin\mcp_config.json (Devin Desktop)"),
            (ALL, "~/.codeium/windsurf/mcp_config.json (Windsurf's Cascade)"),
        ),
        ".devin/config.json",
        aliases=("devin", "devin-desktop"),
        add=_devin_add,
        note="Windsurf's Cascade reads only its user file; the project file is the Devin CLI's (and Devin Local's).",
    ),
    Client(
        "zed",
        "Zed",
        JSONC,
        ((MAC + ", " + LINUX, "~/.config/zed/settings.json"), (WINDOWS, r"%APPDATA%\Zed\settings.json (unverified)")),
        ".zed/settings.json",
        server_key="context_servers",
        trust="Zed starts servers from .zed/settings.json only in trusted worktrees (restricted mode).",
        tool_format="{tool}",
        tool_limit=64,
    ),
    Client(
        "opencode",
        "OpenCode",
        JSONC,
        ((ALL, "~/.config/opencode/opencode.json (or opencode.jsonc)"),),
        "opencode.json",
        server_key="mcp",
        shape=OPENCODE,
        wrap=_opencode_document,
        add=_opencode_add,
        tool_format="mcp__{server}__{tool}",
        tool_limit=64,
    ),
    Client(
        "qwen",
        "Qwen Code",
        JSON,
        ((ALL, "~/.qwen/settings.json"), (WINDOWS, r"%USERPROFILE%\.qwen\settings.json")),
        ".qwen/settings.json",
        aliases=("qwen-code",),
        trust="Qwen Code starts a project's servers only once you approve them (qwen mcp approve <name>).",
        add=_gemini_style_add("qwen"),
    ),
    Client(
        "copilot-cli",
        "GitHub Copilot CLI",
        JSON,
        ((ALL, "~/.copilot/mcp-config.json (or $COPILOT_HOME/mcp-config.json)"),),
        ".mcp.json",
        aliases=("github-copilot-cli",),
        trust="Copilot CLI reads .mcp.json only in folders you trust.",
        in_project=True,  # it reads Claude Code's .mcp.json, so it must write the same entry there
        before=(("type", "stdio"),),
        after=(("tools", ["*"]),),
        add=_copilot_cli_add,
        note="The same .mcp.json serves Claude Code; VS Code's Copilot Chat is --client vscode.",
    ),
    Client(
        "cline",
        "Cline",
        JSON,
        ((ALL, "~/.cline/data/settings/cline_mcp_settings.json"),),
        cwd_key="cwd",
        before=(("type", "stdio"),),
        after=(("disabled", False),),
        add=_cline_add,
        tool_format="{server}__{tool}",
        tool_limit=64,
    ),
    Client(
        "kiro",
        "Kiro",
        JSON,
        ((ALL, "~/.kiro/settings/mcp.json"), (WINDOWS, r"%USERPROFILE%\.kiro\settings\mcp.json")),
        ".kiro/settings/mcp.json",
        after=(("disabled", False), ("autoApprove", [])),
        add=_kiro_add,
        link=_kiro_link,
    ),
    Client(
        "junie",
        "JetBrains Junie",
        JSON,
        ((ALL, "~/.junie/mcp/mcp.json"),),
        ".junie/mcp/mcp.json",
        aliases=("jetbrains",),
        note="JetBrains AI Assistant has no file: paste this JSON in Settings > Tools > AI Assistant > Model Context Protocol.",
    ),
    Client(
        "goose",
        "Goose",
        YAML,
        ((ALL, "~/.config/goose/config.yaml"), (WINDOWS, r"%APPDATA%\Block\goose\config\config.yaml")),
        server_key="extensions",
        shape=GOOSE,
        tool_format="{server}__{tool}",
        note="Add the entry under extensions: in config.yaml, or use `goose configure` > Add Extension.",
    ),
    Client(
        "continue",
        "Continue",
        YAML,
        ((ALL, "~/.continue/config.yaml (add the list item under mcpServers:; do not create the file)"),),
        ".continue/mcpServers/{name}.yaml",
        cwd_key="cwd",
        before=(("type", "stdio"),),
        shape=CONTINUE,
        wrap=_continue_document,
        own_file=True,
        note="Continue gives MCP tools to the model in agent mode only.",
    ),
    Client(
        "lmstudio",
        "LM Studio",
        JSON,
        ((ALL, "~/.lmstudio/mcp.json"),),
        aliases=("lm-studio",),
        link=_lmstudio_link,
    ),
    Client(
        "warp",
        "Warp",
        JSON,
        ((ALL, "~/.warp/.mcp.json"), (WINDOWS, r"%USERPROFILE%\.warp\.mcp.json")),
        ".warp/.mcp.json",
        trust="Warp never starts servers from .warp/.mcp.json by itself: turn the server on in Warp's MCP settings.",
        cwd_key="working_directory",
    ),
)


# Names that mean more than one client: asked for, they name the clients instead of guessing.
AMBIGUOUS: dict[str, tuple[str, ...]] = {"copilot": ("vscode", "copilot-cli")}


def client_names() -> list[str]:
    return [c.key for c in CLIENTS]


def find_client(name: str) -> Client | None:
    wanted = name.strip().lower().replace("_", "-").replace(" ", "-")
    return next((c for c in CLIENTS if wanted == c.key or wanted in c.aliases), None)


def client_help() -> str:
    """`--client`'s help: every client's key, from the rows."""
    return f"The MCP client: {', '.join(client_names())} (see --list)."
