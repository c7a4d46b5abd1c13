"""The app's folder: its database, logs and per-install token.

`RATA_HOME`, when set, is the folder itself. Otherwise it is the platform's user data
folder for the app's identifier:

- Linux and other Unix: ``$XDG_DATA_HOME/<identifier>`` (``~/.local/share/<identifier>``)
- macOS: ``~/Library/Application Support/<identifier>``
- Windows: ``%APPDATA%\\<identifier>``

On POSIX the folder is private: `AppFolder.ensure` makes it 0700 (also when it already
existed, looser, and belongs to this user) and the files rata keeps in it 0600 (the
database and its ``-wal``/``-shm``, the token, the logs, the used-confirmation store). A
folder it cannot make private (another user's, or on a file system without Unix modes) is
refused with a `ConfigError` that says how to fix it.
"""

from __future__ import annotations

import os
import stat
import sys

from rata.errors import ConfigError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from pathlib import Path

TOKEN_FILE = "instance.token"
DATABASE_FILE = "app.db"
LOGS_DIR = "logs"
PRIVATE_FILES = ("app.db", "app.db-wal", "app.db-shm", "app.db-journal", TOKEN_FILE, "confirm.db", "confirm.db-journal", "confirm.db-wal", "confirm.db-shm")
"""Files rata keeps in the folder that must be 0600 (plus everything in the logs folder)."""
MCP_SOCKET = "mcp.sock"  # the running app's endpoints (rata.endpoint)
DEV_SOCKET = "dev.sock"
MCP_PORT = "mcp.port"  # the same endpoints over loopback TCP (Windows): the files naming their ports
DEV_PORT = "dev.port"
RESTARTING = "dev.restarting"  # there while `rata dev` restarts the app after an edit: a shim waits for the new one


def default_location(identifier: str, *, environ: dict[str, str] | None = None, platform: str | None = None) -> str:
    """Where the app with this identifier keeps its data, as a string (no pathlib: servers start without it)."""
    env = os.environ if environ is None else environ
    home = env.get("RATA_HOME")
    if home:
        return os.path.expanduser(home)
    platform = platform or sys.platform
    user = os.path.expanduser("~")
    if platform == "darwin":
        return os.path.join(user, "Library", "Application Support", identifier)
    if platform.startswith("win"):
        base = env.get("APPDATA") or os.path.join(user, "AppData", "Roaming")
        return os.path.join(base, identifier)
    base = env.get("XDG_DATA_HOME") or os.path.join(user, ".local", "share")
    return os.path.join(base, identifier)


def default_folder(identifier: str, *, environ: dict[str, str] | None = None, platform: str | None = None) -> Path:
    """Where the app with this identifier keeps its data."""
    from pathlib import Path

    return Path(default_location(identifier, environ=environ, platform=platform))


class AppFolder:
    """The folder and the files rata keeps in it.

    ``where`` and the ``*_file`` names are plain strings, for the server's start-up path;
    ``path``, ``database``, ``logs`` and ``token_path`` are `pathlib.Path`s, made on first use.
    """

    __slots__ = ("where", "_path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.where = os.fspath(path)
        self._path: Path | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AppFolder) and other.where == self.where

    def __hash__(self) -> int:
        return hash(self.where)

    def __repr__(self) -> str:
        return f"AppFolder({self.where!r})"

    def file(self, name: str) -> str:
        """The path of a file in the folder, as a string."""
        return os.path.join(self.where, name)

    @property
    def path(self) -> Path:
        if self._path is None:
            from pathlib import Path

            self._path = Path(self.where)
        return self._path

    @property
    def database_file(self) -> str:
        return self.file(DATABASE_FILE)

    @property
    def logs_dir(self) -> str:
        return self.file(LOGS_DIR)

    @property
    def token_file(self) -> str:
        return self.file(TOKEN_FILE)

    @property
    def database(self) -> Path:
        return self.path / DATABASE_FILE

    @property
    def logs(self) -> Path:
        return self.path / LOGS_DIR

    @property
    def token_path(self) -> Path:
        return self.path / TOKEN_FILE

    def ensure(self) -> AppFolder:
        """Create the folder (0700), its logs folder and the token (0600) if missing, and make them private if they are not.

        Raises `ConfigError` if the folder cannot be created or made private.
        """
        try:
            os.makedirs(self.where, mode=0o700, exist_ok=True)
            if not os.path.isdir(self.logs_dir):
                os.makedirs(self.logs_dir, mode=0o700, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"The app folder {self.where!r} could not be created: {error.strerror}.",
                hint="Set RATA_HOME to a writable folder.",
            ) from None
        if os.name == "posix":
            self._make_private()
        self.token()
        return self

    def _make_private(self) -> None:
        """The folder and logs 0700, rata's files 0600 (a few stat calls: it runs on every `ensure`, so a database SQLite made since is caught).

        rata creates the database (`rata.app`) and its log files 0600 itself, and SQLite gives the -wal and
        -shm the database's mode; this catches files made by older versions or loosened by someone since.
        """
        _private(self.where, 0o700, folder=self.where)
        _private(self.logs_dir, 0o700, folder=self.where)
        for name in PRIVATE_FILES:
            _private(self.file(name), 0o600, folder=self.where)
        try:
            names = os.listdir(self.logs_dir)
        except OSError:
            names = []
        for name in names:
            _private(os.path.join(self.logs_dir, name), 0o600, folder=self.where)

    def token(self) -> str:
        """The per-install secret, created on first use with mode 0600."""
        path = self.token_file
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if os.name == "posix" and stat.S_IMODE(os.stat(path).st_mode) & 0o077:
                os.chmod(path, 0o600)  # someone loosened it: a token others can read is no secret
            with open(path, encoding="ascii") as handle:
                return handle.read().strip()
        import secrets

        with os.fdopen(fd, "w", encoding="ascii") as handle:
            token = secrets.token_urlsafe(32)
            handle.write(token + "\n")
        return token


def _private(path: str, mode: int, *, folder: str) -> None:
    """Give `path` `mode` if others can reach it; a missing file or a symlink is left alone (a link's target is not rata's)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        if path != folder:
            return
        info = os.stat(path)  # RATA_HOME may be a link to the real folder
    if not stat.S_IMODE(info.st_mode) & 0o077:
        return
    what = "folder" if stat.S_ISDIR(info.st_mode) else "file"
    if info.st_uid != os.getuid():
        raise ConfigError(
            f"The app {what} {path!r} can be read by other users (mode {stat.S_IMODE(info.st_mode):04o}) and belongs to "
            f"uid {info.st_uid}, not to you (uid {os.getuid()}), so rata cannot make it private.",
            hint=f"Have its owner run `chmod {mode:o} {path}`, or set RATA_HOME to a folder of your own.",
        )
    try:
        os.chmod(path, mode)
        loose = stat.S_IMODE(os.stat(path).st_mode) & 0o077
    except OSError as error:
        raise ConfigError(
            f"The app {what} {path!r} can be read by other users and could not be made private: {error.strerror}.",
            hint=f"Run `chmod {mode:o} {path}`, or set RATA_HOME to a folder of your own.",
        ) from None
    if loose:
        raise ConfigError(
            f"The app {what} {path!r} stays readable by other users after chmod {mode:o} (a file system without Unix permissions?).",
            hint="Set RATA_HOME to a folder on a file system with Unix permissions (such as your home folder).",
        )
