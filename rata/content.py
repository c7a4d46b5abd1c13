"""Content parts: what a command may return besides typed data, or instead of it.

    @command(can="reports.view", read_only=True)
    def sales_chart(ctx: Ctx, year: int) -> Image:
        return Image(render_png(year), mime_type="image/png")

    @command(can="reports.view", read_only=True)
    def sales_report(ctx: Ctx, year: int) -> Content[Summary]:
        return Content(summarize(year), [Image(path=chart_file(year)), Text("Amounts are in EUR.")])

A return annotation may be one part class (`Image`, `Audio`, `EmbeddedResource`, `ResourceLink`,
`Text`), a union of them (`Part` is all five), a list of them (several parts, order kept), or
`Content[T]`: typed data (``structuredContent``, described by the tool's ``outputSchema``) plus parts.
Parts only: the tool lists no ``outputSchema``. The parts appear nowhere else (not as a parameter,
not inside a dataclass): `rata.typemodel` refuses them there.

Every origin gets the same JSON form (`part_json`), which is the MCP content block of the part:
``{"type": "image", "data": <base64>, "mimeType": "image/png"}``, ``{"type": "resource",
"resource": {"uri", "mimeType", "text" | "blob"}}``... A `Content[T]` is ``{"data": <T>, "content":
[<part>...]}``. Before a part leaves the command it is checked (`content_json`): its size
(`MAX_PART_BYTES` each, `MAX_CONTENT_BYTES` in all, `MAX_PARTS` parts), its MIME type (well formed,
``image/*`` for an image and ``audio/*`` for audio, and the type the bytes are when they start like
a common format: a PNG sent as ``image/jpeg`` is refused), a file path is read up to the bound. A
part that fails raises `PartError`, which dispatch turns into a `rata.errors.ResultError` naming
the command, the part and the fix (`rata.convert` hands it on as a `rata.convert.Mismatch` with its hint).
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any, Generic, TypeVar, Union

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rata.typemodel import ContentNode, PartsNode

T = TypeVar("T")

MAX_PART_BYTES = 4 * 1024 * 1024
"""The most one part may hold: the bytes of an image, audio or blob, the UTF-8 bytes of a text."""
MAX_CONTENT_BYTES = 8 * 1024 * 1024
"""The most all the parts of one result may hold together."""
MAX_PARTS = 64
"""The most parts one result may hold."""
MAX_URI_CHARS = 8192
MAX_NAME_CHARS = 1024


class _Part:
    """What every part has: who it is for (`audience`: ``"user"``, ``"assistant"``) and how much it matters
    (`priority`, 0 to 1), sent as its ``annotations`` when given. Parts compare by value, so a test can
    write ``result.images == [Image(png, mime_type="image/png")]``."""

    __slots__ = ("audience", "priority")
    # unhashable, as it is mutable: defining __eq__ makes Python set __hash__ to None
    _fields: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)


class Text(_Part):
    """A text block: the string itself, as the model reads it."""

    __slots__ = ("text",)
    _fields = ("text", "audience", "priority")
    kind = "text"

    def __init__(self, text: str, *, audience: Sequence[str] | None = None, priority: float | None = None) -> None:
        self.text = text
        self.audience = audience
        self.priority = priority

    def __repr__(self) -> str:
        return f"Text({_short(self.text)})"


class _Media(_Part):
    __slots__ = ("data", "path", "mime_type")
    _fields = ("data", "path", "mime_type", "audience", "priority")
    kind = ""

    def __init__(
        self,
        data: bytes | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
        format: str | None = None,  # noqa: A002 - the name FastMCP and the SDK use
        audience: Sequence[str] | None = None,
        priority: float | None = None,
    ) -> None:
        self.data = data
        self.path = path
        self.mime_type = mime_type if format is None or mime_type is not None else _from_format(self.kind, format)
        self.audience = audience
        self.priority = priority

    def __repr__(self) -> str:
        source = f"path={os.fspath(self.path)!r}" if self.path is not None else f"{len(self.data or b'')} bytes"
        return f"{type(self).__name__}({source}, mime_type={self.mime_type!r})"


class Image(_Media):
    """An image: its bytes (`data`) or a file to read them from (`path`), and its MIME type (``image/*``).

    Without `mime_type` the type is read from the bytes (PNG, JPEG, GIF, WebP, BMP, AVIF, HEIC)
    or, for a file, its name's suffix; ``format="png"`` is short for ``mime_type="image/png"``."""

    __slots__ = ()
    kind = "image"


class Audio(_Media):
    """Audio: its bytes (`data`) or a file to read them from (`path`), and its MIME type (``audio/*``).

    Without `mime_type` the type is read from the bytes (WAV, MP3, Ogg, FLAC, M4A, AAC)
    or, for a file, its name's suffix; ``format="wav"`` is short for ``mime_type="audio/wav"``."""

    __slots__ = ()
    kind = "audio"


class EmbeddedResource(_Part):
    """A resource sent whole inside the result: its URI, and its `text` or its bytes (`blob`), with a MIME type."""

    __slots__ = ("uri", "text", "blob", "mime_type")
    _fields = ("uri", "text", "blob", "mime_type", "audience", "priority")
    kind = "resource"

    def __init__(
        self,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | None = None,
        mime_type: str | None = None,
        audience: Sequence[str] | None = None,
        priority: float | None = None,
    ) -> None:
        self.uri = uri
        self.text = text
        self.blob = blob
        self.mime_type = mime_type
        self.audience = audience
        self.priority = priority

    def __repr__(self) -> str:
        return f"EmbeddedResource({self.uri!r}, mime_type={self.mime_type!r})"


class ResourceLink(_Part):
    """A link to a resource the client may read or fetch: its URI and name, and what is known of it."""

    __slots__ = ("uri", "name", "title", "description", "mime_type", "size")
    _fields = ("uri", "name", "title", "description", "mime_type", "size", "audience", "priority")
    kind = "resource_link"

    def __init__(
        self,
        uri: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        audience: Sequence[str] | None = None,
        priority: float | None = None,
    ) -> None:
        self.uri = uri
        self.name = name
        self.title = title
        self.description = description
        self.mime_type = mime_type
        self.size = size
        self.audience = audience
        self.priority = priority

    def __repr__(self) -> str:
        return f"ResourceLink({self.uri!r}, {self.name!r})"


Part = Union[Text, Image, Audio, EmbeddedResource, ResourceLink]  # noqa: UP007 - a runtime alias, usable in annotations on 3.10
"""Any content part: ``-> list[Part]`` returns several parts of any kind."""


class Content(Generic[T]):
    """Typed data plus content parts: ``-> Content[Summary]``, returned as ``Content(summary, [Image(...)])``.

    The data is the result as any other command's (``structuredContent``, the tool's
    ``outputSchema``, the text block of its JSON first); the parts follow, in order."""

    __slots__ = ("data", "parts")

    def __init__(self, data: T, parts: Sequence[Part] = ()) -> None:
        self.data = data
        self.parts = parts

    def __repr__(self) -> str:
        return f"Content({self.data!r}, {list(self.parts)!r})"


class PartError(Exception):
    """What a command returned for content cannot be sent: `str()` says which part and why (it reads after
    "the command returned"), `hint` how to fix it."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


# --- the JSON form -------------------------------------------------------------------------------


def content_json(node: PartsNode | ContentNode, value: Any, path: str, data_json: Callable[[Any, Any, str], Any]) -> Any:
    """The JSON form of what a command returned for a parts or `Content[T]` return type, every part checked.

    `data_json(node, value, path)` converts the typed data of a `Content[T]` (`rata.convert.to_json`).
    Raises `PartError`."""
    from rata.typemodel import ContentNode

    budget = _Budget()
    if isinstance(node, ContentNode):
        if not isinstance(value, Content):
            raise PartError(f"{type(value).__name__} at {path}, not rata.Content", "Return Content(data, [parts...]), or change the return annotation.")
        data = data_json(node.data, value.data, f"{path}.data")
        parts = _sequence(value.parts, f"{path}.parts")
        return {"data": data, "content": [part_json(part, f"{path}.parts[{i}]", budget) for i, part in enumerate(parts)]}
    if node.many:
        parts = _sequence(value, path)
        return [_checked_kind(node.kinds, part, f"{path}[{i}]", budget) for i, part in enumerate(parts)]
    if value is None and node.optional:
        return None
    return _checked_kind(node.kinds, value, path, budget)


def parts_of(node: PartsNode | ContentNode, value: Any) -> list[dict[str, Any]]:
    """The content blocks in the JSON form `content_json` made for `node` (a list, one part, or None)."""
    from rata.typemodel import ContentNode

    if isinstance(node, ContentNode):
        return value["content"]
    if value is None:
        return []
    return value if node.many else [value]


def _sequence(value: Any, path: str) -> list[Any]:
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise PartError(
            f"{type(value).__name__} at {path}, not a list of content parts",
            "Return a list of parts ([Image(...), Text(...)]), or change the return annotation.",
        )
    parts = list(itertools.islice(value, MAX_PARTS + 1))  # a generator that never ends is read no further than the bound
    if len(parts) > MAX_PARTS:
        raise PartError(
            f"more than {MAX_PARTS} content parts at {path}, the most one result may hold", "Return fewer parts, or link to the rest with ResourceLink."
        )
    return parts


def _checked_kind(kinds: frozenset[str], part: Any, path: str, budget: _Budget) -> dict[str, Any]:
    kind = getattr(type(part), "kind", None)
    if kind not in kinds or type(part).__module__ != __name__:
        allowed = " or ".join(sorted(_CLASS_OF[k] for k in kinds))
        raise PartError(f"{type(part).__name__} at {path}, not {allowed}", f"Return {allowed} there, or change the return annotation.")
    return part_json(part, path, budget)


class _Budget:
    """What the parts of one result have used of `MAX_CONTENT_BYTES`."""

    __slots__ = ("used",)

    def __init__(self) -> None:
        self.used = 0

    def take(self, size: int, where: str) -> None:
        self.used += size
        if self.used > MAX_CONTENT_BYTES:
            raise PartError(
                f"content parts of {_size(self.used)} in all by {where}, over the {_size(MAX_CONTENT_BYTES)} one result may hold",
                "Send less (smaller or fewer images, shorter audio), or return a ResourceLink to the rest.",
            )


def part_json(part: Any, path: str = "result", budget: _Budget | None = None) -> dict[str, Any]:
    """One part as its MCP content block (the JSON form every origin gets), checked. Raises `PartError`."""
    budget = budget if budget is not None else _Budget()
    name = type(part).__name__
    where = f"{'an' if name[:1] in 'AEIOU' else 'a'} {name} at {path}"
    if isinstance(part, Text):
        text = _string(part.text, "text", where, None)
        budget.take(_within(_utf8_size(text), where, "text"), where)
        block: dict[str, Any] = {"type": "text", "text": text}
    elif isinstance(part, _Media):
        data, mime_type = _media(part, where)
        budget.take(len(data), where)
        block = {"type": part.kind, "data": _base64(data), "mimeType": mime_type}
    elif isinstance(part, EmbeddedResource):
        block = {"type": "resource", "resource": _resource(part, where, budget)}
    elif isinstance(part, ResourceLink):
        block = _link(part, where, budget)
    else:
        raise PartError(f"{type(part).__name__} at {path}, not a content part", "Return Text, Image, Audio, EmbeddedResource or ResourceLink there.")
    if part.audience is not None or part.priority is not None:
        block["annotations"] = _annotations(part, where)
    return block


AUDIENCES = ("user", "assistant")


def _annotations(part: _Part, where: str) -> dict[str, Any]:
    annotations: dict[str, Any] = {}
    audience = part.audience
    if audience is not None:
        if isinstance(audience, str) or not hasattr(audience, "__iter__"):
            raise PartError(f"{where} whose audience is {_short(audience)}, not a list", "Give a list: audience=['user'], ['assistant'] or both.")
        roles = list(itertools.islice(audience, 3))
        if len(roles) > 2 or any(role not in AUDIENCES for role in roles):
            raise PartError(f"{where} whose audience is {_short(audience)}", "Give a list of 'user' and 'assistant': who the part is for.")
        annotations["audience"] = roles
    priority = part.priority
    if priority is not None:
        if isinstance(priority, bool) or not isinstance(priority, (int, float)) or not 0 <= priority <= 1:
            raise PartError(f"{where} whose priority is {_short(priority)}", "Give a number from 0 (least important) to 1 (most).")
        annotations["priority"] = priority
    return annotations


def _from_format(kind: str, format: str) -> str:  # noqa: A002 - the name FastMCP and the SDK use
    """``format="png"`` as a MIME type of `kind` (``image/png``), as FastMCP and the SDK's MCPServer read it."""
    name = format.lower().lstrip(".")
    return f"{kind}/{_FORMATS.get(name, name)}"


_FORMATS = {"jpg": "jpeg", "mp3": "mpeg", "m4a": "mp4", "svg": "svg+xml"}


def _media(part: _Media, where: str) -> tuple[bytes, str]:
    kind = part.kind
    if (part.data is None) == (part.path is None):
        raise PartError(
            f"{where} with {'both data and a path' if part.data is not None else 'neither data nor a path'}",
            f"Give one: {type(part).__name__}(data, mime_type=...) or {type(part).__name__}(path=...).",
        )
    if part.path is not None:
        data = read_bounded(part.path, where)
    elif isinstance(part.data, (bytes, bytearray, memoryview)):
        data = bytes(part.data)
        _within(len(data), where, "data")
    else:
        raise PartError(
            f"{where} with data of type {type(part.data).__name__}",
            f"Pass the {kind}'s bytes (bytes), not text or base64: {type(part).__name__}(raw_bytes, mime_type=...).",
        )
    sniffed = sniff(data)
    declared = part.mime_type
    if declared is None:
        declared = sniffed or (_by_suffix(part.path) if part.path is not None else None)
        if declared is None:
            raise PartError(
                f"{where} without a MIME type, and its bytes are not a format rata recognizes", f"Pass mime_type='{kind}/...' (e.g. {_EXAMPLE[kind]!r})."
            )
    mime_type = _mime(declared, where)
    if mime_type.split("/", 1)[0].lower() != kind:
        raise PartError(
            f"{where} with the MIME type {mime_type!r}, which is not {kind}/*",
            f"Return {_CLASS_OF.get(mime_type.split('/', 1)[0].lower(), 'an EmbeddedResource')} for it, or give its {kind}/* type.",
        )
    if sniffed is not None and _essence(mime_type) not in _SAME.get(sniffed, {sniffed}):
        raise PartError(
            f"{where} declared as {mime_type!r}, but its bytes are {sniffed}",
            f"Pass mime_type={sniffed!r}, or convert the {kind} to {mime_type}.",
        )
    return data, mime_type


def _resource(part: EmbeddedResource, where: str, budget: _Budget) -> dict[str, Any]:
    body: dict[str, Any] = {"uri": _uri(part.uri, where)}
    if part.mime_type is not None:
        body["mimeType"] = _mime(part.mime_type, where)
    if (part.text is None) == (part.blob is None):
        raise PartError(
            f"{where} with {'both text and a blob' if part.text is not None else 'neither text nor a blob'}",
            "Give one: EmbeddedResource(uri, text=...) or EmbeddedResource(uri, blob=..., mime_type=...).",
        )
    if part.text is not None:
        text = _string(part.text, "text", where, None)
        budget.take(_within(_utf8_size(text), where, "text"), where)
        body["text"] = text
    else:
        if not isinstance(part.blob, (bytes, bytearray, memoryview)):
            raise PartError(f"{where} with a blob of type {type(part.blob).__name__}", "Pass the bytes themselves as blob, or text=... for text.")
        blob = bytes(part.blob)
        budget.take(_within(len(blob), where, "blob"), where)
        body["blob"] = _base64(blob)
    return body


def _link(part: ResourceLink, where: str, budget: _Budget) -> dict[str, Any]:
    link: dict[str, Any] = {"type": "resource_link", "uri": _uri(part.uri, where), "name": _string(part.name, "name", where, MAX_NAME_CHARS)}
    if not link["name"]:
        raise PartError(f"{where} with an empty name", "Give the link a name the user can read, e.g. the file's name.")
    if part.title is not None:
        link["title"] = _string(part.title, "title", where, MAX_NAME_CHARS)
    if part.description is not None:
        link["description"] = _string(part.description, "description", where, MAX_URI_CHARS)
    if part.mime_type is not None:
        link["mimeType"] = _mime(part.mime_type, where)
    if part.size is not None:
        if isinstance(part.size, bool) or not isinstance(part.size, int) or not 0 <= part.size < 2**53:
            raise PartError(f"{where} with the size {part.size!r}", "Give the size in bytes, a whole number from 0, or leave it out.")
        link["size"] = part.size
    budget.take(sum(len(str(v)) for v in link.values()), where)
    return link


def part_from_json(block: dict[str, Any]) -> Part:
    """The part a content block (the JSON form, or an MCP content block) stands for; ValueError for one that is not a part."""
    import base64
    import binascii

    kind = block.get("type") if isinstance(block, dict) else None
    try:
        annotations = block.get("annotations") or {}
        marks = {"audience": annotations.get("audience"), "priority": annotations.get("priority")}
        if kind == "text":
            return Text(block["text"], **marks)
        if kind in ("image", "audio"):
            media = Image if kind == "image" else Audio
            return media(base64.b64decode(block["data"], validate=True), mime_type=block["mimeType"], **marks)
        if kind == "resource":
            body = block["resource"]
            blob = base64.b64decode(body["blob"], validate=True) if "blob" in body else None
            return EmbeddedResource(body["uri"], text=body.get("text"), blob=blob, mime_type=body.get("mimeType"), **marks)
        if kind == "resource_link":
            return ResourceLink(
                block["uri"],
                block["name"],
                title=block.get("title"),
                description=block.get("description"),
                mime_type=block.get("mimeType"),
                size=block.get("size"),
                **marks,
            )
    except (KeyError, TypeError, AttributeError, binascii.Error) as error:
        raise ValueError(f"a {kind} content block that is malformed ({type(error).__name__}: {error})") from None
    raise ValueError(f"not a content block: type {kind!r}")


# --- checks ----------------------------------------------------------------------------------------


def read_bounded(path: Any, where: str, limit: int | None = None) -> bytes:
    """A file's bytes, at most `limit` of them (`MAX_PART_BYTES`); `PartError` for a file that is missing, unreadable or larger."""
    limit = MAX_PART_BYTES if limit is None else limit
    try:
        name = os.fspath(path)
    except TypeError:
        raise PartError(f"{where} with the path {path!r}, which is not a path", "Pass a str or pathlib.Path.") from None
    try:
        with open(name, "rb") as file:
            data = file.read(limit + 1)
    except OSError as error:
        raise PartError(
            f"{where} reading {name!r}: {error.strerror or error}",
            "Check the file exists and the app may read it (a relative path is relative to the current directory).",
        ) from None
    if len(data) > limit:
        raise PartError(
            f"{where} reading {name!r}: the file is over the {_size(limit)} a part may hold",
            "Send a smaller file (scale the image down, cut the audio), or a ResourceLink to it.",
        )
    return data


def _utf8_size(text: str) -> int:
    """The UTF-8 size of `text`, or a bound over the limit when its characters alone are (none is encoded then)."""
    return len(text) if len(text) > MAX_PART_BYTES else len(text.encode("utf-8", "surrogatepass"))


def _within(size: int, where: str, what: str) -> int:
    if size > MAX_PART_BYTES:
        raise PartError(
            f"{where} whose {what} is {_size(size)}, over the {_size(MAX_PART_BYTES)} a part may hold",
            "Send less (scale the image down, cut the audio, split the text), or a ResourceLink to it.",
        )
    return size


_MIME = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
    r"(?:[ \t]*;[ \t]*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|\"[^\"\\\r\n]{0,200}\"))*"
)
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")


def _mime(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > 255 or _MIME.fullmatch(value) is None:
        raise PartError(
            f"{where} with the MIME type {_short(value)}, which is not one", "Give a type/subtype such as 'image/png', 'audio/wav' or 'text/plain'."
        )
    return value


def _essence(mime_type: str) -> str:
    """``type/subtype``, lower case, without parameters."""
    return mime_type.split(";", 1)[0].strip().lower()


def _uri(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_URI_CHARS or _URI.fullmatch(value) is None:
        raise PartError(
            f"{where} with the URI {_short(value)}, which is not one",
            "Give an absolute URI with a scheme and no spaces, e.g. 'file:///reports/q3.pdf' or 'app://customers/1'.",
        )
    return value


def _string(value: Any, field: str, where: str, limit: int | None) -> str:
    if not isinstance(value, str):
        raise PartError(f"{where} whose {field} is {type(value).__name__}, not a string", f"Pass the {field} as str.")
    if limit is not None and len(value) > limit:
        raise PartError(f"{where} whose {field} is {len(value)} characters, over {limit}", f"Shorten the {field}.")
    return value


_MAGIC: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"BM", "image/bmp"),
    (4, b"ftypavif", "image/avif"),
    (4, b"ftypheic", "image/heic"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"OggS", "audio/ogg"),
    (0, b"fLaC", "audio/flac"),
    (4, b"ftypM4A", "audio/mp4"),
)
_SAME: dict[str, frozenset[str]] = {
    "image/jpeg": frozenset({"image/jpeg", "image/jpg", "image/pjpeg"}),
    "image/bmp": frozenset({"image/bmp", "image/x-bmp", "image/x-ms-bmp"}),
    "image/heic": frozenset({"image/heic", "image/heif"}),
    "audio/mpeg": frozenset({"audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg"}),
    "audio/wav": frozenset({"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"}),
    "audio/ogg": frozenset({"audio/ogg", "audio/opus", "audio/vorbis", "audio/x-ogg"}),
    "audio/flac": frozenset({"audio/flac", "audio/x-flac"}),
    "audio/mp4": frozenset({"audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac"}),
    "audio/aac": frozenset({"audio/aac", "audio/x-aac", "audio/aacp"}),
}
"""The MIME types that name each sniffed format (the registered one, and the aliases in common use)."""


def sniff(data: bytes) -> str | None:
    """The MIME type of a common image or audio format `data` starts like, or None."""
    head = data[:16]
    for offset, magic, mime_type in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            if mime_type == "image/bmp" and len(data) < 26:  # "BM" alone is too weak a sign for a short blob
                continue
            return mime_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:  # an ADTS frame (AAC): sync bits, layer 0
        return "audio/aac"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06 != 0:  # an MPEG audio frame, layer I-III
        return "audio/mpeg"
    return None


_SUFFIXES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".bmp": "image/bmp", ".svg": "image/svg+xml", ".avif": "image/avif", ".heic": "image/heic", ".ico": "image/x-icon",
    ".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg",
    ".flac": "audio/flac", ".m4a": "audio/mp4", ".aac": "audio/aac", ".weba": "audio/webm",
}  # fmt: skip
"""MIME types by file suffix: a fixed table, the same on every machine (not `mimetypes`)."""
_CLASS_OF = {"text": "Text", "image": "Image", "audio": "Audio", "resource": "EmbeddedResource", "resource_link": "ResourceLink"}
_EXAMPLE = {"image": "image/png", "audio": "audio/wav"}


def _by_suffix(path: Any) -> str | None:
    return _SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower())


def _base64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} bytes"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- the JSON form's schema ----------------------------------------------------------------------------

_STRING: dict[str, Any] = {"type": "string"}
_BASE64: dict[str, Any] = {"type": "string", "contentEncoding": "base64"}


_ANNOTATIONS: dict[str, Any] = {
    "type": "object",
    "properties": {"audience": {"type": "array", "items": {"enum": list(AUDIENCES)}}, "priority": {"type": "number", "minimum": 0, "maximum": 1}},
    "additionalProperties": False,
}


def _block(kind: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    properties = {"type": {"const": kind}, **properties, "annotations": _ANNOTATIONS}
    return {"type": "object", "properties": properties, "required": ["type", *required], "additionalProperties": False}


PART_SCHEMAS: dict[str, dict[str, Any]] = {
    "text": _block("text", {"text": _STRING}, ["text"]),
    "image": _block("image", {"data": _BASE64, "mimeType": _STRING}, ["data", "mimeType"]),
    "audio": _block("audio", {"data": _BASE64, "mimeType": _STRING}, ["data", "mimeType"]),
    "resource": _block(
        "resource",
        {
            "resource": {
                "type": "object",
                "properties": {"uri": _STRING, "mimeType": _STRING, "text": _STRING, "blob": _BASE64},
                "required": ["uri"],
                "additionalProperties": False,
            }
        },
        ["resource"],
    ),
    "resource_link": _block(
        "resource_link",
        {"uri": _STRING, "name": _STRING, "title": _STRING, "description": _STRING, "mimeType": _STRING, "size": {"type": "integer", "minimum": 0}},
        ["uri", "name"],
    ),
}
"""The JSON Schema of each part's JSON form (its MCP content block), by kind."""


def parts_schema(kinds: frozenset[str]) -> dict[str, Any]:
    """The schema of one part of these kinds."""
    from rata.typemodel import PART_KINDS

    options = [PART_SCHEMAS[kind] for kind in PART_KINDS if kind in kinds]
    return options[0] if len(options) == 1 else {"anyOf": options}
