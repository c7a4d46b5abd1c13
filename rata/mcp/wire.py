"""MCP on the wire: versions, keys, error codes, and line framing. No behaviour beyond parsing.

Facts here come from the 2026-07-28 and 2025-11-25 specifications (see the project's
reference notes on the wire format); nothing is from memory.
"""

from __future__ import annotations

import json
import sys
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

    # hot path: bench/run.py --only server (throughput): one per message read, written out rather than Record's generic loop
    def __init__(self, kind: str, id: Any = None, method: str = "", params: Any = None, result: Any = None, error: Any = None) -> None:
        self.kind = kind
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
    """A line that is not a usable JSON-RPC message; `error` is the response to send (with `id` if known).

    `response` is True when the line was shaped as an answer to a server->client request (no
    "method"; "result" or "error"): the request waiting for it is failed with `error`.
    """

    def __init__(self, error: McpError, id: Any = None, has_id: bool = False, response: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.id = id
        self.has_id = has_id
        self.response = response


class _NotANumber(ValueError):
    """A number JSON text may not hold here: NaN, Infinity or -Infinity, or a float beyond 64 bits."""


def _refuse_constant(name: str) -> Any:
    raise _NotANumber(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf - inf is nan; only an infinite value fails this
        raise _NotANumber(f"the number {text[:40]}{'...' if len(text) > 40 else ''} is too large for a 64-bit float")
    return value


_DECODE = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float).decode


def _parse_problem(problem: BaseException) -> str:
    if isinstance(problem, RecursionError):
        return "Parse error: the line nests arrays or objects too deeply"
    if isinstance(problem, json.JSONDecodeError):
        return f"Parse error: the line is not valid JSON ({problem.msg} at column {problem.colno})"
    if isinstance(problem, _NotANumber):
        return f"Parse error: {problem}; send only finite numbers"
    if "integer string conversion" not in str(problem):
        return "Parse error: the line is not valid JSON"
    return f"Parse error: an integer in the line has more than {sys.get_int_max_str_digits()} digits; send such a number as a string"


def has_lone_surrogate(value: Any) -> bool:
    """Whether a parsed JSON value holds a string (or key) with a lone UTF-16 surrogate, which is not Unicode text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _has_surrogate(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _usable_id(message: dict[str, Any]) -> tuple[Any, bool]:
    """The message's id and whether an answer can carry it: a string of Unicode text or an integer, never null or a bool."""
    if "id" not in message:
        return None, False
    raw_id = message["id"]
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        return None, False
    if isinstance(raw_id, str) and not raw_id.isascii() and _has_surrogate(raw_id):
        return None, False
    return raw_id, True


def parse_line(line: bytes) -> Incoming:
    """Parse one line into an `Incoming`, or raise `FrameError` with the error to answer.

    Every string in an `Incoming` is Unicode text (a line whose strings hold a lone surrogate
    escape such as ``\\udfff`` is refused), and every number is an int or a finite float.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError(McpError(PARSE_ERROR, "Parse error: the line is not valid UTF-8")) from None
    try:
        message = _DECODE(text)
    except (ValueError, RecursionError) as problem:
        raise FrameError(McpError(PARSE_ERROR, _parse_problem(problem))) from None
    if isinstance(message, list):
        raise FrameError(McpError(INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line"))
    if not isinstance(message, dict):
        raise FrameError(McpError(INVALID_REQUEST, "Invalid Request: a message must be a JSON object"))
    raw_id, id_ok = _usable_id(message)
    has_id = "id" in message
    response_shaped = "method" not in message and ("result" in message or "error" in message)
    # UTF-8 cannot carry a surrogate, so only a \u escape can make one: look only when there is one.
    if ("\\ud" in text or "\\uD" in text) and has_lone_surrogate(message):
        error = McpError(
            INVALID_REQUEST,
            "Invalid Request: a string in the message holds a lone UTF-16 surrogate escape (U+D800 to U+DFFF without its pair), "
            "which is not Unicode text; send strings as UTF-8 text, or pair each high surrogate escape with a low one",
        )
        raise FrameError(error, raw_id, id_ok, response_shaped and id_ok)
    if message.get("jsonrpc") != "2.0":
        raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'), raw_id, id_ok, response_shaped and id_ok)
    if "method" in message:
        method = message["method"]
        if not isinstance(method, str) or not method:
            raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string'), raw_id, id_ok)
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
    if id_ok and response_shaped:
        return Incoming("response", id=raw_id, result=message.get("result"), error=message.get("error"))
    raise FrameError(McpError(INVALID_REQUEST, 'Invalid Request: no "method"'), raw_id, id_ok)


_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class UnencodableError(ValueError):
    """A message that cannot be written as JSON text (see `encode`); the message names why."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON, UTF-8, no embedded newlines, ending in a newline.

    Only valid JSON is ever written. An answer (a message with an id and a result or error)
    that cannot be written (NaN, a lone surrogate, a value JSON has no form for) becomes the
    -32603 error for its id, naming the problem; any other message raises `UnencodableError`.
    """
    try:
        return (_ENCODE(message) + "\n").encode("utf-8")
    except (ValueError, TypeError, RecursionError) as problem:  # UnicodeEncodeError is a ValueError
        why = unencodable(problem)
    if "id" in message and ("result" in message or "error" in message):
        error = McpError(INTERNAL_ERROR, f"Internal error: the answer could not be written as JSON: {why}")
        for answer in (error_response(message["id"], error), error_response(None, error, has_id=False)):
            try:
                return (_ENCODE(answer) + "\n").encode("utf-8")
            except (ValueError, TypeError, RecursionError):
                continue  # the id itself cannot be written: answer without it
    raise UnencodableError(why)


def unencodable(problem: BaseException) -> str:
    """Why a value could not be written as JSON, in words that name the fix."""
    if isinstance(problem, UnicodeEncodeError):
        return "a string holds a lone surrogate (U+D800 to U+DFFF), which is not Unicode text"
    if isinstance(problem, RecursionError):
        return "a value nests too deeply"
    if isinstance(problem, TypeError):
        return f"{problem} (only dict, list, str, int, float, bool and None are)"
    text = str(problem)
    if text.startswith("Out of range float"):
        return "a number is NaN or infinite, which JSON cannot hold"
    if text.startswith("Circular reference"):
        return "a value contains itself"
    if "integer string conversion" in text:
        return f"an integer has more than {sys.get_int_max_str_digits()} digits"
    return text


SHOWN_CHARS = 100
"""Client text echoed in an error message or its data (a method name, a version) is cut to this many characters."""


def shown(value: Any) -> str:
    """Client-sent `value` as short text to echo back: a string cut to `SHOWN_CHARS`, else the kind of JSON value it is."""
    if isinstance(value, str):
        return value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS] + "..."
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) or (isinstance(value, int) and value.bit_length() < 64):
        return repr(value)
    return "a number" if isinstance(value, int) else "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else type(value).__name__


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
