"""Type hints, read once into a small tree of nodes.

Everything rata does with a command's types walks this tree: the codegen pass turns it into
JSON Schema (`rata.codegen.schema`), dispatch turns JSON arguments into Python values and
results back into JSON (`rata.convert`). One reading of the hints, two projections, so the
schema an agent sees and the checks a call goes through cannot disagree.

    analyze(list[Customer], where="command 'customers_index', return type")

A hint rata cannot express raises `CodegenError` naming where it was found.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import types
import typing
from typing import Any, ClassVar, TypeGuard

from rata._record import Record
from rata.docstrings import parse_docstring
from rata.errors import CodegenError
from rata.special_types import BY_HINT as SPECIAL_TYPES
from rata.special_types import SpecialType

_MISSING = dataclasses.MISSING


class Field(Record):
    """A description and constraints for a value, used inside `Annotated[...]`.

        def customers_index(ctx: Ctx, limit: Annotated[int, Field("Rows to return", ge=1, le=500)] = 50): ...

    A plain string in `Annotated[T, "..."]` is a description too.
    """

    __slots__ = ("description", "ge", "gt", "le", "lt", "multiple_of", "min_length", "max_length", "pattern", "examples")
    _defaults: ClassVar[dict[str, Any]] = dict.fromkeys(__slots__)
    description: str | None
    ge: float | None
    gt: float | None
    le: float | None
    lt: float | None
    multiple_of: float | None
    min_length: int | None
    max_length: int | None
    pattern: str | None
    examples: tuple[Any, ...] | None

    def merged(self, other: Field) -> Field:
        """This field with every value `other` sets laid over it."""
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update({name: getattr(other, name) for name in other.__slots__ if getattr(other, name) is not None})
        return Field(**values)

    def __hash__(self) -> int:
        return hash(tuple(repr(v) for v in self._values()))


class AllowAny:
    """Marker: this value may be any JSON value. Use `rata.JsonValue` rather than this directly."""

    def __repr__(self) -> str:
        return "AllowAny()"


JsonValue = typing.Annotated[Any, AllowAny()]
"""Any JSON value, accepted as is. `Any` alone is refused, so that untyped tools are a choice."""


# --- nodes -----------------------------------------------------------------------------------


class Node:
    """A type, as rata understands it. Nodes compare by identity; a recursive type is a cycle of them.

    (Plain slotted classes rather than dataclasses: they are built on every server start.)
    """

    __slots__ = ()

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__ if name not in ("fields", "plan"))
        return f"{type(self).__name__}({values})"


class Scalar(Node):
    """`str`, `int`, `float`, `bool` or `None`: kind is the JSON Schema type."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind


class Special(Node):
    """A value carried as a JSON string (datetime, UUID, Decimal...): `type` is its row in `rata.special_types`."""

    __slots__ = ("kind", "type")

    def __init__(self, row: SpecialType) -> None:
        self.kind = row.kind
        self.type = row


class LiteralNode(Node):
    __slots__ = ("values",)

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.values = values


class EnumNode(Node):
    __slots__ = ("cls",)

    def __init__(self, cls: type[enum.Enum]) -> None:
        self.cls = cls

    @property
    def values(self) -> list[Any]:
        return [member.value for member in self.cls]


class ListNode(Node):
    """`list[T]`, `set[T]`, `frozenset[T]`, `tuple[T, ...]`, `Sequence[T]`."""

    __slots__ = ("item", "container")

    def __init__(self, item: Node, container: type = list) -> None:
        self.item = item
        self.container = container

    @property
    def unique(self) -> bool:
        return self.container in (set, frozenset)


class TupleNode(Node):
    """A fixed-length tuple: `tuple[int, str]`."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Node, ...]) -> None:
        self.items = items


class DictNode(Node):
    """`dict[str, T]`: an object with any keys; `key` is set when only some strings are keys (a Literal or str Enum)."""

    __slots__ = ("value", "key")

    def __init__(self, value: Node, key: Node | None = None) -> None:
        self.value = value
        self.key = key


class FieldNode:
    """One field of an object type."""

    __slots__ = ("name", "node", "required", "default", "description")

    def __init__(self, name: str, node: Node, required: bool, default: Any = _MISSING, description: str = "") -> None:
        self.name = name
        self.node = node
        self.required = required
        self.default = default
        self.description = description

    def __repr__(self) -> str:
        return f"FieldNode({self.name!r}, required={self.required})"


class ObjectNode(Node):
    """A dataclass, TypedDict or NamedTuple: an object with known fields."""

    __slots__ = ("cls", "kind", "fields", "description", "plan")

    def __init__(self, cls: type, kind: str, fields: list[FieldNode] | None = None, description: str = "") -> None:
        self.cls = cls
        self.kind = kind  # "dataclass" | "typeddict" | "namedtuple"
        self.fields: list[FieldNode] = fields if fields is not None else []
        self.description = description
        self.plan: Any = None
        """`rata.convert`'s per-field work for results of this type, made on first use."""

    @property
    def name(self) -> str:
        return self.cls.__name__


class UnionNode(Node):
    __slots__ = ("options",)

    def __init__(self, options: tuple[Node, ...]) -> None:
        self.options = options


class AnyNode(Node):
    """Any JSON value; only through the explicit `rata.JsonValue` opt-in."""

    __slots__ = ()


class PartsNode(Node):
    """Content parts a command returns instead of typed data (`rata.content`): the `kinds` of part it may hold
    (``"image"``, ``"text"``...), `many` for a list of them, `optional` when None may come back instead."""

    __slots__ = ("kinds", "many", "optional")

    def __init__(self, kinds: frozenset[str], many: bool, optional: bool = False) -> None:
        self.kinds = kinds
        self.many = many
        self.optional = optional


PART_KINDS = ("text", "image", "audio", "resource", "resource_link")
"""The kinds of content part (`rata.content`: `Text`, `Image`, `Audio`, `EmbeddedResource`, `ResourceLink`), in the order they are listed."""


class ContentNode(Node):
    """`rata.Content[T]`: typed data (`data`, the node of T) plus content parts of any kind."""

    __slots__ = ("data",)
    kinds = frozenset(PART_KINDS)

    def __init__(self, data: Node) -> None:
        self.data = data


CONTENT_MODULE = "rata.content"
_PART_KINDS = {"Text": "text", "Image": "image", "Audio": "audio", "EmbeddedResource": "resource", "ResourceLink": "resource_link"}
"""The part classes of `rata.content` by name (so reading a hint imports no part class), and their kinds."""


def content_kinds(node: Node) -> frozenset[str]:
    """The kinds of content part a command with this return type may return (none for typed data only)."""
    return node.kinds if isinstance(node, (PartsNode, ContentNode)) else frozenset()


def data_node(node: Node) -> Node | None:
    """The typed data of a return type: itself, the T of `Content[T]`, or None for parts only."""
    if isinstance(node, PartsNode):
        return None
    return node.data if isinstance(node, ContentNode) else node


class AnnotatedNode(Node):
    """A node with a description and constraints laid over it."""

    __slots__ = ("inner", "field")

    def __init__(self, inner: Node, field: Field) -> None:
        self.inner = inner
        self.field = field


_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null", None: "null"}
_NONE_TYPE = type(None)


def _sequence_origins() -> dict[Any, type]:
    import collections.abc as abc

    return {
        list: list,
        set: set,
        frozenset: frozenset,
        abc.Sequence: list,
        abc.MutableSequence: list,
        abc.Set: frozenset,
        abc.MutableSet: set,
        abc.Collection: list,
        abc.Iterable: list,
    }


_SEQUENCES = _sequence_origins()


class Analyzer:
    """Reads hints into nodes; one per app, so shared classes are read once."""

    def __init__(self) -> None:
        self._objects: dict[type, ObjectNode] = {}

    def analyze(self, hint: Any, where: str) -> Node:
        """The node for `hint`; `where` names its place for error messages."""
        return self._node(hint, where)

    def analyze_result(self, hint: Any, where: str) -> Node:
        """The node for a command's return type, which may also be content parts (`rata.content`)."""
        base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
        origin = typing.get_origin(base)
        if _is_content_class(origin) and origin.__name__ == "Content":
            args = typing.get_args(base)
            return ContentNode(self._node(args[0], f"{where} (the data of rata.Content)"))
        if _is_content_class(base) and base.__name__ == "Content":
            raise CodegenError(
                f"{where}: rata.Content needs the type of its data.", hint="Write Content[T] (e.g. Content[Customer]), or list[Part] for parts alone."
            )
        kinds, optional = _part_kinds(base)
        if kinds:
            return PartsNode(kinds, many=False, optional=optional)
        if origin in _SEQUENCES or (origin is tuple and len(typing.get_args(base)) == 2 and typing.get_args(base)[1] is Ellipsis):
            kinds, optional = _part_kinds(typing.get_args(base)[0]) if typing.get_args(base) else (frozenset(), False)
            if kinds and not optional:
                return PartsNode(kinds, many=True)
        return self._node(hint, where)

    # --- dispatch over the kinds of hint ---

    def _node(self, hint: Any, where: str) -> Node:
        if isinstance(hint, (str, typing.ForwardRef)):
            ref = hint if isinstance(hint, str) else hint.__forward_arg__
            raise CodegenError(
                f"{where}: the type {ref!r} could not be resolved.",
                hint="Import or define it in the module the command lives in, before the app is built.",
            )
        if _lookup(_SCALARS, hint) is not None:
            return Scalar(_SCALARS[hint])
        if isinstance(hint, type):
            row = SPECIAL_TYPES.get((hint.__module__, hint.__qualname__))  # by name: reading hints imports none of them
            if row is not None:
                return Special(row)
            if hint.__module__ == CONTENT_MODULE:
                _refuse_content(hint, where)
        if hint is Any or hint is object:
            raise CodegenError(
                f"{where}: the type {_type_name(hint)} says nothing an agent can use.",
                hint="Give a concrete type, or use rata.JsonValue to accept any JSON value on purpose.",
            )
        supertype = getattr(hint, "__supertype__", None)
        if supertype is not None and callable(hint):  # NewType
            return self._node(supertype, where)
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin is typing.Annotated:
            return self._annotated(args[0], args[1:], where)
        if origin in (typing.Required, typing.NotRequired):
            return self._node(args[0], where)
        if origin is typing.Literal:
            return self._literal(args, where)
        if origin is typing.Union or origin is types.UnionType:
            return self._union(args, where)
        if origin is tuple or hint is tuple:
            return self._tuple(args, where)
        if origin in _SEQUENCES or _lookup(_SEQUENCES, hint) is not None:
            return self._sequence(hint, origin, args, where)
        if origin is dict or hint is dict or _is_mapping_origin(origin):
            return self._dict(args, where)
        if isinstance(hint, type):
            return self._class(hint, where)
        if isinstance(hint, typing.TypeVar):
            raise CodegenError(f"{where}: the type variable {hint} is not a concrete type.", hint="Use the concrete type.")
        if _is_content_class(origin):
            _refuse_content(origin, where)
        raise CodegenError(
            f"{where}: the type {_type_name(hint)} cannot be expressed as JSON Schema.",
            hint="Use str, int, float, bool, a dataclass, TypedDict, Enum, Literal, list, dict[str, T] or a union of them.",
        )

    def _annotated(self, base: Any, extras: tuple[Any, ...], where: str) -> Node:
        meta = Field()
        allow_any = False
        for extra in extras:
            if isinstance(extra, AllowAny):
                allow_any = True
            elif isinstance(extra, str):
                meta = meta.merged(Field(description=extra))
            elif isinstance(extra, Field):
                meta = meta.merged(extra)
            else:
                meta = meta.merged(_foreign_constraint(extra))
        if allow_any and (base is Any or base is object):
            inner: Node = AnyNode()
        else:
            inner = self._node(base, where)
        return inner if meta == Field() else AnnotatedNode(inner, meta)

    def _literal(self, values: tuple[Any, ...], where: str) -> Node:
        flat: list[Any] = []
        for value in values:
            if isinstance(value, enum.Enum):
                value = value.value
            if value is not None and not isinstance(value, (str, int, float, bool)):
                raise CodegenError(f"{where}: Literal value {value!r} is not a JSON scalar.", hint="Use str, int, float, bool or None values.")
            _check_visible(value, f"Literal value {value!r}", where)
            flat.append(value)
        return LiteralNode(tuple(flat))

    def _union(self, args: tuple[Any, ...], where: str) -> Node:
        options = tuple(self._node(arg, where) for arg in args)
        return options[0] if len(options) == 1 else UnionNode(options)

    def _tuple(self, args: tuple[Any, ...], where: str) -> Node:
        if len(args) == 2 and args[1] is Ellipsis:
            return ListNode(self._node(args[0], where), tuple)
        if not args or args == ((),):
            raise CodegenError(f"{where}: an empty or bare tuple has no item types.", hint="Write tuple[T, ...] or tuple[A, B].")
        return TupleNode(tuple(self._node(arg, where) for arg in args))

    def _sequence(self, hint: Any, origin: Any, args: tuple[Any, ...], where: str) -> Node:
        if not args:
            raise CodegenError(f"{where}: {_type_name(hint)} needs an item type.", hint=f"Write {_type_name(hint)}[T], e.g. list[str].")
        container = _SEQUENCES[origin if origin is not None else hint]
        item = self._node(args[0], where)
        if container in (set, frozenset) and not _hashable(item):
            raise CodegenError(
                f"{where}: the items of {_type_name(hint)} cannot be held in a Python {container.__name__}, as they are not hashable.",
                hint="Use list[T] instead, or make the items hashable (e.g. a frozen dataclass).",
            )
        return ListNode(item, container)

    def _dict(self, args: tuple[Any, ...], where: str) -> Node:
        if len(args) != 2:
            raise CodegenError(f"{where}: a dict needs key and value types.", hint="Write dict[str, T].")
        key, value = args
        if key is not str and not _is_str_like(key):
            raise CodegenError(
                f"{where}: dict keys of type {_type_name(key)} cannot be JSON object keys.",
                hint="JSON object keys are strings: use dict[str, T].",
            )
        key_node = self._node(key, where)
        return DictNode(self._node(value, where), None if isinstance(key_node, Scalar) else key_node)

    def _class(self, cls: type, where: str) -> Node:
        if issubclass(cls, enum.Enum):
            for member in cls:
                if not isinstance(member.value, (str, int, float)) or isinstance(member.value, bool):
                    raise CodegenError(
                        f"{where}: enum {cls.__name__}.{member.name} has the value {member.value!r}, which is not a JSON string or number.",
                        hint="Give the enum str or int values.",
                    )
                _check_visible(member.value, f"enum {cls.__name__}.{member.name} has the value {member.value!r}, which", where)
            return EnumNode(cls)
        if cls in self._objects:
            return self._objects[cls]
        if dataclasses.is_dataclass(cls):
            return self._object(cls, "dataclass", where)
        if _is_typeddict(cls):
            return self._object(cls, "typeddict", where)
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return self._object(cls, "namedtuple", where)
        raise CodegenError(
            f"{where}: rata does not know how to turn the class {cls.__module__}.{cls.__qualname__} into JSON.",
            hint="Make it a dataclass, TypedDict, NamedTuple or Enum.",
        )

    def _object(self, cls: type, kind: str, where: str) -> ObjectNode:
        doc = parse_docstring(_own_doc(cls))
        node = ObjectNode(cls, kind, description=doc.description)
        self._objects[cls] = node  # before the fields, so a recursive type finds itself
        hints = resolve_hints(cls, f"{where}: {cls.__name__}")
        field_where = f"{where} ({cls.__name__}.{{}})"
        try:
            if kind == "dataclass":
                for f in dataclasses.fields(cls):
                    if not f.init:
                        continue
                    default = f.default if f.default is not _MISSING else _MISSING
                    required = f.default is _MISSING and f.default_factory is _MISSING
                    description = f.metadata.get("description", "") or doc.params.get(f.name, "")
                    node.fields.append(
                        FieldNode(f.name, self._node(hints[f.name], field_where.format(f.name)), required, default, description)
                    )
            elif kind == "typeddict":
                required_keys = getattr(cls, "__required_keys__", frozenset(hints))
                for name, hint in hints.items():
                    node.fields.append(
                        FieldNode(name, self._node(hint, field_where.format(name)), name in required_keys, _MISSING, doc.params.get(name, ""))
                    )
            else:
                defaults = getattr(cls, "_field_defaults", {})
                for name in cls._fields:
                    if name not in hints:
                        raise CodegenError(f"{field_where.format(name)}: the field has no type hint.", hint="Annotate every field.")
                    node.fields.append(
                        FieldNode(
                            name,
                            self._node(hints[name], field_where.format(name)),
                            name not in defaults,
                            defaults.get(name, _MISSING),
                            doc.params.get(name, ""),
                        )
                    )
        except CodegenError:
            del self._objects[cls]
            raise
        return node


def _is_content_class(hint: Any) -> TypeGuard[type]:
    return isinstance(hint, type) and hint.__module__ == CONTENT_MODULE


def _part_kinds(hint: Any) -> tuple[frozenset[str], bool]:
    """The part kinds `hint` names (a part class, or a union of them and perhaps None), and whether None is one."""
    options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    kinds = set()
    optional = False
    for option in options:
        if option is _NONE_TYPE or option is None:
            optional = True
        elif _is_content_class(option) and option.__name__ in _PART_KINDS:
            kinds.add(_PART_KINDS[option.__name__])
        else:
            return frozenset(), False
    return frozenset(kinds), optional


def _refuse_content(cls: type, where: str) -> None:
    raise CodegenError(
        f"{where}: rata.{cls.__name__} is content a command returns, and can only be its return type.",
        hint="Return it alone, in a list (list[Part]), or beside typed data (Content[T]); it cannot be a parameter, "
        "a field, or mixed with data in a union.",
    )


def resolve_hints(obj: Any, where: str) -> dict[str, Any]:
    """`typing.get_type_hints` with extras, naming the one hint that does not resolve."""
    simple = _simple_hints(obj)
    if simple is not None:
        return simple
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as first:  # noqa: BLE001 - re-raised below with the failing name
        module = sys.modules.get(getattr(obj, "__module__", ""), None)
        namespace = dict(vars(module)) if module else {}
        annotations = getattr(obj, "__annotations__", {})
        for name, annotation in annotations.items():
            if isinstance(annotation, str):
                try:
                    eval(annotation, namespace)  # noqa: S307 - the module's own annotation text
                except Exception as error:  # noqa: BLE001
                    label = "return type" if name == "return" else f"{'field' if isinstance(obj, type) else 'parameter'} {name!r}"
                    raise CodegenError(
                        f"{where}, {label}: the type {annotation!r} could not be resolved ({error}).",
                        hint="Import or define it at module level in the module the command lives in.",
                    ) from None
        raise CodegenError(f"{where}: its type hints could not be read ({first}).", hint="Check the annotations.") from None


def _simple_hints(fn: Any) -> dict[str, Any] | None:
    """A function's hints when each is a class, or a name of one (``"int"``, ``"Customer"``); else None.

    What `typing.get_type_hints` gives for them, without compiling each name as an expression
    (most commands' hints are just names, and an app reads its commands at every start).
    """
    if not isinstance(fn, types.FunctionType) or hasattr(fn, "__wrapped__"):
        return None
    annotations = fn.__annotations__
    namespace = fn.__globals__
    builtins = namespace.get("__builtins__")
    builtins = builtins if isinstance(builtins, dict) else vars(builtins) if builtins is not None else {}
    hints: dict[str, Any] = {}
    for name, annotation in annotations.items():
        if annotation is None or annotation == "None":
            hints[name] = _NONE_TYPE
            continue
        if isinstance(annotation, str):
            if not annotation.isidentifier() or annotation in _KEYWORDS:
                return None
            value = namespace[annotation] if annotation in namespace else builtins.get(annotation, annotation)
        else:
            value = annotation
        if not issubclass(type(value), type):  # a generic alias, a special form, an unresolved name: the full reading
            return None
        hints[name] = value
    return hints


_KEYWORDS = frozenset(
    {
        "False",
        "True",
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
    }
)


def _lookup(table: dict[Any, Any], hint: Any) -> Any:
    """`table.get(hint)`, or None for a hint that cannot be hashed (e.g. Annotated metadata holding a list)."""
    try:
        return table.get(hint)
    except TypeError:
        return None


def _hashable(node: Node) -> bool:
    """Whether the Python values `from_json` builds for `node` can go in a set."""
    if isinstance(node, AnnotatedNode):
        return _hashable(node.inner)
    if isinstance(node, (DictNode, AnyNode)):
        return False
    if isinstance(node, ListNode):
        return node.container in (tuple, frozenset) and _hashable(node.item)
    if isinstance(node, TupleNode):
        return all(_hashable(item) for item in node.items)
    if isinstance(node, UnionNode):
        return all(_hashable(option) for option in node.options)
    if isinstance(node, ObjectNode):
        return node.kind != "typeddict" and getattr(node.cls, "__hash__", None) is not None
    return True


def _own_doc(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not doc:
        return None
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return None  # the signature dataclasses writes when there is no docstring
    if issubclass(cls, tuple) and doc.startswith(f"{cls.__name__}("):
        return None
    return doc


def _is_typeddict(cls: type) -> bool:
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__total__") and hasattr(cls, "__annotations__")


def _is_mapping_origin(origin: Any) -> bool:
    import collections.abc as abc

    return origin in (abc.Mapping, abc.MutableMapping)


def _is_str_like(key: Any) -> bool:
    if key is str:
        return True
    supertype = getattr(key, "__supertype__", None)
    if supertype is not None:
        return _is_str_like(supertype)
    if typing.get_origin(key) is typing.Literal:
        return all(isinstance(v, str) for v in typing.get_args(key))
    return isinstance(key, type) and issubclass(key, enum.Enum) and all(isinstance(m.value, str) for m in key)


def _check_visible(value: Any, what: str, where: str) -> None:
    """Refuse a string enum or Literal value that the cleaned schema would show otherwise than validation takes it.

    Schemas are cleaned of invisible characters (`rata.cleantext`); a value holding some would be
    listed as one string and accepted only as another, so no agent could ever send it.
    """
    from rata.cleantext import clean_text, visible

    if isinstance(value, str) and clean_text(value) != value:
        raise CodegenError(
            f"{where}: {visible(what)} holds characters an agent cannot see (controls, bidirectional or zero-width ones, "
            "and the like); schemas are cleaned of them, so the schema would offer a value that is never accepted.",
            hint="Use only visible characters (newlines and tabs are fine) in enum and Literal values.",
        )


def _foreign_constraint(extra: Any) -> Field:
    """Constraints from `annotated_types` objects (Ge, Le, MinLen, ...), read by duck typing."""
    names = ("ge", "gt", "le", "lt", "multiple_of", "min_length", "max_length", "pattern", "description")
    values = {name: getattr(extra, name) for name in names if getattr(extra, name, None) is not None}
    if type(extra).__name__ == "Interval":
        values = {k: v for k, v in values.items() if v is not None}
    if not values:
        return Field()
    return Field(**values)


def _type_name(hint: Any) -> str:
    if hint is Any:
        return "Any"
    if isinstance(hint, type):
        return hint.__name__
    return repr(hint).replace("typing.", "")
