"""The channel of one ``tools/call``: what its command says to the client during the call, in both eras.

`tools.call_tool` makes one `McpChannel` per call and puts it on the `CommandRequest`; `Ctx`
uses it (`rata.talk`).

- **Progress** (`McpChannel.progress`): ``notifications/progress`` with the request's
  ``_meta.progressToken``, only when the client gave one; ``progress`` only grows; at most one
  report per `PROGRESS_INTERVAL` (the latest one held back is sent when the interval is over, on
  a timer, or before the result, whichever comes first); nothing after the result, nor for a
  cancelled call.
- **Logs** (`McpChannel.log`): what the command logs through the app's logger while the call
  runs also goes to the client as ``notifications/message``, at or above the level the client
  asked for: ``logging/setLevel`` (2025 era, for the session) or the request's
  ``io.modelcontextprotocol/logLevel`` (2026-07-28). No level asked, nothing sent. A message
  is the log file's line, bounded the same way (`rata.logs.format_line`), without its time and
  with an exception's type and message rather than its traceback; at most `MAX_LOG_MESSAGES`
  per call.
- **Input** (`McpChannel.input`, under `ask`, `sample` and `roots`): in the 2025 era a request
  to the client mid-call (``elicitation/create``, ``sampling/createMessage``, ``roots/list``),
  waited for. In 2026-07-28 the server never sends requests: the command stops (`Interrupt`,
  its transaction rolled back), the call answers ``input_required`` with the questions and a
  signed ``requestState`` (`rata.mcp.confirm.Confirmer`: bound to the tool and its arguments,
  expiring, good for one retry) that carries the answers so far; the retry runs the command
  again from the start and each question already answered returns its recorded answer, in
  order. An answer that is missing or malformed is asked again.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol

from rata.logs import LazyLogger
from rata.mcp import wire
from rata.mcp.wire import McpError
from rata.talk import ACTIONS, Answer, Interrupt, Message, Question, Root, RootsRequest, Sample, SampleRequest, TalkError, root_problem

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable

    from rata.mcp.confirm import Confirmer
    from rata.mcp.methods import Version
    from rata.mcp.server import Call

log = LazyLogger("rata.mcp")

PROGRESS_INTERVAL = 0.05
"""Seconds between two progress reports of one call; a report sooner than that waits, replaced by a later one."""
MESSAGE_CHARS = 1_000
"""A progress report's message, and an elicitation's, are cut to this many characters (a form's message: `MAX_QUESTION_CHARS`)."""
MAX_QUESTION_CHARS = 2_000
MAX_LOG_MESSAGES = 1_000
"""Log messages sent to the client for one call; past it they go only to the log file."""
MAX_INPUTS = 50
"""Questions (elicitations, samplings, roots requests) one call may put to the client, asked-again ones included."""
MAX_ATTEMPTS = 3
"""In the 2025 era, how many times one question is put to a client whose answers do not fit, before the call fails."""
INPUT_TIMEOUT_SECONDS = 600.0
"""In the 2025 era, how long a call waits for the client to answer one request."""
MAX_ROOTS = 1_000
LEVEL_NUMBERS = {"debug": 10, "info": 20, "notice": 25, "warning": 30, "error": 40, "critical": 50, "alert": 60, "emergency": 70}
"""The syslog levels of MCP, ordered, on Python's scale (notice between INFO and WARNING; alert and emergency above CRITICAL)."""
_LEVEL_ORDER = {name: index for index, name in enumerate(LEVEL_NUMBERS)}
CAPABILITIES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
PURPOSES = {"elicitation": "asks the user a question", "sampling": "asks the client's model", "roots": "asks the client for its roots"}
"""What a command that asks for each capability does, in the error a client without it gets."""

_current = threading.local()
"""The channel whose call runs on this thread and wants logs (`McpChannel.open`), for `_ToClient`."""
_handlers: dict[str, Any] = {}
_handlers_lock = threading.Lock()


class Signer(Protocol):
    """What a channel needs of its server: the signer of request states (`rata.mcp.methods.tools.ToolHost` is one)."""

    @property
    def confirmer(self) -> Confirmer: ...


class _Asking(Interrupt):
    """The questions of this round, to answer ``input_required`` with (2026-07-28)."""

    def __init__(self, requests: list[tuple[str, str, dict[str, Any]]], answers: list[Any]) -> None:
        super().__init__("input required")
        self.requests = requests
        self.answers = answers


class _Refused(Interrupt):
    """The client lacks a capability the command needs (2026-07-28): the call's answer is this -32021 error."""

    def __init__(self, error: McpError) -> None:
        super().__init__(error.message)
        self.error = error


_UNREAD: Any = object()


class _Live:
    """What a channel keeps once its command uses it (made on first use: most calls never talk back)."""

    __slots__ = ("lock", "token", "last", "held", "timer", "sent_at", "threshold", "logged", "recorded", "next", "checked", "loose")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.token: Any = _UNREAD
        self.last: float | None = None
        self.held: dict[str, Any] | None = None
        self.timer: threading.Timer | None = None  # sends the held report once the interval is over
        self.sent_at = -math.inf
        self.threshold: int | None = None
        self.logged = 0
        self.recorded: list[Any] = []
        self.next = 0
        self.checked = False
        self.loose: dict[str, Any] | None = None  # inputResponses sent without a requestState (first round only)


class McpChannel:
    """The channel of one call from an MCP client (`rata.talk.Channel`)."""

    __slots__ = ("_host", "_call", "_tool", "_arguments", "_live", "_closed", "_hearing")

    # hot path: bench/run.py --only server (throughput): one per tools/call, so it holds only what every call needs
    def __init__(self, host: Signer, call: Call, tool: str, arguments: dict[str, Any]) -> None:
        self._host = host
        self._call = call
        self._tool = tool
        self._arguments = arguments
        self._live: _Live | None = None
        self._closed = False
        self._hearing = False  # whether this thread's logs come here (`open`)

    def _state(self) -> _Live:
        live = self._live
        if live is None:
            live = self._live = _Live()
        return live

    # --- the call's life ---

    def open(self, app_name: str) -> None:
        """Start hearing the command's logs, if the client asked for a level (called before the command runs)."""
        call = self._call
        if call.era == "modern":
            meta = call.params.get("_meta")
            level = meta.get(wire.META_LOG_LEVEL) if isinstance(meta, dict) else None
        else:
            level = call.server.log_level
        if level is None or level not in LEVEL_NUMBERS:
            return
        self._state().threshold = LEVEL_NUMBERS[level]
        _attach(app_name)
        _current.channel = self
        self._hearing = True

    def close(self) -> None:
        """The call is over: the report held back goes out now, and nothing more is sent for this call."""
        if self._hearing and getattr(_current, "channel", None) is self:
            _current.channel = None
        self._closed = True  # first: a report from a thread the command left running either sees it or is sent before this returns
        live = self._live
        if live is None:
            return
        with live.lock:
            held, live.held = live.held, None
            if held is not None:
                self._notify("notifications/progress", held)
            if live.timer is not None:
                live.timer.cancel()
            if live.logged > MAX_LOG_MESSAGES:
                left_out = live.logged - MAX_LOG_MESSAGES
                said = f"{left_out} more log messages of this call are only in the log file (at most {MAX_LOG_MESSAGES} are sent)"
                self._notify("notifications/message", {"level": "warning", "logger": "rata", "data": {"message": said}})

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        if not self._call.cancelled:  # a cancelled request hears nothing more
            self._call.server.notify(method, params)

    # --- progress ---

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        live = self._state()
        token = live.token
        if token is _UNREAD:
            meta = self._call.params.get("_meta")
            token = meta.get("progressToken") if isinstance(meta, dict) else None
            if isinstance(token, bool) or not isinstance(token, (str, int)):
                token = None
            live.token = token
        if token is None:
            return
        report: dict[str, Any] = {"progressToken": token, "progress": done}
        if total is not None:
            report["total"] = total
        if message is not None and "progressMessage" in self._call.version.features:
            report["message"] = _message(message, MESSAGE_CHARS)
        with live.lock:
            if self._closed or (live.last is not None and done <= live.last):
                return  # after the result nothing is sent; progress only grows
            live.last = done
            now = time.monotonic()
            if now - live.sent_at >= PROGRESS_INTERVAL:
                live.held = None
                live.sent_at = now
                self._notify("notifications/progress", report)
                return
            live.held = report
            if live.timer is None:  # the held report goes out when the interval is over, even if no other comes
                timer = live.timer = threading.Timer(live.sent_at + PROGRESS_INTERVAL - now, self._send_held)
                timer.daemon = True
                try:
                    timer.start()
                except RuntimeError:  # no thread to be had: the held report waits for the next one, or the result
                    live.timer = None

    def _send_held(self) -> None:
        live = self._live
        assert live is not None
        with live.lock:
            live.timer = None
            held, live.held = live.held, None
            if held is not None and not self._closed:
                live.sent_at = time.monotonic()
                self._notify("notifications/progress", held)

    # --- logs ---

    def log(self, record: logging.LogRecord) -> None:
        live = self._live
        if live is None or (threshold := live.threshold) is None or _LEVEL_ORDER[_level_name(record.levelno)] < _LEVEL_ORDER[_level_name(threshold)]:
            return
        with live.lock:
            if self._closed:
                return
            live.logged += 1
            if live.logged > MAX_LOG_MESSAGES:
                return
            self._notify("notifications/message", _log_params(record))

    # --- input ---

    def begin(self) -> None:
        """Check the retry's ``requestState`` (2026-07-28), once: its answers so far, and the answers to the questions it asked."""
        live = self._state()
        if live.checked:
            return
        live.checked = True
        params = self._call.params
        state = params.get("requestState")
        if self._call.era != "modern":
            return
        if state is None:
            responses = params.get("inputResponses")
            live.loose = responses if isinstance(responses, dict) else None
            return
        payload = self._host.confirmer.check(state, self._tool, self._arguments)
        answers = payload.get("a", [])
        keys = payload.get("k", ["confirm"])  # a state issued before questions were carried: one confirmation
        if not isinstance(answers, list) or not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
            raise McpError(wire.INVALID_PARAMS, "Invalid params: requestState rejected: it is malformed")
        responses = params.get("inputResponses")
        fresh = [responses.get(key) for key in keys] if isinstance(responses, dict) else []
        if keys and len(fresh) == len(keys) and all(isinstance(answer, dict) for answer in fresh):
            answers = answers + fresh
        live.recorded = answers  # a missing or malformed answer: the question is asked again when the command reaches it

    def input(
        self, requests: Sequence[tuple[str, str | None, str, dict[str, Any]]], purpose: str | None = None, ahead: frozenset[str] = frozenset()
    ) -> list[dict[str, Any]]:
        """The client's answers to these requests (key prefix, key or None, method, params), asked in one round.

        A request's key in ``inputRequests`` is the one given, else the prefix and the request's
        place in the call (``ask-0``). `purpose` says what the command does, for the errors
        ("needs the user's confirmation"; by default what each request asks, `PURPOSES`).
        Answers sent before any question was asked (no ``requestState``) count only when every
        key of the round is in `ahead` (the app's opt-in, `Question(ahead=True)`)."""
        self.begin()
        live = self._state()
        recorded = live.recorded
        start = live.next
        end = live.next = start + len(requests)
        if len(recorded) >= end:
            return recorded[start:end]
        if end > MAX_INPUTS:
            hint = "Ask fewer questions, or several in one round (ctx.ask_all)."
            raise TalkError(f"{self._tool} asked its client more than {MAX_INPUTS} questions in one call.", hint=hint)
        keys = [key if key is not None else f"{prefix}-{start + i}" for i, (prefix, key, _, _) in enumerate(requests)]
        if len(set(keys)) != len(keys):
            raise TalkError(f"{self._tool} asked two questions under one key in one round: {keys}.", hint="Give each question of a round its own key.")
        self._require({CAPABILITIES[method] for _, _, method, _ in requests}, purpose)
        if self._call.era == "modern":
            loose, live.loose = live.loose, None  # answers sent before any question was asked: good for the first round only
            if loose is not None and "confirm" not in keys and all(key in ahead and isinstance(loose.get(key), dict) for key in keys):
                answers = [loose[key] for key in keys]
                del recorded[start:]
                recorded.extend(answers)
                return answers
            raise _Asking([(key, method, params) for key, (_, _, method, params) in zip(keys, requests, strict=True)], recorded[:start])
        answers = []
        for _, _, method, params in requests:
            if method == "elicitation/create":
                params = self._call.version.elicitation(params)
            try:
                answers.append(self._call.ask_client(method, params, INPUT_TIMEOUT_SECONDS))
            except McpError as error:
                hint = "The user may have closed the question; call the tool again."
                raise TalkError(f"The client could not answer {method}: {error.message}", hint=hint) from None
        del recorded[start:]
        recorded.extend(answers)
        return answers

    def _require(self, capabilities: set[str], purpose: str | None) -> None:
        for capability in sorted(capabilities):
            if self._has(capability):
                continue
            does = purpose if purpose is not None else PURPOSES[capability]
            if self._call.era == "modern":
                raise _Refused(McpError(
                    wire.MISSING_CAPABILITY,
                    f"{self._tool} {does}, which requires the {capability} capability",
                    {"requiredCapabilities": {capability: {}}},
                ))  # fmt: skip
            why = why_not(self._call.version, capability)
            raise TalkError(f"{self._tool} {does}, and this client cannot answer ({why}).", hint="Use a client that supports it, or do this in the app.")

    def can(self, what: str) -> bool:
        """Whether the client can answer ``"ask"``, ``"sample"`` or ``"roots"`` (`Ctx.client_can`)."""
        return self._has({"ask": "elicitation", "sample": "sampling", "roots": "roots"}[what])

    def _has(self, capability: str) -> bool:
        if capability == "elicitation":
            return self._call.can_elicit("form")
        return isinstance(self._call.capabilities.get(capability), dict)

    def stopped(self, stop: Interrupt) -> dict[str, Any]:
        """The answer of a call its command stopped (2026-07-28): ``input_required``, or raises the -32021 error."""
        if isinstance(stop, _Refused):
            raise stop.error
        assert isinstance(stop, _Asking)
        keys = [key for key, _, _ in stop.requests]
        return {
            "resultType": "input_required",
            "inputRequests": {key: {"method": method, "params": params} for key, method, params in stop.requests},
            "requestState": self._host.confirmer.issue(self._tool, self._arguments, stop.answers, keys),
        }

    # --- what Ctx asks for (rata.talk.Channel) ---

    def gather(self, items: list[Question[Any] | SampleRequest | RootsRequest]) -> list[Any]:
        """The answers to `items`, asked in one round: an `Answer` for a question, a `Sample`, a list of `Root`.

        An answer that does not fit what was asked (a form's fields, a sampling or roots
        result's shape) is asked again: in the next round in 2026-07-28, up to `MAX_ATTEMPTS`
        times in the 2025 era."""
        from functools import partial

        from rata.mcp.forms import form_of

        asks: list[tuple[str, str | None, str, dict[str, Any], Callable[[object], Any]]] = []
        for item in items:
            if isinstance(item, Question):
                form = form_of(item.form)
                params = {"mode": "form", "message": _message(item.message, MAX_QUESTION_CHARS), "requestedSchema": form.schema}
                asks.append(("ask", item.key, "elicitation/create", params, partial(read_answer, form)))
            elif isinstance(item, SampleRequest):
                asks.append(("sample", item.key, "sampling/createMessage", sampling_params(item.messages, item.options), read_sample))
            else:
                asks.append(("roots", item.key, "roots/list", {}, read_roots))
        ahead = frozenset(item.key for item in items if isinstance(item, Question) and item.ahead and item.key is not None)
        results: list[Any] = [None] * len(asks)
        waiting = list(range(len(asks)))
        for _ in range(MAX_ATTEMPTS if self._call.era == "legacy" else MAX_INPUTS):
            raws = self.input([asks[i][:4] for i in waiting], ahead=ahead)
            still = []
            for i, raw in zip(waiting, raws, strict=True):
                value = asks[i][4](raw)
                if value is None:
                    still.append(i)
                else:
                    results[i] = value
            if not still:
                return results
            waiting = still
        hint = "Call the tool again."
        raise TalkError(f"The client's answers to {self._tool}'s questions did not fit what was asked {MAX_ATTEMPTS} times.", hint=hint)


# --- what the client sends back: parsed strictly, None when it does not fit (then asked again) ---


def why_not(version: Version, capability: str) -> str:
    """Why a 2025-era client cannot answer a request that needs `capability`: its version has no elicitation, or it did not declare it."""
    if capability == "elicitation" and "elicitation" not in version.features:
        return f"protocol version {version.name} has no elicitation"
    return f"it did not declare the {capability} capability"


def read_answer(form: Any, raw: object) -> Answer[Any] | None:
    """An `Answer` from an elicitation result, or None when it is malformed or its content does not fit `form`."""
    from rata.convert import Invalid

    if not isinstance(raw, dict) or raw.get("action") not in ACTIONS:
        return None
    action = raw["action"]
    if action != "accept":
        return Answer(action)
    try:
        return Answer("accept", form.read(raw.get("content")))
    except Invalid:
        return None


def read_sample(raw: object) -> Sample | None:
    """A `Sample` from a ``sampling/createMessage`` result, or None when it is malformed."""
    if not isinstance(raw, dict):
        return None
    model, role, content, stop = raw.get("model"), raw.get("role", "assistant"), raw.get("content"), raw.get("stopReason")
    if not isinstance(model, str) or role not in ("user", "assistant") or (stop is not None and not isinstance(stop, str)):
        return None
    blocks: list[Any] = content if isinstance(content, list) else [content]
    if not blocks or not all(isinstance(block, dict) and isinstance(block.get("type"), str) for block in blocks):
        return None
    texts = [block.get("text") for block in blocks if block.get("type") == "text"]
    if not all(isinstance(text, str) for text in texts):
        return None
    return Sample("".join(texts) if texts else None, model, stop, role, content)


def read_roots(raw: object) -> list[Root] | None:
    """The `Root` list of a ``roots/list`` result, or None when it is malformed (a root that is no local ``file://`` URI too: `root_problem`)."""
    roots = raw.get("roots") if isinstance(raw, dict) else None
    if not isinstance(roots, list) or len(roots) > MAX_ROOTS:
        return None
    out = []
    for root in roots:
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str) or not isinstance(root.get("name", ""), str):
            return None
        if root_problem(root["uri"]) is not None:  # MCP's roots are file:// URIs: anything else is a malformed answer, refused whole
            return None
        out.append(Root(root["uri"], root.get("name")))
    return out


def sampling_params(messages: list[Message], options: dict[str, Any]) -> dict[str, Any]:
    """The params of a ``sampling/createMessage`` request; `TalkError` for a value the request cannot carry."""
    if not messages:
        raise TalkError("ctx.sample needs at least one message.", hint="Pass the prompt as text, or a list of rata.talk.Message.")
    import base64

    shaped = []
    for message in messages:
        if not isinstance(message, Message):
            hint = "Wrap it: Message(text) or Message(image=..., mime_type=...)."
            raise TalkError(f"ctx.sample takes text or rata.talk.Message values, not {type(message).__name__}.", hint=hint)
        if message.image is not None:
            content = {"type": "image", "data": base64.b64encode(message.image).decode("ascii"), "mimeType": message.mime_type}
        else:
            content = {"type": "text", "text": message.text}
        shaped.append({"role": message.role, "content": content})
    max_tokens = options["max_tokens"]
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        hint = "Say how long the answer may be, in tokens: max_tokens=500."
        raise TalkError(f"ctx.sample: max_tokens must be a positive integer, not {max_tokens!r}.", hint=hint)
    params: dict[str, Any] = {"messages": shaped, "maxTokens": max_tokens}
    if options.get("system") is not None:
        params["systemPrompt"] = str(options["system"])
    preferences: dict[str, Any] = {}
    if options.get("models"):
        preferences["hints"] = [{"name": str(name)} for name in options["models"]]
    for key, name in (("cost", "costPriority"), ("speed", "speedPriority"), ("intelligence", "intelligencePriority")):
        value = options.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise TalkError(f"ctx.sample: {key} must be a number from 0 to 1, not {value!r}.", hint="0 means it does not matter, 1 that it matters most.")
            preferences[name] = value
    if preferences:
        params["modelPreferences"] = preferences
    temperature = options.get("temperature")
    if temperature is not None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not math.isfinite(temperature):
            raise TalkError(f"ctx.sample: temperature must be a number, not {temperature!r}.", hint="Leave it out to let the client choose.")
        params["temperature"] = temperature
    if options.get("stop"):
        params["stopSequences"] = [str(text) for text in options["stop"]]
    return params


def _message(text: str, limit: int) -> str:
    from rata.cleantext import visible

    return visible(str(text), limit)


# --- logs ---


def _level_name(number: int) -> str:
    """The MCP level of a Python level number: the highest MCP level at or below it (below DEBUG: debug)."""
    name = "debug"
    for level, value in LEVEL_NUMBERS.items():
        if number >= value:
            name = level
    return name


def _log_params(record: logging.LogRecord) -> dict[str, Any]:
    """The params of ``notifications/message`` for `record`: the log file's line for it, bounded the same way."""
    import json

    from rata.logs import format_line

    fields = vars(record)
    extra = {key: fields[key] for key in sorted(fields.keys() - _standard_fields(), key=str)}
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        extra["exception"] = f"{type(error).__name__}: {error}"  # not the traceback: the client sees what went wrong, not the code
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - arguments that do not fit the message still leave a message
        message = f"{record.msg!r} (its arguments do not fit it)"
    data = json.loads(format_line(record.created, record.levelname, record.name, message, extra))
    del data["ts"], data["level"]
    logger = data.pop("logger")
    return {"level": _level_name(record.levelno), "logger": logger, "data": data}


_standard: set[str] = set()


def _standard_fields() -> set[str]:
    if not _standard:
        import logging

        _standard.update(vars(logging.LogRecord("", 0, "", 0, "", None, None)), {"message", "asctime", "taskName"})
    return _standard


def _attach(app_name: str) -> None:
    """Give the app's logger the handler that hands records to the channel of the call running on their thread (once)."""
    if app_name in _handlers:
        return
    from rata.logs import get_logger

    with _handlers_lock:
        if app_name in _handlers:
            return
        import logging

        class _ToClient(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                channel = getattr(_current, "channel", None)
                if channel is not None:
                    try:
                        channel.log(record)
                    except Exception:  # noqa: BLE001 - logging's rule: a failing handler reports and goes on
                        self.handleError(record)

        handler = _ToClient()
        get_logger(app_name).addHandler(handler)
        _handlers[app_name] = handler
