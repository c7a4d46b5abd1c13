"""Rate limits for agent calls: a token bucket per tool.

    Mcp().rate_limit(calls=300, per=60)      # the default: 300 calls a minute per tool, bursts included
    Mcp().rate_limit(None)                   # no limit
"""

from __future__ import annotations

import threading
import time

from rata._record import Record


class RateLimit(Record):
    """At most `calls` calls per `per` seconds."""

    __slots__ = ("calls", "per")
    calls: int
    per: float

    def __init__(self, calls: int, per: float) -> None:
        super().__init__(calls, per)
        if self.calls < 1 or self.per <= 0:
            from rata.errors import ConfigError

            raise ConfigError(
                f"A rate limit needs calls >= 1 and per > 0, not calls={self.calls}, per={self.per}.", hint="E.g. Mcp().rate_limit(calls=300, per=60)."
            )


DEFAULT = RateLimit(calls=300, per=60.0)


class Limiter:
    """Token buckets by key (the tool name); `take` returns 0 or the seconds to wait."""

    def __init__(self, limit: RateLimit | None, clock=time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        if self.limit is None:
            return 0.0
        rate = self.limit.calls / self.limit.per
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.limit.calls), now))
            tokens = min(float(self.limit.calls), tokens + (now - last) * rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / rate
