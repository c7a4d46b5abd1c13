"""MCP on the wire: versions, keys, error codes, and line framing. No behaviour beyond parsing.

Facts here come from the 2026-07-28 and 2025-11-25 specifications (see the project's
reference notes on the wire format); nothing is from memory.
"""

from __future__ import annotations

import json
from typing import Any

from rata._record import Record

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MODERN_VERSIONS = (MODERN,)
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND_LEGACY = -32002
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest accepted message line; a longer one is answered with -32600 and skipped."""

# Methods that exist only before 2026-07-28: an enveloped request for one gets -32601.
REMOVED_IN_MODERN = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "notifications/initialized"}
)


class McpError(Exception):
    """A JSON-RPC error to send back: code, message, optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class Incoming(Record):
    """One parsed line: a request (has id and method), a notification (method, no id) or a response (id, no method)."""

    __slots__ = ("kind", "id", "method", "params", "result", "error")

    def __init__(self, kind: str, id: Any = None, method: str = "", params: Any = None, result: Any = None, error: Any = None) -> None:
        self.kind = kind  # one per message: written out rather than Record's generic loop
        self.id = id
        self.method = method
        self.params = params
        self.result = result
        self.error = error
    kind: str  # "request" | "notification" | "response"
    id: Any
    method: str
    params: Any
    result: Any
    error: Any


class FrameError(Exception):
    """A line that is not a usable JSON-RPC message; `error` is the response to send (with `id` if known)."""

    def __init__(self, error: McpError, id: Any = None, has_id: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.id = id
        self.has_id = has_id


def parse_line(line: bytes) -> Incoming:
    """Parse one line into an `Incoming`, or raise `FrameError` with the error to answer."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError(McpError(PARSE_ERROR, "Parse error: the line is not valid UTF-8")) from None
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise FrameError(McpError(PARSE_ERROR, "Parse error: the line is not valid JSON")) from None
    if isinstance(message, list):
        raise FrameError(McpError(INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line"))
    if not isinstance(message, dict):
        raise FrameError(McpError(INVALID_REQUEST, "Invalid Request: a message must be a JSON object"))
    has_id = "id" in message
    raw_id = message.get("id")
    id_ok = has_id and isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool)
    if message.get("jsonrpc") != "2.0":
        raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'), raw_id if id_ok else None, id_ok)
    if "method" in message:
        method = message["method"]
        if not isinstance(method, str) or not method:
            raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string'), raw_id if id_ok else None, id_ok)
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            if id_ok:
                raise FrameError(McpError(INVALID_PARAMS, 'Invalid params: "params" must be an object'), raw_id, True)
            raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "params" must be an object'))
        if not has_id:
            return Incoming("notification", method=method, params=params)
        if not id_ok:
            raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer, never null'))
        return Incoming("request", id=raw_id, method=method, params=params)
    if id_ok and ("result" in message or "error" in message):
        return Incoming("response", id=raw_id, result=message.get("result"), error=message.get("error"))
    raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: no "method"'), raw_id if id_ok else None, id_ok)


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON, UTF-8, no embedded newlines, ending in a newline."""
    return (_ENCODE(message) + "\n").encode("utf-8")


def response(id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": result}


def error_response(id: Any, error: McpError, has_id: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if has_id:
        message["id"] = id
    message["error"] = error.to_error()
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message
