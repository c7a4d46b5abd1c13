"""`rata.install.files`: one config file edited under a lock, through links, atomically."""

from __future__ import annotations

import os

import pytest

from rata.install import files as install_file


def test_a_file_changed_by_another_program_during_the_merge_is_merged_again(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text("first")
    seen: list[str | None] = []

    def change(old: str | None) -> str:
        seen.append(old)
        if len(seen) == 1:
            path.write_text("written by the client meanwhile")
        return f"{old} + rata"

    edited = install_file.edit(path, change)
    assert seen == ["first", "written by the client meanwhile"]
    assert path.read_text() == edited.new == "written by the client meanwhile + rata"


def test_the_bom_is_kept_aside_and_put_back(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf{}")
    install_file.edit(path, lambda old: old + " ")
    assert path.read_bytes() == b"\xef\xbb\xbf{} "


def test_an_unchanged_text_is_not_written(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    before = os.stat(path)
    assert install_file.edit(path, lambda old: old or "").new == "{}"
    assert os.stat(path).st_ino == before.st_ino


def test_a_refusal_from_the_merge_leaves_the_file_and_the_lock_is_released(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text("{}")

    def refuse(old: str | None) -> str:
        raise install_file.WriteRefusedError("no")

    with pytest.raises(install_file.WriteRefusedError):
        install_file.edit(path, refuse)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcp.json"]
    assert install_file.edit(path, lambda old: "[]").new == "[]"  # the lock was released


@pytest.mark.parametrize(("value", "seconds"), [("0.5", 0.5), ("abc", 10.0), ("nan", 10.0), ("-5", 0.0), ("1e9", 600.0), ("", 10.0)])
def test_the_lock_timeout_is_a_bounded_number_of_seconds(monkeypatch, value, seconds):
    monkeypatch.setenv("RATA_INSTALL_LOCK_TIMEOUT", value)
    assert install_file.lock_timeout() == seconds


def test_a_link_to_itself_is_refused_cleanly(tmp_path):
    path = tmp_path / "mcp.json"
    path.symlink_to(path)
    with pytest.raises(install_file.WriteRefusedError):
        install_file.edit(path, lambda old: "{}")
    assert path.is_symlink()
