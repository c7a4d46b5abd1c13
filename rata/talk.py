"""A command talking to its caller during the call: the types of `Ctx.progress`, `Ctx.ask`, `Ctx.sample` and `Ctx.roots`.

    @command(can="trips.book")
    def trips_book(ctx: Ctx, city: str) -> str:
        answer = ctx.ask(Seat, f"Which seat to {city}?")     # a typed form; the user answers in the client
        if not answer.accepted:
            return "Nothing booked."
        ctx.progress(1, 2, "seat chosen")
        ...

What travels on the wire, in both protocol eras, is `rata.mcp.talking` (the channel an MCP call
gets); this module is what a command sees, so it imports nothing of the protocol. A call that
does not come from an MCP client (the frontend, the app itself) has no channel: progress and
logs to the client are then nothing, and asking raises `TalkError`.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar, cast

from rata.errors import RataError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from pathlib import Path

T = TypeVar("T")

ACTIONS = ("accept", "decline", "cancel")


class Answer(Generic[T]):
    """The user's answer to a question (`Ctx.ask`): `action` is ``"accept"``, ``"decline"`` or ``"cancel"``;
    `value` is the form, filled in (an instance of the form's class), on an accept, else None."""

    __slots__ = ("action", "value")

    def __init__(self, action: str, value: T | None = None) -> None:
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        self.action = action
        self.value = value

    @property
    def accepted(self) -> bool:
        """The user filled in the form and sent it."""
        return self.action == "accept"

    @property
    def declined(self) -> bool:
        """The user said no."""
        return self.action == "decline"

    @property
    def cancelled(self) -> bool:
        """The user dismissed the question without a choice."""
        return self.action == "cancel"

    def require(self) -> T:
        """The filled-in form; `Declined` if the user declined or cancelled (the call then fails, and its transaction rolls back)."""
        if self.action != "accept":
            raise Declined(f"The user {'declined' if self.action == 'decline' else 'cancelled'} the question; nothing was done.")
        return cast(T, self.value)  # an accepted answer carries the form

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and (self.action, self.value) == (other.action, other.value)

    # unhashable, as it is mutable: defining __eq__ makes Python set __hash__ to None

    def __repr__(self) -> str:
        return f"Answer({self.action!r}, {self.value!r})"


class Question(Generic[T]):
    """One question of a round (`Ctx.ask_all`): the form's class, the message the user reads, and its key.

    `key`: the question's name in ``inputRequests`` (2026-07-28), for clients that look for a
    given one; by default rata names it after its place in the call (``ask-0``, ``ask-1``...).
    `ahead`: take an answer the client sends under `key` before this server asked (a call with
    ``inputResponses`` and no ``requestState``); by default an answer counts only for a question
    this server asked in this call. Needs `key`."""

    __slots__ = ("form", "message", "key", "ahead")

    def __init__(self, form: type[T], message: str, *, key: str | None = None, ahead: bool = False) -> None:
        self.form = form
        self.message = message
        self.key = check_key(key)
        if ahead and self.key is None:
            raise ValueError("ahead=True needs key=: a client can answer ahead only a question whose name it knows")
        self.ahead = ahead

    def __repr__(self) -> str:
        return f"Question({getattr(self.form, '__name__', self.form)!r}, {self.message!r})"


FORMATS = ("email", "uri", "date", "date-time")


class Format:
    """The format of a string field of a form: ``Annotated[str, Format("email")]`` (``email``, ``uri``, ``date``, ``date-time``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if name not in FORMATS:
            raise ValueError(f"a form's string format is one of {', '.join(FORMATS)}, not {name!r}")
        self.name = name

    def __repr__(self) -> str:
        return f"Format({self.name!r})"


class Titles:
    """The titles the user sees for the choices of a form field: ``Annotated[Literal["sm", "lg"], Titles({"sm": "Small", "lg": "Large"})]``.

    On a `Literal` or `Enum` field, or a list of one (several choices). The form then offers
    ``oneOf`` (``anyOf`` in a list) with ``const`` and ``title``; `legacy` writes the deprecated
    ``enum`` and ``enumNames`` instead, for clients that know only that. Without `Titles`, a
    `Literal` is offered untitled and an `Enum` with its members' names as titles."""

    __slots__ = ("titles", "legacy")

    def __init__(self, titles: dict[str, str], *, legacy: bool = False) -> None:
        if not isinstance(titles, dict) or not titles or not all(isinstance(k, str) and isinstance(v, str) for k, v in titles.items()):
            raise ValueError("Titles takes a non-empty dict of each choice's value to its title, both strings")
        self.titles = dict(titles)
        self.legacy = legacy

    def __repr__(self) -> str:
        return f"Titles({self.titles!r}{', legacy=True' if self.legacy else ''})"


class Message:
    """One message of a prompt for the client's model (`Ctx.sample`): text, or an image (its bytes and MIME type)."""

    __slots__ = ("role", "text", "image", "mime_type")

    def __init__(self, text: str | None = None, *, role: str = "user", image: bytes | None = None, mime_type: str | None = None) -> None:
        if role not in ("user", "assistant"):
            raise ValueError(f"role must be 'user' or 'assistant', not {role!r}")
        if (text is None) == (image is None):
            raise ValueError("a Message holds text or an image: give exactly one of text= and image=")
        if image is not None and not (isinstance(mime_type, str) and mime_type.startswith("image/")):
            raise ValueError(f"an image message needs its mime_type, such as 'image/png' (got {mime_type!r})")
        self.role = role
        self.text = text
        self.image = image
        self.mime_type = mime_type

    def __repr__(self) -> str:
        shown = repr(self.text) if self.text is not None else f"<{self.mime_type}, {len(self.image or b'')} bytes>"
        return f"Message({shown}, role={self.role!r})"


class SampleRequest:
    """A request for the client's model, to put in one round with other questions (`Ctx.ask_all`).

    It takes what `Ctx.sample` takes; its answer in the round is a `Sample`."""

    __slots__ = ("messages", "options", "key")

    def __init__(
        self,
        prompt: str | Message | list[Message],
        *,
        max_tokens: int,
        system: str | None = None,
        models: list[str] | None = None,
        cost: float | None = None,
        speed: float | None = None,
        intelligence: float | None = None,
        temperature: float | None = None,
        stop: list[str] | None = None,
        key: str | None = None,
    ) -> None:
        self.messages = [Message(prompt)] if isinstance(prompt, str) else [prompt] if isinstance(prompt, Message) else list(prompt)
        self.options = {"max_tokens": max_tokens, "system": system, "models": models, "cost": cost, "speed": speed,
                        "intelligence": intelligence, "temperature": temperature, "stop": stop}  # fmt: skip
        self.key = check_key(key)

    def __repr__(self) -> str:
        return f"SampleRequest({self.messages!r}, max_tokens={self.options['max_tokens']!r})"


class RootsRequest:
    """A request for the client's roots, to put in one round with other questions (`Ctx.ask_all`); its answer is a list of `Root`."""

    __slots__ = ("key",)

    def __init__(self, *, key: str | None = None) -> None:
        self.key = check_key(key)

    def __repr__(self) -> str:
        return "RootsRequest()"


class Sample:
    """What the client's model answered (`Ctx.sample`): `text` (None when it answered with something else),
    `model` (the name the client gives), `stop_reason` (``"endTurn"``, ``"maxTokens"``, ...; None if not given)
    and `content`, the answer's content as the client sent it."""

    __slots__ = ("text", "model", "stop_reason", "role", "content")

    def __init__(self, text: str | None, model: str, stop_reason: str | None = None, role: str = "assistant", content: Any = None) -> None:
        self.text = text
        self.model = model
        self.stop_reason = stop_reason
        self.role = role
        self.content = content

    def __repr__(self) -> str:
        return f"Sample({self.text!r}, model={self.model!r}, stop_reason={self.stop_reason!r})"


class Root:
    """A root the client shares (`Ctx.roots`): a ``file://`` URI and, if the client gives one, a name.

    Only well-formed local ``file://`` URIs get here (`root_problem`): `path` is the folder it names.
    """

    __slots__ = ("uri", "name")

    def __init__(self, uri: str, name: str | None = None) -> None:
        self.uri = uri
        self.name = name

    @property
    def path(self) -> Path:
        """The local folder the root names: its path percent-decoded (``file:///C:/x`` is ``C:/x``); ValueError when `uri` is no local file URI."""
        problem = root_problem(self.uri)
        if problem is not None:
            raise ValueError(f"the root {self.uri[:100]!r} {problem}")
        from pathlib import Path
        from urllib.parse import unquote

        text = unquote(self.uri[self.uri.index("/", len("file://")) :], errors="strict")
        if len(text) > 3 and text[0] == "/" and text[1].isalpha() and text[2:4] == ":/":  # a Windows drive: /C:/x
            text = text[1:]
        return Path(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Root) and (self.uri, self.name) == (other.uri, other.name)

    # unhashable, as it is mutable: defining __eq__ makes Python set __hash__ to None

    def __repr__(self) -> str:
        return f"Root({self.uri!r}, {self.name!r})"


MAX_ROOT_URI = 4096
"""Characters of a root's URI; a longer one is malformed."""


def root_problem(uri: str) -> str | None:
    """Why `uri` is no root a client may share (MCP: roots are ``file://`` URIs), or None.

    A root is ``file://`` then an empty host or ``localhost``, then an absolute path of RFC 3986
    characters with no ``.`` or ``..`` segment (raw or percent-encoded), no query or fragment,
    whose percent escapes decode to UTF-8 without NUL. Nothing is stripped or repaired: a URI
    that breaks a rule is refused whole.
    """
    import re

    if not 0 < len(uri) <= MAX_ROOT_URI:
        return f"is empty or over {MAX_ROOT_URI} characters"
    if uri[:7].lower() != "file://":
        return "is not a file:// URI"
    if re.fullmatch(r"(?:[A-Za-z0-9\-._~:/@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*", uri) is None:
        return "holds characters a URI cannot (or a query or fragment)"
    slash = uri.find("/", 7)
    if slash < 0 or uri[7:slash].lower() not in ("", "localhost"):
        return "names no local absolute path (the host must be empty or localhost)"
    from urllib.parse import unquote_to_bytes

    try:
        path = unquote_to_bytes(uri[slash:]).decode("utf-8")
    except UnicodeDecodeError:
        return "has percent escapes that are not UTF-8"
    if "\x00" in path:
        return "has a NUL character in its path"
    if any(segment in (".", "..") for segment in path.split("/")):
        return "has a . or .. segment in its path"
    return None


class TalkError(RataError):
    """A command asked its caller for something it cannot give: no MCP client, a client without the
    capability, a form rata cannot put to the user, a client that failed to answer."""


class Declined(TalkError):
    """The user declined or cancelled a question whose answer the command required (`Answer.require`)."""


class Interrupt(BaseException):  # noqa: N818 - a signal, not an error: a command's `except Exception` must not swallow it
    """The call stops here to wait for the client's input (2026-07-28): raised by the channel, never by a command.

    It is a `BaseException` so that a command's ``except Exception`` lets it through: the call's
    transaction rolls back, and the command runs again, from the start, when the client retries
    with the answers. A command must not catch it."""


class Channel(Protocol):
    """What a call from an MCP client can say to that client (`rata.mcp.talking.McpChannel` is one)."""

    def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    def gather(self, items: list[Question[Any] | SampleRequest | RootsRequest]) -> list[Any]: ...

    def can(self, what: str) -> bool: ...


KEY_CHARS = 100
RESERVED_KEYS = ("confirm",)
"""Keys rata's own questions use: the confirmation of a call (`rata.mcp.confirm`)."""
CAPABILITIES = ("ask", "sample", "roots")
"""What `Ctx.client_can` may be asked about."""


def check_key(key: str | None) -> str | None:
    """`key` if it can name a question in ``inputRequests``, else `ValueError` saying why."""
    if key is None:
        return None
    if not isinstance(key, str) or not 0 < len(key) <= KEY_CHARS or not key.isprintable():
        raise ValueError(f"a question's key is a printable string of 1 to {KEY_CHARS} characters, not {key!r}")
    if key in RESERVED_KEYS:
        raise ValueError(f"the key {key!r} is rata's own (a call's confirmation); choose another")
    return key


def check_progress(done: object, total: object, message: object) -> None:
    """`TypeError` or `ValueError` for a progress report MCP cannot carry (`Ctx.progress`)."""
    import math

    for name, value in (("done", done), ("total", total)):
        if value is None and name == "total":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"ctx.progress: {name} must be a number, not {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"ctx.progress: {name} must be a finite number, not {value!r}")
    if message is not None and not isinstance(message, str):
        raise TypeError(f"ctx.progress: message must be a str or None, not {type(message).__name__}")


def no_channel(what: str, origin: object) -> TalkError:
    """The error for `Ctx.ask` (and friends) in a call that did not come from an MCP client."""
    return TalkError(
        f"{what} needs an MCP client to answer, and this call came from {origin}.",
        hint="Only a call from an agent (tools/call) can ask its client; check ctx.origin.is_agent first, or take the answer as an argument.",
    )
