"""What the private endpoint (`rata.endpoint`) does differently on Linux, macOS and Windows, one decision per function.

- `choose_transport`: a Unix socket on Linux and macOS, loopback TCP on Windows (``RATA_ENDPOINT=tcp``
  chooses TCP elsewhere too, which is how the Windows path runs in the Linux test suite).
- `peer_refusal`: whether a peer's user may go on to the challenge, decided from what the platform's
  reader found: `linux_peer` (``SO_PEERCRED``) or `darwin_peer` (``LOCAL_PEERCRED``, parsed by
  `parse_xucred`). A TCP peer has no user the endpoint can read, so only the token decides there.
- the port file: where a TCP endpoint's client finds the port (`write_port_file`, `read_port_file`).

Nothing here imports `fcntl` or `msvcrt` at module import: each is imported where it is used.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import sys

from rata.errors import EndpointError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from pathlib import Path

UNIX = "unix"
TCP = "tcp"
TRANSPORTS = (UNIX, TCP)
LOOPBACK = "127.0.0.1"
MAX_PORT_FILE = 32
"""Bytes read from a port file at most; a real one is a port number and a newline."""

# macOS (and FreeBSD) <sys/un.h>: getsockopt(fd, SOL_LOCAL, LOCAL_PEERCRED) gives a struct xucred,
# LOCAL_PEERPID (macOS only) a pid_t. Python's socket module does not name them all, so they are spelled here.
SOL_LOCAL = 0
LOCAL_PEERCRED = 0x001
LOCAL_PEERPID = 0x002
XUCRED_VERSION = 0
XU_NGROUPS = 16
_XUCRED_HEAD = struct.Struct("=IIh")  # u_int cr_version; uid_t cr_uid; short cr_ngroups; (then gid_t cr_groups[16])


def choose_transport(environ: dict[str, str] | None = None, platform: str | None = None) -> str:
    """``"unix"`` or ``"tcp"``: the endpoint's transport on this platform, as ``RATA_ENDPOINT`` may choose.

    Raises `EndpointError` for a ``RATA_ENDPOINT`` that names no transport, or ``unix`` on Windows.
    """
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    asked = env.get("RATA_ENDPOINT", "")
    wanted = asked.strip().lower()
    if platform.startswith("win"):
        if wanted in ("", TCP):
            return TCP
        raise EndpointError(
            f"RATA_ENDPOINT is {asked!r}, but on Windows the running app's endpoint is loopback TCP only.",
            hint="Unset RATA_ENDPOINT, or set it to tcp.",
        )
    if wanted == "":
        return UNIX
    if wanted in TRANSPORTS:
        return wanted
    raise EndpointError(
        f"RATA_ENDPOINT is {asked!r}, which names no endpoint transport.",
        hint="Set it to unix (the default here) or tcp, or unset it.",
    )


# --- the peer's user ---


def peer_refusal(peer_uid: int | None, own_uid: int | None) -> str | None:
    """Why a peer must be refused before the challenge (its user is not the app's), or None to go on.

    None for a uid means the platform could not tell (a TCP peer, a platform without a reader):
    then the challenge alone decides, as it always does after this.
    """
    if peer_uid is None or own_uid is None or peer_uid == own_uid:
        return None
    return "wrong user"


def parse_xucred(data: bytes) -> int | None:
    """The uid in a ``struct xucred`` (macOS, FreeBSD ``LOCAL_PEERCRED``), or None when the bytes are not one."""
    if len(data) < _XUCRED_HEAD.size:
        return None
    version, uid, ngroups = _XUCRED_HEAD.unpack_from(data)
    if version != XUCRED_VERSION or not 0 <= ngroups <= XU_NGROUPS:
        return None
    return uid


def linux_peer(sock: socket.socket) -> tuple[int | None, int | None]:
    """(pid, uid) of a Unix socket's peer from ``SO_PEERCRED`` (Linux), (None, None) if it cannot be read."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None, None
    try:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except (OSError, struct.error):
        return None, None
    return pid, uid


def darwin_peer(sock: socket.socket) -> tuple[int | None, int | None]:
    """(pid, uid) of a Unix socket's peer from ``LOCAL_PEERPID`` and ``LOCAL_PEERCRED`` (macOS; FreeBSD gives no pid this way)."""
    try:
        uid = parse_xucred(sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, 128))
    except OSError:
        uid = None
    pid: int | None = None
    if sys.platform == "darwin":
        with contextlib.suppress(OSError, struct.error):
            pid = struct.unpack("=i", sock.getsockopt(SOL_LOCAL, LOCAL_PEERPID, 4))[0]
    return pid, uid


def peer_credentials(sock: socket.socket, platform: str | None = None) -> tuple[int | None, int | None]:
    """(pid, uid) of a Unix socket's peer, each None where this platform does not tell."""
    platform = platform or sys.platform
    if platform.startswith("linux"):
        return linux_peer(sock)
    if platform == "darwin" or platform.startswith("freebsd"):
        return darwin_peer(sock)
    return None, None


def own_uid() -> int | None:
    getuid = getattr(os, "getuid", None)  # Windows has none
    return getuid() if getuid is not None else None


# --- the Unix socket's address ---

_SUN_PATH_MAX = 100  # sockaddr_un holds 104 (macOS) or 108 (Linux) bytes with the NUL; stay below both


class short_address:
    """A socket address for `path` short enough for sockaddr_un.

    A long folder (deep home directories, test temp folders) would overflow the ~104-byte
    limit; on Linux the folder is then reached through ``/proc/self/fd/<dirfd>``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def __enter__(self) -> str:
        text = str(self.path)
        if len(os.fsencode(text)) <= _SUN_PATH_MAX:
            return text
        if sys.platform.startswith("linux"):
            self._fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
            short = f"/proc/self/fd/{self._fd}/{self.path.name}"
            if len(short) <= _SUN_PATH_MAX:
                return short
            self.__exit__()
        raise EndpointError(
            f"The endpoint's path is too long for a Unix socket ({len(os.fsencode(text))} bytes): {text}.",
            hint="Set RATA_HOME to a shorter folder, or RATA_ENDPOINT=tcp for the loopback TCP endpoint, which has no path.",
        )

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# --- the port file (TCP) ---


def parse_port(data: bytes) -> int:
    """The port a port file names: ASCII digits and one newline, 1 to 65535.

    Raises ValueError naming what is wrong.
    """
    text = data[:-1] if data.endswith(b"\n") else data
    if not text or len(text) > 5 or not text.isdigit():
        raise ValueError("it does not hold a port number")
    port = int(text)
    if not 0 < port < 65536:
        raise ValueError(f"{port} is not a TCP port")
    return port


def write_port_file(path: str, port: int) -> None:
    """Name `port` in a 0600 file at `path`, all at once: a client sees the old file, none, or the whole new one."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)  # a crashed run of this same pid's leftover
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, f"{port}\n".encode("ascii"))
    finally:
        os.close(fd)
    try:
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_port_file(path: str) -> int | None:
    """The port in the file at `path`, or None when there is no file.

    Raises `EndpointError` when something else is there (not a regular file, or not a port), naming the fix.
    """
    from rata.projectfiles import ProjectFileError, open_regular  # a FIFO put there never blocks the read

    try:
        fd = open_regular(path)
    except ProjectFileError as error:
        if error.missing:
            return None
        if not error.irregular:
            raise EndpointError(f"Could not read the running app's port file {path}: it {error.reason}.") from None
        problem = f"it {error.reason}"
    else:
        try:
            return parse_port(os.read(fd, MAX_PORT_FILE))
        except ValueError as error:
            problem = str(error)
        finally:
            os.close(fd)
    raise EndpointError(
        f"The running app's port file {path} is not one rata wrote: {problem}.",
        hint="Remove it; a running app writes it anew when it starts.",
    )


def listen_tcp() -> socket.socket:
    """A listening socket on 127.0.0.1 at a port the system picks, which no other socket may share."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        exclusive = getattr(socket, "SO_EXCLUSIVEADDRUSE", None)  # Windows: else another process could bind the same port with SO_REUSEADDR
        if exclusive is not None:
            sock.setsockopt(socket.SOL_SOCKET, exclusive, 1)
        sock.bind((LOOPBACK, 0))
        sock.listen(64)
    except BaseException:
        sock.close()
        raise
    return sock


def no_delay(sock: socket.socket) -> None:
    """Send each line at once: MCP is a line each way, which Nagle's algorithm would hold back."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
