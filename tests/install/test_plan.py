"""`rata mcp install`'s library: the launch command, the plan, and merging into project files."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from rata.install import jsonc, merge
from rata.install import plan as install
from rata.loader import LoadedApp, load_app
from tests.conftest import CRM
from tests.install.known import known_client

ROOT = Path(__file__).resolve().parents[2]
HELLO = ROOT / "docs" / "examples" / "hello"


@pytest.fixture
def crm():
    loaded = load_app(str(CRM))
    yield loaded
    loaded.app.close()


def plan(key: str, loaded, **options):
    return install.plan_install(known_client(key), loaded, install.app_tool_names(loaded), **options)


# --- the launch command ------------------------------------------------------------------------


def test_an_installed_app_is_launched_by_its_console_script(crm, rata_home):
    launch = install.resolve_launch(crm)
    assert launch.command == str(Path(os.path.abspath(sys.executable)).with_name("crm"))
    assert launch.args == ("--mcp",)
    assert launch.env == {"RATA_HOME": str(rata_home)}


def test_a_project_without_a_script_is_served_by_rata_with_an_absolute_app(rata_home):
    launch = install.resolve_launch(load_app(str(HELLO)))
    assert launch.command == os.path.abspath(sys.executable)
    assert launch.args == ("-m", "rata", "mcp", "serve", "--app", str(HELLO))


def test_an_app_file_is_given_by_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(HELLO)
    launch = install.resolve_launch(load_app("hello.py:app"), spec="hello.py:app")
    assert launch.args[-1] == f"{HELLO / 'hello.py'}:app"


def test_dev_runs_rata_mcp_dev_in_the_project(crm):
    launch = install.resolve_launch(crm, dev=True)
    assert launch.command == str(Path(os.path.abspath(sys.executable)).with_name("rata"))
    assert launch.args == ("mcp", "dev") and launch.cwd == str(CRM) and launch.cwd_args == ("--app", str(CRM))


def test_dev_in_a_project_file_names_the_project_s_own_environment_relative_to_it(crm, monkeypatch):
    """The one rule for a committed `.mcp.json`: the environment's rata relative to the project, no path of this machine."""
    monkeypatch.delenv("RATA_HOME")
    venv = Path(os.path.abspath(sys.executable)).parent.parent
    here = LoadedApp(crm.app, crm.target, venv.parent, crm.settings)  # a project that holds the environment rata runs from
    launch = install.resolve_launch(here, dev=True, in_project=True)
    assert (launch.command, launch.args, launch.env, launch.cwd) == (f"{venv.name}/bin/rata", ("mcp", "dev"), {}, None)
    assert install.resolve_launch(crm, dev=True, in_project=True).command == str(venv / "bin" / "rata")  # outside the project: absolute
    assert plan("claude-code", here, dev=True).entry == {"type": "stdio", "command": f"{venv.name}/bin/rata", "args": ["mcp", "dev"]}
    assert plan("copilot-cli", here, dev=True).entry["command"] == f"{venv.name}/bin/rata"  # the same .mcp.json
    codex = plan("codex", here, dev=True).entry  # a client with a working-folder field keeps the absolute command and cwd
    assert codex["command"] == str(venv / "bin" / "rata") and codex["cwd"] == str(venv.parent)


def test_rata_new_writes_the_dev_entry_by_the_same_rule():
    path, text = install.new_project_dev_file()
    assert path == ".mcp.json"
    assert json.loads(text) == {"mcpServers": {"rata": {"type": "stdio", "command": ".venv/bin/rata", "args": ["mcp", "dev"]}}}
    assert json.loads(text)["mcpServers"]["rata"] == known_client("claude-code").entry("rata", install.in_project_launch(".venv/bin/rata"))


def test_rata_home_is_passed_on_only_when_set(crm, monkeypatch):
    monkeypatch.delenv("RATA_HOME")
    assert install.resolve_launch(crm).env == {}


# --- names -------------------------------------------------------------------------------------


def test_the_default_name_is_the_apps_and_rata_for_dev(crm):
    assert plan("claude", crm).name == "crm"
    assert plan("claude", crm, dev=True).name == "rata"


def test_an_invalid_name_is_refused(crm):
    with pytest.raises(install.InstallError):
        plan("claude", crm, name="my server")


def test_a_long_name_warns_for_each_client_with_the_apps_real_tools(crm):
    name = "a" * 50
    codex = plan("codex", crm, name=name)
    assert any("not portable" in w for w in codex.warnings)
    assert any("customers_delete" in w and "64" in w for w in codex.warnings)
    assert any("60" in w for w in plan("cursor", crm, name=name).warnings)
    assert plan("zed", crm, name=name).warnings == [w for w in codex.warnings if "portable" in w]  # Zed shows bare tool names
    assert plan("codex", crm).warnings == []


def test_gemini_warns_about_an_underscore(crm):
    assert any("Gemini" in w for w in plan("gemini", crm, name="my_crm").warnings)


# --- writing -----------------------------------------------------------------------------------


def write(key: str, loaded, project: Path, replace: bool = False, **options):
    return install.write_plan(plan(key, loaded, **options), project, replace=replace)


def test_claude_code_creates_mcp_json_and_is_idempotent(crm, tmp_path):
    result = write("claude-code", crm, tmp_path)
    assert result.status == install.CREATED and result.trust and "approve" in result.trust
    first = (tmp_path / ".mcp.json").read_bytes()
    assert json.loads(first)["mcpServers"]["crm"]["args"] == ["--mcp"]
    assert write("claude-code", crm, tmp_path).status == install.UNCHANGED
    assert (tmp_path / ".mcp.json").read_bytes() == first


def test_a_merge_keeps_other_servers_and_unknown_keys(crm, tmp_path):
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{\n    "mcpServers": {\n        "other": {"command": "x"},\n        "crm": {"command": "old"}\n    },\n    "extra": [1, 2]\n}\n')
    assert write("cursor", crm, tmp_path, replace=True).status == install.UPDATED
    data = json.loads(path.read_text())
    assert data["extra"] == [1, 2] and data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["crm"]["type"] == "stdio"
    assert '        "other": {"command": "x"},\n' in path.read_text()  # untouched text keeps its formatting


@pytest.mark.parametrize(
    ("key", "file", "top"), [("vscode", ".vscode/mcp.json", "servers"), ("zed", ".zed/settings.json", "context_servers"), ("opencode", "opencode.json", "mcp")]
)
def test_jsonc_files_keep_their_comments(crm, tmp_path, key, file, top):
    path = tmp_path / file
    path.parent.mkdir(exist_ok=True)
    original = f'// my settings\n{{\n  "theme": "dark", /* inline */\n  "{top}": {{\n    "other": {{ "command": "x" }}, // keep me\n  }},\n}}\n'
    path.write_text(original)
    assert write(key, crm, tmp_path).status == install.UPDATED
    text = path.read_text()
    for comment in ("// my settings", "/* inline */", "// keep me"):
        assert comment in text
    data = jsonc.loads(text)
    assert data["theme"] == "dark" and data[top]["other"] == {"command": "x"} and "crm" in data[top]
    again = path.read_bytes()
    assert write(key, crm, tmp_path).status == install.UNCHANGED and path.read_bytes() == again


@pytest.mark.parametrize(
    ("key", "file", "broken"),
    [
        ("claude-code", ".mcp.json", '{"mcpServers": {'),
        ("cursor", ".cursor/mcp.json", '{"mcpServers": {}, // a comment is not JSON\n}'),
        ("vscode", ".vscode/mcp.json", '{"servers": [}'),
        ("zed", ".zed/settings.json", '{"context_servers": "not an object"}'),
        ("codex", ".codex/config.toml", "[mcp_servers.crm\ncommand = 1\n"),
        ("continue", ".continue/mcpServers/crm.yaml", "name: [unclosed\n"),
    ],
)
def test_a_broken_file_is_refused_and_left_byte_for_byte(crm, tmp_path, key, file, broken):
    path = tmp_path / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(broken.encode())
    with pytest.raises(install.WriteRefusedError):
        write(key, crm, tmp_path)
    assert path.read_bytes() == broken.encode()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left behind


@pytest.mark.parametrize("key", ["claude", "cline", "goose", "lmstudio"])
def test_user_scope_only_clients_refuse_to_write(crm, tmp_path, key):
    with pytest.raises(install.WriteRefusedError):
        write(key, crm, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_codex_merge_keeps_comments_and_other_tables_and_replaces_the_entry(crm, tmp_path):
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(
        '# my codex config\nmodel = "o5"\n\n[mcp_servers.crm]\ncommand = "crm-before-replace"\n\n'
        '[mcp_servers.crm.env]\nX = "1"\n\n[mcp_servers.other]\ncommand = "x" # keep\n'
    )
    assert write("codex", crm, tmp_path, replace=True).status == install.UPDATED
    text = path.read_text()
    assert "# my codex config" in text and 'command = "x" # keep' in text and "crm-before-replace" not in text
    data = tomllib.loads(text)
    assert data["model"] == "o5" and data["mcp_servers"]["other"] == {"command": "x"}
    assert data["mcp_servers"]["crm"]["args"] == ["--mcp"] and data["mcp_servers"]["crm"]["env"]["X"] == "1"  # the user's variable is kept
    again = path.read_bytes()
    assert write("codex", crm, tmp_path).status == install.UNCHANGED and path.read_bytes() == again


def test_codex_refuses_an_inline_entry_it_cannot_replace(crm, tmp_path):
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    original = '[mcp_servers]\ncrm = { command = "old" }\n'
    path.write_text(original)
    with pytest.raises(install.WriteRefusedError):
        write("codex", crm, tmp_path, replace=True)
    assert path.read_text() == original


def test_continue_writes_its_own_drop_in_file(crm, tmp_path):
    assert write("continue", crm, tmp_path).status == install.CREATED
    data = yaml.safe_load((tmp_path / ".continue" / "mcpServers" / "crm.yaml").read_text())
    assert data["mcpServers"][0]["name"] == "crm" and data["schema"] == "v1"


def test_the_file_mode_is_kept(crm, tmp_path):
    path = tmp_path / ".mcp.json"
    path.write_text('{"mcpServers": {}}')
    path.chmod(0o600)
    write("claude-code", crm, tmp_path)
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_current_project_is_the_nearest_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    assert install.current_project(tmp_path / "src" / "pkg") == tmp_path.resolve()


# --- the JSONC editor --------------------------------------------------------------------------


def test_jsonc_reads_comments_and_trailing_commas():
    assert jsonc.loads('// c\n{"a": [1, 2,], /* x */ "b": "//not a comment",}') == {"a": [1, 2], "b": "//not a comment"}


@pytest.mark.parametrize("text", ["{", '{"a" 1}', '{"a": 1} x', "/* open", '{"a": tru}'])
def test_jsonc_errors_say_where(text):
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.loads(text)
    assert caught.value.line >= 1


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "{ }",
        '{"x": 1}',
        '{\n  "x": 1,\n}',
        '{\n  "x": 1 // c\n}',
        '{\n  "servers": {}\n}',
        '{\n  "servers": {"a": 1,} // c\n}',
        '{"servers": {"crm": [1, 2]}}',
    ],
)
def test_jsonc_set_server_changes_only_that_member(text):
    new = jsonc.set_server(text, "servers", "crm", {"command": "/x", "args": ["a"]})
    expected = jsonc.loads(text)
    expected["servers"] = {**expected.get("servers", {}), "crm": {"command": "/x", "args": ["a"]}}
    assert jsonc.loads(new) == expected
    assert new.count("// c") == text.count("// c")


# --- an entry of the same name, and the TOML and JSONC editors (issue 12) -------------------------


def test_merge_entry_keeps_the_users_keys_variables_and_defaults():
    kiro = known_client("kiro")
    ours = {"command": "/new", "args": ["--mcp"], "env": {"RATA_HOME": "/h"}, "disabled": False, "autoApprove": []}
    existing = {"command": "/old", "env": {"API_KEY": "k", "RATA_HOME": "/old"}, "disabled": True, "autoApprove": ["customers_index"], "timeout": 9}
    merged, kept = merge.merge_entry(kiro, existing, ours)
    assert merged == {**existing, "command": "/new", "args": ["--mcp"], "env": {"API_KEY": "k", "RATA_HOME": "/h"}}
    assert set(kept) == {"timeout", "env.API_KEY", "disabled", "autoApprove"}


def test_a_different_entry_is_refused_and_the_file_is_left(crm, tmp_path):
    path = tmp_path / ".mcp.json"
    original = '{"mcpServers": {"crm": {"command": "/mine", "env": {"TOKEN": "t0ps3cret"}}}}'
    path.write_text(original)
    with pytest.raises(merge.EntryExistsError) as refused:
        write("claude-code", crm, tmp_path)
    assert '-    "command": "/mine",' in refused.value.diff and "t0ps3cret" not in refused.value.diff
    assert path.read_text() == original


def test_a_different_continue_file_is_refused_and_replace_replaces_it(crm, tmp_path):
    path = tmp_path / ".continue" / "mcpServers" / "crm.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("name: crm\n# mine\n")
    with pytest.raises(merge.EntryExistsError):
        write("continue", crm, tmp_path)
    assert path.read_text() == "name: crm\n# mine\n"
    assert write("continue", crm, tmp_path, replace=True).status == install.UPDATED
    assert yaml.safe_load(path.read_text())["mcpServers"][0]["name"] == "crm"


def test_a_toml_string_that_looks_like_a_header_is_not_one(crm, tmp_path):
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    original = '[notes]\ntext = """\n[mcp_servers.crm]\ncommand = "fake"\n"""\nlist = [\n  "[mcp_servers.crm]",\n]\n\n[mcp_servers.crm]\ncommand = "old"\n'
    path.write_text(original)
    write("codex", crm, tmp_path, replace=True)
    data = tomllib.loads(path.read_text())
    assert data["notes"]["text"] == '[mcp_servers.crm]\ncommand = "fake"\n' and data["mcp_servers"]["crm"]["args"] == ["--mcp"]
    assert path.read_text().startswith(original.split('\n\n[mcp_servers.crm]')[0])


def test_a_lone_surrogate_the_user_wrote_stays_an_escape(crm, tmp_path):
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"servers": {"crm": {"command": "/old", "env": {"ODD": "\\udfff"}}}}')
    write("vscode", crm, tmp_path, replace=True)
    assert '"ODD": "\\udfff"' in path.read_text() and jsonc.loads(path.read_text())["servers"]["crm"]["env"]["ODD"] == "\udfff"


def test_the_lock_file_is_gone_after_a_write(crm, tmp_path):
    write("cursor", crm, tmp_path)
    assert sorted(p.name for p in (tmp_path / ".cursor").iterdir()) == ["mcp.json"]


def test_a_codex_entry_split_around_another_table_is_replaced_where_it_starts(crm, tmp_path):
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('[mcp_servers.crm]\ncommand = "old"\n\n# about other\n[other]\nx = 1\n\n[mcp_servers.crm.env]\nK = "v"\n')
    write("codex", crm, tmp_path, replace=True)
    text = path.read_text()
    data = tomllib.loads(text)
    assert data["other"] == {"x": 1} and data["mcp_servers"]["crm"]["env"]["K"] == "v" and data["mcp_servers"]["crm"]["args"] == ["--mcp"]
    assert text.index("[mcp_servers.crm]") < text.index("# about other\n[other]\nx = 1\n") and text.count("[mcp_servers.crm.env]") == 1


def test_the_diff_of_a_huge_entry_is_bounded_and_quick(crm, tmp_path):
    import time

    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"crm": {"command": "x" * 100_000, "args": [str(i) for i in range(100_000)]}}}, indent=2))
    started = time.monotonic()
    with pytest.raises(merge.EntryExistsError) as refused:
        write("claude-code", crm, tmp_path)
    assert time.monotonic() - started < 10
    lines = refused.value.diff.splitlines()
    assert len(lines) <= merge.MAX_DIFF_LINES + 1 and max(map(len, lines)) < merge.MAX_DIFF_WIDTH + 40
