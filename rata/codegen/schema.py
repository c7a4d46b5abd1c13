"""Type nodes -> JSON Schema 2020-12.

Named types (dataclasses, TypedDicts, NamedTuples) are written inline, which every MCP
client understands; only a type that contains itself goes to ``$defs`` and is reached by
``$ref``. Keys come out in a fixed order, so the same types always give the same bytes.
"""

from __future__ import annotations

from typing import Any

from rata.convert import Mismatch, to_json
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


def object_schema(fields: list[tuple[str, Node, bool, Any, str]]) -> dict[str, Any]:
    """The schema of an object with these fields: (name, node, required, default, description)."""
    return _Writer([node for _, node, _, _, _ in fields]).object_root(fields)


def value_schema(node: Node) -> dict[str, Any]:
    """The schema of a single value of this type."""
    writer = _Writer([node])
    return writer.finish(writer.write(node))


class _Writer:
    def __init__(self, roots: list[Node]) -> None:
        self.recursive = _recursive_objects(roots)
        self.defs: dict[str, dict[str, Any]] = {}
        self.def_names: dict[int, str] = {}

    def object_root(self, fields: list[tuple[str, Node, bool, Any, str]]) -> dict[str, Any]:
        schema = self._object_body(fields)
        return self.finish(schema)

    def finish(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.defs:
            schema = dict(schema)
            schema["$defs"] = {name: self.defs[name] for name in sorted(self.defs)}
        return schema

    def write(self, node: Node) -> dict[str, Any]:  # noqa: C901 - one branch per node kind
        if isinstance(node, Scalar):
            return {"type": node.kind}
        if isinstance(node, AnnotatedNode):
            return _with_field(self.write(node.inner), node.field)
        if isinstance(node, Special):
            return dict(node.type.schema)
        if isinstance(node, LiteralNode):
            return _enum_schema(list(node.values))
        if isinstance(node, EnumNode):
            schema = _enum_schema(node.values)
            doc = _enum_doc(node)
            if doc:
                schema["description"] = doc
            return schema
        if isinstance(node, ListNode):
            schema = {"type": "array", "items": self.write(node.item)}
            if node.unique:
                schema["uniqueItems"] = True
            return schema
        if isinstance(node, TupleNode):
            n = len(node.items)
            return {"type": "array", "prefixItems": [self.write(item) for item in node.items], "minItems": n, "maxItems": n}
        if isinstance(node, DictNode):
            if node.key is not None:
                return {"type": "object", "propertyNames": self.write(node.key), "additionalProperties": self.write(node.value)}
            return {"type": "object", "additionalProperties": self.write(node.value)}
        if isinstance(node, ObjectNode):
            if id(node) in self.recursive:
                return {"$ref": f"#/$defs/{self._define(node)}"}
            return self._object(node)
        if isinstance(node, UnionNode):
            return {"anyOf": _flatten_any_of([self.write(option) for option in node.options])}
        if isinstance(node, AnyNode):
            return {}
        if isinstance(node, (PartsNode, ContentNode)):
            return self._content(node)
        raise TypeError(f"unknown node {node!r}")  # pragma: no cover

    def _content(self, node: PartsNode | ContentNode) -> dict[str, Any]:
        """The JSON form a frontend gets for content parts (`rata.content`): a part, a list of them, or data and parts."""
        from rata.content import parts_schema

        part = parts_schema(node.kinds)
        if isinstance(node, ContentNode):
            content = {"type": "array", "items": part}
            return {
                "type": "object",
                "properties": {"data": self.write(node.data), "content": content},
                "required": ["data", "content"],
                "additionalProperties": False,
            }
        if node.many:
            return {"type": "array", "items": part}
        return {"anyOf": [*part.get("anyOf", [part]), {"type": "null"}]} if node.optional else part

    def _object(self, node: ObjectNode) -> dict[str, Any]:
        schema = self._object_body([(f.name, f.node, f.required, f.default, f.description) for f in node.fields])
        if node.description:
            schema = {"description": node.description, **schema}
        return schema

    def _object_body(self, fields: list[tuple[str, Node, bool, Any, str]]) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, node, is_required, default, description in fields:
            prop = self.write(node)
            annotated = isinstance(node, AnnotatedNode) and node.field.description
            if description and not annotated:  # Annotated text wins; Args beat the type's own docstring
                prop = {"description": description, **{k: v for k, v in prop.items() if k != "description"}}
            if not is_required:
                json_default = _json_default(node, default)
                if json_default is not _NO_DEFAULT:
                    prop = {**prop, "default": json_default}
            else:
                required.append(name)
            properties[name] = prop
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required or not properties:  # no parameters: `properties: {}, required: []`, which strict converters (pydantic-ai, langchain) want
            schema["required"] = required
        schema["additionalProperties"] = False
        return schema

    def _define(self, node: ObjectNode) -> str:
        key = id(node)
        if key in self.def_names:
            return self.def_names[key]
        name = node.name
        taken = set(self.def_names.values())
        if name in taken:
            name = f"{node.cls.__module__}.{node.cls.__qualname__}".replace("<", "").replace(">", "")
        self.def_names[key] = name
        self.defs[name] = {}  # placeholder while its own fields refer to it
        self.defs[name] = self._object(node)
        return name


_NO_DEFAULT = object()


def _json_default(node: Node, default: Any) -> Any:
    import dataclasses

    if default is dataclasses.MISSING:
        return _NO_DEFAULT
    try:
        return to_json(node, default)
    except Mismatch:
        return _NO_DEFAULT


def _with_field(schema: dict[str, Any], field: Field) -> dict[str, Any]:
    out = dict(schema)
    if field.description:
        out = {"description": field.description, **{k: v for k, v in out.items() if k != "description"}}
    numeric = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum", "multiple_of": "multipleOf"}
    is_array = out.get("type") == "array"
    is_object = out.get("type") == "object"
    for attr, key in numeric.items():
        value = getattr(field, attr)
        if value is not None:
            out[key] = value
    if field.min_length is not None:
        out["minItems" if is_array else "minProperties" if is_object else "minLength"] = field.min_length
    if field.max_length is not None:
        out["maxItems" if is_array else "maxProperties" if is_object else "maxLength"] = field.max_length
    if field.pattern is not None:
        out["pattern"] = field.pattern
    if field.examples is not None:
        out["examples"] = list(field.examples)
    return out


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    types = {_json_type(v) for v in values}
    schema: dict[str, Any] = {}
    if len(types) == 1:
        schema["type"] = types.pop()
    if len(values) == 1:
        schema["const"] = values[0]
    else:
        schema["enum"] = values
    return schema


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def _enum_doc(node: EnumNode) -> str:
    from rata.docstrings import parse_docstring

    doc = node.cls.__dict__.get("__doc__")
    if not doc or doc == "An enumeration.":
        return ""
    return parse_docstring(doc).description


def _flatten_any_of(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    flat: list[dict[str, Any]] = []
    for option in options:
        if set(option) == {"anyOf"}:
            flat.extend(option["anyOf"])
        else:
            flat.append(option)
    return flat


def _recursive_objects(roots: list[Node]) -> set[int]:
    """The ids of object nodes that contain themselves."""
    recursive: set[int] = set()
    stack: list[int] = []
    done: set[int] = set()

    def visit(node: Node) -> None:
        if isinstance(node, ObjectNode):
            key = id(node)
            if key in stack:
                recursive.add(key)
                return
            if key in done:
                return
            stack.append(key)
            for field in node.fields:
                visit(field.node)
            stack.pop()
            done.add(key)
        for child in _children(node):
            visit(child)

    for root in roots:
        visit(root)
    return recursive


def _children(node: Node) -> list[Node]:
    if isinstance(node, AnnotatedNode):
        return [node.inner]
    if isinstance(node, ListNode):
        return [node.item]
    if isinstance(node, TupleNode):
        return list(node.items)
    if isinstance(node, DictNode):
        return [node.value]
    if isinstance(node, UnionNode):
        return list(node.options)
    if isinstance(node, ContentNode):
        return [node.data]
    return []
