"""Full-text search over the project's docs and the installed rata's own docs (SQLite FTS5, BM25).

    index = DocsIndex([("project", project / "docs"), ("rata", rata_docs_dir())])
    ranked = index.ranking(["live queries", "confirm"])  # every matching section, best first
    hits = index.hits(ranked[:20])                        # the first 20, with their snippets

Markdown files are split into sections at their headings; each section is indexed with its
heading (weighted higher), its text, and a ``path#anchor`` link. The index lives in the user's
cache folder (``RATA_CACHE_DIR``, else ``$XDG_CACHE_HOME/rata``), never in the project, and is
brought up to date before each search by comparing each file's size and modification time.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import NamedTuple

from rata._record import Record
from rata.projectfiles import ProjectFileError, read_text

SCHEMA_VERSION = 3
MAX_DOC_BYTES = 1024 * 1024
"""The largest Markdown file indexed; a larger one is passed over (and counted), never read whole."""
REFRESH_INTERVAL = 2.0
"""Seconds a search trusts the last look at the files (a look walks every docs folder)."""
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^(```|~~~)")
_WORD = re.compile(r"\w+", re.UNICODE)


def cache_dir() -> Path:
    configured = os.environ.get("RATA_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rata"


def rata_docs_dir() -> Path | None:
    """The docs of the installed rata: shipped in the package, or beside it in a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "_docs", package.parent / "docs"):
        if candidate.is_dir():
            return candidate
    return None


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading (GitHub style)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


class Section(Record):
    __slots__ = ("path", "anchor", "heading", "body")
    path: str
    anchor: str
    heading: str
    body: str


def split_sections(path: str, text: str) -> list[Section]:
    """One section per heading (outside code fences), plus the text before the first heading if any.

    Anchors follow GitHub: a repeated heading gets ``-1``, ``-2`` ... appended.
    """
    sections: list[Section] = []
    seen: dict[str, int] = {}
    heading, anchor, lines = Path(path).stem, "", []
    started = False
    in_fence = False

    def close() -> None:
        body = "\n".join(lines).strip()
        if started or body:
            sections.append(Section(path, anchor, heading, body))

    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if not match:
            lines.append(line)
            continue
        close()
        heading = match.group(2)
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchor = base if count == 0 else f"{base}-{count}"
        lines = []
        started = True
    close()
    return sections


class Hit(Record):
    __slots__ = ("source", "path", "anchor", "heading", "snippet", "score")
    source: str
    path: str
    anchor: str
    heading: str
    snippet: str
    score: float

    @property
    def link(self) -> str:
        return f"{self.path}#{self.anchor}" if self.anchor else self.path


class Ranked(NamedTuple):
    """A section's place in a ranking, before its heading and snippet are read: its row, the FTS5 expression that found it, its score.

    A tuple, not a `Record`: a ranking can hold tens of thousands, built on every search."""

    rowid: int
    query: str
    path: str
    anchor: str
    score: float


class DocsIndex:
    """An FTS5 index of Markdown files under some roots, kept in the cache folder."""

    def __init__(self, roots: list[tuple[str, Path]], location: Path | None = None, shown: dict[str, str] | None = None) -> None:
        """`roots`: (label, folder) pairs; `shown`: label -> the prefix links use for that folder (default: its path)."""
        self.roots = [(label, root.resolve()) for label, root in roots if root is not None and root.is_dir()]
        self.shown = {label: (shown or {}).get(label, str(root)) for label, root in self.roots}
        import hashlib

        key = hashlib.sha256("\n".join(f"{label}={root}={self.shown[label]}" for label, root in self.roots).encode()).hexdigest()[:16]
        self.path = (location or cache_dir()) / f"docs-{key}.sqlite"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._refreshed_at: float | None = None
        self.passed_over: list[str] = []
        """The files the last look passed over (shown paths): not regular files, over `MAX_DOC_BYTES`, or unreadable."""
        self.cut = False
        """Whether the last look stopped before the end of a tree too large to walk (`rata.projectfiles.MAX_WALK_ENTRIES`)."""

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                conn.executescript(
                    "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS sections;"
                    "CREATE TABLE files (path TEXT PRIMARY KEY, shown TEXT, mtime_ns INTEGER, size INTEGER, first_row INTEGER, last_row INTEGER);"
                    "CREATE VIRTUAL TABLE sections USING fts5(source UNINDEXED, path UNINDEXED, anchor UNINDEXED, heading, body, tokenize='porter unicode61');"
                    f"PRAGMA user_version = {SCHEMA_VERSION};"
                )
            self._conn = conn
        return self._conn

    def _files(self) -> dict[str, tuple[str, str, int, int]]:
        """Every Markdown file under the roots that can be indexed: key -> (source, display path, mtime_ns, size).

        Through `rata.projectfiles.walk_files`: regular files only (a FIFO or a link to a device is passed over),
        none over `MAX_DOC_BYTES`, and a bounded walk; what is passed over is kept in `passed_over`."""
        from rata.projectfiles import walk_files

        found: dict[str, tuple[str, str, int, int]] = {}
        self.passed_over, self.cut = [], False
        for label, root in self.roots:
            prefix = self.shown[label].rstrip("/") + "/"
            skip = len(str(root)) + 1
            walk = walk_files(root, lambda name: name.endswith((".md", ".markdown")))
            self.cut = self.cut or walk.cut

            def shown_as(full: str, skip: int = skip, prefix: str = prefix) -> str:
                relative = full[skip:]
                return prefix + (relative if os.sep == "/" else relative.replace(os.sep, "/"))

            self.passed_over += [shown_as(full) for full in walk.skipped]
            for full, mtime, size in walk.files:
                shown = shown_as(full)
                if size > MAX_DOC_BYTES:
                    self.passed_over.append(shown)
                    continue
                found[full] = (label, shown, mtime, size)
        return found

    def refresh(self) -> tuple[int, int]:
        """Bring the index up to date; returns (files re-indexed, files removed)."""
        with self._lock:
            conn = self._db()
            current = self._files()
            known = {row[0]: row[1:] for row in conn.execute("SELECT path, mtime_ns, size, first_row, last_row FROM files")}
            changed = [path for path, (_, _, mtime, size) in current.items() if known.get(path, (None, None))[:2] != (mtime, size)]
            removed = [path for path in known if path not in current]
            self._refreshed_at = time.monotonic()
            if not changed and not removed:
                return 0, 0
            conn.execute("BEGIN")
            try:
                for path in removed + changed:
                    if path in known:
                        first, last = known[path][2:]
                        if first is not None:  # a file's sections are one run of rowids: no scan of the whole index
                            conn.execute("DELETE FROM sections WHERE rowid BETWEEN ? AND ?", (first, last))
                        conn.execute("DELETE FROM files WHERE path = ?", (path,))
                for path in changed:
                    source, shown, mtime, size = current[path]
                    try:  # never blocks (a FIFO put in its place since the walk) and never reads past the cap
                        text = read_text(path, limit=MAX_DOC_BYTES, errors="replace")
                    except ProjectFileError:
                        self.passed_over.append(shown)
                        continue
                    before = _last_row(conn)
                    conn.executemany(
                        "INSERT INTO sections (source, path, anchor, heading, body) VALUES (?, ?, ?, ?, ?)",
                        [(source, s.path, s.anchor, s.heading, s.body) for s in split_sections(shown, text)],
                    )
                    after = _last_row(conn)
                    rows = (before + 1, after) if after > before else (None, None)
                    conn.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?)", (path, shown, mtime, size, *rows))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            return len(changed), len(removed)

    def ranking(self, queries: list[str], stop: int | None = None) -> list[Ranked]:
        """Every section that matches any query, best first: the queries' rankings taken in turns (the first `stop`).

        Each query ranks its sections by BM25 (headings weighted 5x), ties broken by path, anchor
        and row; the answer takes each query's first, then each one's second, and so on, a
        section shown once (at its first place). The same docs and queries give the same list,
        so a position in it (``skip``) means the same thing from one call to the next. With
        `stop`, each query's ranking is read only to its `stop`-th section: the first `stop`
        places of the whole list never need more (a query's own sections are distinct), and
        SQLite keeps the best `stop` instead of sorting every match.

        The files are looked at again (and changed ones re-indexed) unless that was done in the
        last `REFRESH_INTERVAL` seconds.
        """
        if self._refreshed_at is None or time.monotonic() - self._refreshed_at >= REFRESH_INTERVAL:
            self.refresh()
        lists: list[list[Ranked]] = []
        with self._lock:
            conn = self._db()
            for query in queries:
                expression = _fts_query(query)
                if not expression:
                    continue
                rows = conn.execute(
                    "SELECT rowid, path, anchor, bm25(sections, 0, 0, 0, 5.0, 1.0) AS rank FROM sections"
                    " WHERE sections MATCH ? ORDER BY rank, path, anchor, rowid LIMIT ?",
                    (expression, -1 if stop is None else stop),
                ).fetchall()
                lists.append([Ranked(rowid, expression, path, anchor, round(-rank, 4)) for rowid, path, anchor, rank in rows])
        ranked: list[Ranked] = []
        seen: set[tuple[str, str]] = set()
        for place in range(max((len(found) for found in lists), default=0)):
            for found in lists:
                if place < len(found) and (found[place].path, found[place].anchor) not in seen:
                    seen.add((found[place].path, found[place].anchor))
                    ranked.append(found[place])
        return ranked if stop is None else ranked[:stop]

    def count(self, queries: list[str]) -> int:
        """How many sections the whole `ranking` of `queries` holds (each once), without ranking them."""
        expressions = [expression for expression in map(_fts_query, queries) if expression]
        if not expressions:
            return 0
        union = " UNION ".join(["SELECT path, anchor FROM sections WHERE sections MATCH ?"] * len(expressions))
        with self._lock:
            return int(self._db().execute(f"SELECT count(*) FROM ({union})", expressions).fetchone()[0])

    def hits(self, ranked: list[Ranked]) -> list[Hit]:
        """`ranked` sections as hits, in the same order, each with its heading and a snippet of its text around its query's words."""
        found: dict[int, tuple[str, str, str]] = {}
        by_query: dict[str, list[int]] = {}
        for section in ranked:
            by_query.setdefault(section.query, []).append(section.rowid)
        with self._lock:
            conn = self._db()
            for expression, rowids in by_query.items():
                for start in range(0, len(rowids), 500):
                    chunk = rowids[start : start + 500]
                    marks = ", ".join("?" * len(chunk))
                    for rowid, source, heading, snippet in conn.execute(
                        f"SELECT rowid, source, heading, snippet(sections, 4, '', '', ' ... ', 24) FROM sections WHERE sections MATCH ? AND rowid IN ({marks})",
                        (expression, *chunk),
                    ):
                        found[rowid] = (source, heading, " ".join(snippet.split()))
        hits = []
        for section in ranked:  # a row another search's refresh removed since the ranking keeps its place, empty
            source, heading, snippet = found.get(section.rowid, ("", "", ""))
            hits.append(Hit(source, section.path, section.anchor, heading, snippet, section.score))
        return hits

    def search(self, queries: list[str], skip: int = 0, count: int | None = None) -> list[Hit]:
        """The hits of `ranking` from place `skip` on, `count` of them (all when None)."""
        ranked = self.ranking(queries)
        return self.hits(ranked[skip : None if count is None else skip + count])


def _last_row(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT rowid FROM sections ORDER BY rowid DESC LIMIT 1").fetchone()
    return row[0] if row else 0


def _fts_query(text: str) -> str:
    """Words of `text` as an FTS5 expression: every word (each quoted, so no syntax can be injected)."""
    words = _WORD.findall(text)
    return " ".join(f'"{w}"' for w in words[:32])
