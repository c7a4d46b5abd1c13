"""Confirmation of irreversible commands, enforced by the server.

2026-07-28: the first ``tools/call`` returns ``resultType: "input_required"`` with an
``elicitation/create`` form and a ``requestState``. The state is HMAC-SHA256 signed with a
key derived from the app's per-install token, and binds the tool, a digest of the
arguments and an expiry; a retry must bring it back unchanged along with the user's
answer. 2025-11-25: the server asks the client mid-call with an ``elicitation/create``
request. In neither era does a confirmed command run without an ``accept``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import Any

from rata.mcp import wire
from rata.mcp.wire import McpError

INPUT_KEY = "confirm"
STATE_TTL_SECONDS = 600
LEGACY_TIMEOUT_SECONDS = 600.0
REQUESTED_SCHEMA = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Allow",
            "description": "Allow the agent to do this.",
            "default": True,
        }
    },
}


def args_digest(tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps([tool, arguments], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Confirmer:
    """Issues and checks signed request states."""

    def __init__(self, token: str, clock: Any = time.time) -> None:
        self._key = hashlib.sha256(b"rata-confirm-v1:" + token.encode("utf-8")).digest()
        self._clock = clock

    def issue(self, tool: str, arguments: dict[str, Any]) -> str:
        payload = {"v": 1, "tool": tool, "args": args_digest(tool, arguments), "exp": int(self._clock()) + STATE_TTL_SECONDS, "n": secrets.token_hex(8)}
        body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
        return f"{body}.{self._sign(body)}"

    def check(self, state: Any, tool: str, arguments: dict[str, Any]) -> None:
        """Raise -32602 unless `state` was issued by this server for this very call and has not expired."""
        if not isinstance(state, str) or state.count(".") != 1:
            raise _bad_state("it is malformed")
        body, signature = state.split(".")
        if not hmac.compare_digest(signature, self._sign(body)):
            raise _bad_state("its signature does not match")
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except (ValueError, json.JSONDecodeError):
            raise _bad_state("it is malformed") from None
        if payload.get("tool") != tool or payload.get("args") != args_digest(tool, arguments):
            raise _bad_state("it belongs to another call")
        if not isinstance(payload.get("exp"), int) or payload["exp"] < self._clock():
            raise _bad_state("it has expired; call the tool again")

    def _sign(self, body: str) -> str:
        return hmac.new(self._key, body.encode("ascii"), hashlib.sha256).hexdigest()


def _bad_state(why: str) -> McpError:
    return McpError(wire.INVALID_PARAMS, f"Invalid params: requestState rejected: {why}")


def elicitation(message: str) -> dict[str, Any]:
    return {"mode": "form", "message": message, "requestedSchema": REQUESTED_SCHEMA}


def accepted(answer: Any) -> bool | None:
    """True (accept), False (decline or cancel, or accept with confirm: false), None (not an answer)."""
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "decline", "cancel"):
        return None
    if answer["action"] != "accept":
        return False
    content = answer.get("content")
    return not (isinstance(content, dict) and content.get("confirm") is False)
