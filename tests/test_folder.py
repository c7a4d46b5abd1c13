import os
import stat
from pathlib import Path

import pytest

from rata.folder import AppFolder, default_folder


def test_rata_home_is_the_folder_itself():
    assert default_folder("com.example.crm", environ={"RATA_HOME": "/srv/crm"}) == Path("/srv/crm")


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {"XDG_DATA_HOME": "/data"}, Path("/data/com.example.crm")),
        ("linux", {}, Path.home() / ".local" / "share" / "com.example.crm"),
        ("darwin", {}, Path.home() / "Library" / "Application Support" / "com.example.crm"),
        ("win32", {"APPDATA": "C:/Users/ada/AppData/Roaming"}, Path("C:/Users/ada/AppData/Roaming/com.example.crm")),
    ],
)
def test_without_rata_home_the_platform_data_folder_is_used(platform, environ, expected):
    assert default_folder("com.example.crm", environ=environ, platform=platform) == expected


def test_ensure_creates_the_folder_logs_and_a_private_token(tmp_path):
    folder = AppFolder(tmp_path / "app").ensure()
    assert folder.logs.is_dir()
    assert stat.S_IMODE(folder.token_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.path.stat().st_mode) == 0o700
    token = folder.token()
    assert len(token) >= 40 and folder.token() == token


def test_a_token_made_readable_by_others_is_made_private_again(tmp_path):
    folder = AppFolder(tmp_path / "app").ensure()
    os.chmod(folder.token_path, 0o644)
    folder.token()
    assert stat.S_IMODE(folder.token_path.stat().st_mode) == 0o600


# --- an existing folder is made private too, with rata's files in it ----------------------------

needs_posix = pytest.mark.skipif(os.name != "posix", reason="Unix permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@needs_posix
def test_an_existing_open_folder_and_the_files_in_it_are_made_private(tmp_path):
    home = tmp_path / "app"
    (home / "logs").mkdir(parents=True)
    os.chmod(home, 0o755)
    os.chmod(home / "logs", 0o755)
    files = [home / n for n in ("app.db", "app.db-wal", "app.db-shm", "instance.token", "confirm.db")] + [
        home / "logs" / "app.log",
        home / "logs" / "app.log.1",
    ]
    for file in files:
        file.write_text("x\n")
        os.chmod(file, 0o644)
    users = home / "notes.txt"  # not rata's: left as it is
    users.write_text("mine")
    os.chmod(users, 0o644)
    AppFolder(home).ensure()
    assert mode(home) == 0o700 and mode(home / "logs") == 0o700
    assert {file.name: mode(file) for file in files} == {file.name: 0o600 for file in files}
    assert mode(users) == 0o644


@needs_posix
def test_a_link_in_the_folder_is_not_followed_to_loosen_or_tighten_its_target(tmp_path):
    target = tmp_path / "elsewhere.db"
    target.write_text("")
    os.chmod(target, 0o644)
    home = tmp_path / "app"
    home.mkdir()
    (home / "app.db").symlink_to(target)
    AppFolder(home).ensure()
    assert mode(target) == 0o644


@needs_posix
def test_rata_home_may_be_a_link_to_the_real_folder_which_is_made_private(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o755)
    os.chmod(real, 0o755)
    (tmp_path / "link").symlink_to(real)
    AppFolder(tmp_path / "link").ensure()
    assert mode(real) == 0o700


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_an_open_folder_of_another_user_is_refused_with_the_fix(tmp_path):
    from rata.errors import ConfigError

    home = tmp_path / "app"
    home.mkdir()
    os.chmod(home, 0o755)
    os.chown(home, 65534, 65534)
    with pytest.raises(ConfigError) as refused:
        AppFolder(home).ensure()
    assert "can be read by other users (mode 0755)" in refused.value.message and "uid 65534" in refused.value.message
    assert f"chmod 700 {home}" in (refused.value.hint or "")
    assert mode(home) == 0o755


@pytest.mark.subprocess
@needs_posix
def test_the_apps_own_migrate_in_an_open_folder_leaves_everything_private(tmp_path):
    """Through the real `crm --migrate` under a 022 umask: the folder existed 0755; the database, its -wal/-shm and the log are 0600 from the first start."""
    import subprocess

    from tests.conftest import subprocess_env
    from tests.mcp.peers import crm_command

    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    env = subprocess_env(home)
    result = subprocess.run([*crm_command()[:-1], "--migrate"], capture_output=True, text=True, env=env, timeout=60, umask=0o022)
    assert result.returncode == 0, result.stderr
    assert mode(home) == 0o700
    made = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "app.db" for p in made)
    assert {p.name: mode(p) for p in made} == {p.name: 0o600 for p in made}
