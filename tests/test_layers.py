"""The layering rules, checked: nothing imports the CLI, and server paths stay light."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "rata"
LAYERS = {
    "cli": 4, "dev_server": 3, "testing": 3, "running_app": 3, "debug_build": 3,
    "mcp": 2, "install": 2, "scaffold": 2, "shipping": 2, "windows": 1, "codegen": 1,
}  # scaffold writes a project's .mcp.json by install's rule


def layer_of(module: str) -> int:
    parts = module.split(".")
    if parts[0] != "rata":
        return -1
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_no_module_imports_a_layer_above_its_own():
    problems = []
    for path in ROOT.rglob("*.py"):
        if path.name == "__main__.py":
            continue  # `python -m rata` is the CLI's entry point
        module = "rata." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        own = layer_of(module.replace(".__init__", ""))
        problems += [f"{module} imports {imported}" for imported in imports(path) if imported.startswith("rata.") and layer_of(imported) > own]
    assert problems == []


def test_only_the_cli_prints():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if "cli" in path.relative_to(ROOT).parts:
            continue
        offenders += [
            f"{path.name}:{node.lineno}"
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
        ]
    assert offenders == []


def test_the_app_entry_point_and_core_import_no_heavy_libraries():
    code = (
        "import sys, json; import rata, rata.cli.appmain, rata.codegen.catalog, rata.mcp.surface, rata.loader; "
        "print(json.dumps(sorted(m for m in ('typer', 'rich', 'jsonschema', 'pygments', 'click') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_serving_an_app_on_stdio_imports_neither_logging_nor_pathlib():
    """What `crm --mcp` loads to answer its first request: start-up time is the budget that matters there."""
    code = (
        "import sys, io, json\n"
        "from rata.cli.appmain import serve_mcp\n"
        "from tests.mcp.lab import lab_app\n"
        "line = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list', 'params': {'_meta': {\n"
        "    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}}}})\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(line.encode() + b'\\n'))\n"
        "serve_mcp(lab_app())\n"
        "sys.stderr.write(json.dumps(sorted(m for m in ('logging', 'pathlib', 'typer', 'rich', 'jsonschema') if m in sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT.parent, timeout=60)
    assert result.returncode == 0, result.stderr
    assert '"tools"' in result.stdout
    assert result.stderr.strip().splitlines()[-1] == "[]"


def test_answering_from_a_manifest_loads_none_of_the_app_model():
    """What `crm --mcp` imports before its first answer when the manifest is good: the app loads on a thread."""
    code = (
        "import sys, json; import rata.cli.appmain, rata.mcp.manifest, rata.mcp.loading, rata.mcp.stdio; "
        "heavy = ('rata.app', 'rata.command_spec', 'rata.codegen.catalog', 'inspect', 'dataclasses', 'sqlite3', 'logging', 'pathlib', 'typer', 'rich'); "
        "print(json.dumps(sorted(m for m in heavy if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT.parent).stdout
    assert json.loads(out) == []


# --- no import cycles, and one type-only import idiom --------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every import inside rata/ between its modules: top-level, in functions, and type-only ones alike.

    `from rata.x import y` counts as an import of rata.x.y when y is a module, else of rata.x.
    A module's import of its own package (`from rata import ...` in rata/app.py) is not an edge:
    the package imports its submodules only lazily, on first use of a name.
    """
    modules = {module_name(path): path for path in ROOT.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                found = resolve(target) if target.startswith("rata") else None
                if found and found != name and not name.startswith(found + "."):
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_inside_rata_type_only_imports_included():
    graph = import_graph()
    assert "rata.context" in graph["rata.app"] and "rata.mcp.server" in graph["rata.mcp.stdio"]  # the graph sees imports
    assert cycles(graph) == []


def test_type_only_imports_use_one_idiom():
    """`TYPE_CHECKING = False` then `if TYPE_CHECKING:`: typing.TYPE_CHECKING's value, without importing typing on server paths."""
    offenders = []
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        if "TYPE_CHECKING" not in text:
            continue
        if re.search(r"^from typing import .*\bTYPE_CHECKING\b|typing\.TYPE_CHECKING\b(?! without)", text, re.M):
            offenders.append(f"{path.relative_to(ROOT)}: typing's TYPE_CHECKING")
        if "\nif TYPE_CHECKING:" in text and not re.search(r"^TYPE_CHECKING = False  # the type-only import idiom", text, re.M):
            offenders.append(f"{path.relative_to(ROOT)}: if TYPE_CHECKING without the module's TYPE_CHECKING = False")
    assert offenders == []
