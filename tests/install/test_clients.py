"""The client table: every client's snippet, parsed by a real parser of its format, is the shape the reference gives."""

from __future__ import annotations

import base64
import json
import shlex
import tomllib
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml

from rata.install import clients
from rata.install.clients import CLIENTS, Launch
from rata.install.formats import dump_yaml
from tests.install.known import known_client

# The reference's running example: `/usr/local/bin/crm --mcp` with RATA_ENV=dev.
CRM = Launch("/usr/local/bin/crm", ("--mcp",), {"RATA_ENV": "dev"})
PLAIN = {"command": "/usr/local/bin/crm", "args": ["--mcp"], "env": {"RATA_ENV": "dev"}}
TYPED = {"type": "stdio", **PLAIN}

EXPECTED = {
    "claude": {"mcpServers": {"crm": PLAIN}},
    "claude-code": {"mcpServers": {"crm": TYPED}},
    "cursor": {"mcpServers": {"crm": TYPED}},
    "vscode": {"servers": {"crm": TYPED}},
    "codex": {"mcp_servers": {"crm": PLAIN}},
    "gemini": {"mcpServers": {"crm": PLAIN}},
    "windsurf": {"mcpServers": {"crm": PLAIN}},
    "zed": {"context_servers": {"crm": PLAIN}},
    "opencode": {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"crm": {"type": "local", "command": ["/usr/local/bin/crm", "--mcp"], "environment": {"RATA_ENV": "dev"}}},
    },
    "qwen": {"mcpServers": {"crm": PLAIN}},
    "copilot-cli": {"mcpServers": {"crm": {**TYPED, "tools": ["*"]}}},
    "cline": {"mcpServers": {"crm": {**TYPED, "disabled": False}}},
    "kiro": {"mcpServers": {"crm": {**PLAIN, "disabled": False, "autoApprove": []}}},
    "junie": {"mcpServers": {"crm": PLAIN}},
    "goose": {
        "extensions": {
            "crm": {
                "type": "stdio", "name": "crm", "enabled": True, "cmd": "/usr/local/bin/crm", "args": ["--mcp"],
                "envs": {"RATA_ENV": "dev"}, "env_keys": [], "timeout": 300,
            }
        }
    },
    "continue": {
        "name": "crm", "version": "0.0.1", "schema": "v1",
        "mcpServers": [{"name": "crm", "type": "stdio", "command": "/usr/local/bin/crm", "args": ["--mcp"], "env": {"RATA_ENV": "dev"}}],
    },
    "lmstudio": {"mcpServers": {"crm": PLAIN}},
    "warp": {"mcpServers": {"crm": PLAIN}},
}

PARSERS = {"json": json.loads, "jsonc": json.loads, "toml": tomllib.loads, "yaml": yaml.safe_load}


def snippet(client: clients.Client, launch: Launch = CRM, name: str = "crm") -> str:
    return client.render(client.document(name, client.entry(name, launch)))


def test_the_table_covers_every_client_of_the_brief():
    assert set(clients.client_names()) == set(EXPECTED)


@pytest.mark.parametrize("client", CLIENTS, ids=[c.key for c in CLIENTS])
def test_each_snippet_parses_in_its_format_to_the_reference_shape(client):
    text = snippet(client)
    parsed = PARSERS[client.syntax](text)
    assert parsed == EXPECTED[client.key]
    assert list(json.loads(json.dumps(parsed))) == list(EXPECTED[client.key])  # the top-level keys in the reference's order


def test_codex_writes_the_server_and_its_env_as_tables():
    text = snippet(known_client("codex"))
    assert text.startswith("[mcp_servers.crm]\n")
    assert "[mcp_servers.crm.env]\nRATA_ENV = \"dev\"\n" in text


def test_aliases_find_their_client():
    assert clients.find_client("claude-desktop").key == "claude"
    assert clients.find_client("Code").key == "vscode"
    assert clients.find_client("devin").key == "windsurf"
    assert clients.find_client("lm_studio").key == "lmstudio"
    assert clients.find_client("nope") is None


def test_user_only_clients_have_no_project_file():
    assert {c.key for c in CLIENTS if c.project_file is None} == {"claude", "cline", "goose", "lmstudio"}


def test_project_files_are_the_reference_ones():
    assert {c.key: c.project_path("crm") for c in CLIENTS if c.project_file} == {
        "claude-code": ".mcp.json",
        "cursor": ".cursor/mcp.json",
        "vscode": ".vscode/mcp.json",
        "codex": ".codex/config.toml",
        "gemini": ".gemini/settings.json",
        "windsurf": ".devin/config.json",
        "zed": ".zed/settings.json",
        "opencode": "opencode.json",
        "qwen": ".qwen/settings.json",
        "copilot-cli": ".mcp.json",
        "kiro": ".kiro/settings/mcp.json",
        "junie": ".junie/mcp/mcp.json",
        "continue": ".continue/mcpServers/crm.yaml",
        "warp": ".warp/.mcp.json",
    }


def test_a_working_folder_goes_in_the_cwd_field_or_becomes_app_arguments():
    dev = Launch("/venv/bin/rata", ("mcp", "dev"), {}, cwd="/home/me/crm", cwd_args=("--app", "/home/me/crm"))
    assert clients.find_client("codex").entry("rata", dev) == {"command": "/venv/bin/rata", "args": ["mcp", "dev"], "cwd": "/home/me/crm"}
    assert clients.find_client("warp").entry("rata", dev)["working_directory"] == "/home/me/crm"
    assert clients.find_client("gemini").entry("rata", dev)["cwd"] == "/home/me/crm"
    claude = clients.find_client("claude-code").entry("rata", dev)
    assert claude["args"] == ["mcp", "dev", "--app", "/home/me/crm"] and "cwd" not in claude


def test_no_env_means_no_env_key():
    entry = clients.find_client("claude").entry("crm", Launch("/bin/crm", ("--mcp",)))
    assert entry == {"command": "/bin/crm", "args": ["--mcp"]}


# --- links and add commands, as the reference writes them --------------------------------------


def test_cursor_link_is_base64_of_the_entry():
    link = clients.find_client("cursor").install_link("crm", CRM)
    assert link == (
        "cursor://anysphere.cursor-deeplink/mcp/install?name=crm&config="
        "eyJ0eXBlIjoic3RkaW8iLCJjb21tYW5kIjoiL3Vzci9sb2NhbC9iaW4vY3JtIiwiYXJncyI6WyItLW1jcCJdLCJlbnYiOnsiUkFUQV9FTlYiOiJkZXYifX0="
    )
    config = parse_qs(urlsplit(link).query)["config"][0]
    assert json.loads(base64.b64decode(config)) == TYPED


def test_vscode_link_is_the_url_encoded_json_with_name():
    link = clients.find_client("vscode").install_link("crm", CRM)
    assert link == (
        "vscode:mcp/install?%7B%22name%22%3A%22crm%22%2C%22type%22%3A%22stdio%22%2C%22command%22%3A%22%2Fusr%2Flocal%2Fbin%2Fcrm%22"
        "%2C%22args%22%3A%5B%22--mcp%22%5D%2C%22env%22%3A%7B%22RATA_ENV%22%3A%22dev%22%7D%7D"
    )
    assert json.loads(unquote(link.partition("?")[2])) == {"name": "crm", **TYPED}


def test_kiro_and_lmstudio_links():
    assert clients.find_client("kiro").install_link("crm", CRM) == (
        "https://kiro.dev/launch/mcp/add?name=crm&config=%7B%22command%22%3A%22%2Fusr%2Flocal%2Fbin%2Fcrm%22%2C%22args%22%3A%5B%22--mcp%22%5D%2C%22env%22%3A%7B%22RATA_ENV%22%3A%22dev%22%7D%7D"
    )
    assert clients.find_client("lmstudio").install_link("crm", CRM) == (
        "lmstudio://add_mcp?name=crm&config=eyJjb21tYW5kIjoiL3Vzci9sb2NhbC9iaW4vY3JtIiwiYXJncyI6WyItLW1jcCJdLCJlbnYiOnsiUkFUQV9FTlYiOiJkZXYifX0%3D"
    )


@pytest.mark.parametrize(
    ("key", "command"),
    [
        ("claude-code", "claude mcp add crm --scope user --transport stdio -e RATA_ENV=dev -- /usr/local/bin/crm --mcp"),
        ("opencode", "opencode mcp add crm --env RATA_ENV=dev -- /usr/local/bin/crm --mcp"),
        ("qwen", "qwen mcp add -s user -e RATA_ENV=dev crm /usr/local/bin/crm -- --mcp"),
        ("copilot-cli", "copilot mcp add crm --env RATA_ENV=dev -- /usr/local/bin/crm --mcp"),
        ("codex", "codex mcp add crm --env RATA_ENV=dev -- /usr/local/bin/crm --mcp"),
        ("gemini", "gemini mcp add -s user -e RATA_ENV=dev crm /usr/local/bin/crm -- --mcp"),
        ("windsurf", "devin mcp add -s user -e RATA_ENV=dev crm -- /usr/local/bin/crm --mcp"),
        ("vscode", """code --add-mcp '{"name":"crm","type":"stdio","command":"/usr/local/bin/crm","args":["--mcp"],"env":{"RATA_ENV":"dev"}}'"""),
        ("kiro", "kiro-cli mcp add --name crm --scope global --command /usr/local/bin/crm --args=--mcp --env RATA_ENV=dev"),
    ],
)
def test_add_commands_match_the_reference(key, command):
    assert clients.find_client(key).add_command("crm", CRM) == command


def test_clients_without_an_add_command_or_link_get_none():
    for key in ("claude", "zed", "junie", "continue", "warp"):
        client = clients.find_client(key)
        assert client.add_command("crm", CRM) is None and client.install_link("crm", CRM) is None
    assert clients.find_client("cline").add_command("crm", CRM) is None  # it cannot pass env
    assert clients.find_client("cline").add_command("crm", Launch("/bin/crm", ("--mcp",))) == "cline mcp add crm --yes -- /bin/crm --mcp"


def test_add_commands_quote_paths_with_spaces():
    command = clients.find_client("codex").add_command("crm", Launch("/Users/A B/.venv/bin/crm", ("--mcp",)))
    assert shlex.split(command)[-2:] == ["/Users/A B/.venv/bin/crm", "--mcp"]


# --- YAML --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["yes", "No", "null", "~", "-", "1.0", "0.0.1", "a: b", "#x", "C:\\Program Files\\x", "@foo", "--mcp", "", "é", "x'y\"z", "- a"]
)
def test_yaml_scalars_round_trip(text):
    assert yaml.safe_load(dump_yaml({"k": text, "l": [text], text or "e": 1})) == {"k": text, "l": [text], text or "e": 1}


def test_yaml_nested_lists_of_mappings_round_trip():
    value = {"a": [{"b": [1, 2], "c": {"d": True}}, {"e": []}], "f": {}}
    assert yaml.safe_load(dump_yaml(value)) == value


def test_visible_tool_names():
    vscode = clients.find_client("vscode")
    assert vscode.visible_tool_name("VeryLongServerName", "t") == "mcp_verylongserve_t"
    assert clients.find_client("cursor").visible_tool_name("crm", "find") == "crmfind"
    assert clients.find_client("kiro").visible_tool_name("crm", "find") is None
