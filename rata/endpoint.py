"""The running app's private endpoints: a 0600 Unix socket in the app's folder (loopback TCP on Windows), behind a challenge.

Two endpoints share this one implementation and differ only in their `Kind`:

- ``RATA-MCP/1`` on ``mcp.sock``: what `crm --mcp` (the shim) connects to, so an agent works
  in the running app;
- ``RATA-DEV/1`` on ``dev.sock``: the debug build's bridge for `rata mcp dev`'s window tools.

The handshake is one ASCII line each way, then the connection carries the protocol unchanged::

    app    -> client   RATA-MCP/1 <nonce>           32 fresh random bytes, hex
    client -> app      <proof>                      hex HMAC-SHA256(token, "RATA-MCP/1 client <nonce>")
    app    -> client   OK <proof>                   hex HMAC-SHA256(token, "RATA-MCP/1 app <nonce>")
                 or    DENIED <reason>              and the app closes the connection

``token`` is the per-install secret (``instance.token``, 0600). The greeting names the
protocol and the protocol is inside every HMAC, so an MCP client can never be accepted by the
dev endpoint or the other way round, even if one were pointed at the other's socket. A fresh
nonce per connection makes a recorded answer worthless; a handshake that is not done within
`HANDSHAKE_TIMEOUT` seconds in all (not per byte) is cut. Every refusal is logged under
``rata.endpoint`` (at most `LOG_BURST` lines a second; the rest are counted).

Handshakes cost no thread: one thread accepts and walks every pending handshake with a
selector, and a client gets a thread of its own only once it passed. At most
`MAX_PENDING_HANDSHAKES` are pending at once; a new client over that cuts the oldest pending
one (it has had the longest to answer), so clients that connect and stall can neither pile
up nor keep a good client out.

Why the app's folder and not ``$TMPDIR``: both sides already know the folder (it holds the
database and the token), and a coding agent's sandbox may give it a ``TMPDIR`` of its own.
The folder is 0700 and the socket 0600; the app also checks the peer's uid (``SO_PEERCRED``
on Linux, ``LOCAL_PEERCRED`` on macOS: `rata.endpoint_platform.peer_refusal`). A lock file
(``mcp.sock.lock``, held with ``flock`` while the app runs, ``msvcrt.locking`` on Windows)
tells a live endpoint from a stale socket left by a crash: the lock dies with the process.
Closing (or a stop signal, `rata.stopping`) removes the socket and the lock file.

On Windows the endpoint is loopback TCP instead (``RATA_ENDPOINT=tcp`` chooses it elsewhere too,
which is how the test suite runs the Windows path on Linux; `rata.endpoint_platform`): a socket
bound to 127.0.0.1 at a port the system picks, named in a 0600 file beside the lock
(``mcp.port``, written whole before the first client can look, removed on close). The same
lock, handshake, deadlines and limits apply; a port file left by a crash names a port nobody
listens on (the client reads that as no app) and is replaced at the next start. Any local
user can reach a loopback port, so there the token is the whole gate.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rata import endpoint_platform as osdep
from rata import stopping
from rata._record import Record
from rata.endpoint_platform import LOOPBACK, TCP, UNIX, choose_transport
from rata.errors import EndpointError
from rata.filelock import try_lock
from rata.folder import DEV_SOCKET, MCP_SOCKET, AppFolder
from rata.lines import LineWriter
from rata.logs import LazyLogger

log = LazyLogger("rata.endpoint")  # applies the app's log configuration on first use

HANDSHAKE_TIMEOUT = 5.0
"""Seconds for the whole handshake: a client has this long to answer the challenge, and a client waits this long for the app."""

MAX_PENDING_HANDSHAKES = 16
LOG_BURST = 20
"""Refusals logged per second at most; a flood of bad clients must not flood the log."""

MAX_HANDSHAKE_LINE = 512


class Kind(Record):
    """One endpoint: the protocol its greeting names and its socket's file name in the app's folder."""

    __slots__ = ("protocol", "socket_name")
    protocol: str
    socket_name: str

    @property
    def port_name(self) -> str:
        """The file naming a TCP endpoint's port: ``mcp.port`` (`MCP_PORT`) beside ``mcp.sock``."""
        return self.socket_name.rsplit(".", 1)[0] + ".port"

    def proof(self, token: str, side: str, nonce: str) -> str:
        message = f"{self.protocol} {side} {nonce}".encode("ascii")
        return hmac.new(token.encode("utf-8"), message, hashlib.sha256).hexdigest()


MCP = Kind("RATA-MCP/1", MCP_SOCKET)
DEV = Kind("RATA-DEV/1", DEV_SOCKET)


def socket_path(folder: AppFolder, kind: Kind) -> Path:
    return folder.path / kind.socket_name


def port_path(folder: AppFolder, kind: Kind) -> Path:
    return folder.path / kind.port_name


def address_path(folder: AppFolder, kind: Kind, transport: str | None = None) -> Path:
    """The file a client looks for: the socket itself, or the file naming a TCP endpoint's port."""
    return port_path(folder, kind) if (transport or choose_transport()) == TCP else socket_path(folder, kind)


class Connection:
    """An authenticated connection: lines in through `rfile`, whole lines out through `send` (thread-safe, quiet once closed)."""

    def __init__(self, sock: socket.socket, peer_pid: int | None = None) -> None:
        self.sock = sock
        self.peer_pid = peer_pid
        self.rfile = sock.makefile("rb")
        self.send = LineWriter(sock.sendall)

    def close(self) -> None:
        """Close both ways; a thread blocked reading `rfile` wakes up to EOF first (idempotent)."""
        self.send.close()
        for close in (lambda: self.sock.shutdown(socket.SHUT_RDWR), self.rfile.close, self.sock.close):
            with contextlib.suppress(OSError):
                close()


class EndpointServer:
    """Listens on the endpoint's socket; each client that passes the challenge is handed to `on_client`.

    ``on_client(connection)`` runs on a thread of its own and owns the connection until it
    returns; then the connection is closed. A failing client never disturbs the others.
    """

    def __init__(
        self,
        folder: AppFolder,
        kind: Kind,
        on_client: Callable[[Connection], None],
        *,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        transport: str | None = None,
    ) -> None:
        self.folder = folder
        self.kind = kind
        self.transport = transport or choose_transport()
        """``"unix"`` or ``"tcp"`` (`rata.endpoint_platform.choose_transport`)."""
        self.path = address_path(folder, kind, self.transport)
        """The socket, or for TCP the file naming the port."""
        self.port: int | None = None
        """The TCP endpoint's port on 127.0.0.1, once open."""
        self.on_client = on_client
        self.handshake_timeout = handshake_timeout
        self._sock: socket.socket | None = None
        self._lock_fd: int | None = None
        self._token = ""
        self._thread: threading.Thread | None = None
        self._clients: set[Connection] = set()
        self._clients_lock = threading.Lock()
        self._closing = False
        self._wake_r: socket.socket | None = None  # close() wakes the accepting thread through this pair
        self._wake_w: socket.socket | None = None
        self._pending: dict[socket.socket, _Pending] = {}  # oldest first
        self._log_second = 0
        self._logged = 0
        self._unlogged = 0
        self.on_close: list[Callable[[], None]] = []
        """Called once the endpoint has closed (`close`)."""

    def __enter__(self) -> EndpointServer:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def clients(self) -> int:
        with self._clients_lock:
            return len(self._clients)

    def open(self) -> EndpointServer:
        if self.transport == UNIX and not hasattr(socket, "AF_UNIX"):
            raise EndpointError(
                "The running-app endpoint's Unix socket is not available on this platform.",
                hint="Set RATA_ENDPOINT=tcp for the loopback TCP endpoint (docs/security.md).",
            )
        self.folder.ensure()
        self._token = self.folder.token()
        self._take_lock()
        # Removed by `close`, or by a hard stop of the process (rata.stopping) if it comes first.
        self._cleanup = stopping.on_stop(self._remove_files)
        try:
            # The lock is ours, so a socket or port file here is a crashed run's (of either transport).
            _unlink(socket_path(self.folder, self.kind))
            _unlink(port_path(self.folder, self.kind))
            sock = self._listen_tcp() if self.transport == TCP else self._listen_unix()
        except OSError as error:
            self._cleanup.run()
            raise EndpointError(
                f"Could not open the {self.kind.protocol} endpoint at {self.path}: {error.strerror or error}.",
                hint="Check that the app's folder is writable (RATA_HOME sets it).",
            ) from None
        except BaseException:
            self._cleanup.run()  # a path too long for a socket, say: the lock must not outlive the failed open
            raise
        self._sock = sock
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread = threading.Thread(target=self._accept_loop, name=f"rata-endpoint-{self.kind.socket_name}", daemon=True)
        self._thread.start()
        log.info("%s endpoint open at %s", self.kind.protocol, self.where)
        return self

    @property
    def where(self) -> str:
        """Where clients reach it, for people: the socket's path, or the TCP address and the file naming it."""
        return str(self.path) if self.port is None else f"{LOOPBACK}:{self.port}, named in {self.path}"

    def _listen_unix(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with osdep.short_address(self.path) as address:
                sock.bind(address)
            os.chmod(self.path, 0o600)  # before listen(): nobody can connect until then
            sock.listen(64)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        return sock

    def _listen_tcp(self) -> socket.socket:
        sock = osdep.listen_tcp()
        try:
            sock.setblocking(False)
            port: int = sock.getsockname()[1]
            self.port = port
            osdep.write_port_file(str(self.path), port)  # only now can a client find it: the socket already listens
        except BaseException:
            sock.close()
            raise
        return sock

    def close(self) -> None:
        """Stop accepting, close every client, remove the socket and release the lock (idempotent)."""
        if self._sock is None:
            return
        self._closing = True
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")
        if self._thread is not None:
            self._thread.join(2.0)
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        with self._clients_lock:
            clients = list(self._clients)
        for client in clients:
            with contextlib.suppress(OSError):
                client.sock.shutdown(socket.SHUT_RDWR)
        self._cleanup.run()
        self._sock = None
        for hook in self.on_close:
            hook()

    def _remove_files(self) -> None:
        """Remove the socket, then the lock file (while still holding its lock), then drop the lock."""
        with contextlib.suppress(OSError):  # something else at the path (a folder, say) is left there, and the lock still dropped
            _unlink(self.path)
        if self._lock_fd is not None:
            with contextlib.suppress(PermissionError):  # Windows removes no open file: it stays, unlocked, for the next start to take
                _unlink(self._lock_path)
        self._release_lock()

    # --- the lock that tells a live endpoint from a stale socket ---

    @property
    def _lock_path(self) -> Path:
        """``mcp.sock.lock`` whichever the transport: one app per folder serves each kind, by socket or by port."""
        return self.folder.path / (self.kind.socket_name + ".lock")

    def _take_lock(self) -> None:
        while True:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                held = not try_lock(fd)
            except OSError as error:
                os.close(fd)
                raise EndpointError(
                    f"{self._lock_path} cannot be locked: {error.strerror or error}.", hint="Put the app's folder (RATA_HOME) on a local disk."
                ) from None
            if held:
                os.close(fd)
                raise EndpointError(
                    f"Another running copy of this app already serves {self.kind.protocol} at {self.path}.",
                    hint="Use that one (agents reach it through `--mcp`), or stop it first.",
                ) from None
            if _same_file(fd, self._lock_path):
                break
            os.close(fd)  # the app that held it removed the file as it stopped: lock the new one
        with contextlib.suppress(OSError):  # the pid is for people; the lock is what counts
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = None

    # --- accepting and the challenge ---

    def _accept_loop(self) -> None:
        """Accept clients and walk their handshakes, all on this one thread; nothing raised here leaves it."""
        import selectors

        assert self._sock is not None and self._wake_r is not None and self._wake_w is not None
        selector = selectors.DefaultSelector()
        try:
            selector.register(self._sock, selectors.EVENT_READ, None)
            selector.register(self._wake_r, selectors.EVENT_READ, None)
            while not self._closing:
                deadline = min((p.deadline for p in self._pending.values()), default=None)
                events = selector.select(None if deadline is None else max(0.0, deadline - time.monotonic()))
                for key, _ in events:
                    if self._closing:
                        break
                    try:
                        if key.fileobj is self._sock:
                            self._accept(selector)
                        elif key.data is not None:
                            self._advance(selector, key.data)
                    except Exception:  # noqa: BLE001 - one client's failure must not stop the endpoint
                        log.exception("the %s endpoint failed on a client's handshake", self.kind.protocol)
                        if key.data is not None:
                            self._drop(selector, key.data, "the endpoint failed during the challenge")
                now = time.monotonic()
                for pending in [p for p in self._pending.values() if p.deadline <= now]:
                    self._drop(selector, pending, f"no answer to the challenge within {self.handshake_timeout:g} s")
        except Exception:  # noqa: BLE001 - logged; the endpoint stops taking clients but the app goes on
            log.exception("the %s endpoint stopped accepting clients", self.kind.protocol)
        finally:
            if self._unlogged:
                log.warning("%s more refusals on %s were not logged (over %s a second)", self._unlogged, self.path.name, LOG_BURST)
            for pending in list(self._pending.values()):
                self._pending.pop(pending.sock, None)
                pending.sock.close()
            selector.close()
            self._wake_r.close()
            self._wake_w.close()

    def _accept(self, selector: object) -> None:
        import secrets  # the app side only: the shim, which only answers, starts without it
        import selectors

        assert self._sock is not None and isinstance(selector, selectors.BaseSelector)
        try:
            sock, _ = self._sock.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._warn("could not accept a client on %s: %s", self.path.name, error.strerror or error)
            return
        if self.transport == TCP:
            osdep.no_delay(sock)
            pid, uid = None, None
            who = f"a client from port {_peer_port(sock)}"
        else:
            pid, uid = osdep.peer_credentials(sock)
            who = f"pid {pid}" if pid else "a client"
        refusal = osdep.peer_refusal(uid, osdep.own_uid())
        if refusal is not None:
            self._warn("refused %s on %s: it runs as uid %s, the app as uid %s", who, self.path.name, uid, osdep.own_uid())
            _refuse(sock, refusal)
            return
        if len(self._pending) >= MAX_PENDING_HANDSHAKES:
            oldest = next(iter(self._pending.values()))
            self._drop(selector, oldest, f"cut to make room: {MAX_PENDING_HANDSHAKES} handshakes were pending")
        pending = _Pending(sock, secrets.token_hex(32), time.monotonic() + self.handshake_timeout, who, pid)
        greeting = f"{self.kind.protocol} {pending.nonce}\n".encode("ascii")
        try:
            sock.setblocking(False)
            sent = sock.send(greeting)  # a fresh socket's buffer always has room for one short line
        except OSError as error:
            self._warn("refused %s on %s: the connection failed during the challenge (%s)", who, self.path.name, error.strerror or error)
            sock.close()
            return
        if sent != len(greeting):
            self._warn("refused %s on %s: it could not take the greeting", who, self.path.name)
            sock.close()
            return
        self._pending[sock] = pending
        selector.register(sock, selectors.EVENT_READ, pending)

    def _advance(self, selector: object, pending: _Pending) -> None:
        """Read what the client sent so far; on a whole line, let it in or refuse it."""
        try:
            # Peek, then consume only up to the newline: whatever the client sends after it is the protocol's.
            data = pending.sock.recv(MAX_HANDSHAKE_LINE + 1 - len(pending.line), socket.MSG_PEEK)
            end = data.find(b"\n")
            pending.sock.recv(len(data) if end < 0 else end + 1)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._drop(selector, pending, f"the connection failed during the challenge ({error.strerror or error})")
            return
        if not data:
            self._drop(selector, pending, "it closed the connection during the challenge")
            return
        if end < 0:
            pending.line += data
            if len(pending.line) > MAX_HANDSHAKE_LINE:
                self._drop(selector, pending, "it sent an over-long line during the challenge")
            return
        line = bytes(pending.line + data[:end])
        answer = line.decode("ascii", "replace").strip()
        if not hmac.compare_digest(answer.encode("ascii", "replace"), self.kind.proof(self._token, "client", pending.nonce).encode("ascii")):
            self._drop(selector, pending, "wrong answer to the challenge (not this install's token, or an answer to another challenge)")
            return
        self._forget(selector, pending)
        sock = pending.sock
        try:
            sock.settimeout(max(0.01, pending.deadline - time.monotonic()))
            sock.sendall(f"OK {self.kind.proof(self._token, 'app', pending.nonce)}\n".encode("ascii"))
            sock.settimeout(None)
        except OSError as error:
            self._warn("refused %s on %s: the connection failed during the challenge (%s)", pending.who, self.path.name, error.strerror or error)
            sock.close()
            return
        connection = Connection(sock, pending.pid)
        with self._clients_lock:
            self._clients.add(connection)
        threading.Thread(target=self._serve_client, args=(connection, pending.who), name="rata-endpoint-client", daemon=True).start()

    def _forget(self, selector: object, pending: _Pending) -> None:
        import selectors

        assert isinstance(selector, selectors.BaseSelector)
        self._pending.pop(pending.sock, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            selector.unregister(pending.sock)

    def _drop(self, selector: object, pending: _Pending, reason: str) -> None:
        """Refuse a pending handshake, log why, and close it."""
        self._forget(selector, pending)
        self._warn("refused %s on %s: %s", pending.who, self.path.name, reason)
        _refuse(pending.sock, reason)

    def _warn(self, message: str, *args: object) -> None:
        """Log a refusal, at most `LOG_BURST` a second; the ones left out are counted in the next line."""
        second = int(time.monotonic())
        if second != self._log_second:
            self._log_second, self._logged = second, 0
        if self._logged >= LOG_BURST:
            self._unlogged += 1
            return
        self._logged += 1
        if self._unlogged:
            message += f" (and {self._unlogged} refusals not logged, over {LOG_BURST} a second)"
            self._unlogged = 0
        log.warning(message, *args)

    def _serve_client(self, connection: Connection, who: str) -> None:
        log.info("%s connected to %s", who, self.path.name)
        try:
            self.on_client(connection)
        except Exception:  # noqa: BLE001 - one client's failure must not reach the app or the others
            log.exception("the %s client (%s) failed", self.kind.protocol, who)
        finally:
            with self._clients_lock:
                self._clients.discard(connection)
            connection.close()
            log.info("%s left %s", who, self.path.name)


class _Pending:
    """A client that has been greeted and not yet answered."""

    __slots__ = ("sock", "nonce", "deadline", "who", "pid", "line")

    def __init__(self, sock: socket.socket, nonce: str, deadline: float, who: str, pid: int | None) -> None:
        self.sock = sock
        self.nonce = nonce
        self.deadline = deadline
        self.who = who
        self.pid = pid
        self.line = bytearray()


def connect(folder: AppFolder, kind: Kind, *, timeout: float = HANDSHAKE_TIMEOUT) -> Connection | None:
    """Connect to the running app's endpoint; None when no app is listening there.

    Raises `EndpointError` when something listens but the handshake fails (a refusal, the
    wrong protocol, or an app that cannot prove it holds the token).
    """
    dialed = dial(folder, kind, timeout=timeout)
    if dialed is None:
        return None
    sock, where = dialed
    try:
        return _answer(sock, folder, kind, where)
    except BaseException:
        sock.close()
        raise


def dial(folder: AppFolder, kind: Kind, *, timeout: float = HANDSHAKE_TIMEOUT) -> tuple[socket.socket, str] | None:
    """A socket connected to the app's endpoint, before the handshake, and where it is; None when no app listens.

    Whichever transport the app chose: its socket, else the port its port file names. A file left by a
    crashed run (nobody listening) reads as no app.
    """
    path = socket_path(folder, kind)
    if hasattr(socket, "AF_UNIX") and path.exists():
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            with osdep.short_address(path) as address:
                sock.connect(address)
            return sock, str(path)
        except (ConnectionRefusedError, FileNotFoundError):
            sock.close()  # a stale socket from a crashed run: nobody is there; a TCP endpoint may be
        except OSError as error:
            sock.close()
            raise EndpointError(f"Could not connect to the running app at {path}: {error.strerror or error}.") from None
    named = port_path(folder, kind)
    port = osdep.read_port_file(str(named))
    if port is None:
        return None
    where = f"{LOOPBACK}:{port} (named in {named})"
    try:
        sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
    except ConnectionRefusedError:
        return None  # a port file from a crashed run: nobody listens on that port
    except OSError as error:
        raise EndpointError(f"Could not connect to the running app at {where}: {error.strerror or error}.") from None
    osdep.no_delay(sock)
    return sock, where


def _answer(sock: socket.socket, folder: AppFolder, kind: Kind, path: str) -> Connection:
    deadline = time.monotonic() + (sock.gettimeout() or HANDSHAKE_TIMEOUT)
    try:
        greeting = _read_line(sock, deadline)
        if greeting is None:
            raise EndpointError(f"The endpoint at {path} closed the connection without a greeting.")
        protocol, _, nonce = greeting.partition(" ")
        if protocol != kind.protocol or not nonce:
            raise EndpointError(f"The endpoint at {path} speaks {protocol or 'nothing known'!s}, not {kind.protocol}.")
        token = folder.token()
        sock.sendall((kind.proof(token, "client", nonce) + "\n").encode("ascii"))
        reply = _read_line(sock, deadline)
    except TimeoutError:
        raise EndpointError(f"The endpoint at {path} did not finish the handshake in time.") from None
    except OSError as error:
        raise EndpointError(f"The connection to {path} failed during the handshake: {error.strerror or error}.") from None
    if reply is None:
        raise EndpointError(f"The running app at {path} closed the connection during the handshake.")
    status, _, rest = reply.partition(" ")
    if status == "DENIED":
        raise EndpointError(f"The running app at {path} refused the connection: {rest}.")
    if status != "OK" or not hmac.compare_digest(rest, kind.proof(token, "app", nonce)):
        raise EndpointError(f"The endpoint at {path} could not prove it belongs to this install; not trusting it.")
    sock.settimeout(None)
    return Connection(sock, None)


def _read_line(sock: socket.socket, deadline: float) -> str | None:
    """One handshake line, read a byte at a time so nothing after it is consumed; None on EOF or overflow.

    Raises TimeoutError once `deadline` (a `time.monotonic()` value) passes, however the bytes trickle in.
    """
    data = bytearray()
    while len(data) <= MAX_HANDSHAKE_LINE:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the handshake took too long")
        sock.settimeout(left)
        byte = sock.recv(1)
        if not byte:
            return None
        if byte == b"\n":
            try:
                return data.decode("ascii").strip()
            except UnicodeDecodeError:
                return ""
        data += byte
    return None


def _refuse(sock: socket.socket, reason: str) -> None:
    """Say why, without waiting on the client (the line fits in any socket buffer), and close."""
    try:
        sock.setblocking(False)
        sock.send(f"DENIED {reason}\n".encode("ascii", "replace"))
    except OSError:
        pass
    sock.close()


def _peer_port(sock: socket.socket) -> object:
    try:
        return sock.getpeername()[1]
    except (OSError, IndexError):
        return "?"


def _same_file(fd: int, path: Path) -> bool:
    """True when `path` still names the file open as `fd`."""
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
