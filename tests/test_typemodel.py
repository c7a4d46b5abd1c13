"""Type hints -> nodes (`rata.typemodel`): one test per supported type, one per refusal.

Nodes compare by identity, so each test renders the node it gets as a plain tuple (`shape`)
and compares that as a whole.
"""

import collections.abc as abc
import dataclasses
import datetime as dt
import decimal
import enum
import pathlib
import sys
import textwrap
import types
import typing
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NewType, Optional, Required, TypedDict, TypeVar, Union

import pytest

import rata
from rata import Ctx, Field, JsonValue, command
from rata.command_spec import inspect_command
from rata.errors import CodegenError
from rata.typemodel import (
    Analyzer,
    AnnotatedNode,
    AnyNode,
    DictNode,
    EnumNode,
    ListNode,
    LiteralNode,
    Node,
    ObjectNode,
    Scalar,
    Special,
    TupleNode,
    UnionNode,
)
from tests.samples import Color, Coord, Dept, Draft, Movie, Order, Person, Priority, Status, TreeNode

MISSING = dataclasses.MISSING
WHERE = "command 'f', parameter 'x'"


def shape(node: Node, seen: tuple[Node, ...] = ()) -> Any:
    """A node as nested tuples; an object met again inside itself is ("recursion", cls)."""
    if isinstance(node, Scalar):
        return ("scalar", node.kind)
    if isinstance(node, Special):
        return ("special", node.kind)
    if isinstance(node, LiteralNode):
        return ("literal", node.values)
    if isinstance(node, EnumNode):
        return ("enum", node.cls)
    if isinstance(node, ListNode):
        return ("list", node.container, shape(node.item, seen))
    if isinstance(node, TupleNode):
        return ("tuple", tuple(shape(item, seen) for item in node.items))
    if isinstance(node, DictNode):
        return ("dict", None if node.key is None else shape(node.key, seen), shape(node.value, seen))
    if isinstance(node, UnionNode):
        return ("union", tuple(shape(option, seen) for option in node.options))
    if isinstance(node, AnyNode):
        return ("any",)
    if isinstance(node, AnnotatedNode):
        return ("annotated", shape(node.inner, seen), node.field)
    if isinstance(node, ObjectNode):
        if any(node is other for other in seen):
            return ("recursion", node.cls)
        inner = (*seen, node)
        fields = tuple((f.name, shape(f.node, inner), f.required, f.default, f.description) for f in node.fields)
        return ("object", node.cls, node.kind, node.description, fields)
    raise AssertionError(f"unexpected node {node!r}")


def analyze(hint: Any) -> Any:
    return shape(Analyzer().analyze(hint, WHERE))


def refusal(fn: Any) -> str:
    """The whole text (message and hint) of the CodegenError raised when reading `fn` as a command."""
    with pytest.raises(CodegenError) as caught:
        inspect_command(command(fn), Analyzer(), Ctx)
    return str(caught.value)


STRING = ("scalar", "string")
INTEGER = ("scalar", "integer")
NUMBER = ("scalar", "number")
BOOLEAN = ("scalar", "boolean")
NULL = ("scalar", "null")


# --- types used below ----------------------------------------------------------------------


class Shape(enum.Enum):
    SQUARE = (1, 2)


@dataclass
class Point:
    x: int
    y: int


@dataclass(frozen=True)
class FrozenPoint:
    x: int
    y: int


# Not tests.samples.Filters: a total=False TypedDict with one key marked Required, which the
# schema and conversion tests' Filters must not have (there every key is optional).
class FiltersWithRequiredLimit(TypedDict, total=False):
    search: str
    limit: Required[int]


@dataclass
class Holder:
    payload: Any


class Thing:
    """Not a dataclass, TypedDict, NamedTuple or Enum."""


UserId = NewType("UserId", int)
Tag = NewType("Tag", str)
T = TypeVar("T")


class Minimum:
    """An annotated_types-like constraint, read by duck typing."""

    def __init__(self, ge: int) -> None:
        self.ge = ge


# --- supported types -----------------------------------------------------------------------


@pytest.mark.parametrize(("hint", "kind"), [(str, "string"), (int, "integer"), (float, "number"), (bool, "boolean")])
def test_str_int_float_and_bool_are_json_scalars(hint: Any, kind: str) -> None:
    assert analyze(hint) == ("scalar", kind)


@pytest.mark.parametrize("hint", [None, type(None)])
def test_none_is_the_null_scalar(hint: Any) -> None:
    assert analyze(hint) == NULL


@pytest.mark.parametrize("hint", [Optional[int], int | None, Union[int, None]])
def test_optional_and_x_or_none_are_a_union_with_null(hint: Any) -> None:
    assert analyze(hint) == ("union", (INTEGER, NULL))


def test_a_union_keeps_its_options_in_order() -> None:
    assert analyze(int | str | Point) == (
        "union",
        (INTEGER, STRING, ("object", Point, "dataclass", "", (("x", INTEGER, True, MISSING, ""), ("y", INTEGER, True, MISSING, "")))),
    )


@pytest.mark.parametrize(
    ("hint", "values"),
    [
        (Literal["draft", "sent"], ("draft", "sent")),
        (Literal[1, 2, 3], (1, 2, 3)),
        (Literal[True, False], (True, False)),
        (Literal["only"], ("only",)),
        (Literal["a", 1, None], ("a", 1, None)),
    ],
)
def test_a_literal_keeps_its_values(hint: Any, values: tuple[Any, ...]) -> None:
    assert analyze(hint) == ("literal", values)


def test_a_literal_of_an_enum_member_holds_the_members_value() -> None:
    assert analyze(Literal[Color.RED]) == ("literal", ("red",))


def test_an_enum_with_str_values_is_an_enum_node() -> None:
    node = Analyzer().analyze(Color, WHERE)
    assert isinstance(node, EnumNode)
    assert (shape(node), node.values) == (("enum", Color), ["red", "green"])


def test_an_enum_with_int_values_is_an_enum_node() -> None:
    node = Analyzer().analyze(Priority, WHERE)
    assert isinstance(node, EnumNode)
    assert (shape(node), node.values) == (("enum", Priority), [1, 2])


def test_a_list_is_a_list_node() -> None:
    node = Analyzer().analyze(list[int], WHERE)
    assert isinstance(node, ListNode)
    assert (shape(node), node.unique) == (("list", list, INTEGER), False)


def test_a_set_is_a_list_node_of_unique_items() -> None:
    node = Analyzer().analyze(set[str], WHERE)
    assert isinstance(node, ListNode)
    assert (shape(node), node.unique) == (("list", set, STRING), True)


def test_a_frozenset_is_a_list_node_of_unique_items() -> None:
    node = Analyzer().analyze(frozenset[str], WHERE)
    assert isinstance(node, ListNode)
    assert (shape(node), node.unique) == (("list", frozenset, STRING), True)


def test_a_set_of_frozen_dataclasses_is_allowed() -> None:
    assert analyze(set[FrozenPoint]) == (
        "list",
        set,
        ("object", FrozenPoint, "dataclass", "", (("x", INTEGER, True, MISSING, ""), ("y", INTEGER, True, MISSING, ""))),
    )


@pytest.mark.parametrize(
    ("hint", "container"),
    [(abc.Sequence[int], list), (abc.MutableSequence[int], list), (abc.Iterable[int], list), (abc.Set[int], frozenset), (abc.MutableSet[int], set)],
)
def test_abstract_collections_are_read_as_the_concrete_container_built_for_them(hint: Any, container: type) -> None:
    assert analyze(hint) == ("list", container, INTEGER)


def test_a_fixed_tuple_is_a_tuple_node_with_one_node_per_position() -> None:
    assert analyze(tuple[int, str, bool]) == ("tuple", (INTEGER, STRING, BOOLEAN))


def test_a_variadic_tuple_is_a_list_node_that_builds_a_tuple() -> None:
    assert analyze(tuple[float, ...]) == ("list", tuple, NUMBER)


@pytest.mark.parametrize("hint", [dict[str, int], abc.Mapping[str, int], abc.MutableMapping[str, int], dict[Tag, int]])
def test_a_dict_with_str_keys_is_a_dict_node_of_its_values(hint: Any) -> None:
    assert analyze(hint) == ("dict", None, INTEGER)


def test_a_dict_with_literal_or_str_enum_keys_keeps_its_key_type() -> None:
    assert (analyze(dict[Literal["a", "b"], int]), analyze(dict[Color, int])) == (
        ("dict", ("literal", ("a", "b")), INTEGER),
        ("dict", ("enum", Color), INTEGER),
    )


def test_a_dataclass_is_an_object_with_required_and_optional_fields_and_their_descriptions() -> None:
    assert analyze(Order) == (
        "object",
        Order,
        "dataclass",
        "An order of some items.",
        (
            ("customer", STRING, True, MISSING, "Who ordered."),
            ("sku", STRING, True, MISSING, "Stock keeping unit."),
            ("note", STRING, False, "", "Anything the customer added."),
            ("tags", ("list", list, STRING), False, MISSING, ""),
            ("placed", ("special", "date"), False, dt.date(2026, 7, 28), ""),
            ("status", ("enum", Status), False, Status.OPEN, ""),
        ),
    )


def test_a_total_typeddict_requires_every_key() -> None:
    assert analyze(Movie) == (
        "object",
        Movie,
        "typeddict",
        "A film.",
        (("title", STRING, True, MISSING, "Its title."), ("year", INTEGER, True, MISSING, "")),
    )


def test_a_typeddict_with_total_false_requires_only_its_required_keys() -> None:
    assert analyze(FiltersWithRequiredLimit) == (
        "object",
        FiltersWithRequiredLimit,
        "typeddict",
        "",
        (("search", STRING, False, MISSING, ""), ("limit", INTEGER, True, MISSING, "")),
    )


def test_a_typeddict_key_marked_not_required_is_optional() -> None:
    assert analyze(Draft) == (
        "object",
        Draft,
        "typeddict",
        "",
        (("title", STRING, True, MISSING, ""), ("body", STRING, False, MISSING, "")),
    )


def test_a_namedtuple_is_an_object_whose_defaulted_fields_are_optional() -> None:
    assert analyze(Coord) == (
        "object",
        Coord,
        "namedtuple",
        "A point on a map.",
        (("lat", NUMBER, True, MISSING, "Latitude."), ("lon", NUMBER, False, 0.0, "")),
    )


@pytest.mark.parametrize(
    ("hint", "kind"),
    [
        (dt.datetime, "datetime"),
        (dt.date, "date"),
        (dt.time, "time"),
        (uuid.UUID, "uuid"),
        (decimal.Decimal, "decimal"),
        (pathlib.Path, "path"),
        (pathlib.PurePath, "path"),
        (bytes, "bytes"),
    ],
)
def test_values_carried_as_strings_are_special_nodes(hint: Any, kind: str) -> None:
    assert analyze(hint) == ("special", kind)


def test_a_newtype_is_read_as_the_type_it_wraps() -> None:
    assert (analyze(UserId), analyze(list[Tag])) == (INTEGER, ("list", list, STRING))


def test_annotated_with_a_string_is_a_description() -> None:
    assert analyze(Annotated[str, "The customer's name"]) == ("annotated", STRING, Field(description="The customer's name"))


def test_annotated_with_a_field_carries_its_constraints() -> None:
    constraints = Field("Rows to return", ge=1, gt=0, le=500, lt=501, multiple_of=5, min_length=1, max_length=3, pattern="^[0-9]+$")
    assert analyze(Annotated[int, constraints]) == ("annotated", INTEGER, constraints)


def test_several_annotations_are_merged_with_later_ones_winning() -> None:
    assert analyze(Annotated[int, "first", Field(ge=1, le=10), Field(le=5)]) == ("annotated", INTEGER, Field(description="first", ge=1, le=5))


def test_annotated_types_constraints_are_read_by_their_attributes() -> None:
    annotated_types = pytest.importorskip("annotated_types")
    hint = Annotated[str, annotated_types.MinLen(2), annotated_types.MaxLen(9), annotated_types.Interval(gt=0, le=5)]
    assert analyze(hint) == ("annotated", STRING, Field(min_length=2, max_length=9, gt=0, le=5))


def test_any_object_with_constraint_attributes_is_read_as_a_constraint() -> None:
    assert analyze(Annotated[int, Minimum(3)]) == ("annotated", INTEGER, Field(ge=3))


def test_annotated_metadata_rata_does_not_understand_leaves_the_type_as_it_is() -> None:
    assert analyze(Annotated[int, Thing()]) == INTEGER


def test_annotated_with_unhashable_examples_is_read() -> None:
    assert analyze(Annotated[list[str], Field(examples=(["a", "b"],))]) == ("annotated", ("list", list, STRING), Field(examples=(["a", "b"],)))


def test_a_recursive_dataclass_refers_to_its_own_node() -> None:
    node = Analyzer().analyze(TreeNode, WHERE)
    assert isinstance(node, ObjectNode)
    children = node.fields[1].node
    assert isinstance(children, ListNode)
    assert (shape(node), children.item is node) == (
        (
            "object",
            TreeNode,
            "dataclass",
            "A node of a tree.",
            (("name", STRING, True, MISSING, ""), ("children", ("list", list, ("recursion", TreeNode)), False, MISSING, "")),
        ),
        True,
    )


def test_mutually_recursive_dataclasses_refer_to_each_others_nodes() -> None:
    dept = Analyzer().analyze(Dept, WHERE)
    assert isinstance(dept, ObjectNode) and isinstance(dept.fields[1].node, ListNode)
    person = dept.fields[1].node.item
    assert isinstance(person, ObjectNode) and isinstance(person.fields[1].node, UnionNode)
    assert (shape(dept), person.fields[1].node.options[0] is dept) == (
        (
            "object",
            Dept,
            "dataclass",
            "",
            (
                ("name", STRING, True, MISSING, ""),
                (
                    "staff",
                    (
                        "list",
                        list,
                        (
                            "object",
                            Person,
                            "dataclass",
                            "",
                            (("name", STRING, True, MISSING, ""), ("dept", ("union", (("recursion", Dept), NULL)), False, None, "")),
                        ),
                    ),
                    True,
                    MISSING,
                    "",
                ),
            ),
        ),
        True,
    )


def test_an_analyzer_reads_each_class_once() -> None:
    analyzer = Analyzer()
    listed = analyzer.analyze(list[Point], WHERE)
    assert isinstance(listed, ListNode) and analyzer.analyze(Point, WHERE) is listed.item


def test_json_value_is_the_explicit_opt_in_to_any_json_value() -> None:
    assert (analyze(JsonValue), analyze(list[JsonValue]), analyze(dict[str, JsonValue]), analyze(Annotated[JsonValue, "Anything"])) == (
        ("any",),
        ("list", list, ("any",)),
        ("dict", None, ("any",)),
        ("annotated", ("any",), Field(description="Anything")),
    )


def test_a_command_is_read_into_its_parameters_and_return_type() -> None:
    def orders_store(ctx: Ctx, customer: str, lines: list[Point], note: Annotated[str, "A note"] = "", urgent: bool = False) -> Order | None:
        """Store an order.

        Args:
            customer: Who orders.
            urgent: Ship today.
        """

    spec = inspect_command(command(can="orders.create")(orders_store), Analyzer(), Ctx)
    point = ("object", Point, "dataclass", "", (("x", INTEGER, True, MISSING, ""), ("y", INTEGER, True, MISSING, "")))
    assert (
        spec.name,
        spec.can,
        spec.description,
        spec.ctx_param,
        [(p.name, shape(p.node), p.required, p.default, p.description) for p in spec.params],
        shape(spec.returns),
    ) == (
        "orders_store",
        "orders.create",
        "Store an order.",
        "ctx",
        [
            ("customer", STRING, True, None, "Who orders."),
            ("lines", ("list", list, point), True, None, ""),
            ("note", ("annotated", STRING, Field(description="A note")), False, "", ""),
            ("urgent", BOOLEAN, False, False, "Ship today."),
        ],
        ("union", (analyze(Order), NULL)),
    )


# --- refusals ------------------------------------------------------------------------------


def test_star_args_are_refused() -> None:
    def f(*args: int) -> None: ...

    assert refusal(f) == "command 'f', parameter 'args': *args cannot be a tool argument.\nName each argument, with its type, so the schema can list it."


def test_star_star_kwargs_are_refused() -> None:
    def f(**options: int) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'options': **options cannot be a tool argument.\nName each argument, with its type, so the schema can list it."
    )


def test_positional_only_parameters_are_refused() -> None:
    def f(x: int, /) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': positional-only parameters cannot be passed by name.\nRemove the '/' from the signature."


def test_a_parameter_without_a_type_hint_is_refused() -> None:
    def f(x) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': the parameter has no type hint.\nAnnotate it, e.g. `x: str`."


def test_a_command_without_a_return_type_is_refused() -> None:
    def f(x: int):
        return x

    assert refusal(f) == "command 'f': the function has no return type.\nAnnotate it (`-> None` if it returns nothing) so agents know what comes back."


def test_bare_any_is_refused() -> None:
    def f(x: Any) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'x': the type Any says nothing an agent can use.\n"
        "Give a concrete type, or use rata.JsonValue to accept any JSON value on purpose."
    )


def test_object_is_refused() -> None:
    def f(x: object) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'x': the type object says nothing an agent can use.\n"
        "Give a concrete type, or use rata.JsonValue to accept any JSON value on purpose."
    )


def test_any_returned_is_refused_as_the_return_type() -> None:
    def f() -> Any: ...

    assert refusal(f) == (
        "command 'f', return type: the type Any says nothing an agent can use.\n"
        "Give a concrete type, or use rata.JsonValue to accept any JSON value on purpose."
    )


def module_from_source(name: str, source: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A real module built from `source`, registered in sys.modules for the length of the test."""
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - the test's own source
    return module


def test_an_unresolvable_forward_reference_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    module = module_from_source(
        "forward_ref_commands",
        """
        from __future__ import annotations

        import rata


        @rata.command
        def lookup(x: Missing) -> None: ...
        """,
        monkeypatch,
    )
    with pytest.raises(CodegenError) as caught:
        rata.App("t", identifier="com.example.t").commands(module.lookup)
    assert str(caught.value) == (
        "command 'lookup', parameter 'x': the type 'Missing' could not be resolved (name 'Missing' is not defined).\n"
        "Import or define it at module level in the module the command lives in."
    )


def test_an_unresolvable_forward_reference_in_a_dataclass_field_names_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    module = module_from_source(
        "forward_ref_fields",
        """
        from __future__ import annotations

        from dataclasses import dataclass

        import rata


        @dataclass
        class Box:
            content: Missing


        @rata.command
        def pack(box: Box) -> None: ...
        """,
        monkeypatch,
    )
    with pytest.raises(CodegenError) as caught:
        rata.App("t", identifier="com.example.t").commands(module.pack)
    assert str(caught.value) == (
        "command 'pack', parameter 'box': Box, field 'content': the type 'Missing' could not be resolved (name 'Missing' is not defined).\n"
        "Import or define it at module level in the module the command lives in."
    )


def test_a_class_rata_does_not_know_is_refused() -> None:
    def f(x: Thing) -> None: ...

    assert refusal(f) == (
        f"command 'f', parameter 'x': rata does not know how to turn the class {Thing.__module__}.Thing into JSON.\n"
        "Make it a dataclass, TypedDict, NamedTuple or Enum."
    )


def test_a_dict_with_int_keys_is_refused() -> None:
    def f(x: dict[int, str]) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': dict keys of type int cannot be JSON object keys.\nJSON object keys are strings: use dict[str, T]."


def test_a_bare_dict_is_refused() -> None:
    def f(x: dict) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': a dict needs key and value types.\nWrite dict[str, T]."


def test_a_bare_list_without_an_item_type_is_refused() -> None:
    def f(x: list) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': list needs an item type.\nWrite list[T], e.g. list[str]."


def test_a_bare_tuple_without_item_types_is_refused() -> None:
    def f(x: tuple) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': an empty or bare tuple has no item types.\nWrite tuple[T, ...] or tuple[A, B]."


def test_an_enum_with_non_scalar_values_is_refused() -> None:
    def f(x: Shape) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'x': enum Shape.SQUARE has the value (1, 2), which is not a JSON string or number.\nGive the enum str or int values."
    )


def test_a_literal_of_bytes_is_refused() -> None:
    def f(x: Literal[b"raw"]) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': Literal value b'raw' is not a JSON scalar.\nUse str, int, float, bool or None values."


def test_a_type_variable_is_refused() -> None:
    def f(x: list[T]) -> None: ...

    assert refusal(f) == "command 'f', parameter 'x': the type variable ~T is not a concrete type.\nUse the concrete type."


def test_a_set_of_unhashable_items_is_refused() -> None:
    def f(x: set[Point]) -> None: ...

    assert refusal(f) == (
        f"command 'f', parameter 'x': the items of set[{Point.__module__}.Point] cannot be held in a Python set, as they are not hashable.\n"
        "Use list[T] instead, or make the items hashable (e.g. a frozen dataclass)."
    )


def test_a_refused_field_type_names_the_class_and_field() -> None:
    def f(x: list[Holder]) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'x' (Holder.payload): the type Any says nothing an agent can use.\n"
        "Give a concrete type, or use rata.JsonValue to accept any JSON value on purpose."
    )


def test_a_class_that_failed_is_read_again_and_refused_again() -> None:
    analyzer = Analyzer()
    messages = []
    for _ in range(2):
        with pytest.raises(CodegenError) as caught:
            analyzer.analyze(Holder, WHERE)
        messages.append(caught.value.message)
    assert messages == ["command 'f', parameter 'x' (Holder.payload): the type Any says nothing an agent can use."] * 2


def test_an_app_refuses_a_command_it_cannot_read() -> None:
    @command
    def f(x: object) -> None: ...

    with pytest.raises(CodegenError) as caught:
        rata.App("t", identifier="com.example.t").commands(f)
    assert caught.value.message == "command 'f', parameter 'x': the type object says nothing an agent can use."


def test_typing_forms_rata_cannot_express_are_refused() -> None:
    def f(x: typing.Callable[[int], int]) -> None: ...

    assert refusal(f) == (
        "command 'f', parameter 'x': the type Callable[[int], int] cannot be expressed as JSON Schema.\n"
        "Use str, int, float, bool, a dataclass, TypedDict, Enum, Literal, list, dict[str, T] or a union of them."
    )


def test_hints_that_name_classes_resolve_as_typing_resolves_them_and_others_take_the_full_reading():
    from rata.typemodel import _simple_hints, resolve_hints

    def fn(ctx, id, note, size, flag):
        """Hints written as strings, as `from __future__ import annotations` leaves them."""

    fn.__annotations__ = {"ctx": "Ctx", "id": "int", "note": "str | None", "size": int, "flag": "bool", "return": "None"}
    assert _simple_hints(fn) is None  # "str | None" is an expression: typing reads it
    fn.__annotations__["note"] = "str"
    assert _simple_hints(fn) == typing.get_type_hints(fn, include_extras=True)
    assert resolve_hints(fn, "x") == {"ctx": Ctx, "id": int, "note": str, "size": int, "flag": bool, "return": type(None)}
    fn.__annotations__["note"] = "NoSuchName"
    assert _simple_hints(fn) is None  # left to typing, so that the error names it
    with pytest.raises(CodegenError):
        resolve_hints(fn, "command 'x'")


# --- enum and Literal values: the schema lists exactly what validation accepts --------------------


def test_a_literal_or_enum_value_with_invisible_characters_is_refused_naming_it() -> None:
    import enum

    from rata.errors import CodegenError
    from rata.typemodel import Analyzer

    class Mode(enum.Enum):
        SAFE = "safe"
        SNEAKY = "safe\u202e"

    for hint, named in ((Literal["a", "to\u200bdo"], "Literal value 'to\\u200bdo'"), (Mode, "enum Mode.SNEAKY has the value 'safe\\u202e'")):
        with pytest.raises(CodegenError) as refused:
            Analyzer().analyze(hint, "command 'f', parameter 'x'")
        assert named in refused.value.message and "agent cannot see" in refused.value.message
        assert "Use only visible characters" in (refused.value.hint or "")
