"""`rata mcp install --write` never loses the user's config: each case through the real `rata` process.

Every test runs `python -m rata mcp install --client X --write` in a scratch project with a scratch
HOME, and checks the file afterwards byte for byte where it must be untouched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rata.install import jsonc
from tests.conftest import CRM, subprocess_env

pytestmark = pytest.mark.subprocess


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("")
    return folder


def start(project: Path, client: str, *more: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    home = project.parent / "home"
    home.mkdir(exist_ok=True)
    extra = {"HOME": str(home), **(env or {})}
    argv = [sys.executable, "-m", "rata", "mcp", "install", "--client", client, "--app", str(CRM), "--write", *more]
    return subprocess.Popen(
        argv, cwd=project, env=subprocess_env(project.parent / "rata-home", **extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def install(project: Path, client: str, *more: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    process = start(project, client, *more, env=env)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("rata mcp install --write hung")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The error shown once, cleanly: exit 1, no traceback."""
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("error: ") == 1, done.stderr
    return done.stderr


# --- an entry that is already there --------------------------------------------------------------

MINE = {"command": "/opt/crm", "args": ["--mcp"], "env": {"API_KEY": "s3cret-value"}, "timeout": 30}


def test_a_different_entry_of_the_same_name_is_refused_with_a_diff_and_left(project):
    path = project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"crm": MINE}}, indent=4) + "\n")
    before = path.read_bytes()
    err = refused(install(project, "claude-code"))
    assert "already has a server named 'crm'" in err and "--replace" in err
    assert '-    "command": "/opt/crm",' in err and '+    "command": "' in err  # what is there, what rata would write
    assert '"API_KEY": "***"' in err and "s3cret-value" not in err  # the user's secret is not shown
    assert path.read_bytes() == before


def test_replace_keeps_the_users_environment_and_other_keys(project):
    path = project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"crm": MINE, "other": {"command": "x"}}}, indent=4) + "\n")
    done = install(project, "claude-code", "--replace")
    assert done.returncode == 0, done.stderr
    assert "Kept from the old entry: timeout, env.API_KEY." in done.stdout
    entry = json.loads(path.read_text())["mcpServers"]["crm"]
    assert entry["env"]["API_KEY"] == "s3cret-value" and entry["timeout"] == 30
    assert entry["command"] != "/opt/crm" and entry["env"]["RATA_HOME"] == str(project.parent / "rata-home")
    assert json.loads(path.read_text())["mcpServers"]["other"] == {"command": "x"}


def test_an_entry_that_has_rata_s_values_and_more_is_already_up_to_date(project):
    assert install(project, "cursor").returncode == 0
    path = project / ".cursor" / "mcp.json"
    data = json.loads(path.read_text())
    data["mcpServers"]["crm"]["env"]["API_KEY"] = "mine"
    data["mcpServers"]["crm"]["timeout"] = 5
    path.write_text(json.dumps(data, indent=2) + "\n")
    before = path.read_bytes()
    done = install(project, "cursor")
    assert done.returncode == 0 and "already up to date" in done.stdout
    assert path.read_bytes() == before


def test_replace_needs_write(project):
    done = subprocess.run(
        [sys.executable, "-m", "rata", "mcp", "install", "--client", "cursor", "--app", str(CRM), "--replace"],
        cwd=project,
        env=subprocess_env(project.parent / "rata-home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused(done) and "--replace works only with --write" in done.stderr


# --- concurrent writers --------------------------------------------------------------------------


@pytest.mark.parametrize(("client", "file"), [("claude-code", ".mcp.json"), ("codex", ".codex/config.toml"), ("vscode", ".vscode/mcp.json")])
def test_six_parallel_installs_keep_every_entry(project, client, file):
    names = ["one", "two", "three", "four", "five", "six"]
    for round_ in range(3):
        path = project / file
        if path.exists():
            path.unlink()
        processes = [start(project, client, "--name", f"{name}{round_}") for name in names]
        results = [(p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in processes]
        for process in processes:
            process.stdout.close()
            process.stderr.close()
        assert [code for code, _ in results] == [0] * 6, results
        text = path.read_text()
        servers = tomllib.loads(text)["mcp_servers"] if file.endswith(".toml") else jsonc.loads(text)["mcpServers" if client != "vscode" else "servers"]
        assert sorted(servers) == sorted(f"{name}{round_}" for name in names)
        assert [p.name for p in path.parent.iterdir() if p.name.endswith((".lock", ".tmp"))] == []  # no lock or temporary file left


def test_a_held_lock_makes_a_clean_refusal_after_the_bounded_wait(project):
    import fcntl

    path = project / ".mcp.json"
    path.write_text('{"mcpServers": {}}\n')
    lock = os.open(project / "..mcp.json.lock", os.O_RDWR | os.O_CREAT)  # the lock file of .mcp.json
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        err = refused(install(project, "claude-code", env={"RATA_INSTALL_LOCK_TIMEOUT": "0.3"}))
    finally:
        os.close(lock)
    assert "Another process has been writing" in err and "0.3 s" in err
    assert path.read_text() == '{"mcpServers": {}}\n'


# --- links, line breaks, comments ----------------------------------------------------------------


def test_a_symlinked_config_is_written_through_the_link(project):
    real = project.parent / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    real.chmod(0o640)
    (project / ".mcp.json").symlink_to(real)
    done = install(project, "claude-code")
    assert done.returncode == 0, done.stderr
    assert f"through the link to {real}" in done.stdout
    assert (project / ".mcp.json").is_symlink() and os.readlink(project / ".mcp.json") == str(real)
    assert set(json.loads(real.read_text())["mcpServers"]) == {"other", "crm"}
    assert real.stat().st_mode & 0o777 == 0o640


def test_a_dangling_link_is_refused_and_nothing_is_created(project):
    (project / ".mcp.json").symlink_to(project.parent / "nowhere" / "mcp.json")
    err = refused(install(project, "claude-code"))
    assert "is a link to" in err and "does not exist" in err
    assert not (project.parent / "nowhere").exists() and (project / ".mcp.json").is_symlink()


def test_replacing_a_codex_table_keeps_the_comment_block_of_the_next_table(project):
    path = project / ".codex" / "config.toml"
    path.parent.mkdir()
    original = (
        '# codex settings\nmodel = "o5"\n\n'
        '# --- my crm server ---\n[mcp_servers.crm]\ncommand = "old"\n\n[mcp_servers.crm.env]\nTOKEN = "t"\n\n'
        '# --- the other server, keep this note ---\n# it needs a VPN\n[mcp_servers.other]\ncommand = "x"\n'
    )
    path.write_text(original)
    done = install(project, "codex", "--replace")
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    before_entry, after_entry = original.split("[mcp_servers.crm]")[0], original.split('TOKEN = "t"\n')[1]
    assert text.startswith(before_entry) and text.endswith(after_entry)  # every byte outside the entry
    data = tomllib.loads(text)
    assert data["mcp_servers"]["crm"]["env"]["TOKEN"] == "t" and data["mcp_servers"]["crm"]["args"] == ["--mcp"]


@pytest.mark.parametrize(
    ("client", "file", "text"),
    [
        ("claude-code", ".mcp.json", '{\r\n  "mcpServers": {\r\n    "other": {"command": "x"}\r\n  }\r\n}\r\n'),
        ("vscode", ".vscode/mcp.json", '// mine\r\n{\r\n\t"servers": {\r\n\t\t"other": {"command": "x"}, // keep\r\n\t}\r\n}'),
        ("codex", ".codex/config.toml", '# mine\r\nmodel = "o5"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n'),
    ],
)
def test_a_crlf_file_stays_crlf_with_its_bom_and_final_line_break(project, client, file, text):
    path = project / file
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    done = install(project, client)
    assert done.returncode == 0, done.stderr
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.count(b"\n") == data.count(b"\r\n") > text.count("\n")
    assert data.endswith(b"\r\n") == text.endswith("\r\n")
    new = data[3:].decode()
    assert new.startswith(text.split("other")[0])
    if client == "vscode":
        assert '\r\n\t\t"crm": {\r\n\t\t\t"type": "stdio",' in new and "// keep" in new  # tab indentation kept
    again = install(project, client)
    assert again.returncode == 0 and "already up to date" in again.stdout and path.read_bytes() == data


# --- files rata cannot read or write: a clean refusal, the file untouched -------------------------

HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("client", "file", "content", "says"),
    [
        ("claude-code", ".mcp.json", '{"mcpServers": {}, "n": ' + HUGE + "}", "number too long"),
        ("vscode", ".vscode/mcp.json", '{"servers": {}, "n": ' + HUGE + "}", "too long to read"),
        ("codex", ".codex/config.toml", "n = " + HUGE + "\n", "number too long"),
        ("claude-code", ".mcp.json", "[" * 50000 + "]" * 50000, "nested too deeply"),
        ("zed", ".zed/settings.json", '{"a": ' + "[" * 50000 + "]" * 50000 + "}", "nested more than"),
        ("codex", ".codex/config.toml", "a = " + "[" * 50000 + "]" * 50000 + "\n", "nested too deeply"),
    ],
)
def test_oversized_numbers_and_deep_nesting_are_refused_cleanly(project, client, file, content, says):
    path = project / file
    path.parent.mkdir(exist_ok=True)
    path.write_text(content)
    err = refused(install(project, client))
    assert says in err and "left unchanged" in err
    assert path.read_text() == content


def test_a_file_where_the_folder_should_be_is_refused_cleanly(project):
    (project / ".cursor").write_text("not a folder")
    err = refused(install(project, "cursor"))
    assert "is in the way" in err and "rename or remove it" in err
    assert (project / ".cursor").read_text() == "not a folder"


def test_a_folder_where_the_file_should_be_is_refused_cleanly(project):
    (project / ".mcp.json").mkdir()
    err = refused(install(project, "claude-code"))
    assert "is a folder, not a file" in err
    assert list((project / ".mcp.json").iterdir()) == []


def test_a_fifo_where_the_file_should_be_is_refused_without_blocking(project):
    os.mkfifo(project / ".mcp.json")
    err = refused(install(project, "claude-code"))
    assert "not a regular file" in err


def test_a_file_that_is_not_utf8_is_refused_cleanly(project):
    path = project / ".mcp.json"
    path.write_bytes(b'{"mcpServers": {"x": {"command": "caf\xe9"}}}')
    err = refused(install(project, "claude-code"))
    assert "is not UTF-8" in err
    assert path.read_bytes() == b'{"mcpServers": {"x": {"command": "caf\xe9"}}}'


def test_an_unwritable_folder_is_refused_cleanly(project):
    """A read-only folder (for a non-root user) or, as root, a folder on a read-only path: /proc refuses everyone."""
    if os.geteuid() == 0:
        pytest.skip("root writes any folder; the file-in-the-way and folder-in-the-way tests cover root")
    folder = project / ".cursor"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        err = refused(install(project, "cursor"))
    finally:
        folder.chmod(0o700)
    assert "Permission denied" in err and "writable" in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/sys is Linux's")
def test_a_folder_nobody_may_write_not_even_root_is_refused_cleanly(tmp_path):
    """/sys refuses new files to every user, root included: a real unwritable folder in CI."""
    env = subprocess_env(tmp_path / "rata-home", HOME=str(tmp_path))
    argv = [sys.executable, "-m", "rata", "mcp", "install", "--client", "cursor", "--app", str(CRM), "--write"]
    done = subprocess.run(argv, cwd="/sys", env=env, capture_output=True, text=True, timeout=60)
    err = refused(done)
    assert "Cannot write '/sys/.cursor/mcp.json'" in err and "writable" in err
    assert not os.path.exists("/sys/.cursor")
