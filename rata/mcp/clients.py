"""The MCP clients `rata mcp install` knows: where each keeps its servers, and in what shape.

Every client gets the same `Launch` (an absolute command, its arguments, a few environment
variables, and a working folder where the server needs one) and turns it into its own entry:

==================  ===================================================================
family              shape
==================  ===================================================================
``mcpServers``      ``{"mcpServers": {NAME: {command, args, env}}}`` (Claude and most others)
``servers``         ``{"servers": {NAME: {type: "stdio", command, args, env}}}`` (VS Code)
``context_servers`` ``{"context_servers": {NAME: {command, args, env}}}`` (Zed)
``opencode``        ``{"mcp": {NAME: {type: "local", command: [program, *args], environment}}}``
``codex``           ``[mcp_servers.NAME]`` and ``[mcp_servers.NAME.env]`` (TOML)
``continue``        a YAML block file with an ``mcpServers`` list
``goose``           ``extensions: {NAME: {type: stdio, cmd, args, envs}}`` (YAML)
==================  ===================================================================

The facts (files, keys, links, limits) follow the client reference of late 2026; each client's
entry says where a file is only believed to be right.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from rata.codegen.lint import CLAUDE_CODE_LIMIT, CURSOR_LIMIT

MAC, LINUX, WINDOWS, ALL = "macOS", "Linux", "Windows", "all"
USER, PROJECT = "user", "project"


@dataclass(frozen=True)
class Launch:
    """How a client starts the server: an absolute command that works from any folder.

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


@dataclass(frozen=True)
class Client:
    """One MCP client: its names, file format, files per scope and OS, and tool-name rule."""

    key: str
    title: str
    family: str
    syntax: str  # json, jsonc, toml, yaml
    user_files: tuple[tuple[str, str], ...]  # (OS, path)
    project_file: str | None = None  # relative to the project; {name} is the server key
    aliases: tuple[str, ...] = ()
    trust: str | None = None  # how the client gates a project file
    cwd_key: str | None = None  # the entry's working-folder field, if the client has one
    before: tuple[tuple[str, Any], ...] = ()  # fixed fields before command (e.g. type)
    after: tuple[tuple[str, Any], ...] = ()  # fixed fields after env (e.g. disabled)
    tool_format: str | None = None  # the model-visible tool name: {server}, {label}, {tool}
    tool_limit: int | None = None
    note: str | None = None

    @property
    def server_key(self) -> str:
        """The key that holds the servers in the client's file."""
        return {"servers": "servers", "context_servers": "context_servers", "opencode": "mcp", "codex": "mcp_servers", "goose": "extensions"}.get(
            self.family, "mcpServers"
        )

    def project_path(self, name: str) -> str | None:
        return self.project_file.format(name=name) if self.project_file else None


def _mcp_servers(key: str, title: str, user: tuple[tuple[str, str], ...], project: str | None = None, **more: Any) -> Client:
    return Client(key, title, "mcpServers", "json", user, project, **more)


CLIENTS: tuple[Client, ...] = (
    _mcp_servers(
        "claude",
        "Claude Desktop",
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
    _mcp_servers(
        "claude-code",
        "Claude Code",
        ((ALL, "~/.claude.json (user scope: top-level mcpServers; local scope: projects[<path>].mcpServers)"),),
        ".mcp.json",
        aliases=("claudecode",),
        trust="Claude Code asks you to approve each server in .mcp.json before it starts it (\"pending approval\"; see /mcp).",
        before=(("type", "stdio"),),
        tool_format="mcp__{server}__{tool}",
        tool_limit=CLAUDE_CODE_LIMIT,
    ),
    _mcp_servers(
        "cursor",
        "Cursor",
        ((ALL, "~/.cursor/mcp.json"), (WINDOWS, r"%USERPROFILE%\.cursor\mcp.json")),
        ".cursor/mcp.json",
        before=(("type", "stdio"),),
        tool_format="{server}{tool}",
        tool_limit=CURSOR_LIMIT,
    ),
    Client(
        "vscode",
        "VS Code (GitHub Copilot)",
        "servers",
        "jsonc",
        (
            (MAC, "~/Library/Application Support/Code/User/mcp.json"),
            (LINUX, "~/.config/Code/User/mcp.json"),
            (WINDOWS, r"%APPDATA%\Code\User\mcp.json"),
        ),
        ".vscode/mcp.json",
        aliases=("code", "vs-code", "copilot"),
        trust="VS Code asks you to trust a server from .vscode/mcp.json before it starts it.",
        before=(("type", "stdio"),),
        tool_format="mcp_{label}_{tool}",
        tool_limit=64,
    ),
    Client(
        "codex",
        "OpenAI Codex",
        "codex",
        "toml",
        ((ALL, "~/.codex/config.toml (or $CODEX_HOME/config.toml)"), (WINDOWS, r"%USERPROFILE%\.codex\config.toml")),
        ".codex/config.toml",
        trust="Codex reads .codex/config.toml only in projects you have marked as trusted.",
        cwd_key="cwd",
        tool_format="mcp__{server}__{tool}",
        tool_limit=CLAUDE_CODE_LIMIT,
    ),
    _mcp_servers(
        "gemini",
        "Gemini CLI",
        ((ALL, "~/.gemini/settings.json"), (WINDOWS, r"%USERPROFILE%\.gemini\settings.json")),
        ".gemini/settings.json",
        aliases=("gemini-cli",),
        trust="Gemini CLI loads .gemini/settings.json only in folders you trust.",
        cwd_key="cwd",
        tool_format="mcp_{server}_{tool}",
        tool_limit=63,
    ),
    _mcp_servers(
        "windsurf",
        "Windsurf / Devin Desktop",
        (
            (ALL, "~/.config/devin/mcp_config.json (Devin Desktop)"),
            (WINDOWS, r"%APPDATA%\devin\mcp_config.json (Devin Desktop)"),
            (ALL, "~/.codeium/windsurf/mcp_config.json (Windsurf's Cascade)"),
        ),
        ".devin/config.json",
        aliases=("devin", "devin-desktop"),
        note="Windsurf's Cascade reads only its user file; the project file is the Devin CLI's (and Devin Local's).",
    ),
    Client(
        "zed",
        "Zed",
        "context_servers",
        "jsonc",
        ((MAC + ", " + LINUX, "~/.config/zed/settings.json"), (WINDOWS, r"%APPDATA%\Zed\settings.json (unverified)")),
        ".zed/settings.json",
        trust="Zed starts servers from .zed/settings.json only in trusted worktrees (restricted mode).",
        tool_format="{tool}",
        tool_limit=64,
    ),
    Client(
        "opencode",
        "OpenCode",
        "opencode",
        "jsonc",
        ((ALL, "~/.config/opencode/opencode.json (or opencode.jsonc)"),),
        "opencode.json",
        trust="OpenCode may ask you to approve project servers (opencode mcp approve <name>).",
        cwd_key="cwd",
        tool_format="mcp__{server}__{tool}",
        tool_limit=64,
    ),
    _mcp_servers(
        "cline",
        "Cline",
        ((ALL, "~/.cline/data/settings/cline_mcp_settings.json"),),
        cwd_key="cwd",
        before=(("type", "stdio"),),
        after=(("disabled", False),),
        tool_format="{server}__{tool}",
        tool_limit=64,
    ),
    _mcp_servers(
        "kiro",
        "Kiro",
        ((ALL, "~/.kiro/settings/mcp.json"), (WINDOWS, r"%USERPROFILE%\.kiro\settings\mcp.json")),
        ".kiro/settings/mcp.json",
        after=(("disabled", False), ("autoApprove", [])),
    ),
    _mcp_servers(
        "junie",
        "JetBrains Junie",
        ((ALL, "~/.junie/mcp/mcp.json"),),
        ".junie/mcp/mcp.json",
        aliases=("jetbrains",),
        note="JetBrains AI Assistant has no file: paste this JSON in Settings > Tools > AI Assistant > Model Context Protocol.",
    ),
    Client(
        "goose",
        "Goose",
        "goose",
        "yaml",
        ((ALL, "~/.config/goose/config.yaml"), (WINDOWS, r"%APPDATA%\Block\goose\config\config.yaml")),
        tool_format="{server}__{tool}",
        note="Add the entry under extensions: in config.yaml, or use `goose configure` > Add Extension.",
    ),
    Client(
        "continue",
        "Continue",
        "continue",
        "yaml",
        ((ALL, "~/.continue/config.yaml (add the list item under mcpServers:; do not create the file)"),),
        ".continue/mcpServers/{name}.yaml",
        cwd_key="cwd",
        note="Continue gives MCP tools to the model in agent mode only.",
    ),
    _mcp_servers("lmstudio", "LM Studio", ((ALL, "~/.lmstudio/mcp.json"),), aliases=("lm-studio",)),
    _mcp_servers(
        "warp",
        "Warp",
        ((ALL, "~/.warp/.mcp.json"), (WINDOWS, r"%USERPROFILE%\.warp\.mcp.json")),
        ".warp/.mcp.json",
        trust="Warp never starts servers from .warp/.mcp.json by itself: turn the server on in Warp's MCP settings.",
        cwd_key="working_directory",
    ),
)


def client_names() -> list[str]:
    return [c.key for c in CLIENTS]


def find_client(name: str) -> Client | None:
    wanted = name.strip().lower().replace("_", "-").replace(" ", "-")
    return next((c for c in CLIENTS if wanted == c.key or wanted in c.aliases), None)


# --- entries and documents ---------------------------------------------------------------------


def entry(client: Client, name: str, launch: Launch) -> dict[str, Any]:
    """The client's entry for one server (what goes under NAME)."""
    cwd = launch.cwd if client.cwd_key else None
    args = launch.argv(client.cwd_key is not None)
    env = dict(launch.env)
    if client.family == "opencode":
        out: dict[str, Any] = {"type": "local", "command": [launch.command, *args]}
        if env:
            out["environment"] = env
        if cwd:
            out["cwd"] = cwd
        out["enabled"] = True
        return out
    if client.family == "goose":
        return {"type": "stdio", "name": name, "enabled": True, "cmd": launch.command, "args": args, "envs": env, "env_keys": [], "timeout": 300}
    out = {"name": name} if client.family == "continue" else {}
    out.update(client.before)
    if client.family in ("servers", "continue"):
        out["type"] = "stdio"
    out["command"] = launch.command
    out["args"] = args
    if env:
        out["env"] = env
    if cwd and client.cwd_key:
        out[client.cwd_key] = cwd
    out.update((k, v if not isinstance(v, list) else list(v)) for k, v in client.after)
    return out


def default_keys(client: Client) -> frozenset[str]:
    """Keys of the entry that rata writes only as a default: an existing entry's value is kept."""
    keys = {key for key, _ in client.after}
    if client.family in ("opencode", "goose"):
        keys.add("enabled")
    if client.family == "goose":
        keys |= {"timeout", "env_keys"}
    return frozenset(keys)


def document(client: Client, name: str, server: dict[str, Any]) -> dict[str, Any]:
    """A whole file holding just this server: what `rata mcp install` prints."""
    if client.family == "continue":
        return {"name": name, "version": "0.0.1", "schema": "v1", "mcpServers": [server]}
    if client.family == "opencode":
        return {"$schema": "https://opencode.ai/config.json", "mcp": {name: server}}
    return {client.server_key: {name: server}}


def render(client: Client, value: dict[str, Any]) -> str:
    """Text in the client's file format, ending in a newline."""
    if client.syntax == "toml":
        import tomli_w

        return tomli_w.dumps(value)
    if client.syntax == "yaml":
        return dump_yaml(value)
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


# --- add commands and install links ------------------------------------------------------------


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _env_flags(flag: str, env: dict[str, str]) -> list[str]:
    return [part for key, value in env.items() for part in (flag, f"{key}={value}")]


def add_command(client: Client, name: str, launch: Launch) -> str | None:
    """The client's own command that registers the server (user scope), if it has one."""
    args = launch.argv(False)
    program = [launch.command, *args]
    env = launch.env
    if client.key == "claude-code":
        return shlex.join(["claude", "mcp", "add", "--scope", "user", "--transport", "stdio", *_env_flags("-e", env), name, "--", *program])
    if client.key == "vscode":
        return shlex.join(["code", "--add-mcp", _compact({"name": name, **entry(client, name, launch)})])
    if client.key == "codex":
        return shlex.join(["codex", "mcp", "add", name, *_env_flags("--env", env), "--", *program])
    if client.key == "gemini":
        return shlex.join(["gemini", "mcp", "add", "-s", "user", *_env_flags("-e", env), name, launch.command, *(["--", *args] if args else [])])
    if client.key == "windsurf":
        return shlex.join(["devin", "mcp", "add", "-s", "user", *_env_flags("-e", env), name, "--", *program])
    if client.key == "cline" and not env:  # `cline mcp add` cannot set environment variables
        return shlex.join(["cline", "mcp", "add", name, "--yes", "--", *program])
    if client.key == "opencode" and not env:
        return shlex.join(["opencode", "mcp", "add", name, "--scope", "user", "--", *program])
    if client.key == "kiro" and not any("," in a for a in args):
        return shlex.join(
            ["kiro-cli", "mcp", "add", "--name", name, "--scope", "global", "--command", launch.command, *([f"--args={','.join(args)}"] if args else []), *_env_flags("--env", env)]
        )
    return None


def install_link(client: Client, name: str, launch: Launch) -> str | None:
    """A link that adds the server in one click, for clients that have one."""
    server = entry(client, name, launch)
    if client.key == "cursor":
        config = base64.b64encode(_compact(server).encode()).decode()
        return f"cursor://anysphere.cursor-deeplink/mcp/install?name={quote(name, safe='')}&config={quote(config, safe='=')}"
    if client.key == "vscode":
        return "vscode:mcp/install?" + quote(_compact({"name": name, **server}), safe="")
    if client.key == "kiro":
        plain = {k: v for k, v in server.items() if k in ("command", "args", "env")}
        return f"https://kiro.dev/launch/mcp/add?name={quote(name, safe='')}&config={quote(_compact(plain), safe='')}"
    if client.key == "lmstudio":
        config = base64.b64encode(_compact(server).encode()).decode()
        return f"lmstudio://add_mcp?name={quote(name, safe='')}&config={quote(config, safe='')}"
    return None


# --- tool names --------------------------------------------------------------------------------


def visible_tool_name(client: Client, server: str, tool: str) -> str | None:
    """The name the model sees for `tool`, before any truncation (None if undocumented)."""
    if client.tool_format is None:
        return None
    return client.tool_format.format(server=server, label=server.lower()[:13], tool=tool)


# --- YAML, written by hand (PyYAML is not a dependency) ----------------------------------------

_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
_YAML_PLAIN = re.compile(r"[A-Za-z_/~-][A-Za-z0-9_/.~@+=-]*")
_YAML_NUMBERISH = re.compile(r"[-+]?(?:\.?[0-9]|\.(?:inf|nan)$)", re.IGNORECASE)
_YAML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _yaml_printable(char: str) -> bool:
    """YAML's printable set, less line breaks and the BOM (which are escaped)."""
    code = ord(char)
    return (0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000) and char not in "\u2028\u2029\ufeff"


def _yaml_quoted(text: str) -> str:
    out = []
    for char in text:
        if char in _YAML_ESCAPES:
            out.append(_YAML_ESCAPES[char])
        elif _yaml_printable(char):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _yaml_scalar(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        shown = repr(value)
        return shown.replace("e", ".0e") if "e" in shown and "." not in shown else shown  # YAML 1.1 wants a dot
    text = str(value)
    plain = _YAML_PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS and text != "-" and not _YAML_NUMBERISH.match(text)
    return text if plain else _yaml_quoted(text)


def dump_yaml(value: dict[str, Any], indent: int = 0) -> str:
    """Block-style YAML for plain data (dicts, lists, strings, numbers, booleans)."""
    return "".join(line + "\n" for line in _yaml_lines(value, indent))


def _yaml_lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{pad}{_yaml_scalar(key)}:"
            if isinstance(item, dict | list) and item:
                lines.append(head)
                lines += _yaml_lines(item, indent + 2)
            else:
                lines.append(f"{head} {'{}' if item == {} else '[]' if item == [] else _yaml_scalar(item)}")
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _yaml_lines(item, indent + 2)
                lines.append(f"{pad}- {inner[0][indent + 2:]}")
                lines += inner[1:]
            elif isinstance(item, list) and item:
                lines.append(f"{pad}-")
                lines += _yaml_lines(item, indent + 2)
            else:
                lines.append(f"{pad}- {'{}' if item == {} else '[]' if item == [] else _yaml_scalar(item)}")
    return lines
