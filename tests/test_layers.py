"""The layering rules, checked: nothing imports the CLI, and server paths stay light."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "rata"
LAYERS = {"cli": 4, "dev_server": 3, "testing": 3, "running_app": 3, "debug_build": 3, "mcp": 2, "install": 2, "windows": 1, "codegen": 1}


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
        for imported in imports(path):
            if imported.startswith("rata.") and layer_of(imported) > own:
                problems.append(f"{module} imports {imported}")
    assert problems == []


def test_only_the_cli_prints():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if "cli" in path.relative_to(ROOT).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.name}:{node.lineno}")
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
