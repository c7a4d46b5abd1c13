"""Replace or add one `[mcp_servers.NAME]` entry in a TOML text, keeping every other byte.

The text is cut into statements (a statement spans lines inside a multi-line string or
array), and statements into sections, one per table header. The entry is the sections whose
header starts with ``mcp_servers.NAME``; each one's span runs from its header to its last
key/value line, so the comments and blank lines after it, which belong to the next table, stay
where they are, as do comments above the entry's header. The new entry takes the first
section's place; an entry that is new goes at the end of the file. The caller checks the
result with `tomllib`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rata.install.jsonc import line_break

HEADER, PAIR, COMMENT, BLANK = "header", "pair", "comment", "blank"


@dataclass
class Statement:
    kind: str
    start: int  # offset of the first character of its first line
    end: int  # offset after its last line's line break
    code: str  # its text without a trailing comment (for headers: the key)


def statements(text: str) -> list[Statement]:
    """The text's statements, in order; every character belongs to exactly one."""
    out: list[Statement] = []
    pos, n = 0, len(text)
    while pos < n:
        start = pos
        line_end = _line_end(text, pos)
        stripped = text[pos:line_end].strip(" \t\r\n")
        if not stripped:
            out.append(Statement(BLANK, start, line_end, ""))
            pos = line_end
            continue
        if stripped.startswith("#"):
            out.append(Statement(COMMENT, start, line_end, ""))
            pos = line_end
            continue
        end, code = _scan_statement(text, pos)
        kind = HEADER if stripped.startswith("[") else PAIR
        out.append(Statement(kind, start, end, code.strip()))
        pos = end
    return out


def _line_end(text: str, pos: int) -> int:
    found = text.find("\n", pos)
    return len(text) if found < 0 else found + 1


def _scan_statement(text: str, pos: int) -> tuple[int, str]:
    """The end of the statement starting at `pos` (past its last line break) and its code."""
    depth = 0
    code: list[str] = []
    i, n = pos, len(text)
    in_comment = False
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            if depth <= 0:
                return i, "".join(code)
            in_comment = False
            continue
        if in_comment:
            i += 1
            continue
        if c == "#":
            in_comment = True
            i += 1
            continue
        if text.startswith('"""', i) or text.startswith("'''", i):
            close = _close_multiline(text, i)
            code.append(text[i:close])
            i = close
            continue
        if c in "\"'":
            close = _close_string(text, i)
            code.append(text[i:close])
            i = close
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        code.append(c)
        i += 1
    return n, "".join(code)


def _close_string(text: str, i: int) -> int:
    quote = text[i]
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return j


def _close_multiline(text: str, i: int) -> int:
    quote = text[i] * 3
    j = i + 3
    while j < len(text):
        if quote[0] == '"' and text[j] == "\\":
            j += 2
            continue
        if text.startswith(quote, j):
            j += 3
            extra = 0
            while extra < 2 and j < len(text) and text[j] == quote[0]:  # up to two quotes may end the content
                j += 1
                extra += 1
            return j
        j += 1
    return j


_ARRAY = re.compile(r"^\[\[(.*)\]\]$", re.S)
_TABLE = re.compile(r"^\[(.*)\]$", re.S)


def header_parts(code: str) -> list[str]:
    """The keys of a table header's name: ``[a."b.c".d]`` is ``["a", "b.c", "d"]`` ([] if unreadable)."""
    import tomllib

    match = _ARRAY.match(code) or _TABLE.match(code)
    if not match:
        return []
    try:
        data = tomllib.loads(f"[{match.group(1)}]\n")
    except (ValueError, RecursionError):
        return []
    parts: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        key = next(iter(data))
        parts.append(key)
        data = data[key]
    return parts


def entry_spans(text: str, owner: list[str]) -> list[tuple[int, int]]:
    """The spans of the sections whose header starts with `owner` (header to last key/value line).

    Consecutive spans with only blank lines between them are joined into one.
    """
    spans: list[list[int]] = []
    current: list[int] | None = None
    for statement in statements(text):
        if statement.kind == HEADER:
            owned = header_parts(statement.code)[: len(owner)] == owner
            current = [statement.start, statement.end] if owned else None
            if current is not None:
                if spans and not text[spans[-1][1] : current[0]].strip(" \t\r\n"):
                    spans[-1][1] = current[1]
                    current = spans[-1]
                else:
                    spans.append(current)
        elif statement.kind == PAIR and current is not None:
            current[1] = statement.end
    return [(a, b) for a, b in spans]


def set_entry(text: str, owner: list[str], rendered: str) -> str:
    """`text` with the sections of `owner` replaced by `rendered` (LF-terminated TOML), or it appended."""
    eol = line_break(text)
    new = _set_entry(text, owner, rendered.replace("\n", eol), eol)
    if text and not text.endswith("\n") and new.endswith(eol):  # keep a missing final line break missing
        new = new[: -len(eol)]
    return new


def _set_entry(text: str, owner: list[str], block: str, eol: str) -> str:
    spans = entry_spans(text, owner)
    if spans:
        first, *rest = spans
        out = [text[: first[0]], block]
        cursor = first[1]
        for start, end in rest:
            out.append(text[cursor:start])
            cursor = end
        out.append(text[cursor:])
        return "".join(out)
    if not text.strip(" \t\r\n"):
        return text + block if text.endswith("\n") or not text else text + eol + block
    body = text if text.endswith("\n") else text + eol
    return (body if body.endswith("\n\n") or body.endswith("\n\r\n") else body + eol) + block
