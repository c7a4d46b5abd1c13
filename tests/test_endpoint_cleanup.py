"""The endpoint's files: closing removes the socket (or the TCP endpoint's port file) and the lock file, and a lock file
removed under a waiting app is not trusted. Each test runs over both transports (`endpoint_transport`)."""

from __future__ import annotations

import os
import socket

import pytest

from rata.endpoint import DEV, MCP, EndpointServer, _same_file, address_path
from rata.errors import EndpointError
from rata.folder import AppFolder

pytestmark = pytest.mark.usefixtures("endpoint_transport")


def serve_nothing(connection) -> None:
    connection.close()


@pytest.mark.parametrize("kind", [MCP, DEV], ids=["mcp.sock", "dev.sock"])
def test_closing_an_endpoint_removes_its_socket_and_its_lock_file(rata_home, kind):
    folder = AppFolder(rata_home)
    endpoint = EndpointServer(folder, kind, serve_nothing).open()
    names = {address_path(folder, kind).name, kind.socket_name + ".lock"}
    assert names <= set(os.listdir(rata_home))
    endpoint.close()
    assert names.isdisjoint(os.listdir(rata_home))
    EndpointServer(folder, kind, serve_nothing).open().close()  # and it opens again


def test_a_second_copy_is_refused_while_the_first_runs_and_opens_once_it_stopped(rata_home):
    folder = AppFolder(rata_home)
    first = EndpointServer(folder, MCP, serve_nothing).open()
    with pytest.raises(EndpointError, match="Another running copy"):
        EndpointServer(folder, MCP, serve_nothing).open()
    first.close()
    second = EndpointServer(folder, MCP, serve_nothing).open()
    assert (rata_home / "mcp.sock.lock").read_text() == f"{os.getpid()}\n"
    second.close()


def test_a_lock_taken_on_a_lock_file_that_was_removed_meanwhile_is_told_apart(rata_home):
    # An app that opened the lock file just before the running one removed it (as it stopped) gets
    # its flock on a file nobody else will open: it must take the lock of the file now at the path.
    folder = AppFolder(rata_home)
    running = EndpointServer(folder, MCP, serve_nothing).open()
    lock_path = rata_home / "mcp.sock.lock"
    fcntl = pytest.importorskip("fcntl")  # the flock case; Windows locks differently
    late = os.open(lock_path, os.O_RDWR)
    try:
        running.close()
        fcntl.flock(late, fcntl.LOCK_EX | fcntl.LOCK_NB)  # succeeds: on the removed file
        assert not _same_file(late, lock_path)
        EndpointServer(folder, MCP, serve_nothing).open().close()
    finally:
        os.close(late)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_one_lock_whichever_the_transport_so_a_tcp_copy_is_refused_while_a_unix_copy_serves(rata_home):
    folder = AppFolder(rata_home)
    with EndpointServer(folder, MCP, serve_nothing, transport="unix"), pytest.raises(EndpointError, match="Another running copy"):
        EndpointServer(folder, MCP, serve_nothing, transport="tcp").open()
    with EndpointServer(folder, MCP, serve_nothing, transport="tcp"), pytest.raises(EndpointError, match="Another running copy"):
        EndpointServer(folder, MCP, serve_nothing, transport="unix").open()


def test_an_open_that_fails_releases_its_lock_and_leaves_no_file(rata_home):
    folder = AppFolder(rata_home).ensure()
    (rata_home / "mcp.sock").mkdir()  # something no crashed run leaves, which cannot be removed as a file
    with pytest.raises(EndpointError, match="Could not open the RATA-MCP/1 endpoint"):
        EndpointServer(folder, MCP, serve_nothing).open()
    assert sorted(os.listdir(rata_home)) == ["instance.token", "logs", "mcp.sock"]
    (rata_home / "mcp.sock").rmdir()
    EndpointServer(folder, MCP, serve_nothing).open().close()  # the failed open held nothing
