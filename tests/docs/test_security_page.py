"""docs/security.md names the test behind every threat: each file and test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "security.md"
CITED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?|`::(\w+)`|`(test_\w+\.py)::(\w+)`")


def cited_tests() -> list[tuple[str, str | None]]:
    """(file, test or None) for every citation in the page; a bare `::name` belongs to the file cited last in its row."""
    cited: list[tuple[str, str | None]] = []
    for row in PAGE.read_text(encoding="utf-8").splitlines():
        last: str | None = None
        for match in CITED.finditer(row):
            path, name, bare, short_file, short_name = match.groups()
            if path:
                last = path
                cited.append((path, name))
            elif short_file:
                found: str = next((f for f, _ in reversed(cited) if f.endswith("/" + short_file)), short_file)
                last = found
                cited.append((found, short_name))
            else:
                assert last is not None, f"`::{bare}` in docs/security.md follows no test file in its row: {row[:120]}"
                cited.append((last, bare))
    return cited


def test_the_security_page_cites_tests():
    assert len(cited_tests()) > 40


def test_every_test_the_security_page_names_exists():
    missing = []
    for path, name in cited_tests():
        file = ROOT / path
        if not file.is_file():
            missing.append(path)
        elif name and not re.search(rf"^\s*(?:async )?def {name}\(", file.read_text(encoding="utf-8"), re.M):
            missing.append(f"{path}::{name}")
    assert not missing, f"docs/security.md names tests that do not exist: {sorted(set(missing))}"
