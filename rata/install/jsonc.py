"""A small comment-preserving JSONC editor: read a file, set one server, leave every other byte.

`loads` reads JSON with ``//`` and ``/* */`` comments and trailing commas. `set_server`
replaces the value text of ``TOP.NAME`` (or inserts the member) and returns the new text;
everything outside that span, comments and formatting included, is kept as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
MAX_DEPTH = 256  # objects and arrays nested deeper than this are refused, not parsed recursively

_read_value = json.JSONDecoder(strict=True).raw_decode


class JsoncError(ValueError):
    """The text is not JSON (with comments); `line` and `column` say where."""

    def __init__(self, message: str, text: str, pos: int) -> None:
        self.line = text.count("\n", 0, pos) + 1
        self.column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{message} at line {self.line}, column {self.column}")


@dataclass
class Node:
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)  # objects only

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None


@dataclass
class Member:
    key: str
    key_start: int
    node: Node


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.depth = 0

    def fail(self, message: str) -> JsoncError:
        return JsoncError(message, self.text, self.i)

    def skip(self) -> None:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in " \t\r\n\ufeff":
                self.i += 1
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif text.startswith("/*", self.i):
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.i = end + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("unexpected end of text")
        c = self.text[self.i]
        start = self.i
        if c in "{[":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.fail(f"objects and arrays nested more than {MAX_DEPTH} deep")
            node = self.obj() if c == "{" else self.array()
            self.depth -= 1
            return node
        if c == '"':
            value, self.i = self.string()
            return Node(start, self.i, value)
        match = _LITERAL.match(self.text, self.i)
        if not match:
            raise self.fail("expected a value")
        try:
            value = json.loads(match.group())
        except ValueError:  # Python reads at most 4,300 digits of an integer
            raise self.fail(f"a number of {len(match.group())} characters, too long to read") from None
        self.i = match.end()
        return Node(start, self.i, value)

    def string(self) -> tuple[str, int]:
        try:
            return _read_value(self.text, self.i)  # at a '"': a JSON string, control characters refused
        except json.JSONDecodeError as error:
            self.i = error.pos
            raise self.fail(error.msg) from None

    def obj(self) -> Node:
        node = Node(self.i, -1, {})
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("}", self.i):
                self.i += 1
                node.end = self.i
                return node
            if not self.text.startswith('"', self.i):
                raise self.fail("expected a key in double quotes")
            key_start = self.i
            key, self.i = self.string()
            self.skip()
            if not self.text.startswith(":", self.i):
                raise self.fail("expected ':'")
            self.i += 1
            child = self.value()
            node.members.append(Member(key, key_start, child))
            node.value[key] = child.value
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("}", self.i):
                raise self.fail("expected ',' or '}'")

    def array(self) -> Node:
        node = Node(self.i, -1, [])
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("]", self.i):
                self.i += 1
                node.end = self.i
                return node
            child = self.value()
            node.value.append(child.value)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise self.fail("expected ',' or ']'")


def parse(text: str) -> Node:
    parser = _Parser(text)
    node = parser.value()
    parser.skip()
    if parser.i != len(text):
        raise parser.fail("extra text after the value")
    return node


def loads(text: str) -> Any:
    """The value of a JSONC text (comments and trailing commas allowed)."""
    return parse(text).value


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _render(value: Any, indent: str, unit: str, eol: str = "\n") -> str:
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (read from a "\udfff" escape) stays an escape
            text = json.dumps(value, indent=unit)
    lines = text.split("\n")
    return eol.join([lines[0], *(indent + line for line in lines[1:])])


def line_break(text: str) -> str:
    """The text's line break: CRLF if most of its lines end so, else LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def _unit(text: str, root: Node) -> str:
    for member in root.members:
        indent = _line_indent(text, member.key_start)
        if indent and text[text.rfind("\n", 0, member.key_start) + 1 : member.key_start].strip() == "":
            return indent
    return "  "


def _insert(text: str, obj: Node, key: str, value: Any, unit: str, eol: str) -> str:
    member_text = f"{json.dumps(key, ensure_ascii=False)}: "
    if obj.members:
        last = obj.members[-1]
        indent = _line_indent(text, last.key_start)
        at = last.node.end
        cursor = at
        while cursor < len(text) and text[cursor] in " \t":
            cursor += 1
        comma = cursor < len(text) and text[cursor] == ","
        after_comma = cursor + 1
        if comma:
            cursor += 1
            while cursor < len(text) and text[cursor] in " \t":
                cursor += 1
        if text.startswith("//", cursor):  # keep a comment that ends the last member's line on that line
            end = text.find("\n", cursor)
            cursor = len(text) if end < 0 else end
            if text[cursor - 1 : cursor] == "\r":
                cursor -= 1
        else:
            cursor = after_comma if comma else at
        new = f"{eol}{indent}{member_text}{_render(value, indent, unit, eol)}"
        if comma:
            return text[:cursor] + new + "," + text[cursor:]
        return text[:at] + "," + text[at:cursor] + new + text[cursor:]
    outer = _line_indent(text, obj.start)
    inner = outer + unit
    body = f"{eol}{inner}{member_text}{_render(value, inner, unit, eol)}{eol}{outer}"
    return text[: obj.start + 1] + body + text[obj.start + 1 :]


def set_server(text: str, top: str, name: str, value: Any) -> str:
    """`text` with ``root[top][name] = value``, changing nothing else.

    Raises:
        JsoncError: the text is not JSON(C), or its root or ``top`` is not an object.
    """
    root = parse(text)
    if not isinstance(root.value, dict):
        raise JsoncError("the file's top level is not an object", text, root.start)
    unit = _unit(text, root)
    eol = line_break(text)
    holder = root.member(top)
    if holder is None:
        new = _insert(text, root, top, {name: value}, unit, eol)
    elif not isinstance(holder.node.value, dict):
        raise JsoncError(f"{top!r} is not an object", text, holder.node.start)
    else:
        current = holder.node.member(name)
        if current is None:
            new = _insert(text, holder.node, name, value, unit, eol)
        else:
            indent = _line_indent(text, current.key_start)
            new = text[: current.node.start] + _render(value, indent, unit, eol) + text[current.node.end :]
    expected = dict(root.value)
    expected[top] = {**(expected.get(top) or {}), name: value}
    if loads(new) != expected:  # a guard: the edit must change exactly one member
        raise JsoncError(f"could not insert {name!r} safely", text, 0)
    return new
