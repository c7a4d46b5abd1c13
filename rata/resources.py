"""Declared resources: data an agent reads by URI, beside the commands (`App.resources`).

    app.resources(
        Resource("crm://about", text="A small customer list.", mime_type="text/plain", can="docs.read"),
        Resource("crm://logo", data=PNG, mime_type="image/png", can="docs.read"),   # a blob
        Resource.file("crm://guide", "docs/guide.md", can="docs.read"),            # a file under App.root
        report_today,                                                                 # @resource(...) functions
    )

    @resource("crm://reports/today", can="reports.view", mime_type="text/csv")
    def report_today(ctx: Ctx) -> str: ...            # str -> text, bytes -> a blob (base64 on the wire)

    @resource("crm://reports/{day}", can="reports.view")
    def report(ctx: Ctx, day: str) -> str: ...        # parameters: a resource template, one `{name}` per parameter

Every resource needs an ability (`can=`) the agent grant allows outright: without one, or
granted only with confirmation (a read cannot ask the user to confirm), it is not served.
A function runs through the app's dispatch machinery (grants, middleware, its unit of work,
`Ctx`), and the tables it reads are tracked, so a subscription to it hears of writes to them.

URIs and URI templates are checked when declared (`check_uri`, `UriTemplate`). A template is
RFC 6570 level 1 only: plain ``{name}`` expressions between literal URI characters; a value is
percent-decoded, may not hold an unencoded ``/``, and ends where the literal after it first
follows (one scan, linear in the URI: `UriTemplate.match`). Live commands with
required arguments are templates too (``app://customers_show/{id}``, `command_template`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from rata._record import Record
from rata.command_spec import marker
from rata.errors import CodegenError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from pathlib import Path

    from rata.command_spec import CommandSpec

MAX_URI = 2048
"""Characters of a resource URI or template, declared or asked for; a longer one is never a resource."""
MAX_BYTES = 4 * 1024 * 1024
"""Bytes of one resource's content (a file, a function's result)."""
COMMAND_SCHEME = "app://"
"""rata's own scheme: ``app://<command>`` for live commands; declared resources use another."""
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# RFC 3986's characters: unreserved, reserved, and percent escapes
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"[A-Za-z0-9_]+")
# a value's text in a URI: no unencoded '/', '?' or '#', and every '%' an escape (one scan: the branches never overlap)
_VALUE = re.compile(r"(?:[^/?#%]|%[0-9A-Fa-f]{2})+")
_ATTR = "__rata_resource__"
_MIME = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:; ?[A-Za-z0-9!#$&^_.+-]+=[A-Za-z0-9!#$&^_.+-]+)*")
# MIME types by suffix: a fixed table, so a resource's type does not depend on the machine's mime.types
MIME_TYPES = {
    ".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".csv": "text/csv", ".html": "text/html",
    ".htm": "text/html", ".css": "text/css", ".js": "text/javascript", ".json": "application/json", ".xml": "application/xml",
    ".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml", ".svg": "image/svg+xml",
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
    ".pdf": "application/pdf", ".wav": "audio/wav", ".mp3": "audio/mpeg", ".zip": "application/zip",
}  # fmt: skip
DEFAULT_MIME = "application/octet-stream"
_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/toml", "image/svg+xml")


class ResourceError(Exception):
    """A resource could not be read: its message names the resource and the fix (the reader sees it)."""


class Resource(Record):
    """One declared resource: fixed text, fixed bytes, a file under the app's root, or a function (`resource`)."""

    __slots__ = ("uri", "text", "data", "path", "name", "title", "description", "mime_type", "can", "spec", "template")
    _defaults: ClassVar[dict[str, Any]] = {"path": None, "spec": None, "template": None}
    uri: str
    text: str | None
    data: bytes | None
    path: str | None
    name: str
    title: str | None
    description: str | None
    mime_type: str
    can: str | None
    spec: CommandSpec | None
    """A function resource's command-like spec (its parameters, its `Ctx`), set by `App.resources`."""
    template: UriTemplate | None
    """A function with parameters: its URI is a template."""

    def __init__(  # noqa: PLR0913 - the resource's wire fields, by name
        self,
        uri: str,
        *,
        text: str | None = None,
        data: bytes | None = None,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        can: str | None = None,
        path: str | None = None,
        spec: CommandSpec | None = None,
        template: UriTemplate | None = None,
    ) -> None:
        where = f"Resource({uri!r})"
        kinds = sum(x is not None for x in (text, data, path)) + (spec is not None)
        if kinds != 1:
            raise CodegenError(f"{where}: give exactly one of text=..., data=... (or use Resource.file or @resource).", hint="text for text, data for bytes.")
        if text is not None and not isinstance(text, str):
            raise CodegenError(f"{where}: text= is {type(text).__name__}, not str.", hint="Pass bytes as data=... (a blob).")
        if data is not None and not isinstance(data, (bytes, bytearray)):
            raise CodegenError(f"{where}: data= is {type(data).__name__}, not bytes.", hint="Pass text as text=....")
        for field, value in (("text", text), ("data", data)):
            if value is not None and len(value) > MAX_BYTES:
                raise CodegenError(f"{where}: {field}= is over {MAX_BYTES} bytes.", hint="Serve a smaller resource, or a file.")
        if template is None:
            check_uri(uri, where)
        for field, value in (("name", name), ("title", title), ("description", description), ("mime_type", mime_type)):
            if value is not None and not isinstance(value, str):
                raise CodegenError(f"{where}: {field}= is {type(value).__name__}, not str.", hint=f"Pass the {field} as text.")
        if mime_type is None:
            mime_type = "text/plain" if text is not None else DEFAULT_MIME if data is not None else mime_of(path or "")
        elif _MIME.fullmatch(mime_type) is None:
            raise CodegenError(f"{where}: the MIME type {mime_type!r} is not a type/subtype.", hint="Give one such as 'text/plain', 'image/png'.")
        super().__init__(
            uri, text, bytes(data) if data is not None else None, path, name or default_name(uri), title, description, mime_type, can, spec, template
        )

    @classmethod
    def file(
        cls, uri: str, path: str | Path, *, name: str | None = None, title: str | None = None, description: str | None = None,
        mime_type: str | None = None, can: str | None = None,
    ) -> Resource:  # fmt: skip
        """A file under the app's root (`App.root`), read at each read; its MIME type from its suffix unless given."""
        import os

        text = os.fspath(path)
        if os.path.isabs(text) or ".." in text.replace("\\", "/").split("/"):
            raise CodegenError(f"Resource.file({uri!r}): the path {text!r} leaves the app's folder.", hint="Give a path relative to App.root, without '..'.")
        return cls(uri, path=text, name=name, title=title, description=description, mime_type=mime_type, can=can)

    @property
    def is_template(self) -> bool:
        return self.template is not None

    @property
    def live_key(self) -> str:
        """The name the live registry records this function's reads under (`rata.live.LiveRegistry`)."""
        return f"resource:{self.uri}"


class ResourceOptions(Record):
    """What `@resource(...)` was given."""

    __slots__ = ("uri", "can", "mime_type", "name", "title", "description")
    uri: str
    can: str | None
    mime_type: str | None
    name: str | None
    title: str | None
    description: str | None


def resource(
    uri: str, *, can: str | None = None, mime_type: str | None = None, name: str | None = None, title: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function as a resource read at `uri`: it returns str (text) or bytes (a blob) and may take ``ctx: Ctx``.
    Parameters besides `ctx` make `uri` a template: one ``{name}`` for each, e.g. ``"crm://reports/{day}"``."""
    return marker(f"@resource({uri!r})", _ATTR, ResourceOptions(uri, can, mime_type, name, title, description))


def resource_options(fn: Any) -> ResourceOptions | None:
    return getattr(fn, _ATTR, None)


def default_name(uri: str) -> str:
    """A resource's name when none is given: the last part of its URI that says something."""
    tail = uri.rstrip("/").rsplit("/", 1)[-1]
    return tail if tail and not tail.endswith(":") else uri


def mime_of(path: str) -> str:
    dot = path.rfind(".")
    return MIME_TYPES.get(path[dot:].lower(), DEFAULT_MIME) if dot >= 0 else DEFAULT_MIME


def is_text_type(mime_type: str) -> bool:
    essence = mime_type.split(";", 1)[0].strip().lower()
    return essence.startswith("text/") or essence in _TEXT_TYPES or essence.endswith("+json") or essence.endswith("+xml")


# --- URIs and templates ---------------------------------------------------------------------------


def check_uri(uri: Any, where: str) -> str:
    """`uri` if it is an absolute URI a client can send back (a scheme, RFC 3986's characters, bounded); else CodegenError."""
    if not isinstance(uri, str):
        raise CodegenError(f"{where}: the URI is {type(uri).__name__}, not str.", hint="Give an absolute URI such as 'crm://guide'.")
    _check_shape(uri, where, "URI")
    if _URI_CHARS.fullmatch(uri) is None:
        raise CodegenError(f"{where}: the URI {uri!r} has characters a URI cannot hold.", hint="Percent-encode them (a space is %20), or choose another URI.")
    return uri


def _check_shape(text: str, where: str, what: str) -> None:
    if not 0 < len(text) <= MAX_URI:
        raise CodegenError(f"{where}: the {what} is empty or over {MAX_URI} characters.", hint="Give a short absolute URI such as 'crm://guide'.")
    if any(c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text):
        raise CodegenError(f"{where}: the {what} {text!r} holds whitespace or a control character.", hint="Remove it, or percent-encode it (a space is %20).")
    if _SCHEME.match(text) is None:
        raise CodegenError(f"{where}: the {what} {text!r} has no scheme.", hint="Start it with a scheme of your app's, e.g. 'crm://'.")
    if text.startswith(COMMAND_SCHEME):
        raise CodegenError(
            f"{where}: the {what} {text!r} uses app://, rata's scheme for live commands.", hint="Use a scheme of your app's own, e.g. 'crm://'."
        )


def template_problem(template: str) -> str | None:
    """Why a client cannot parse `template` as plain ``{name}`` expressions (RFC 6570 level 1), or None."""
    for match in _EXPRESSION.finditer(template):
        body = match.group(1)
        if not body:
            return "an empty expression {}"
        if body[0] in "+#./;?&=,!@|":
            return f"the expression {{{body}}} uses the operator {body[0]!r}, which clients may not expand"
        if _NAME.fullmatch(body) is None:
            return f"the expression {{{body}}} is not a plain name (letters, digits and _)"
    if re.search(r"\}\{", template):
        return "two expressions touch, so a URI cannot say where one value ends"
    rest = _EXPRESSION.sub("", template)
    if "{" in rest or "}" in rest:
        return "a brace that opens or closes no expression"
    if _URI_CHARS.fullmatch(rest) is None:
        return "characters a URI cannot hold outside its expressions (percent-encode them)"
    if re.search(r"\}%", template):
        return "an expression followed by a percent escape, so a URI cannot say where its value ends"
    return None


class UriTemplate:
    """A URI template of plain ``{name}`` expressions: `match` reads the values out of a URI, `expand` writes one.

    Matching is one scan, linear in the URI's length whatever the template (no backtracking: a
    client's URI can never make the server search): each value ends where the literal text after
    it first follows, and the template's last literal ends the URI. `expand` percent-encodes a
    value's characters that would start the literal after it, so every value it writes is read
    back whole by `match`.
    """

    __slots__ = ("text", "names", "_literals")

    def __init__(self, text: str, where: str = "resource template") -> None:
        if not isinstance(text, str):
            raise CodegenError(f"{where}: the URI template is {type(text).__name__}, not str.")
        problem = template_problem(text)
        if problem is not None:
            raise CodegenError(
                f"{where}: the URI template {text!r} has {problem}.", hint="Use plain {name} expressions, each between literal text such as '/'."
            )
        self.text = text
        self.names = tuple(m.group(1) for m in _EXPRESSION.finditer(text))
        if len(set(self.names)) != len(self.names):
            raise CodegenError(f"{where}: the URI template {text!r} names a parameter twice.", hint="Name each parameter once.")
        self._literals = tuple(_EXPRESSION.split(text)[::2])
        """The text before the first value, between each two, and after the last (``len(names) + 1`` of them)."""

    def match(self, uri: str) -> dict[str, str] | None:
        """The percent-decoded values in `uri`, or None when it is not an instance.

        A value must be non-empty UTF-8 with no unencoded '/', '?' or '#', and every '%' in it an escape.
        """
        if len(uri) > MAX_URI:
            return None
        literals = self._literals
        if not self.names:
            return {} if uri == self.text else None
        head, tail = literals[0], literals[-1]
        if not uri.startswith(head) or not uri.endswith(tail) or len(uri) < len(head) + len(tail):
            return None
        end = len(uri) - len(tail)
        at = len(head)
        values: dict[str, str] = {}
        last = len(self.names) - 1
        for i, name in enumerate(self.names):
            if i == last:
                stop = end
            else:  # the first place the next literal follows a non-empty value, outside its percent escapes
                stop = uri.find(literals[i + 1], at + 1, end)
                while stop >= 0 and "%" in uri[max(at, stop - 2) : stop]:
                    stop = uri.find(literals[i + 1], stop + 1, end)
                if stop < 0:
                    return None
            raw = uri[at:stop]
            if _VALUE.fullmatch(raw) is None:
                return None
            value = _decode(raw)
            if value is None:
                return None
            values[name] = value
            at = stop + len(literals[i + 1])
        return values

    def expand(self, values: dict[str, str]) -> str:
        from urllib.parse import quote

        out = [self._literals[0]]
        for i, name in enumerate(self.names):
            after = self._literals[i + 1]
            if i < len(self.names) - 1:  # `match` ends this value where `after` first follows: escape what would start it
                stop = f"%{ord(after[0]):02X}"
                out.append(stop.join(quote(part, safe="") for part in values[name].split(after[0])))
            else:
                out.append(quote(values[name], safe=""))
            out.append(after)
        return "".join(out)

    def __repr__(self) -> str:
        return f"UriTemplate({self.text!r})"


def _decode(raw: str) -> str | None:
    from urllib.parse import unquote_to_bytes

    try:
        return unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None


def command_template(spec: CommandSpec) -> str:
    """A live command's URI template: its required parameters in order, as path segments."""
    return COMMAND_SCHEME + spec.name + "".join(f"/{{{p.name}}}" for p in spec.params if p.required)


# --- declaring and reading ------------------------------------------------------------------------


def declare(item: Any, analyzer: Any, ctx_type: type) -> Resource:
    """`item` (a `Resource`, or a function marked by `resource`) checked and ready to serve; CodegenError otherwise."""
    if isinstance(item, Resource):
        return item
    options = resource_options(item)
    if options is None:
        label = getattr(item, "__qualname__", repr(item))
        raise CodegenError(f"{label} is not a resource.", hint="Pass rata.Resource(...) values, or functions decorated with @rata.resource(uri).")
    from rata.command_spec import CommandOptions, inspect_command
    from rata.typemodel import Scalar, resolve_hints

    where = f"@resource({options.uri!r}) on {getattr(item, '__qualname__', repr(item))}"
    returned = resolve_hints(item, where).get("return")
    if returned not in (str, bytes) and returned != str | bytes:
        said = "has no return type" if returned is None else f"returns {getattr(returned, '__name__', returned)!s}"
        raise CodegenError(f"{where}: the function {said}; a resource is text or bytes.", hint="Annotate it `-> str` (text) or `-> bytes` (a blob).")
    name = options.name or getattr(item, "__name__", "resource")
    command_options = CommandOptions(can=options.can, live=True, read_only=True, name=name if _NAME.fullmatch(name) else "resource")
    spec = inspect_command(item, analyzer, ctx_type, command_options, returns=Scalar("string"))
    fields = {slot: getattr(spec, slot) for slot in spec.__slots__}
    fields["name"] = f"resource:{options.uri}"
    spec = type(spec)(**fields)
    template = None
    if spec.params:
        _check_shape(options.uri, where, "URI template")
        template = UriTemplate(options.uri, where)
        params = [p.name for p in spec.params]
        if sorted(params) != sorted(template.names):
            raise CodegenError(
                f"{where}: the template names {list(template.names)} but the function takes {params}.",
                hint="Put one {name} in the URI for each parameter (besides ctx), and no other.",
            )
    mime_type = options.mime_type or ("text/plain" if returned is str else DEFAULT_MIME)
    description = options.description if options.description is not None else spec.description or None
    return Resource(
        options.uri, name=options.name or name, title=options.title, description=description, mime_type=mime_type, can=options.can,
        spec=spec, template=template,
    )  # fmt: skip


def read_content(app: Any, item: Resource, values: dict[str, str], request: Any) -> str | bytes:
    """What `item` holds now: its text or bytes, its file's, or its function's result run through `app.run_function`
    (with `values`, a template's text, as its arguments); ResourceError naming the problem and the fix otherwise."""
    if item.text is not None:
        return item.text
    if item.data is not None:
        return item.data
    if item.path is not None:
        data = _read_file(app.root, item)
        return data.decode("utf-8", "replace") if is_text_type(item.mime_type) else data
    from rata.textargs import json_arguments

    spec = item.spec
    assert spec is not None  # noqa: S101 - a Resource holds exactly one kind of content
    request.args = json_arguments([(p.name, p.node) for p in spec.params], values)
    value = app.run_function(spec, request)
    if isinstance(value, str):
        if len(value) > MAX_BYTES or len(value.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise ResourceError(f"The resource {item.uri} returned text over {MAX_BYTES} bytes; return less, or split it into several resources.")
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # no lone surrogate reaches the wire
    if isinstance(value, (bytes, bytearray)):
        if len(value) > MAX_BYTES:
            raise ResourceError(f"The resource {item.uri} returned over {MAX_BYTES} bytes; return less, or split it into several resources.")
        return bytes(value)
    raise ResourceError(f"The resource {item.uri} returned {type(value).__name__}; its function must return str (text) or bytes (a blob).")


def _read_file(root: Path, item: Resource) -> bytes:
    """The file's bytes, if it is still under `root` once every symlink is resolved, a regular file (a FIFO or a device
    would block or never end), and no larger than `MAX_BYTES` (`rata.projectfiles`)."""
    from rata.projectfiles import ProjectFileError, read_bytes, under

    path = under(root, item.path or "")
    if path is None:
        raise ResourceError(f"The resource {item.uri}'s file {item.path!r} leads outside the app's folder; point it at a file under App.root.")
    try:
        return read_bytes(path, limit=MAX_BYTES)
    except ProjectFileError as error:
        raise ResourceError(
            f"The resource {item.uri}'s file {item.path!r} {error.reason}; point it at a regular file of at most {MAX_BYTES:,} bytes under App.root."
        ) from None
