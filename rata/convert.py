"""JSON values in, Python values out, and back: both walk the same nodes as the schema.

`from_json(node, value)` checks a JSON value against what the schema says and builds the
Python value the function declared (a dict becomes the dataclass, an ISO string the
`datetime`); every problem is collected with its path, e.g. ``{"items[0].qty": ["must be
at least 1"]}``. `to_json(node, value)` turns a command's result into plain JSON values and
refuses one that does not match its declared type.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
import sys
from typing import Any

from rata.special_types import SpecialType
from rata.typemodel import (
    AnnotatedNode,
    AnyNode,
    ContentNode,
    DictNode,
    EnumNode,
    Field,
    ListNode,
    LiteralNode,
    Node,
    ObjectNode,
    PartsNode,
    Scalar,
    Special,
    TupleNode,
    UnionNode,
)

_JSON_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false", "null": "null"}


class Invalid(Exception):
    """Raised inside conversion; carries messages by path."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors


def from_json(node: Node, value: Any, path: str = "") -> Any:
    """The Python value for JSON `value`, or `Invalid` with every problem found."""
    errors: dict[str, list[str]] = {}
    result = _in(node, value, path, errors)
    if errors:
        raise Invalid(errors)
    return result


def from_json_fields(fields: list[tuple[str, Node, bool]], values: Any) -> dict[str, Any]:
    """Convert a JSON object of named arguments; unknown names and missing required ones are errors."""
    errors: dict[str, list[str]] = {}
    if not isinstance(values, dict):
        raise Invalid({"": [f"arguments must be an object, not {_json_kind(values)}"]})
    out: dict[str, Any] = {}
    for name, node, required in fields:
        if name in values:
            if type(node) is Scalar:  # the most common argument, without a step through _in
                out[name] = _scalar_in(node.kind, values[name], name, errors)
            else:
                out[name] = _in(node, values[name], name, errors)
        elif required:
            errors.setdefault(name, []).append("is required")
    if len(out) != len(values):  # some names are not parameters
        known = {name for name, _, _ in fields}
        for name in sorted(set(values) - known):
            errors.setdefault(name, []).append(f"is not a parameter (expected one of: {', '.join(sorted(known)) or 'none'})")
    if errors:
        raise Invalid(errors)
    return out


def _add(errors: dict[str, list[str]], path: str, message: str) -> None:
    errors.setdefault(path, []).append(message)


def _in(node: Node, value: Any, path: str, errors: dict[str, list[str]]) -> Any:  # noqa: C901 - one branch per node kind
    if isinstance(node, Scalar):
        return _scalar_in(node.kind, value, path, errors)
    if isinstance(node, AnnotatedNode):
        before = sum(len(v) for v in errors.values())
        result = _in(node.inner, value, path, errors)
        if sum(len(v) for v in errors.values()) == before:
            for message in check_constraints(node.field, result):
                _add(errors, path, message)
        return result
    if isinstance(node, Special):
        return _special_in(node.type, value, path, errors)
    if isinstance(node, LiteralNode):
        for option in node.values:
            if _same_json(value, option):
                return option
        _add(errors, path, f"must be one of {_show(node.values)}")
        return None
    if isinstance(node, EnumNode):
        for member in node.cls:
            if _same_json(value, member.value):
                return member
        _add(errors, path, f"must be one of {_show(node.values)}")
        return None
    if isinstance(node, ListNode):
        if not isinstance(value, list):
            _add(errors, path, f"must be an array, not {_json_kind(value)}")
            return None
        items = [_in(node.item, item, f"{path}[{i}]", errors) for i, item in enumerate(value)]
        if node.unique:
            try:
                unique = node.container(items)
            except TypeError:
                _add(errors, path, "holds items that cannot be compared for uniqueness")
                return None
            if len(unique) != len(items):
                _add(errors, path, "must not contain duplicates")
            return unique
        return tuple(items) if node.container is tuple else items
    if isinstance(node, TupleNode):
        if not isinstance(value, list):
            _add(errors, path, f"must be an array, not {_json_kind(value)}")
            return None
        if len(value) != len(node.items):
            _add(errors, path, f"must have exactly {len(node.items)} items, not {len(value)}")
            return None
        return tuple(_in(item_node, item, f"{path}[{i}]", errors) for i, (item_node, item) in enumerate(zip(node.items, value, strict=False)))
    if isinstance(node, DictNode):
        if not isinstance(value, dict):
            _add(errors, path, f"must be an object, not {_json_kind(value)}")
            return None
        if node.key is None:
            return {key: _in(node.value, item, _join(path, key), errors) for key, item in value.items()}
        return {_in(node.key, key, _join(path, key), errors): _in(node.value, item, _join(path, key), errors) for key, item in value.items()}
    if isinstance(node, ObjectNode):
        return _object_in(node, value, path, errors)
    if isinstance(node, UnionNode):
        return _union_in(node, value, path, errors)
    if isinstance(node, AnyNode):
        return value
    raise TypeError(f"unknown node {node!r}")  # pragma: no cover - every node kind is handled above


def _scalar_in(kind: str, value: Any, path: str, errors: dict[str, list[str]]) -> Any:
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "null" and value is None:
        return None
    if kind == "integer" and not isinstance(value, bool):
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    if kind == "number" and not isinstance(value, bool) and isinstance(value, (int, float)):
        if _finite(value):
            return float(value)
        _add(errors, path, "must be a finite number")
        return None
    _add(errors, path, f"must be {_JSON_NAMES[kind]}, not {_json_kind(value)}")
    return None


def _special_in(row: SpecialType, value: Any, path: str, errors: dict[str, list[str]]) -> Any:
    if not isinstance(value, str):
        _add(errors, path, f"must be a string ({row.words}), not {_json_kind(value)}")
        return None
    try:
        return row.parse(value)
    except ValueError:
        _add(errors, path, f"must be {row.words}, not {value[:40]!r}")
        return None


def _object_in(node: ObjectNode, value: Any, path: str, errors: dict[str, list[str]]) -> Any:
    if not isinstance(value, dict):
        _add(errors, path, f"must be an object, not {_json_kind(value)}")
        return None
    before = sum(len(v) for v in errors.values())
    kwargs: dict[str, Any] = {}
    names = set()
    for field in node.fields:
        names.add(field.name)
        if field.name in value:
            kwargs[field.name] = _in(field.node, value[field.name], _join(path, field.name), errors)
        elif field.required:
            _add(errors, _join(path, field.name), "is required")
    for extra in sorted(set(value) - names):
        _add(errors, _join(path, extra), f"is not a field of {node.name}")
    if sum(len(v) for v in errors.values()) != before:
        return None
    if node.kind == "typeddict":
        return kwargs
    return node.cls(**kwargs)


def _union_in(node: UnionNode, value: Any, path: str, errors: dict[str, list[str]]) -> Any:
    attempts: list[dict[str, list[str]]] = []
    for option in node.options:
        trial: dict[str, list[str]] = {}
        result = _in(option, value, path, trial)
        if not trial:
            return result
        attempts.append(trial)
    if value is not None and any(isinstance(o, Scalar) and o.kind == "null" for o in node.options):
        # `X | None`: report X's problem, which is the useful one
        non_null = [a for o, a in zip(node.options, attempts, strict=False) if not (isinstance(o, Scalar) and o.kind == "null")]
        if len(non_null) == 1:
            for key, messages in non_null[0].items():
                for message in messages:
                    _add(errors, key, message + " (or null)" if key == path else message)
            return None
    _add(errors, path, f"does not match any of the allowed types ({describe_union(node)})")
    return None


def check_constraints(field: Field, value: Any) -> list[str]:
    """Messages for every constraint of `field` that `value` breaks."""
    problems: list[str] = []
    if (isinstance(value, (int, float)) or _is_decimal(value)) and not isinstance(value, bool):
        if field.ge is not None and value < field.ge:
            problems.append(f"must be at least {_num(field.ge)}")
        if field.gt is not None and value <= field.gt:
            problems.append(f"must be greater than {_num(field.gt)}")
        if field.le is not None and value > field.le:
            problems.append(f"must be at most {_num(field.le)}")
        if field.lt is not None and value >= field.lt:
            problems.append(f"must be less than {_num(field.lt)}")
        if field.multiple_of is not None and field.multiple_of and not _is_multiple(value, field.multiple_of):
            problems.append(f"must be a multiple of {_num(field.multiple_of)}")
    if isinstance(value, (str, list, tuple, set, frozenset, dict)):
        noun = "character" if isinstance(value, str) else "item"
        if field.min_length is not None and len(value) < field.min_length:
            problems.append(f"must have at least {field.min_length} {noun}{'' if field.min_length == 1 else 's'}")
        if field.max_length is not None and len(value) > field.max_length:
            problems.append(f"must have at most {field.max_length} {noun}{'' if field.max_length == 1 else 's'}")
    if isinstance(value, str) and field.pattern is not None and not re.search(field.pattern, value):
        problems.append(f"must match the pattern {field.pattern!r}")
    return problems


def _is_decimal(value: Any) -> bool:
    """Whether `value` is a `decimal.Decimal`, without importing decimal when nothing uses it."""
    module = sys.modules.get("decimal")
    return module is not None and isinstance(value, module.Decimal)


def _is_multiple(value: Any, step: float) -> bool:
    """Whether `value` is a whole multiple of `step`: exact for ints and decimals, as JSON Schema does it for floats."""
    import fractions

    if _is_decimal(value):
        return fractions.Fraction(value) % fractions.Fraction(str(step)) == 0
    if isinstance(step, int):
        return value % step == 0
    try:
        quotient = value / step
    except OverflowError:
        quotient = math.inf
    if math.isfinite(quotient):
        return quotient % 1 == 0
    return (fractions.Fraction(value) / fractions.Fraction(step)).denominator == 1


def _finite(value: int | float) -> bool:
    """Whether a number fits a JSON number as a float: not NaN, not infinite, not an int too large for a float."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


# --- out: Python -> JSON --------------------------------------------------------------------


class Mismatch(Exception):
    """A result did not match its declared type; the message says where and how.

    With a `hint`, the result's content parts cannot be sent (`rata.content.PartError`): the message
    then reads after "the command returned", and the hint says how to fix it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def to_json(node: Node, value: Any, path: str = "result") -> Any:
    """Plain JSON values for `value`, checked against `node`."""
    out = _OUT.get(type(node))
    if out is None:  # a subclass of a node kind: the first kind it is an instance of
        out = next((out for kind, out in _OUT.items() if isinstance(node, kind)), None)
        if out is None:
            raise TypeError(f"unknown node {node!r}")  # pragma: no cover
    return out(node, value, path)


def _annotated_out(node: AnnotatedNode, value: Any, path: str) -> Any:
    return to_json(node.inner, value, path)


def _literal_out(node: LiteralNode, value: Any, path: str) -> Any:
    raw = value.value if isinstance(value, enum.Enum) else value
    if any(_same_json(raw, option) for option in node.values):
        return raw
    raise Mismatch(f"{path} is {value!r}, not one of {_show(node.values)}")


def _enum_out(node: EnumNode, value: Any, path: str) -> Any:
    if isinstance(value, node.cls):
        return value.value
    if any(_same_json(value, v) for v in node.values):
        return value
    raise Mismatch(f"{path} is {value!r}, not a {node.cls.__name__}")


def _list_out(node: ListNode, value: Any, path: str) -> list[Any]:
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise Mismatch(f"{path} is {type(value).__name__}, not a sequence")
    items = [to_json(node.item, item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items.sort(key=_sort_key)
    return items


def _tuple_out(node: TupleNode, value: Any, path: str) -> list[Any]:
    if not isinstance(value, (tuple, list)) or len(value) != len(node.items):
        raise Mismatch(f"{path} is {value!r}, not a tuple of {len(node.items)}")
    return [to_json(n, item, f"{path}[{i}]") for i, (n, item) in enumerate(zip(node.items, value, strict=False))]


def _dict_out(node: DictNode, value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Mismatch(f"{path} is {type(value).__name__}, not a dict")
    return {str(k.value if isinstance(k, enum.Enum) else k): to_json(node.value, v, _join(path, str(k))) for k, v in value.items()}


def _union_out(node: UnionNode, value: Any, path: str) -> Any:
    for option in node.options:
        try:
            return to_json(option, value, path)
        except Mismatch:
            continue
    raise Mismatch(f"{path} is {type(value).__name__}, which matches none of {describe_union(node)}")


_EXACT = {"string": str, "integer": int, "boolean": bool, "null": type(None)}
"""The Python type `to_json` hands back unchanged, for each scalar kind (a number may need checking)."""


def _scalar_out(node: Scalar, value: Any, path: str) -> Any:
    kind = node.kind
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "null" and value is None:
        return None
    if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        if not _finite(value):
            raise Mismatch(f"{path} is {_short(value)}, which JSON cannot carry")
        return value
    raise Mismatch(f"{path} is {type(value).__name__} {_short(value)}, not {_JSON_NAMES[kind]}")


def _special_out(node: Special, value: Any, path: str) -> str:
    row = node.type
    if not row.accepts(value):
        raise Mismatch(f"{path} is {type(value).__name__}, not {row.words}")
    return row.dump(value)


def _object_out(node: ObjectNode, value: Any, path: str) -> dict[str, Any]:
    if node.kind == "typeddict":
        if not isinstance(value, dict):
            raise Mismatch(f"{path} is {type(value).__name__}, not a {node.name} dict")
        out: dict[str, Any] = {}
        for field in node.fields:
            if field.name not in value:
                if field.required:
                    raise Mismatch(f"{_join(path, field.name)} is missing")
                continue
            out[field.name] = to_json(field.node, value.get(field.name), _join(path, field.name))
        return out
    if not isinstance(value, node.cls):
        raise Mismatch(f"{path} is {type(value).__name__}, not a {node.name}")
    # hot path: bench/run.py --only server (throughput): each object node's per-field work made once (its plan)
    plan = node.plan
    if plan is None or len(plan) != len(node.fields):
        plan = node.plan = _plan(node)
    out = {}
    for name, exact, field_node in plan:
        item = getattr(value, name, None)
        if type(item) is exact:  # a plain scalar of the field's type: nothing to convert or check
            out[name] = item
        else:
            out[name] = to_json(field_node, item, _join(path, name))
    return out


def _plan(node: ObjectNode) -> tuple[tuple[str, type | None, Node], ...]:
    """Each field's name, the type a value of it is taken unchanged as (a scalar field's), and its node."""
    return tuple((field.name, _EXACT.get(field.node.kind) if type(field.node) is Scalar else None, field.node) for field in node.fields)


def _content_out(node: PartsNode | ContentNode, value: Any, path: str) -> Any:
    from rata.content import PartError, content_json

    try:
        return content_json(node, value, path, to_json)
    except PartError as error:
        raise Mismatch(str(error), error.hint) from None


_OUT = {
    AnnotatedNode: _annotated_out,
    Scalar: _scalar_out,
    Special: _special_out,
    LiteralNode: _literal_out,
    EnumNode: _enum_out,
    ListNode: _list_out,
    TupleNode: _tuple_out,
    DictNode: _dict_out,
    ObjectNode: _object_out,
    UnionNode: _union_out,
    AnyNode: lambda node, value, path: _plain_json(value, path),  # noqa: ARG005
    PartsNode: _content_out,
    ContentNode: _content_out,
}
"""`to_json`'s work for each node kind, in the order an instance is matched (for subclasses)."""


def _plain_json(value: Any, path: str) -> Any:
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Mismatch(f"{path} is {value!r}, which JSON cannot carry")
        return value
    if isinstance(value, (list, tuple)):
        return [_plain_json(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {str(k): _plain_json(v, _join(path, str(k))) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain_json(dataclasses.asdict(value), path)
    raise Mismatch(f"{path} is {type(value).__name__}, which is not a JSON value")


# --- small helpers ----------------------------------------------------------------------------


def _same_json(value: Any, option: Any) -> bool:
    """Equal as JSON values: True is not 1, 1.0 is 1."""
    if isinstance(value, bool) or isinstance(option, bool):
        return isinstance(value, bool) and isinstance(option, bool) and value == option
    if value is None or option is None:
        return value is None and option is None
    if isinstance(value, str) != isinstance(option, str):
        return False
    return value == option


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _show(values: Any) -> str:
    import json

    return ", ".join(json.dumps(v) for v in values)


def _num(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _sort_key(item: Any) -> tuple[str, str]:
    import json

    return (type(item).__name__, json.dumps(item, sort_keys=True))


def describe_union(node: UnionNode) -> str:
    """Human words for the options of a union, for messages."""
    return ", ".join(describe(option) for option in node.options)


def describe(node: Node) -> str:
    if isinstance(node, AnnotatedNode):
        return describe(node.inner)
    if isinstance(node, Scalar):
        return node.kind
    if isinstance(node, Special):
        return node.kind
    if isinstance(node, (ListNode, TupleNode)):
        return "array"
    if isinstance(node, (DictNode,)):
        return "object"
    if isinstance(node, ObjectNode):
        return node.name
    if isinstance(node, EnumNode):
        return node.cls.__name__
    if isinstance(node, LiteralNode):
        return "one of " + _show(node.values)
    if isinstance(node, UnionNode):
        return describe_union(node)
    return "any"
