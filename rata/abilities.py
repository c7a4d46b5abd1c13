"""Abilities and grants: which commands an origin may call.

An ability is a dotted name (``customers.create``). A grant is a list of patterns; ``*`` as
a segment matches one segment, and as the last segment it matches one or more
(``customers.*`` grants ``customers.view`` and ``customers.notes.add``). A lone ``*``
matches every ability. Nothing is granted unless a pattern says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rata._record import Record
from rata.errors import ConfigError

_SEGMENT = re.compile(r"^(\*|[A-Za-z0-9_-]+)$")


class AbilityPattern(Record):
    """A grant pattern and its compiled form; equal to another with the same text (its regex follows from it)."""

    __slots__ = ("text", "regex")
    text: str
    regex: re.Pattern[str]

    @classmethod
    def parse(cls, text: str) -> AbilityPattern:
        if not isinstance(text, str) or not text:
            raise ConfigError(f"An ability pattern must be a non-empty string, not {text!r}.", hint='Write e.g. "customers.view" or "customers.*".')
        segments = text.split(".")
        if not all(_SEGMENT.match(s) for s in segments):
            raise ConfigError(
                f"The ability pattern {text!r} is malformed.",
                hint="Use dot-separated names of letters, digits, '_' or '-', with '*' as a whole segment.",
            )
        parts = []
        for i, segment in enumerate(segments):
            if segment == "*":
                parts.append(r"[^.]+(?:\.[^.]+)*" if i == len(segments) - 1 else r"[^.]+")
            else:
                parts.append(re.escape(segment))
        return cls(text, re.compile(r"\.".join(parts) + r"\Z"))

    def matches(self, ability: str) -> bool:
        return self.regex.match(ability) is not None


class Grant:
    """A set of ability patterns; deny by default."""

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        self.patterns: list[AbilityPattern] = []
        self.extend(patterns)

    def extend(self, patterns: Iterable[str]) -> None:
        if isinstance(patterns, str):
            patterns = [patterns]
        for text in patterns:
            pattern = AbilityPattern.parse(text)
            if pattern not in self.patterns:
                self.patterns.append(pattern)

    def allows(self, ability: str | None) -> bool:
        return ability is not None and any(p.matches(ability) for p in self.patterns)

    def texts(self) -> list[str]:
        return [p.text for p in self.patterns]


def validate_ability(ability: str, where: str) -> str:
    """Check an ability name given to ``@command(can=...)``."""
    if not isinstance(ability, str) or not ability or "*" in ability or not all(
        _SEGMENT.match(s) for s in ability.split(".")
    ):
        raise ConfigError(
            f"{where}: the ability {ability!r} is not a valid ability name.",
            hint='Use dot-separated names of letters, digits, "_" or "-", without wildcards, e.g. "customers.view".',
        )
    return ability
