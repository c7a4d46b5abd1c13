"""Whose file stands where rata would write one: a user's files are never replaced without asking.

`rata mcp pack` writes ``manifest.json`` and `rata mcp publish --dry-run` writes ``server.json``;
each marks its own file in the file's ``_meta`` (`rata.shipping.bundle.GENERATOR`,
`rata.shipping.registry.MARKER`). `standing` says what is at the path now, so each command can
keep an identical file, rewrite its own, and refuse, with its own words, a file someone else wrote.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

Standing = Literal["missing", "same", "ours", "theirs"]


def standing(path: Path, text: str | None, marked: Callable[[object], bool]) -> Standing:
    """What stands at `path`: nothing, exactly `text` (None: never "same"), a JSON file `marked` as rata's, or someone else's file.

    A file that is not UTF-8 JSON is someone else's. OSErrors other than a missing file (a folder
    in the way, say) are the caller's to explain."""
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        return "missing"
    if text is not None and current == text.encode("utf-8"):
        return "same"
    try:
        data = json.loads(current.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return "theirs"
    return "ours" if marked(data) else "theirs"
