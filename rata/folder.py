"""The app's folder: its database, logs and per-install token.

`RATA_HOME`, when set, is the folder itself. Otherwise it is the platform's user data
folder for the app's identifier:

- Linux and other Unix: ``$XDG_DATA_HOME/<identifier>`` (``~/.local/share/<identifier>``)
- macOS: ``~/Library/Application Support/<identifier>``
- Windows: ``%APPDATA%\\<identifier>``
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

from rata.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

TOKEN_FILE = "instance.token"
DATABASE_FILE = "app.db"
LOGS_DIR = "logs"
MCP_SOCKET = "mcp.sock"  # the running app's endpoints (rata.endpoint)
DEV_SOCKET = "dev.sock"


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
        """Create the folder (0700), its logs folder and the token (0600) if missing."""
        try:
            os.makedirs(self.where, mode=0o700, exist_ok=True)
            if not os.path.isdir(self.logs_dir):
                os.makedirs(self.logs_dir, mode=0o700, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"The app folder {self.where!r} could not be created: {error.strerror}.",
                hint="Set RATA_HOME to a writable folder.",
            ) from None
        self.token()
        return self

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
