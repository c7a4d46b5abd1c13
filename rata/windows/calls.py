"""The call log of a window host: what `app_calls` shows, with secrets left out.

Every command a window calls (and every run of a live query) is kept as a `CallRecord`,
the last 200 of them. Arguments are fit for showing to an agent: those whose names look
secret (``password``, ``apiKey``, ``session_token``, ...) are left out at any depth, and
long values are cut at 200 characters.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rata._record import Record

CALL_LOG_SIZE = 200
VALUE_LIMIT = 200
_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "key", "apikey", "auth",
        "authorization", "credential", "credentials", "cookie", "session", "otp", "pin", "cvv", "cvc", "private",
        "signature", "ssn",
    }
)  # fmt: skip


class CallRecord(Record):
    """One command call from a window, as `app_calls` shows it."""

    __slots__ = ("seq", "window", "command", "args", "started", "duration_ms", "ok", "error", "kind")
    seq: int
    window: str
    command: str
    args: dict[str, Any]
    started: float  # time.time() when it started
    duration_ms: float
    ok: bool
    error: str | None  # the error's message when not ok
    kind: str  # "invoke" or "live"


def is_secret_name(name: str) -> bool:
    """Whether an argument name looks like it holds a secret (``password``, ``apiKey``, ``session_token``, ...)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    if any(word in _SECRET_WORDS for word in re.split(r"[^a-z0-9]+", words)):
        return True
    joined = re.sub(r"[^a-z0-9]+", "", words)  # run-together names: "userpassword", "authtoken"
    return any(part in joined for part in ("password", "passwd", "secret", "apikey")) or joined.endswith("token")


def redact_args(args: dict[str, Any], limit: int = VALUE_LIMIT) -> dict[str, Any]:
    """Arguments fit for a log: secret-looking keys left out at any depth, each value at most `limit` characters."""
    out: dict[str, Any] = {}
    for name, value in args.items():
        if is_secret_name(str(name)):
            continue
        out[str(name)] = _cut(_drop_secrets(value), limit)
    return out


def _drop_secrets(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _drop_secrets(v) for k, v in value.items() if not is_secret_name(str(k))}
    if isinstance(value, list):
        return [_drop_secrets(v) for v in value]
    return value


def _cut(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "\u2026"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return value if len(text) <= limit else text[:limit] + "\u2026"
    return value
