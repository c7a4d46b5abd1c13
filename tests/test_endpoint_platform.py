"""What the endpoint does on Linux, macOS and Windows: each platform decision pinned for all three, on this machine.

The macOS peer check reads a ``struct xucred``; its parser is tested with the bytes macOS and FreeBSD give, and
the decision it feeds (`peer_refusal`) is the one the Linux reader feeds, which the real socket tests cover.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.endpoint_platform import (
    XU_NGROUPS,
    choose_transport,
    linux_peer,
    parse_port,
    parse_xucred,
    peer_credentials,
    peer_refusal,
    read_port_file,
    write_port_file,
)
from rata.errors import EndpointError

PLATFORMS = {"linux": "unix", "darwin": "unix", "win32": "tcp"}


def xucred(uid: int, groups: list[int], *, version: int = 0, freebsd_pid: int | None = None) -> bytes:
    """A ``struct xucred`` as the kernel fills it: version, uid, ngroups, padding, 16 gids (FreeBSD: then a pid in a pointer-sized union)."""
    data = struct.pack("=IIhxx16I", version, uid, len(groups), *(groups + [0] * (XU_NGROUPS - len(groups))))
    if freebsd_pid is not None:
        data += struct.pack("=q", freebsd_pid)
    return data


@pytest.mark.parametrize(("platform", "transport"), PLATFORMS.items())
def test_each_platform_gets_its_transport_when_nothing_is_chosen(platform, transport):
    assert choose_transport({}, platform) == transport
    assert choose_transport({"RATA_ENDPOINT": ""}, platform) == transport


@pytest.mark.parametrize("platform", PLATFORMS)
def test_rata_endpoint_tcp_chooses_loopback_tcp_on_every_platform(platform):
    assert choose_transport({"RATA_ENDPOINT": "tcp"}, platform) == "tcp"
    assert choose_transport({"RATA_ENDPOINT": " TCP "}, platform) == "tcp"


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_rata_endpoint_unix_keeps_the_socket_where_there_is_one(platform):
    assert choose_transport({"RATA_ENDPOINT": "unix"}, platform) == "unix"


def test_a_unix_endpoint_asked_for_on_windows_is_refused_naming_the_fix():
    with pytest.raises(EndpointError) as refused:
        choose_transport({"RATA_ENDPOINT": "unix"}, "win32")
    assert "'unix'" in refused.value.message and "loopback TCP only" in refused.value.message
    assert refused.value.hint == "Unset RATA_ENDPOINT, or set it to tcp."


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_rata_endpoint_that_names_no_transport_is_refused_naming_the_value(platform):
    with pytest.raises(EndpointError) as refused:
        choose_transport({"RATA_ENDPOINT": "pipe"}, platform)
    assert "'pipe'" in refused.value.message
    assert "tcp" in (refused.value.hint or "")


# --- the peer's user: one decision, fed by each platform's reader ---


@pytest.mark.parametrize(
    ("peer", "own", "refusal"),
    [(1000, 1000, None), (0, 0, None), (1001, 1000, "wrong user"), (0, 1000, "wrong user"), (1000, 0, "wrong user"), (None, 1000, None), (1000, None, None)],
)
def test_a_peer_of_another_user_is_refused_and_a_peer_the_platform_cannot_name_goes_on_to_the_challenge(peer, own, refusal):
    assert peer_refusal(peer, own) == refusal


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_PEERCRED is Linux's")
def test_the_linux_reader_names_this_process_as_the_peer_of_a_real_unix_socket():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert linux_peer(left) == (os.getpid(), os.getuid())
        assert peer_credentials(left, "linux") == (os.getpid(), os.getuid())


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_a_platform_without_a_reader_names_no_peer():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_credentials(left, "sunos5") == (None, None)


@pytest.mark.parametrize("freebsd_pid", [None, 4242], ids=["macos", "freebsd"])
def test_the_macos_reader_takes_the_uid_from_the_xucred_the_kernel_gives(freebsd_pid):
    assert parse_xucred(xucred(501, [20, 12, 61], freebsd_pid=freebsd_pid)) == 501
    assert parse_xucred(xucred(0, [], freebsd_pid=freebsd_pid)) == 0
    assert parse_xucred(xucred(2**32 - 2, [0] * XU_NGROUPS, freebsd_pid=freebsd_pid)) == 2**32 - 2


def test_what_the_macos_reader_finds_feeds_the_same_decision_as_linux():
    assert peer_refusal(parse_xucred(xucred(502, [20])), 501) == "wrong user"
    assert peer_refusal(parse_xucred(xucred(501, [20])), 501) is None


@pytest.mark.parametrize(
    "data",
    [b"", b"\0" * 9, xucred(501, [20], version=1), struct.pack("=IIh", 0, 501, -1), struct.pack("=IIh", 0, 501, XU_NGROUPS + 1)],
    ids=["empty", "short", "another-version", "negative-groups", "too-many-groups"],
)
def test_bytes_that_are_no_xucred_name_no_user(data):
    assert parse_xucred(data) is None


@given(st.binary(max_size=128))
def test_any_bytes_give_the_macos_reader_a_uid_or_none_never_an_error(data):
    uid = parse_xucred(data)
    assert uid is None or 0 <= uid < 2**32


@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**32 - 1), max_size=XU_NGROUPS), st.booleans())
def test_any_xucred_gives_back_its_uid(uid, groups, freebsd):
    assert parse_xucred(xucred(uid, groups, freebsd_pid=7 if freebsd else None)) == uid


# --- the port file ---


@given(st.integers(1, 65535))
def test_every_port_written_is_read_back(port):
    assert parse_port(f"{port}\n".encode()) == port


@given(st.binary(max_size=40))
def test_any_port_file_content_is_a_port_or_a_value_error(data):
    try:
        port = parse_port(data)
    except ValueError:
        return
    assert 0 < port < 65536 and data.rstrip(b"\n").decode("ascii").lstrip("0") == str(port)


def test_the_port_file_is_0600_written_whole_and_read_back(tmp_path):
    path = tmp_path / "mcp.port"
    write_port_file(str(path), 50123)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 or os.name != "posix"  # on Windows the folder's access list guards it
    assert path.read_bytes() == b"50123\n"
    assert os.listdir(tmp_path) == ["mcp.port"]
    write_port_file(str(path), 50124)  # a crashed run's file is replaced
    assert read_port_file(str(path)) == 50124
    assert read_port_file(str(tmp_path / "absent.port")) is None


def test_a_port_file_that_is_a_folder_is_refused_not_read(tmp_path):
    (tmp_path / "mcp.port").mkdir()
    with pytest.raises(EndpointError, match="not a regular file"):
        read_port_file(str(tmp_path / "mcp.port"))
