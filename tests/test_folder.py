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
