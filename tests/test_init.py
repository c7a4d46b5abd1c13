"""`rata/__init__.py`, the one public face: its three lists of the public names (the checker's imports, the lazy
table, `__all__`) agree, every name resolves to the object its module defines, and importing rata loads none of them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import rata

SOURCE = Path(rata.__file__)


def checker_imports() -> dict[str, str]:
    """name -> module of the `if TYPE_CHECKING:` imports, as a type checker reads them."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING")
    return {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}


def test_the_checkers_imports_the_lazy_table_and_all_name_the_same_public_names():
    table = rata._WHERE  # the lazy table
    assert checker_imports() == table
    assert sorted(name for name in rata.__all__ if name != "__version__") == sorted(table)


def test_every_public_name_is_the_object_its_module_defines():
    import importlib

    for name, module in rata._WHERE.items():
        assert getattr(rata, name) is getattr(importlib.import_module(module), name), name


def test_importing_rata_loads_no_public_name_until_one_is_used():
    code = "import sys, rata; print(sorted(m for m in sys.modules if m.startswith('rata.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
