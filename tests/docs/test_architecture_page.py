"""docs/architecture.md names modules, functions and tests: each one it names exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
DOTTED = re.compile(r"`(rata(?:\.\w+)+)`")
PATHS = re.compile(r"`((?:rata|tests)/[\w/.]*?)(?:::(\w+))?`")
MOVED = PAGE.split("## Module map")[1]  # the map's left column names what is gone


def resolve(dotted: str) -> object:
    """Import the longest module prefix of `dotted`, then walk the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(dotted)


def named_now() -> str:
    """The page without the module map's "before" column."""
    kept = [line.split("|")[2] if line.startswith("| `") and "|" in line[1:] and line in MOVED else line for line in PAGE.splitlines()]
    return "\n".join(kept)


def test_every_dotted_name_on_the_page_imports():
    names = sorted(set(DOTTED.findall(named_now())))
    assert len(names) > 15
    missing = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    assert missing == []


def test_every_path_and_test_on_the_page_exists():
    cited = PATHS.findall(named_now())
    assert len(cited) > 15
    missing = []
    for path, test in cited:
        file = ROOT / path
        if not file.exists():
            missing.append(path)
        elif test and not re.search(rf"^\s*(?:async )?def {test}\(", file.read_text(encoding="utf-8"), re.M):
            missing.append(f"{path}::{test}")
    assert missing == []


GONE = [
    "rata/command.py",
    "rata/running.py",
    "rata/mcp/running.py",
    "rata/mcp_dev",
    "rata/devtools",
    "rata/mcp/install.py",
    "rata/mcp/clients.py",
    "rata/mcp/jsonc.py",
]


def test_what_the_module_map_says_was_moved_away_is_gone():
    for path in GONE:
        assert f"`{path}`" in MOVED or f"`{path}/`" in MOVED, f"the module map does not list {path}"
        assert not (ROOT / path).exists(), f"{path} is listed as moved but is still there"


MEMBER = re.compile(r"`([A-Z]\w*)\.(\w+)(?:\(\))?`")


def classes_by_name() -> dict[str, list[type]]:
    """Every class rata's modules define, by name (several modules may define one name)."""
    import inspect
    import pkgutil

    import rata

    found: dict[str, list[type]] = {}
    for info in pkgutil.walk_packages(rata.__path__, "rata."):
        if info.name in ("rata.__main__",):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (the desktop toolkit) not installed here
            continue
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == info.name:
                found.setdefault(value.__name__, []).append(value)
    return found


def test_every_class_member_the_page_names_exists():
    """`Server._run`, `App.dispatch`, ...: a class rata defines, and a member of it (a method, property or attribute)."""
    cited = sorted(set(MEMBER.findall(named_now())))
    assert len(cited) > 10
    classes = classes_by_name()
    missing = []
    for owner, member in cited:
        candidates = classes.get(owner, [])
        if not any(has_member(cls, member) for cls in candidates):
            missing.append(f"{owner}.{member}")
    assert missing == []


def has_member(cls: type, member: str) -> bool:
    """A class attribute, a slot, an annotated field, or an attribute its methods set on self."""
    import inspect

    if hasattr(cls, member) or member in getattr(cls, "__slots__", ()) or member in getattr(cls, "__annotations__", {}):
        return True
    return re.search(rf"\bself\.{member}\s*(?::[^=]+)?=(?!=)", inspect.getsource(cls)) is not None
