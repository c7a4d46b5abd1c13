"""A form class (`Ctx.ask`) as an MCP ``elicitation/create`` form, and the user's answer back as an instance of it.

MCP forms are flat: each field is a string (with ``minLength``/``maxLength`` and a ``format`` of
``email``, ``uri``, ``date`` or ``date-time``), a number or integer (with ``minimum``/``maximum``),
a boolean, a single choice of strings (``enum``, or ``oneOf`` with titles) or a multiple choice
(an array of such). `form_of` reads the class with rata's type model (`rata.typemodel`) and
refuses, naming the field, anything else; `Form.read` converts an answer with `rata.convert`
(extra keys are ignored, a value of the wrong type is an error to ask again about).
"""

from __future__ import annotations

import threading
from typing import Any

from rata.convert import Invalid, Mismatch, from_json, to_json
from rata.talk import Format, TalkError, Titles
from rata.typemodel import Analyzer, AnnotatedNode, EnumNode, Field, ListNode, LiteralNode, Node, ObjectNode, Scalar, Special, UnionNode

MAX_FIELDS = 50
"""Fields in one form."""
MAX_CHOICES = 500
"""Choices of one enum field."""

_FORMATS_OF_SPECIAL = {"date": "date", "datetime": "date-time"}
_forms: dict[Any, Form] = {}
_lock = threading.Lock()


class Form:
    """A form class read once: its ``requestedSchema`` and how to turn an answer's content into an instance."""

    __slots__ = ("cls", "schema", "node")

    def __init__(self, cls: Any, schema: dict[str, Any], node: ObjectNode) -> None:
        self.cls = cls
        self.schema = schema
        self.node = node

    def read(self, content: object) -> Any:
        """The form filled in with `content` (an accept's ``content``); raises `Invalid` naming every problem."""
        if not isinstance(content, dict):
            raise Invalid({"": ["the answer's content must be an object"]})
        known = {field.name for field in self.node.fields}
        return from_json(self.node, {key: value for key, value in content.items() if key in known})


def form_of(cls: Any) -> Form:
    """The `Form` of a dataclass, TypedDict or NamedTuple; `TalkError` naming the field a form cannot hold."""
    form = _forms.get(cls)
    if form is None:
        form = _read(cls)
        with _lock:
            _forms[cls] = form
    return form


def _read(cls: Any) -> Form:
    name = getattr(cls, "__qualname__", repr(cls))
    where = f"the form {name}"
    if not isinstance(cls, type):
        raise TalkError(f"ctx.ask takes a form class, not {cls!r}.", hint="Pass a dataclass or TypedDict class whose fields are the questions.")
    try:
        node = Analyzer().analyze(cls, where)
    except Exception as error:  # noqa: BLE001 - the type model's refusal, said as a form's
        raise TalkError(f"{where} cannot be read: {error}", hint="A form is a dataclass or TypedDict of simple fields.") from None
    if not isinstance(node, ObjectNode):
        raise TalkError(f"{where} is not a dataclass, TypedDict or NamedTuple.", hint="Declare the form as a dataclass whose fields are the questions.")
    if len(node.fields) > MAX_FIELDS:
        raise TalkError(f"{where} has {len(node.fields)} fields; a form holds at most {MAX_FIELDS}.", hint="Split it into several questions.")
    markers = _markers(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in node.fields:
        fmt, titles = markers.get(field.name, (None, None))
        prop = _property(field.node, f"{name}.{field.name}", fmt, titles)
        prop = {"title": field.name.replace("_", " ").capitalize(), **prop}
        if field.description and "description" not in prop:
            prop["description"] = field.description
        if field.required:
            required.append(field.name)
        elif field.default is not None and not _missing(field.default):
            try:
                prop["default"] = to_json(field.node, field.default)
            except Mismatch:
                raise TalkError(f"{name}.{field.name}: its default {field.default!r} does not fit its type.", hint="Fix the default.") from None
        properties[field.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return Form(cls, schema, node)


def _missing(value: Any) -> bool:
    import dataclasses

    return value is dataclasses.MISSING


def _markers(cls: type) -> dict[str, tuple[str | None, Titles | None]]:
    """The `Format` and `Titles` of each field that has them (``Annotated[str, Format("email")]``): the type model keeps neither."""
    import typing

    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception:  # noqa: BLE001 - the type model already read these hints; a failure here means no markers
        return {}
    found = {}
    for key, hint in hints.items():
        extras = getattr(hint, "__metadata__", ())
        fmt = next((extra.name for extra in extras if isinstance(extra, Format)), None)
        titles = next((extra for extra in extras if isinstance(extra, Titles)), None)
        if fmt is not None or titles is not None:
            found[key] = (fmt, titles)
    return found


def _property(node: Node, where: str, fmt: str | None, titles: Titles | None) -> dict[str, Any]:  # noqa: C901 - one branch per field kind
    constraints = Field()
    if isinstance(node, UnionNode):  # `T | None = None`: an optional field
        options = [option for option in node.options if not _is_null(option)]
        if len(options) == 1:
            node = options[0]
    if isinstance(node, AnnotatedNode):
        constraints, node = node.field, node.inner
    if constraints.pattern is not None or constraints.gt is not None or constraints.lt is not None or constraints.multiple_of is not None:
        raise _refused(where, "a pattern, an exclusive bound or a multiple_of constraint", "MCP forms have only min/max length and minimum/maximum")
    prop: dict[str, Any] = {}
    single = _choices(node, titles, where)
    several = _choices(node.item, titles, where) if isinstance(node, ListNode) else None
    if titles is not None and single is None and several is None:
        raise _refused(where, "Titles on a field that is not a choice", "Titles go on a Literal or Enum of strings, or a list of one")
    if isinstance(node, Scalar) and node.kind == "string":
        prop = {"type": "string"}
        if fmt is not None:
            prop["format"] = fmt
        _lengths(prop, constraints, "minLength", "maxLength")
    elif isinstance(node, Special) and node.type.kind in _FORMATS_OF_SPECIAL:
        prop = {"type": "string", "format": _FORMATS_OF_SPECIAL[node.type.kind]}
    elif isinstance(node, Scalar) and node.kind in ("integer", "number"):
        prop = {"type": node.kind}
        if constraints.ge is not None:
            prop["minimum"] = constraints.ge
        if constraints.le is not None:
            prop["maximum"] = constraints.le
    elif isinstance(node, Scalar) and node.kind == "boolean":
        prop = {"type": "boolean"}
    elif single is not None:
        prop = {"type": "string", **single}
    elif several is not None:
        items = {"anyOf": several["oneOf"]} if "oneOf" in several else {"type": "string", **several}
        prop = {"type": "array", "items": items}
        _lengths(prop, constraints, "minItems", "maxItems")
    else:
        raise _refused(where, _kind(node), "a form field is a str, int, float, bool, date, datetime, a Literal or Enum of strings, or a list of those choices")
    if constraints.description:
        prop["description"] = constraints.description
    return prop


def _is_null(node: Node) -> bool:
    return isinstance(node, Scalar) and node.kind == "null"


def _lengths(prop: dict[str, Any], field: Field, low: str, high: str) -> None:
    if field.min_length is not None:
        prop[low] = field.min_length
    if field.max_length is not None:
        prop[high] = field.max_length


def _choices(node: Node, titles: Titles | None, where: str = "") -> dict[str, Any] | None:
    """The choices of a Literal or Enum of strings: ``{"enum": [...]}`` untitled, ``{"oneOf": [{"const", "title"}]}``
    titled (an Enum's member names, or `Titles`), ``{"enum", "enumNames"}`` for legacy `Titles`; None for anything else."""
    if isinstance(node, LiteralNode) and all(type(value) is str for value in node.values) and 0 < len(node.values) <= MAX_CHOICES:
        values = list(node.values)
        named = {value: value for value in values} if titles is None else None
    elif isinstance(node, EnumNode) and all(isinstance(value, str) for value in node.values) and 0 < len(node.values) <= MAX_CHOICES:
        values = list(node.values)
        named = {member.value: member.name.replace("_", " ").capitalize() for member in node.cls}
    else:
        return None
    if titles is not None:
        missing = [value for value in values if value not in titles.titles]
        if missing:
            raise _refused(where, f"Titles without a title for {missing}", "give each choice a title")
        named = {value: titles.titles[value] for value in values}
    elif isinstance(node, LiteralNode):
        return {"enum": values}
    assert named is not None
    if titles is not None and titles.legacy:
        return {"enum": values, "enumNames": [named[value] for value in values]}
    return {"oneOf": [{"const": value, "title": named[value]} for value in values]}


def _kind(node: Node) -> str:
    if isinstance(node, ObjectNode):
        return f"a nested object ({node.name})"
    if isinstance(node, ListNode):
        return "a list of anything but string choices"
    if isinstance(node, (LiteralNode, EnumNode)):
        return "a choice of values that are not all strings"
    if isinstance(node, UnionNode):
        return "a union of types"
    if isinstance(node, Special):
        return f"a {node.type.kind}"
    if isinstance(node, Scalar):
        return f"a {node.kind}"
    return "this type"


def _refused(where: str, what: str, why: str) -> TalkError:
    return TalkError(f"{where}: an MCP form cannot hold {what}.", hint=f"{why.capitalize()}.")
