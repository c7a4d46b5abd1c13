"""`rata.projectfiles`: a project's files read as hostile: a FIFO or a device never blocks or never ends a read, a big
file is never read whole, and a walk of a huge tree stops."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.projectfiles import ProjectFileError, read_bytes, read_text, under, walk_files

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")


def read_on_a_thread(path: Path, limit: int) -> object:
    """What `read_bytes` gave or raised, on a thread that must be done within 5 s (a blocked open would never be)."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(_attempt(path, limit)), daemon=True)
    thread.start()
    thread.join(5)
    assert result, f"reading {path} blocked"
    return result[0]


def _attempt(path: Path, limit: int) -> object:
    try:
        return read_bytes(path, limit=limit)
    except ProjectFileError as error:
        return error


@posix_only
def test_a_fifo_is_refused_at_once_instead_of_blocking_the_reader(tmp_path):
    os.mkfifo(tmp_path / "notes.md")
    error = read_on_a_thread(tmp_path / "notes.md", 100)
    assert isinstance(error, ProjectFileError) and error.reason == "is a FIFO, not a regular file"


@posix_only
def test_a_link_to_dev_zero_is_refused_instead_of_read_for_ever(tmp_path):
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    error = read_on_a_thread(tmp_path / "zero.md", 100)
    assert isinstance(error, ProjectFileError) and error.reason == "is a device, not a regular file"


def test_a_file_over_the_limit_is_refused_having_read_only_one_byte_past_it(tmp_path):
    (tmp_path / "big.md").write_bytes(b"x" * 5000)
    with pytest.raises(ProjectFileError, match="is over 4,999 bytes"):
        read_bytes(tmp_path / "big.md", limit=4999)
    assert read_bytes(tmp_path / "big.md", limit=5000) == b"x" * 5000


def test_a_folder_a_missing_file_and_text_that_is_not_utf_8_say_what_they_are(tmp_path):
    (tmp_path / "bad.md").write_bytes(b"ok \xff")
    reasons = []
    for attempt in (
        lambda: read_bytes(tmp_path, limit=10),
        lambda: read_bytes(tmp_path / "gone.md", limit=10),
        lambda: read_text(tmp_path / "bad.md", limit=10),
    ):
        with pytest.raises(ProjectFileError) as caught:
            attempt()
        reasons.append(caught.value.reason)
    assert (
        reasons[0].startswith(("is a folder", "cannot be opened")) and reasons[1].startswith("cannot be opened") and reasons[2] == "is not UTF-8 text (byte 3)"
    )
    assert read_text(tmp_path / "bad.md", limit=10, errors="replace") == "ok \ufffd"


@given(st.binary(max_size=3000), st.integers(0, 3000))
def test_any_file_reads_whole_within_its_limit_or_is_refused(tmp_path_factory, data, limit):
    path = tmp_path_factory.mktemp("read") / "f"
    path.write_bytes(data)
    try:
        assert read_bytes(path, limit=limit) == data and len(data) <= limit
    except ProjectFileError as error:
        assert len(data) > limit and error.reason == f"is over {limit:,} bytes"


@posix_only
def test_a_walk_keeps_regular_files_and_names_what_it_passed_over(tmp_path):
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "docs" / "deep" / "b.md").write_text("b")
    os.mkfifo(tmp_path / "docs" / "fifo.md")
    (tmp_path / "docs" / "zero.md").symlink_to("/dev/zero")
    (tmp_path / "docs" / "dangling.md").symlink_to(tmp_path / "nowhere")
    (tmp_path / "docs" / "node_modules").mkdir()
    (tmp_path / "docs" / "node_modules" / "c.md").write_text("c")
    walk = walk_files(tmp_path / "docs", lambda name: name.endswith(".md"))
    assert [Path(path).name for path, _, _ in walk.files] == ["a.md", "b.md"]
    assert [Path(path).name for path in walk.skipped] == ["dangling.md", "fifo.md", "zero.md"] and walk.cut is False


def test_a_walk_of_a_tree_larger_than_its_bound_stops_and_says_so(tmp_path):
    for folder in range(5):
        (tmp_path / f"f{folder}").mkdir()
        for name in range(40):
            (tmp_path / f"f{folder}" / f"n{name}.txt").write_text("")
    walk = walk_files(tmp_path, lambda name: name.endswith(".txt"), max_entries=100)
    assert walk.cut is True and 0 < len(walk.files) < 200
    assert walk_files(tmp_path, lambda name: name.endswith(".txt")).cut is False


def test_under_keeps_a_path_that_stays_in_the_folder_and_refuses_one_that_leaves(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "out").symlink_to(tmp_path)
    assert under(tmp_path / "app", "docs/x.md") == (tmp_path / "app" / "docs" / "x.md").resolve()
    assert under(tmp_path / "app", "../secret") is None and under(tmp_path / "app", "out/secret") is None


def test_a_walk_of_a_tree_that_changes_while_it_is_walked_never_raises(tmp_path):
    """What `rata dev`'s reload loop meets when an editor saves, a build writes or a folder is removed mid-walk."""
    import shutil

    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            folder = tmp_path / f"d{n % 7}"
            folder.mkdir(exist_ok=True)
            (folder / f"m{n}.py").write_text("x = 1\n")
            if n % 5 == 0:
                shutil.rmtree(tmp_path / f"d{(n + 3) % 7}", ignore_errors=True)
            n += 1

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            walk = walk_files(tmp_path, lambda name: name.endswith(".py"))
            assert all(path.endswith(".py") for path, _, _ in walk.files)
    finally:
        stop.set()
        thread.join(5)


def test_a_walk_cut_short_has_seen_the_python_packages_before_other_folders(tmp_path):
    for folder in ("aaa", "bbb"):
        (tmp_path / folder).mkdir()
        for name in range(60):
            (tmp_path / folder / f"n{name}.dat").write_text("")
    (tmp_path / "zpkg").mkdir()
    (tmp_path / "zpkg" / "__init__.py").write_text("")
    (tmp_path / "zpkg" / "app.py").write_text("")
    walk = walk_files(tmp_path, lambda name: name.endswith(".py"), max_entries=50)
    assert walk.cut is True and [Path(path).name for path, _, _ in walk.files] == ["__init__.py", "app.py"]
