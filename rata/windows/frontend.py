"""`Frontend`: an app's HTML, JS and CSS files, found by URL path and nothing else.

Every window backend serves the same files (pywebview through a local server, headless
Chromium by answering its requests), so the rules for which file a URL path names live
here, once: a path is looked up under the frontend's root and refused when it would leave
it (``..``, an absolute path, a symlink pointing outside, a NUL byte). By convention an
app's frontend is the ``frontend/`` folder next to its app module, with an ``index.html``:

    examples/crm/crm/app.py          app = App("crm", ...)
    examples/crm/crm/frontend/       index.html, app.js, app.css

Content types come from a fixed table rather than `mimetypes`, whose answers depend on the
machine (the Windows registry, /etc/mime.types): the same file is served the same way
everywhere.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

INDEX = "index.html"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
    ".mp3": "audio/mpeg",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".pdf": "application/pdf",
}
OCTET_STREAM = "application/octet-stream"


class Frontend:
    """The files a window shows, under one root folder."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()

    def __repr__(self) -> str:
        return f"Frontend({str(self.root)!r})"

    @classmethod
    def of(cls, app: Any) -> Frontend | None:
        """The app's ``frontend/`` folder next to its module, if it has an ``index.html``; else None."""
        folder = Path(app.root) / "frontend"
        return cls(folder) if (folder / INDEX).is_file() else None

    @property
    def index(self) -> Path:
        return self.root / INDEX

    def resolve(self, url_path: str) -> Path | None:
        """The file a URL path names (``/`` and folders mean their ``index.html``), or None.

        None for a file that does not exist and for any path that would leave the root: ``..``
        segments, absolute or drive paths, backslashes, NUL bytes, symlinks pointing outside.
        A query string or fragment is ignored.
        """
        relative = _relative(url_path)
        if relative is None:
            return None
        real = self._inside(self.root.joinpath(*relative.parts))
        if real is not None and real.is_dir():
            real = self._inside(real / INDEX)
        return real if real is not None and real.is_file() else None

    def resolve_route(self, url_path: str) -> Path | None:
        """Like `resolve`, but a safe path whose last segment has no extension (a client-side route such as
        ``/customers/3``) and names no file gets ``index.html``, so such a route survives a reload."""
        found = self.resolve(url_path)
        relative = _relative(url_path)
        if found is None and relative is not None and "." not in relative.name:
            found = self.resolve("/")
        return found

    def _inside(self, candidate: Path) -> Path | None:
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):  # missing, or a symlink loop
            return None
        return real if real == self.root or self.root in real.parents else None

    def mime(self, path: str | Path) -> str:
        """The Content-Type to serve this file with (``application/octet-stream`` when unknown)."""
        return _TYPES.get(Path(path).suffix.lower(), OCTET_STREAM)


def _relative(url_path: str) -> PurePosixPath | None:
    """A URL path as a path relative to the root, or None when it is not one (``..``, absolute, drive, backslash, NUL)."""
    text = unquote(url_path.split("?", 1)[0].split("#", 1)[0])
    if "\x00" in text or "\\" in text:
        return None
    if text.startswith("/"):
        text = text[1:]  # the one leading slash of a URL path; a second would make it absolute
    pure = PurePosixPath(text)
    if pure.is_absolute() or any(part == ".." for part in pure.parts) or (pure.parts and ":" in pure.parts[0]):
        return None
    return pure
