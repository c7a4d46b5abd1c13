"""Hot-path tricks stay in the hot path: each one where a call passes, with the benchmark that pays for it.

Private CPython APIs (``json.encoder.c_make_encoder``, ``sys._getframe``, ...), hand-written
``__init__`` on a `Record` (rather than its generic loop) and ``object.__setattr__`` /
``object.__new__`` are allowed only in the modules a ``tools/call`` passes through, from the
line read to the line written (`HOT_PATH`), and each use carries a comment naming the
benchmark that justifies it, on its line or heading its block: ``# hot path: bench/run.py --only
server (throughput)``.
Everywhere else the plain version is written.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RATA = REPO / "rata"

HOT_PATH = frozenset({
    "rata/lines.py",  # every answer written
    "rata/mcp/stdio.py",  # every line read
    "rata/mcp/wire.py",  # every message parsed and every answer encoded
    "rata/mcp/server.py",  # every request routed
    "rata/mcp/methods/tools.py",  # every tools/call and its result's text
    "rata/app.py",  # every command dispatched and its SQL
    "rata/dispatch.py",  # every call's origin and request
    "rata/convert.py",  # every result turned into JSON (to_json)
    "rata/logs.py",  # every call's log line
})

JUSTIFIED = re.compile(r"#\s*hot path: (bench/\S+\.py)\b.*\S")
JSON_INTERNALS = ("json.encoder", "json.decoder", "json.scanner")
JSON_PUBLIC = frozenset({"JSONEncoder", "JSONDecoder", "JSONDecodeError"})
PUBLIC_UNDERSCORED = frozenset({"os._exit"})  # documented, in spite of the underscore


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names and attributes (and ``getattr(a.b, "c")``), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    ):
        base = _dotted(node.args[0])
        return None if base is None else f"{base}.{node.args[1].value}"
    return None


def _private_api(name: str, modules: set[str]) -> bool:
    """Whether `name` (``module.attr...``) reaches into CPython's private parts."""
    root = name.split(".")[0]
    if root not in modules or name in PUBLIC_UNDERSCORED:
        return False
    for internal in JSON_INTERNALS:
        if name.startswith(internal + "."):
            return name[len(internal) + 1:].split(".")[0] not in JSON_PUBLIC
    return any(_private(part) for part in name.split(".")[1:])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def tricks(source: str) -> list[tuple[int, str]]:
    """(line, what) for each hot-path trick in `source`."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to imported modules
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.asname or alias.name.split(".")[0])
                if any(_private(part) for part in alias.name.split(".")) and not alias.name.startswith("rata"):
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and not node.module.startswith("rata"):
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if _private(node.module.split(".")[0]) or _private_api(name, {node.module.split(".")[0]}):
                    found.append((node.lineno, name))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Call)):
            name = _dotted(node)
            if name is not None and _private_api(name, modules):
                found.append((node.lineno, name))
            if isinstance(node, ast.Call) and (called := _dotted(node.func)) in ("object.__setattr__", "object.__new__"):
                found.append((node.lineno, called))
        elif isinstance(node, ast.ClassDef) and any(_dotted(base) == "Record" for base in node.bases):
            found += [
                (item.lineno, f"{node.name}.__init__ written by hand, bypassing Record's")
                for item in node.body
                if isinstance(item, ast.FunctionDef) and item.name == "__init__" and not _calls_super_init(item)
            ]
    return sorted(set(found))


def _calls_super_init(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call) and _dotted(node.func) in ("Record.__init__",)
        or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call) and _dotted(node.func.value.func) == "super"
        for node in ast.walk(function)
    )


def _justification(lines: list[str], lineno: int) -> str | None:
    """The bench named by a ``# hot path: bench/...`` comment on the trick's line or above it in its block (up to a blank line)."""
    index = lineno - 1
    while index >= 0 and lines[index].strip():
        match = JUSTIFIED.search(lines[index])
        if match:
            return match.group(1)
        index -= 1
    return None


def _all_tricks() -> list[tuple[str, int, str, str | None]]:
    found = []
    for path in sorted(RATA.rglob("*.py")):
        module = path.relative_to(REPO).as_posix()
        if module == "rata/_record.py":
            continue  # Record itself: its generic loop is the plain version
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for lineno, what in tricks(source):
            found.append((module, lineno, what, _justification(lines, lineno)))
    return found


def test_the_scanner_sees_each_kind_of_trick():
    source = (
        "import json, sys\n"
        "from json.decoder import scanstring\n"
        "from rata._record import Record\n"
        "ENCODER = json.encoder.c_make_encoder\n"
        "MAYBE = getattr(json.encoder, 'c_make_encoder', None)\n"
        "frame = sys._getframe(1)\n"
        "PLAIN = json.JSONEncoder(), sys.getrecursionlimit()\n"
        "class Point(Record):\n"
        "    __slots__ = ('x',)\n"
        "    def __init__(self, x):\n"
        "        object.__setattr__(self, 'x', x)\n"
        "class Checked(Record):\n"
        "    __slots__ = ('x',)\n"
        "    def __init__(self, x):\n"
        "        super().__init__(x)\n"
    )
    assert [what for _, what in tricks(source)] == [
        "json.decoder.scanstring",
        "json.encoder.c_make_encoder",
        "json.encoder.c_make_encoder",
        "sys._getframe",
        "Point.__init__ written by hand, bypassing Record's",
        "object.__setattr__",
    ]


def test_hot_path_tricks_are_only_in_the_hot_path_each_with_the_benchmark_that_justifies_it():
    misplaced = [f"{module}:{lineno}: {what}" for module, lineno, what, _ in _all_tricks() if module not in HOT_PATH]
    unjustified = [
        f"{module}:{lineno}: {what}" for module, lineno, what, bench in _all_tricks() if module in HOT_PATH and bench is None
    ]
    assert misplaced == [], "outside the hot path: write the plain version"
    assert unjustified == [], "in the hot path: add `# hot path: bench/<script>.py ... (what it measured)` on the line or just above it"


def test_every_benchmark_named_as_a_justification_exists():
    named = {bench.split()[0] for _, _, _, bench in _all_tricks() if bench is not None}
    assert named and all((REPO / bench).is_file() for bench in named), named


def test_the_hot_path_names_modules_that_exist():
    assert [module for module in HOT_PATH if not (REPO / module).is_file()] == []
