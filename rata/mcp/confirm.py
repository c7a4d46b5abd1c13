"""Confirmation of irreversible commands, enforced by the server; and the signed request states of every question.

A confirmation is the first question of its call (`rata.mcp.talking.McpChannel.input`), so the
states below also carry the answers of a command's own questions (`Ctx.ask`) from round to round.

2026-07-28: the first ``tools/call`` returns ``resultType: "input_required"`` with an
``elicitation/create`` form and a ``requestState``. The state is HMAC-SHA256 signed with a
key derived from the app's per-install token, and binds the tool, a digest of the
arguments and an expiry; a retry must bring it back unchanged along with the user's
answer. Each state carries a nonce and is good for one retry: the first check records the
nonce in `confirm.db` in the app folder (SQLite, shared by every process of the app), and
any later check of the same state is refused, in this process or another. Recorded nonces
are dropped once their state has expired, so the table holds at most the states checked
in the last `STATE_TTL_SECONDS`.

2025-11-25: the server asks the client mid-call with an ``elicitation/create`` request and
waits for the answer to that one request id (`Server.request_client`), which is single-use
by construction: the pending entry is removed by the first answer, later ones are ignored.

In both eras only ``{"action": "accept", "content": {"confirm": true}}`` (a JSON boolean
true) is an accept; see `accepted`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from rata.mcp import wire
from rata.mcp.wire import McpError

INPUT_KEY = "confirm"  # the key of the question in inputRequests and inputResponses
FIELD = "confirm"  # the form's one boolean field
STATE_TTL_SECONDS = 600
LEGACY_TIMEOUT_SECONDS = 600.0
NONCES_FILE = "confirm.db"
MAX_STATE_CHARS = 1_048_576
"""A request state's JSON, before its encoding: the answers a call carries from round to round are bounded by it."""
_NONCE_CHARS = frozenset("0123456789abcdef")
REQUESTED_SCHEMA = {
    "type": "object",
    "properties": {
        FIELD: {
            "type": "boolean",
            "title": "Allow",
            "description": "Allow the agent to do this.",
            "default": True,
        }
    },
}


def args_digest(tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps([tool, arguments], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()  # an agent's lone surrogate must not break the digest


class Confirmer:
    """Issues and checks signed request states; `nonces` is the path of the used-nonce store (None: this process only)."""

    def __init__(self, token: str, clock: Callable[[], float] = time.time, nonces: str | None = None) -> None:
        self._key = hashlib.sha256(b"rata-confirm-v1:" + token.encode("utf-8")).digest()
        self._clock = clock
        self._used = UsedNonces(nonces, clock)

    def issue(self, tool: str, arguments: dict[str, Any], answers: list[Any] | None = None, keys: list[str] | None = None) -> str:
        """A signed state for this call; `answers` (the client's answers so far) and `keys` (the questions
        now asked, `rata.mcp.talking`) travel in it when given. Raises -32603 past `MAX_STATE_CHARS`."""
        expiry = int(self._clock()) + STATE_TTL_SECONDS
        payload: dict[str, Any] = {"v": 1, "tool": tool, "args": args_digest(tool, arguments), "exp": expiry, "n": secrets.token_hex(16)}
        if answers is not None:
            payload["a"] = answers
        if keys is not None:
            payload["k"] = keys
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        if len(text) > MAX_STATE_CHARS:
            raise McpError(
                wire.INTERNAL_ERROR,
                f"{tool}: the answers given so far take {len(text)} characters, more than a request state carries ({MAX_STATE_CHARS}); "
                "ask fewer or shorter questions in one call",
            )
        body = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
        return f"{body}.{self._sign(body)}"

    def check(self, state: object, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Raise -32602 unless `state` was issued by this app for this very call, has not expired, and was never checked before.

        A state that passes is used up: a second check of it fails, in any process of the app.
        Returns what the state holds (``a``: answers so far, ``k``: the keys of the questions asked, when given).
        """
        if not isinstance(state, str) or len(state) > MAX_STATE_CHARS * 2 or state.count(".") != 1 or not state.isascii():
            raise _bad_state("it is malformed")
        body, signature = state.split(".")
        if not hmac.compare_digest(signature, self._sign(body)):
            raise _bad_state("its signature does not match")
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except (ValueError, json.JSONDecodeError):
            raise _bad_state("it is malformed") from None
        if not isinstance(payload, dict):
            raise _bad_state("it is malformed")
        if payload.get("tool") != tool or payload.get("args") != args_digest(tool, arguments):
            raise _bad_state("it belongs to another call")
        expiry = payload.get("exp")
        if not isinstance(expiry, int) or isinstance(expiry, bool) or expiry < self._clock():
            raise _bad_state("it has expired; call the tool again")
        nonce = payload.get("n")
        if not isinstance(nonce, str) or not 16 <= len(nonce) <= 64 or not _NONCE_CHARS.issuperset(nonce):
            raise _bad_state("it is malformed")
        if not self._used.claim(nonce, expiry):
            raise _bad_state("it was already used; a confirmation is good for one call, so call the tool again")
        return payload

    def _sign(self, body: str) -> str:
        return hmac.new(self._key, body.encode("ascii"), hashlib.sha256).hexdigest()


class UsedNonces:
    """The nonces of request states already checked, until they expire: in `path` (SQLite), or in memory when it is None."""

    def __init__(self, path: str | None, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._memory: dict[str, int] = {}
        self._lock = threading.Lock()

    def claim(self, nonce: str, expiry: int) -> bool:
        """Record `nonce` (good until `expiry`); False if it was recorded before. Expired nonces are dropped first."""
        now = int(self._clock())
        if self.path is None:
            with self._lock:
                self._memory = {n: e for n, e in self._memory.items() if e >= now}
                if nonce in self._memory:
                    return False
                self._memory[nonce] = expiry
                return True
        try:
            return self._claim_in_file(nonce, expiry, now)
        except (sqlite3.Error, OSError) as error:  # fail closed: nothing runs on a confirmation that cannot be recorded
            raise McpError(
                wire.INTERNAL_ERROR,
                f"The confirmation could not be recorded in {self.path!r} ({error}); nothing was done. "
                "If the file is damaged, delete it (it only holds used confirmations) and call the tool again.",
            ) from None

    def _claim_in_file(self, nonce: str, expiry: int, now: int) -> bool:
        path = self.path
        assert path is not None
        if not os.path.exists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # never readable by others, even for a moment
        connection = sqlite3.connect(path, timeout=10.0, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("CREATE TABLE IF NOT EXISTS used (nonce TEXT PRIMARY KEY, expires INTEGER NOT NULL) WITHOUT ROWID")
            connection.execute("DELETE FROM used WHERE expires < ?", (now,))
            fresh = connection.execute("INSERT OR IGNORE INTO used (nonce, expires) VALUES (?, ?)", (nonce, expiry)).rowcount == 1
            connection.execute("COMMIT")
            return fresh
        finally:
            connection.close()


def _bad_state(why: str) -> McpError:
    return McpError(wire.INVALID_PARAMS, f"Invalid params: requestState rejected: {why}")


def elicitation(message: str) -> dict[str, Any]:
    return {"mode": "form", "message": message, "requestedSchema": REQUESTED_SCHEMA}


def accepted(answer: object) -> bool | None:
    """True for an accept, False for anything else the user answered, None when `answer` is no elicitation result at all.

    Only ``{"action": "accept", "content": {"confirm": true}}`` with a JSON boolean ``true`` is an
    accept. ``decline`` and ``cancel``, and an ``accept`` whose content is missing, is not an object,
    or holds anything but ``true`` under ``confirm`` (``false``, ``"true"``, ``1``, ``null``, ``"yes"``)
    are a no. An answer that is not an object, or whose ``action`` is none of the three, is None.
    """
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        return None
    if answer["action"] != "accept":
        return False
    content = answer.get("content")
    return isinstance(content, dict) and content.get(FIELD) is True
