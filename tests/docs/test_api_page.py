"""docs/api.md, the API reference: every public name has an entry, each entry's signature is the real one, and each
example runs with the output the page shows.

An entry is a heading naming the object in backticks (`App`, `App.commands`, `AgentClient.call`) followed by a
```text block whose first line is its signature, rendered here from `inspect.signature`, so a change to the code
fails this test until the page says the same. The ```pycon blocks are doctests, run in page order in one namespace
(a scratch folder as the working folder and as RATA_HOME; docs/examples/api on the import path).
"""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import rata
from rata._record import Record

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "api.md"
EXAMPLES = ROOT / "docs" / "examples" / "api"

EXTRA = {"AgentClient": "rata.testing", "ToolResult": "rata.testing", "Listen": "rata.testing", "main_for": "rata.cli.appmain"}
"""Public names outside `rata.__all__` that the page documents, and the module each lives in."""

APP_MEMBERS = ["call", "dispatch", "migrate", "database", "close", "folder", "root", "subscribe", "on_surface_change", "surface_changed"]
"""App's members a user needs besides its builder methods (those return the App, and are found by their annotation)."""

PENDING: dict[str, str] = {}
"""A parameter the page documents that lands with another change (name -> parameter): while the code lacks it, the
entry is compared without it, and test_pending_parameters_have_landed says it is still missing. App's
migrate_on_start (issue 26, slice A) has landed."""


# --- reading the page ---------------------------------------------------------------------------------------------

HEADING = re.compile(r"^#{2,4} `([A-Za-z_][\w.]*)`\s*$")


def entries() -> dict[str, tuple[int, str]]:
    """Each entry's name -> (line, the first line of the ```text block after its heading)."""
    lines = PAGE.read_text(encoding="utf-8").split("\n")
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(lines, 1):
        heading = HEADING.match(line)
        if heading is None:
            continue
        name = heading.group(1)
        assert name not in found, f"api.md:{number}: a second entry for {name}"
        rest = (text for text in lines[number:] if text.strip())
        fence = next(rest)
        assert fence == "```text", f"api.md:{number}: the entry for {name} needs a ```text block with its signature, first"
        found[name] = (number, next(rest))
    return found


def doctest_blocks() -> list[tuple[int, str]]:
    text = PAGE.read_text(encoding="utf-8")
    return [(text[: match.start()].count("\n") + 1, match.group(1)) for match in re.finditer(r"^```pycon\n(.*?)^```$", text, flags=re.S | re.M)]


# --- the real objects ---------------------------------------------------------------------------------------------


def resolve(name: str) -> tuple[Any, Any]:
    """(the class or module it is read from, the object as found in the class's __dict__ or the module)."""
    first, *rest = name.split(".")
    if first in EXTRA:
        import importlib

        owner: Any = importlib.import_module(EXTRA[first])
    else:
        assert first in rata.__all__, f"{first} is neither in rata.__all__ nor in EXTRA"
        owner = rata
    value = getattr(owner, first)
    for part in rest:
        owner, value = value, inspect.getattr_static(value, part)
    return owner, value


def annotation(value: Any) -> str:
    return value if isinstance(value, str) else inspect.formatannotation(value)


def record_signature(cls: type[Record]) -> inspect.Signature:
    """A `rata._record.Record` takes its slots, in order, by position or by name."""
    hints = {k: v for klass in reversed(cls.__mro__) for k, v in getattr(klass, "__annotations__", {}).items()}
    empty = inspect.Parameter.empty
    return inspect.Signature(
        [
            inspect.Parameter(slot, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hints.get(slot, empty), default=cls._defaults.get(slot, empty))
            for slot in cls.__slots__
        ]
    )


def default_text(cls: Any, parameter: inspect.Parameter) -> str:
    if parameter.default is dataclasses._HAS_DEFAULT_FACTORY:  # type: ignore[attr-defined] - dataclasses' private marker for a default_factory
        factory = next(f.default_factory for f in dataclasses.fields(cls) if f.name == parameter.name)
        assert callable(factory)
        return repr(factory())
    return repr(parameter.default)


def parameters(signature: inspect.Signature, owner: Any = None) -> str:
    out: list[str] = []
    kinds = inspect.Parameter
    star = False
    for index, p in enumerate(signature.parameters.values()):
        if p.kind is kinds.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        text = {kinds.VAR_POSITIONAL: "*", kinds.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.kind is kinds.VAR_POSITIONAL:
            star = True
        if p.annotation is not p.empty:
            text += f": {annotation(p.annotation)}"
        if p.default is not p.empty:
            text += f" = {default_text(owner, p)}"
        out.append(text)
        following = list(signature.parameters.values())[index + 1 :]
        if p.kind is kinds.POSITIONAL_ONLY and (not following or following[0].kind is not kinds.POSITIONAL_ONLY):
            out.append("/")
    return ", ".join(out)


def public(signature: inspect.Signature) -> inspect.Signature:
    """The signature without its private parameters (a leading underscore: `AgentClient`'s transport)."""
    return signature.replace(parameters=[p for p in signature.parameters.values() if not p.name.startswith("_")])


def without_self(signature: inspect.Signature) -> inspect.Signature:
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def render(name: str) -> str:
    """The signature line the entry must show."""
    owner, value = resolve(name)
    if isinstance(value, property):
        assert value.fget is not None
        returns = inspect.signature(value.fget).return_annotation
        return f"{name}: {annotation(returns)}"
    if isinstance(value, (classmethod, staticmethod)):
        function = value.__func__
        signature = inspect.signature(function)
        signature = without_self(signature) if isinstance(value, classmethod) else signature
        return f"{name}({parameters(signature)}) -> {annotation(signature.return_annotation)}"
    if inspect.isclass(value):
        signature = record_signature(value) if issubclass(value, Record) and value.__init__ is Record.__init__ else inspect.signature(value)
        return f"{name}({parameters(public(signature), value)})"
    if inspect.isfunction(value):
        signature = inspect.signature(value)
        if inspect.isclass(owner):
            signature = without_self(signature)
        return f"{name}({parameters(signature)}) -> {annotation(signature.return_annotation)}"
    if isinstance(value, str):
        return f"{name}: str"
    return f"{name} = {value!r}"


def pending_removed(name: str, documented: str) -> str:
    """The documented line without a parameter that has not landed yet (see PENDING)."""
    parameter = PENDING.get(name)
    if parameter is None or f"{parameter}:" in render(name):
        return documented
    return re.sub(rf",\s*{parameter}: [^,)]*", "", documented)


# --- the tests ----------------------------------------------------------------------------------------------------


def builders(cls: type) -> list[str]:
    """The methods that return the object itself: `App.commands`, `Mcp.confirm`, ..."""
    return [
        f"{cls.__name__}.{name}"
        for name, value in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(value) and inspect.signature(value).return_annotation in (cls.__name__, cls)
    ]


def required() -> list[str]:
    from rata.testing import AgentClient

    names = [name for name in rata.__all__ if name != "__version__"] + ["__version__"] + list(EXTRA)
    names += builders(rata.App) + [f"App.{name}" for name in APP_MEMBERS] + builders(rata.Mcp)
    names += [f"Ctx.{name}" for name in vars(rata.Ctx) if not name.startswith("_")]
    names += [f"AgentClient.{name}" for name in vars(AgentClient) if not name.startswith("_")]
    return names


def test_every_public_name_has_an_entry() -> None:
    documented = entries()
    missing = [name for name in required() if name not in documented]
    assert not missing, f"docs/api.md has no entry for {', '.join(missing)}"


@pytest.mark.parametrize("name", list(entries()))
def test_the_entry_shows_the_real_signature(name: str) -> None:
    line, documented = entries()[name]
    assert pending_removed(name, documented) == render(name), f"api.md:{line}: the page shows\n  {documented}\nbut the code has\n  {render(name)}"


def test_pending_parameters_have_landed() -> None:
    missing = [f"{name}({parameter}=...)" for name, parameter in PENDING.items() if f"{parameter}:" not in render(name)]
    if missing:
        pytest.xfail(f"documented, but not in the code yet (issue 26, slice A): {', '.join(missing)}")


def test_the_examples_run_and_print_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATA_HOME", str(tmp_path / "home"))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for module in [name for name in sys.modules if name in {path.stem for path in EXAMPLES.glob("*.py")}]:
        monkeypatch.delitem(sys.modules, module)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.REPORT_ONLY_FIRST_FAILURE)
    namespace: dict[str, Any] = {"__name__": "api_page"}
    blocks = doctest_blocks()
    assert blocks, "docs/api.md has no examples"
    try:
        for line, text in blocks:
            test = parser.get_doctest(text, namespace, f"docs/api.md:{line}", str(PAGE), line)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # a DocTest runs in a copy of the namespace it is given
    finally:
        for value in namespace.values():
            if isinstance(value, rata.App):
                value.close()
        for path in EXAMPLES.glob("*.py"):
            sys.modules.pop(path.stem, None)  # the page's app, imported from the scratch RATA_HOME's run, is not left behind
    assert runner.failures == 0, f"{runner.failures} of the examples in docs/api.md failed (the output above shows which)"

