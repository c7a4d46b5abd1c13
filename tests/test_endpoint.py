"""The private endpoint: a 0600 socket in the app's folder (loopback TCP on Windows) that only this install's token opens.

Every test here runs over both transports (`endpoint_transport`): the Unix socket, and the TCP endpoint Windows uses.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rata.endpoint import DEV, MCP, Connection, EndpointServer, Kind, address_path, dial, port_path, socket_path
from rata.endpoint import connect as endpoint_connect
from rata.endpoint_platform import write_port_file
from rata.errors import EndpointError
from rata.folder import AppFolder

pytestmark = pytest.mark.usefixtures("endpoint_transport")
unix_only = pytest.mark.parametrize("endpoint_transport", ["unix"], indirect=True)
tcp_only = pytest.mark.parametrize("endpoint_transport", ["tcp"], indirect=True)


def echo(connection: Connection) -> None:
    """A client handler that answers each line with the same line, upper-cased."""
    for line in connection.rfile:
        connection.send(line.upper())


@pytest.fixture
def folder(rata_home: Path) -> AppFolder:
    return AppFolder(rata_home).ensure()


@pytest.fixture
def endpoint(folder: AppFolder):
    with EndpointServer(folder, MCP, echo, handshake_timeout=0.5) as server:
        yield server


OPENED: list[socket.socket | Connection] = []


@pytest.fixture(autouse=True)
def close_what_the_test_opened():
    yield
    while OPENED:
        OPENED.pop().close()


def raw(folder: AppFolder, kind: Kind = MCP) -> socket.socket:
    """A plain connection to the endpoint, before the handshake, by whichever transport it listens on."""
    dialed = dial(folder, kind, timeout=5)
    assert dialed is not None, "no endpoint listening"
    sock = dialed[0]
    OPENED.append(sock)
    sock.settimeout(5)
    return sock


def listener(folder: AppFolder, transport: str) -> socket.socket:
    """Something else listening where a client looks for the app's MCP endpoint: an impostor."""
    if transport == "tcp":
        sock = socket.create_server(("127.0.0.1", 0))
        write_port_file(str(port_path(folder, MCP)), sock.getsockname()[1])
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(socket_path(folder, MCP)))
        sock.listen(1)
    OPENED.append(sock)
    return sock


def leave_a_crashed_runs_file(folder: AppFolder, transport: str) -> Path:
    """What a killed app leaves: a socket bound but no longer listening, or a port file naming a port nobody listens on."""
    if transport == "tcp":
        with socket.create_server(("127.0.0.1", 0)) as gone:
            port = gone.getsockname()[1]
        write_port_file(str(port_path(folder, MCP)), port)
        return port_path(folder, MCP)
    crashed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    crashed.bind(str(socket_path(folder, MCP)))
    crashed.close()
    return socket_path(folder, MCP)


def connect(folder: AppFolder, kind: Kind) -> Connection | None:
    connection = endpoint_connect(folder, kind)
    if connection is not None:
        OPENED.append(connection)
    return connection


def read_line(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            break
        data += chunk
    return data.decode()


def test_a_client_with_the_token_passes_the_challenge_and_lines_flow_unchanged(folder, endpoint):
    connection = connect(folder, MCP)
    assert connection is not None
    connection.send(b'{"jsonrpc":"2.0"}\n')
    assert connection.rfile.readline() == b'{"JSONRPC":"2.0"}\n'
    connection.close()


@unix_only
def test_the_socket_is_0600_in_the_app_folder_and_gone_after_close(folder):
    server = EndpointServer(folder, MCP, echo).open()
    path = socket_path(folder, MCP)
    assert path.parent == folder.path
    assert stat.S_ISSOCK(path.stat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.path.stat().st_mode) == 0o700
    server.close()
    assert not path.exists()
    assert connect(folder, MCP) is None


@tcp_only
def test_the_tcp_endpoint_listens_on_loopback_only_and_names_its_port_in_a_0600_file_gone_after_close(folder):
    server = EndpointServer(folder, MCP, echo).open()
    named = port_path(folder, MCP)
    assert server.path == named == address_path(folder, MCP) and not socket_path(folder, MCP).exists()
    assert stat.S_ISREG(named.stat().st_mode)
    assert stat.S_IMODE(named.stat().st_mode) == 0o600 or os.name != "posix"  # on Windows the folder's access list guards it
    assert named.read_text() == f"{server.port}\n"
    assert server.where == f"127.0.0.1:{server.port}, named in {named}"  # what `crm --headless` tells the user
    assert server._sock.getsockname() == ("127.0.0.1", server.port)
    assert [name for name in os.listdir(folder.path) if name.endswith(".tmp")] == []  # written whole, through a temporary
    server.close()
    assert not named.exists()
    assert connect(folder, MCP) is None
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=5).close()


def test_a_port_file_that_names_no_port_is_refused_naming_the_file_and_the_fix(folder, endpoint_transport):
    named = port_path(folder, MCP)
    for content in (b"", b"http\n", b"0\n", b"65536\n", b"99999999\n", b"12 34\n"):
        named.write_bytes(content)
        with pytest.raises(EndpointError, match="is not one rata wrote") as refused:
            connect(folder, MCP)
        assert str(named) in refused.value.message and "Remove it" in (refused.value.hint or "")
    named.unlink()
    if not hasattr(os, "mkfifo"):
        return  # Windows: no FIFOs to put there
    os.mkfifo(named)  # never blocks the client: refused as not a regular file
    with pytest.raises(EndpointError, match="not a regular file"):
        connect(folder, MCP)


@pytest.mark.parametrize("served", ["unix", "tcp"])
def test_a_client_finds_the_app_whichever_transport_the_app_chose_whatever_its_own_choice(folder, served):
    if served == "unix" and not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    with EndpointServer(folder, MCP, echo, transport=served):
        connection = connect(folder, MCP)
        assert connection is not None
        connection.send(b"found\n")
        assert connection.rfile.readline() == b"FOUND\n"


def test_no_endpoint_means_connect_answers_none(folder):
    assert connect(folder, MCP) is None


def test_a_stale_socket_from_a_crashed_run_reads_as_no_app_and_is_replaced(folder, endpoint_transport):
    path = leave_a_crashed_runs_file(folder, endpoint_transport)
    assert path.exists()
    assert connect(folder, MCP) is None
    with EndpointServer(folder, MCP, echo):
        connection = connect(folder, MCP)
        assert connection is not None
        connection.close()


def test_a_second_running_copy_cannot_take_over_the_endpoint(folder, endpoint):
    with pytest.raises(EndpointError, match="Another running copy of this app already serves RATA-MCP/1"):
        EndpointServer(folder, MCP, echo).open()
    assert connect(folder, MCP) is not None  # the first one still serves


def test_a_wrong_answer_is_refused_and_logged(folder, endpoint, caplog):
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    sock = raw(folder)
    assert read_line(sock).startswith("RATA-MCP/1 ")
    sock.sendall(b"0" * 64 + b"\n")
    assert read_line(sock) == "DENIED wrong answer to the challenge (not this install's token, or an answer to another challenge)\n"
    assert sock.recv(1) == b""
    assert ("refused a client from port" if os.environ["RATA_ENDPOINT"] == "tcp" else "refused pid") in caplog.text
    assert "wrong answer" in caplog.text


def test_a_client_with_another_installs_token_is_refused(folder, endpoint, tmp_path):
    other = AppFolder(tmp_path / "other").ensure()
    name = address_path(folder, MCP).name  # same endpoint, the wrong token
    (other.path / name).symlink_to(folder.path / name)
    with pytest.raises(EndpointError, match="refused the connection: wrong answer"):
        connect(other, MCP)


def test_replaying_an_answer_from_an_earlier_connection_is_refused(folder, endpoint):
    first = raw(folder)
    nonce = read_line(first).split()[1]
    answer = MCP.proof(folder.token(), "client", nonce)
    first.sendall(answer.encode() + b"\n")
    assert read_line(first).startswith("OK ")
    second = raw(folder)
    assert read_line(second).split()[1] != nonce
    second.sendall(answer.encode() + b"\n")
    assert read_line(second).startswith("DENIED wrong answer")


def test_a_late_answer_is_refused(folder, endpoint, caplog):
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    sock = raw(folder)
    read_line(sock)
    time.sleep(0.8)  # the endpoint waits 0.5 s here
    assert read_line(sock) == "DENIED no answer to the challenge within 0.5 s\n"
    assert "no answer to the challenge" in caplog.text


def test_the_mcp_and_dev_endpoints_never_accept_each_others_clients(folder):
    with EndpointServer(folder, DEV, echo):
        assert address_path(folder, DEV).name.startswith("dev.")
        mcp_at_dev_socket = Kind(MCP.protocol, DEV.socket_name)
        with pytest.raises(EndpointError, match="speaks RATA-DEV/1, not RATA-MCP/1"):
            connect(folder, mcp_at_dev_socket)
        sock = raw(folder, DEV)
        nonce = read_line(sock).split()[1]
        sock.sendall(MCP.proof(folder.token(), "client", nonce).encode() + b"\n")  # an MCP answer to a DEV challenge
        assert read_line(sock).startswith("DENIED wrong answer")
        assert connect(folder, DEV) is not None


def test_the_client_does_not_trust_an_endpoint_that_cannot_prove_the_token(folder, endpoint_transport):
    impostor = listener(folder, endpoint_transport)

    def pretend() -> None:
        sock, _ = impostor.accept()
        sock.sendall(b"RATA-MCP/1 abcd\n")
        read_line(sock)
        sock.sendall(b"OK " + b"f" * 64 + b"\n")
        OPENED.append(sock)

    threading.Thread(target=pretend, daemon=True).start()
    with pytest.raises(EndpointError, match="could not prove it belongs to this install"):
        connect(folder, MCP)
    impostor.close()


def test_several_clients_are_served_at_once_and_one_dying_leaves_the_others(folder, endpoint):
    clients = [connect(folder, MCP) for _ in range(3)]
    assert all(clients)
    clients[0].close()  # dies without a goodbye
    for client in clients[1:]:
        client.send(b"still here\n")
        assert client.rfile.readline() == b"STILL HERE\n"
    deadline = time.monotonic() + 5
    while endpoint.clients != 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert endpoint.clients == 2


def test_a_long_folder_path_still_gets_an_endpoint(tmp_path):
    deep = AppFolder(tmp_path / ("x" * 60) / ("y" * 60)).ensure()
    assert len(str(socket_path(deep, MCP))) > 110
    with EndpointServer(deep, MCP, echo):
        connection = connect(deep, MCP)
        assert connection is not None
        connection.send(b"deep\n")
        assert connection.rfile.readline() == b"DEEP\n"


NOBODY = 65534
OTHER_USER_CONNECTS = """
import socket, sys
where = sys.argv[1]
if where.startswith("read:"):
    try:
        open(where[5:]).read()
    except PermissionError:
        print("permission denied")
    else:
        print("read it")
    sys.exit(0)
if where.startswith("tcp:"):
    sock = socket.create_connection(("127.0.0.1", int(where[4:])), timeout=5)
else:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(where)
    except PermissionError:
        print("permission denied")
        sys.exit(0)

def line():
    data = b""
    while not data.endswith(b"\\n"):
        chunk = sock.recv(1)
        if not chunk:
            break
        data += chunk
    return data.decode().strip()

said = line()
if len(sys.argv) > 2 and said.startswith("RATA-"):
    sock.sendall(sys.argv[2].encode() + b"\\n")
    said = line()
print(said or "closed")
"""


def as_other_user(where: Path | str, *answer: str) -> str:
    """What another user gets: connecting to a socket path or ``tcp:PORT`` (and answering the greeting), or ``read:PATH``."""
    # the system's Python: the test's own may live in a home folder that user cannot enter
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    command = [python, "-I", "-c", OTHER_USER_CONNECTS, str(where), *answer]
    result = subprocess.run(command, user=NOBODY, group=NOBODY, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


needs_root = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="connecting as another uid needs root to switch users")


@pytest.fixture
def open_endpoint():
    """An endpoint in an app folder that every user can traverse (unlike pytest's 0700 temp folders), so only the socket decides."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="rata-endpoint-"))
    try:
        folder = AppFolder(base / "home").ensure()
        os.chmod(base, 0o755)
        with EndpointServer(folder, MCP, echo) as server:
            os.chmod(folder.path, 0o755)  # after open(), which makes the folder private again
            yield server
    finally:
        shutil.rmtree(base, ignore_errors=True)


@needs_root
@unix_only
def test_another_user_cannot_connect_even_when_the_folder_is_open(open_endpoint):
    assert as_other_user(socket_path(open_endpoint.folder, MCP)) == "permission denied"


@needs_root
@tcp_only
def test_another_user_cannot_read_the_port_file_even_when_the_folder_is_open(open_endpoint):
    assert as_other_user(f"read:{port_path(open_endpoint.folder, MCP)}") == "permission denied"


@needs_root
@tcp_only
def test_another_user_who_finds_the_port_gets_the_challenge_and_is_refused_without_the_token(open_endpoint, caplog):
    """On Windows any local user can reach a loopback port: the challenge on the token is what keeps them out."""
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    said = as_other_user(f"tcp:{open_endpoint.port}", "0" * 64)
    assert said == "DENIED wrong answer to the challenge (not this install's token, or an answer to another challenge)"
    assert "refused a client from port" in caplog.text


@needs_root
@unix_only
def test_another_user_is_refused_by_uid_even_if_the_socket_were_loosened(open_endpoint, caplog):
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    os.chmod(socket_path(open_endpoint.folder, MCP), 0o777)
    assert as_other_user(socket_path(open_endpoint.folder, MCP)) == "DENIED wrong user"
    assert f"uid {NOBODY}" in caplog.text


# --- slow and stalled clients: one deadline for the whole handshake, a bounded number pending ---


def drip(socks: list[socket.socket], seconds: float, every: float = 0.2) -> None:
    """Send one byte of a never-ending answer on each socket, every `every` seconds, for `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for sock in socks:
            with contextlib.suppress(OSError):  # cut by the endpoint
                sock.send(b"a")
        time.sleep(every)


def patient(folder: AppFolder) -> socket.socket:
    """`raw`, retrying while the listen backlog is full (a Unix socket says so at once, EAGAIN, instead of waiting)."""
    end = time.monotonic() + 5
    while True:
        try:
            return raw(folder)
        except EndpointError as error:
            if "temporarily unavailable" not in error.message or time.monotonic() > end:
                raise
            time.sleep(0.01)


def test_a_client_dripping_its_answer_a_byte_at_a_time_is_cut_at_the_deadline(folder, caplog):
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    with EndpointServer(folder, MCP, echo, handshake_timeout=1.0):
        sock = raw(folder)
        started = time.monotonic()
        assert read_line(sock).startswith("RATA-MCP/1 ")
        sock.setblocking(False)
        reply = b""
        while b"\n" not in reply and time.monotonic() - started < 6:
            drip([sock], 0.2, every=0.1)  # a byte every 0.1 s: each far inside any per-byte timeout
            with contextlib.suppress(BlockingIOError):
                reply += sock.recv(100)
        elapsed = time.monotonic() - started
    assert reply == b"DENIED no answer to the challenge within 1 s\n"
    assert 0.9 < elapsed < 2.5
    assert "no answer to the challenge within 1 s" in caplog.text


def test_two_hundred_dripping_clients_take_no_thread_each_and_a_good_client_still_gets_in(folder, caplog):
    caplog.set_level(logging.WARNING, logger="rata.endpoint")
    with EndpointServer(folder, MCP, echo, handshake_timeout=3.0):
        before = threading.active_count()
        drippers = [patient(folder) for _ in range(200)]
        drip(drippers, 0.6)
        during = threading.active_count()
        connection = connect(folder, MCP)  # while the last sixteen still drip
        assert connection is not None
        connection.send(b"still here\n")
        assert connection.rfile.readline() == b"STILL HERE\n"
        drip(drippers, 0.4)
        assert threading.active_count() <= during + 1  # the good client's own thread, nothing per dripper
    assert during - before <= 2, f"{during - before} threads for 200 pending handshakes"
    refusals = [r for r in caplog.records if r.name == "rata.endpoint" and r.levelno == logging.WARNING]
    assert any("handshakes were pending" in r.getMessage() for r in refusals)
    assert len(refusals) <= 3 * 20, "a flood of bad clients floods the log"
    assert any("not logged" in r.getMessage() for r in refusals)


def test_an_answer_sent_in_pieces_within_the_deadline_still_gets_in(folder, endpoint):
    sock = raw(folder)
    nonce = read_line(sock).split()[1]
    answer = MCP.proof(folder.token(), "client", nonce).encode() + b"\n"
    for piece in (answer[:10], answer[10:40], answer[40:]):
        sock.sendall(piece)
        time.sleep(0.05)
    assert read_line(sock).startswith("OK ")
    sock.sendall(b"after\n")
    assert read_line(sock) == "AFTER\n"


def test_a_protocol_line_sent_right_after_the_answer_is_not_swallowed_by_the_handshake(folder, endpoint):
    sock = raw(folder)
    nonce = read_line(sock).split()[1]
    sock.sendall(MCP.proof(folder.token(), "client", nonce).encode() + b"\nfirst line\n")
    assert read_line(sock).startswith("OK ")
    assert read_line(sock) == "FIRST LINE\n"


def test_the_client_gives_up_on_an_app_that_drips_its_greeting(folder, endpoint_transport):
    impostor = listener(folder, endpoint_transport)
    stop = threading.Event()

    def greet_slowly() -> None:
        sock, _ = impostor.accept()
        OPENED.append(sock)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                sock.send(b"R")
            stop.wait(0.1)

    thread = threading.Thread(target=greet_slowly, daemon=True)
    thread.start()
    started = time.monotonic()
    with pytest.raises(EndpointError, match="did not finish the handshake in time"):
        endpoint_connect(folder, MCP, timeout=0.5)
    stop.set()
    thread.join(5)
    assert time.monotonic() - started < 2
