"""The text cleaner: what `rata.codegen.sanitize` applies to everything an agent or a user is shown.

It sits below every layer (the type model refuses enum values it would change), and imports
nothing at start-up; `unicodedata` is loaded only for text that is not plain printable ASCII.
"""

from __future__ import annotations

_KEEP = {"\n", "\t"}
_DROP_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}
_INVISIBLE = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E, 0x034F}
_LINE_BREAKS = {"\u2028": "\n", "\u2029": "\n\n", "\r\n": "\n", "\r": "\n"}


def _is_invisible(char: str) -> bool:
    if char in _KEEP:
        return False
    code = ord(char)
    if code in _INVISIBLE:
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    import unicodedata  # loaded for text that is not plain printable ASCII, which most schemas never hold

    return unicodedata.category(char) in _DROP_CATEGORIES


def clean_text(text: str, limit: int | None = None) -> str:
    """`text` without invisible and control characters; line separators become newlines; at most `limit` characters."""
    if text.isascii() and text.isprintable():
        return _cut(text, limit)
    for sequence, replacement in _LINE_BREAKS.items():
        text = text.replace(sequence, replacement)
    if text.isascii():  # the only invisible ASCII characters are the controls (category Cc)
        return _cut("".join(char for char in text if " " <= char < "\x7f" or char in _KEEP), limit)
    return _cut("".join(char for char in text if not _is_invisible(char)), limit)


def clean_line(text: str, limit: int | None = None) -> str:
    """`clean_text` on one line: newlines and tabs become spaces."""
    cleaned = clean_text(text)
    if "\n" in cleaned or "\t" in cleaned:
        cleaned = cleaned.replace("\n", " ").replace("\t", " ")
    return _cut(cleaned, limit)


def visible(text: str, limit: int | None = None) -> str:
    """`text` with every character `clean_text` would drop written as an escape (``\x1b``, ``\u202e``), and ``\r`` as ``\r``."""
    if not (text.isascii() and text.isprintable()):
        text = "".join(escape(char) if char == "\r" or (char not in _KEEP and (char in _LINE_BREAKS or _is_invisible(char))) else char for char in text)
    return _cut(text, limit)


def quote(value: str, limit: int | None = None) -> str:
    """`value` as a JSON string in double quotes, with invisible characters escaped (`visible`); long ones cut, saying how long they were."""
    import json

    shown = visible(json.dumps(value, ensure_ascii=False))
    if limit is None or len(shown) <= limit:
        return shown
    return f'{shown[: max(1, limit - 2)]}\u2026" ({len(value)} characters)'


def escape(char: str) -> str:
    """One character as an escape: ``\\r``, ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    code = ord(char)
    if char == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _cut(text: str, limit: int | None) -> str:
    """`text`, or its first `limit` - 1 characters and an ellipsis when it is longer."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "\u2026"
