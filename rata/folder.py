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
from pathlib import Path

from rata._record import Record
from rata.errors import ConfigError

TOKEN_FILE = "instance.token"
DATABASE_FILE = "app.db"
LOGS_DIR = "logs"


def default_folder(identifier: str, *, environ: dict[str, str] | None = None, platform: str | None = None) -> Path:
    """Where the app with this identifier keeps its data."""
    env = os.environ if environ is None else environ
    home = env.get("RATA_HOME")
    if home:
        return Path(home).expanduser()
    platform = platform or sys.platform
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / identifier
    if platform.startswith("win"):
        base = env.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(base) / identifier
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / identifier


class AppFolder(Record):
    """The folder and the files rata keeps in it."""

    __slots__ = ("path",)
    path: Path

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
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.logs.mkdir(mode=0o700, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"The app folder {str(self.path)!r} could not be created: {error.strerror}.",
                hint="Set RATA_HOME to a writable folder.",
            ) from None
        self.token()
        return self

    def token(self) -> str:
        """The per-install secret, created on first use with mode 0600."""
        path = self.token_path
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
                os.chmod(path, 0o600)  # someone loosened it: a token others can read is no secret
            return path.read_text(encoding="ascii").strip()
        import secrets

        with os.fdopen(fd, "w", encoding="ascii") as handle:
            token = secrets.token_urlsafe(32)
            handle.write(token + "\n")
        return token
