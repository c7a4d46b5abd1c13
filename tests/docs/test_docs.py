"""The user documentation in docs/*.md, checked against the code it describes.

Each checked block in a page is preceded by an HTML comment, a *marker*, on its own line:

``<!-- file: PATH -->``
    The next fenced block is byte-identical to PATH (relative to the repository root).
    Every ```python block must have one, so every Python example is a real file.
``<!-- catalog: APP [PATH] -->``
    The next ```json block equals part of ``build_catalog(APP).to_dict()``. APP is anything
    ``--app`` accepts, relative to the repository root. PATH walks into it with ``/``; in a
    list, a segment picks the item with that ``name`` (or ``uri``).
``<!-- console: dir=DIR [as=SHOWN] [session=NAME] [columns=N] -->``
    The next ```console block is a shell transcript. DIR is copied to a temporary folder and
    each ``$ command`` runs there in bash, stdout and stderr together, with the venv's
    ``rata`` and ``python`` first on PATH. The output must match the lines that follow the
    command (trailing spaces ignored; ``...`` matches any text; ten dots or more are literal). ``echo $?`` shows the
    previous command's exit code. ``export RATA_HOME=X`` points RATA_HOME at a fresh
    temporary folder, which the output shows as X; the copy of DIR is shown as SHOWN.
    Blocks of one page with the same session share the folder and environment, in order.
``<!-- schema-table: MODULE -->``
    The next table's rows are ``| `type` | `schema` | ... |``: the type, evaluated with
    MODULE's names, gives that JSON Schema as a command's outputSchema.
``<!-- ability-table -->``, ``<!-- lint-rules -->``, ``<!-- exit-codes -->``, ``<!-- app-forms: DIR -->``
    Tables checked against the code; see the tests below.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest

from rata import Field

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
PAGES = sorted(DOCS.glob("*.md"))
EXPECTED_PAGES = {"index.md", "getting-started.md", "commands-and-types.md", "mcp-inspect.md", "shipping.md"}
VENV_BIN = Path(sys.executable).parent
DEFAULT_COLUMNS = 100
SUBPROCESS_TIMEOUT = 120

MARKER = re.compile(r"^<!--\s*([a-z][a-z-]*)(?::\s*(.*?))?\s*-->\s*$")
FENCE_OPEN = re.compile(r"^```([A-Za-z0-9_-]*)\s*$")
IGNORED_IN_COPIES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.bak", "rata.catalog.json", "mcp-surface.json", "generated")


# --- reading the pages ------------------------------------------------------------------------


@dataclass
class Block:
    """A fenced block or a table, with the marker before it (if any)."""

    page: Path
    line: int  # 1-based line of the opening fence or the table's first row
    kind: str  # "fence" or "table"
    lang: str = ""
    text: str = ""  # a fence's content, each line ending in "\n"
    rows: list[list[str]] = field(default_factory=list)  # a table's body rows, cells stripped
    marker: str | None = None
    arg: str = ""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def read_page(page: Path) -> list[Block]:
    """Every fenced block and table of a page, each with the marker right before it."""
    lines = page.read_bytes().decode("utf-8").split("\n")
    blocks: list[Block] = []
    pending: tuple[str, str, int] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        fence = FENCE_OPEN.match(line)
        if marker:
            assert pending is None, f"{page.name}:{pending[2]}: marker {pending[0]!r} is not followed by a block"
            pending = (marker.group(1), marker.group(2) or "", i + 1)
            i += 1
            continue
        if fence:
            start = i
            i += 1
            content: list[str] = []
            while i < len(lines) and lines[i] != "```":
                content.append(lines[i])
                i += 1
            assert i < len(lines), f"{page.name}:{start + 1}: the fence is never closed"
            block = Block(page, start + 1, "fence", lang=fence.group(1), text="".join(c + "\n" for c in content))
            i += 1
        elif line.startswith("|"):
            start = i
            table: list[str] = []
            while i < len(lines) and lines[i].startswith("|"):
                table.append(lines[i])
                i += 1
            assert len(table) >= 2 and set(table[1].replace("|", "").strip()) <= set("-: "), f"{page.name}:{start + 1}: not a table"
            block = Block(page, start + 1, "table", rows=[split_row(row) for row in table[2:]])
        else:
            if line.strip() and pending is not None:
                raise AssertionError(f"{page.name}:{pending[2]}: marker {pending[0]!r} is followed by text, not a block")
            i += 1
            continue
        if pending is not None:
            block.marker, block.arg = pending[0], pending[1]
            pending = None
        blocks.append(block)
    assert pending is None, f"{page.name}:{pending[2]}: marker {pending[0]!r} at the end of the page"
    return blocks


def split_row(row: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", row.strip())
    return [cell.strip() for cell in cells[1:-1]]


def code_spans(cell: str) -> list[str]:
    return [span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", cell)]


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in read_page(page)]


def marked(kind: str) -> list[Block]:
    return [block for block in all_blocks() if block.marker == kind]


def ids(blocks: list[Block]) -> list[str]:
    return [block.where for block in blocks]


def options(arg: str) -> dict[str, str]:
    out = {}
    for item in shlex.split(arg):
        key, sep, value = item.partition("=")
        assert sep, f"expected key=value, got {item!r}"
        out[key] = value
    return out


# --- the pages as a whole ---------------------------------------------------------------------


def test_the_pages_exist() -> None:
    assert {page.name for page in PAGES} >= EXPECTED_PAGES


def test_index_links_to_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in EXPECTED_PAGES - {"index.md"}:
        assert f"({name})" in index, f"index.md does not link to {name}"


def test_relative_links_resolve() -> None:
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name} links to {target}, which does not exist"


def test_anchors_resolve() -> None:
    headings: dict[str, set[str]] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        headings[page.name] = {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}
    for page in PAGES:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", page.read_text(encoding="utf-8")):
            name = target or page.name
            assert anchor in headings[name], f"{page.name} links to {name}#{anchor}, which has no such heading"


def slug(heading: str) -> str:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_python_console_and_json_block_is_checked() -> None:
    required = {"python": {"file"}, "console": {"console"}, "json": {"catalog", "file"}}
    for block in all_blocks():
        if block.kind == "fence" and block.lang in required:
            assert block.marker in required[block.lang], f"{block.where}: a ```{block.lang} block needs a {' or '.join(sorted(required[block.lang]))} marker"


def test_every_example_file_is_shown() -> None:
    shown = {(ROOT / block.arg).resolve() for block in marked("file")}
    for path in sorted(EXAMPLES.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in {".py", ".sql", ".sh", ".toml"}:
            assert path.resolve() in shown, f"{path.relative_to(ROOT)} is not shown in any page"


# --- (a) code blocks are the example files ----------------------------------------------------


@pytest.mark.parametrize("block", marked("file"), ids=ids(marked("file")))
def test_block_is_the_file(block: Block) -> None:
    path = ROOT / block.arg
    assert path.is_file(), f"{block.where}: {block.arg} does not exist"
    assert block.kind == "fence", f"{block.where}: a file marker must precede a fenced block"
    assert block.text == path.read_bytes().decode("utf-8"), f"{block.where}: the block differs from {block.arg}"


# --- (b) JSON shown in the pages is what rata generates ---------------------------------------


def load(spec: str) -> Any:
    from rata.loader import load_app

    return load_app(spec, cwd=ROOT).app


def select(value: Any, path: str) -> Any:
    for segment in [s for s in path.split("/") if s]:
        if isinstance(value, list):
            found = [item for item in value if isinstance(item, dict) and segment in (item.get("name"), item.get("uri"))]
            assert len(found) == 1, f"no single item named {segment!r}"
            value = found[0]
        else:
            value = value[segment]
    return value


@pytest.mark.parametrize("block", marked("catalog"), ids=ids(marked("catalog")))
def test_catalog_json(block: Block) -> None:
    from rata.codegen.catalog import build_catalog

    spec, _, path = block.arg.partition(" ")
    assert block.lang == "json", f"{block.where}: a catalog marker must precede a ```json block"
    expected = json.loads(block.text)
    actual = select(build_catalog(load(spec)).to_dict(), path.strip())
    assert actual == expected, f"{block.where}: the page shows\n{block.text}\nbut rata generates\n{json.dumps(actual, indent=2)}"


def import_example(path: Path) -> Any:
    """Import an example file as a module of its own (so its forward references resolve)."""
    name = f"docs_example_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def schema_namespace(module_path: str) -> dict[str, Any]:
    import collections.abc
    import datetime
    import decimal
    import pathlib
    import uuid

    import rata

    namespace: dict[str, Any] = {name: getattr(typing, name) for name in typing.__all__}
    namespace.update({name: getattr(collections.abc, name) for name in ("Sequence", "Mapping", "Iterable", "Set")})
    namespace.update(
        datetime=datetime.datetime,
        date=datetime.date,
        time=datetime.time,
        UUID=uuid.UUID,
        Decimal=decimal.Decimal,
        Path=pathlib.Path,
        Field=rata.Field,
        JsonValue=rata.JsonValue,
    )
    module = import_example(ROOT / module_path)
    namespace.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    return namespace


def output_schema_of(hint: Any, tmp_path: Path) -> Any:
    """The schema an agent sees for a value of this type: the outputSchema of a command returning it."""
    from rata import App, command
    from rata.codegen.catalog import build_catalog

    def probe() -> None: ...

    probe.__annotations__ = {"return": hint}
    app = App("probe", identifier="com.example.probe", root=tmp_path).commands(command(can="probe.run")(probe))
    return build_catalog(app).command("probe")["outputSchema"]


def schema_rows() -> list[tuple[Block, list[str]]]:
    return [(block, row) for block in marked("schema-table") for row in block.rows]


@pytest.mark.parametrize(("block", "row"), schema_rows(), ids=[f"{b.where}:{code_spans(r[0])[0]}" for b, r in schema_rows()])
def test_schema_table_row(block: Block, row: list[str], tmp_path: Path) -> None:
    type_text = code_spans(row[0])[0]
    schemas = code_spans(row[1])
    assert len(schemas) == 1, f"{block.where}: the row for {type_text} needs one JSON schema in its second column"
    hint = eval(type_text, schema_namespace(block.arg))  # noqa: S307 - the page's own example text
    assert output_schema_of(hint, tmp_path) == json.loads(schemas[0]), f"{block.where}: the schema of {type_text}"


def test_annotated_types_constraints_are_read(tmp_path: Path) -> None:
    """commands-and-types.md: constraints from the annotated-types package work like Field."""
    annotated_types = pytest.importorskip("annotated_types")
    from typing import Annotated

    hint = Annotated[int, annotated_types.Ge(1), annotated_types.Le(500)]
    assert output_schema_of(hint, tmp_path) == {"type": "integer", "minimum": 1, "maximum": 500}


def test_ability_table() -> None:
    from rata import Mcp

    tables = marked("ability-table")
    assert tables, "no ability table"
    for block in tables:
        for row in block.rows:
            pattern = code_spans(row[0])[0]
            grant = Mcp().allow_abilities([pattern])
            for ability in code_spans(row[1]):
                assert grant.access(ability) == "allow", f"{block.where}: {pattern!r} should match {ability!r}"
            for ability in code_spans(row[2]):
                assert grant.access(ability) is None, f"{block.where}: {pattern!r} should not match {ability!r}"


def test_lint_rule_table() -> None:
    """The table lists every rule lint.py can report, with the severities it reports it at."""
    source = (ROOT / "rata" / "codegen" / "lint.py").read_text(encoding="utf-8")
    emitted: dict[str, set[str]] = {}
    # a Finding(...), or a row of one (a tuple, a helper's arguments): a rule's name has a hyphen, its severity follows it
    for rule, severity in re.findall(r'\(\s*(?:rule=)?"([a-z]+-[a-z-]+)",\s*(?:severity=)?"(error|warning|info)"', source):
        emitted.setdefault(rule, set()).add(severity)
    assert emitted, "found no Finding(...) in lint.py; update this test to the way it builds findings"
    documented: dict[str, set[str]] = {}
    (block,) = marked("lint-rules")
    for row in block.rows:
        rule = code_spans(row[0])[0]
        documented[rule] = set(re.findall(r"\b(error|warning|info)\b", row[1]))
        assert row[2] and row[3], f"{block.where}: say what {rule} catches and how to fix it"
    assert documented == emitted


def test_lint_demo_triggers_what_the_page_says() -> None:
    from rata.codegen.catalog import build_catalog
    from rata.codegen.lint import lint

    findings = lint(build_catalog(load("docs/examples/lint_demo.py")))
    assert {(f.rule, f.severity) for f in findings} == {
        ("name-too-long", "error"),
        ("grant-unmatched", "warning"),
        ("description-missing", "warning"),
        ("schema-untyped", "warning"),
        ("schema-not-strict", "warning"),
        ("param-description", "info"),
    }


def app_form_rows() -> list[tuple[Block, str]]:
    return [(block, spans[0]) for block in marked("app-forms") for row in block.rows if (spans := code_spans(row[0]))]


@pytest.mark.parametrize(("block", "spec"), app_form_rows(), ids=[spec for _, spec in app_form_rows()])
def test_app_form_loads(block: Block, spec: str) -> None:
    from rata import App
    from rata.loader import load_app

    loaded = load_app(spec, cwd=ROOT / block.arg)
    assert isinstance(loaded.app, App)


def test_every_example_app_builds() -> None:
    from rata.codegen.catalog import build_catalog
    from rata.codegen.lint import lint

    for spec in ["docs/examples/first_app", "docs/examples/hello", "docs/examples/command_options.py", "docs/examples/factory.py:create_app"]:
        assert lint(build_catalog(load(spec))) == [], spec
    findings = lint(build_catalog(load("docs/examples/types_tour.py")))
    assert [(f.rule, f.path) for f in findings] == [
        ("schema-not-strict", "/inputSchema/properties/extra"),
        ("schema-untyped", "/inputSchema/properties/extra"),
    ]
    assert load("docs/examples/validation.py").mcp_config is None


def test_constraint_messages_are_the_ones_shown(tmp_path: Path) -> None:
    """commands-and-types.md: the messages quoted in the Field table are what a call gets."""
    from rata import App, ValidationErrors, command

    @command(can="demo.run")
    def probe(
        a: Annotated[int, Field(ge=1)] = 1,
        b: Annotated[float, Field(gt=0)] = 1.0,
        c: Annotated[int, Field(multiple_of=5)] = 5,
        d: Annotated[str, Field(max_length=200)] = "",
        e: Annotated[tuple[str, ...], Field(max_length=10)] = (),
        f: Annotated[str, Field(pattern="^[A-Z]{3}$")] = "EUR",
    ) -> None: ...

    app = App("demo", identifier="com.example.demo", root=tmp_path).commands(probe)
    with pytest.raises(ValidationErrors) as caught:
        app.call("probe", a=0, b=0, c=7, d="x" * 201, e=["x"] * 11, f="eur")
    messages = [m for ms in caught.value.to_dict().values() for m in ms]
    assert messages == [
        "must be at least 1",
        "must be greater than 0",
        "must be a multiple of 5",
        "must have at most 200 characters",
        "must have at most 10 items",
        "must match the pattern '^[A-Z]{3}$'",
    ]
    page = (DOCS / "commands-and-types.md").read_text(encoding="utf-8")
    for message in messages:
        assert f"`{message}`" in page


def test_app_folder_can_be_set(tmp_path: Path) -> None:
    """getting-started.md: `app.folder = path` sets the folder of one app; modes, WAL and foreign keys."""
    from rata import App

    app = App("demo", identifier="com.example.demo", root=tmp_path)
    app.folder = tmp_path / "data"
    assert app.folder.database == tmp_path / "data" / "app.db"
    db = app.database()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    app.close()
    if os.name == "posix":
        assert (tmp_path / "data").stat().st_mode & 0o777 == 0o700
        assert (tmp_path / "data" / "instance.token").stat().st_mode & 0o777 == 0o600


def test_eras_differ_only_in_non_object_outputs(tmp_path: Path) -> None:
    """mcp-inspect.md: legacy wraps non-object output schemas under "result", $defs at the root; nothing else differs."""
    from rata import App, Mcp, command
    from rata.codegen.catalog import build_catalog
    from rata.mcp.surface import surface

    category = schema_namespace("docs/examples/types_tour.py")["Category"]

    def tree() -> None: ...

    tree.__annotations__ = {"return": category}
    app = App("demo", identifier="com.example.demo", root=tmp_path).commands(command(can="demo.run")(tree))
    app.mcp(Mcp().allow_abilities(["demo.run"]))
    (modern,) = surface(build_catalog(app), "modern")["tools"]
    (legacy,) = surface(build_catalog(app), "legacy")["tools"]
    assert legacy["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"$ref": "#/$defs/Category"}},
        "required": ["result"],
        "additionalProperties": False,
        "$defs": modern["outputSchema"]["$defs"],
    }
    for spec in ["docs/examples/first_app", "docs/examples/hello", "docs/examples/types_tour.py"]:
        catalog = build_catalog(load(spec))
        new, old = surface(catalog, "modern"), surface(catalog, "legacy")
        assert new["resources"] == old["resources"]
        for a, b in zip(new["tools"], old["tools"], strict=True):
            if a.get("outputSchema", {}).get("type", "object") == "object":
                assert a == b
            else:
                assert {**a, "outputSchema": None} == {**b, "outputSchema": None}
                assert b["outputSchema"]["properties"]["result"] == a["outputSchema"]


def test_async_commands_run_to_completion(tmp_path: Path) -> None:
    """commands-and-types.md: `async def` commands work; dispatch runs them on its own loop."""
    from rata import App, command

    @command(can="demo.run")
    async def slow_echo(text: str) -> str:
        return text

    app = App("demo", identifier="com.example.demo", root=tmp_path).commands(slow_echo)
    assert app.call("slow_echo", text="hi") == "hi"


# --- (c) shell transcripts and exit codes -----------------------------------------------------


@dataclass
class Session:
    """Where one transcript (or a series sharing a session) runs."""

    work: Path
    env: dict[str, str]
    shown: dict[str, str]  # real path -> the path the page shows
    tmp: Path
    last_code: int = 0
    homes: int = 0

    def run(self, command: str) -> str:
        export = re.fullmatch(r"export (\w+)=(\S+)", command)
        if export:
            name, value = export.groups()
            if name == "RATA_HOME":
                self.homes += 1
                real = self.tmp / f"home-{self.homes}"
                self.shown[str(real)] = value
                self.env[name] = str(real)
            else:
                self.env[name] = value
            self.last_code = 0
            return ""
        if command == "echo $?":
            output, self.last_code = f"{self.last_code}\n", 0
            return output
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.work,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=SUBPROCESS_TIMEOUT,
            check=False,
        )
        self.last_code = done.returncode
        text = done.stdout.decode("utf-8")
        for real in sorted(self.shown, key=len, reverse=True):
            text = text.replace(real, self.shown[real])
        return text


def new_session(block: Block, tmp: Path) -> Session:
    opts = options(block.arg)
    source = ROOT / opts["dir"]
    work = tmp / source.name
    shutil.copytree(source, work, ignore=IGNORED_IN_COPIES)
    env = {k: v for k, v in os.environ.items() if k not in {"FORCE_COLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "PYTHONSTARTUP"}}
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        RATA_HOME=str(tmp / "home-0"),
        COLUMNS=opts.get("columns", str(DEFAULT_COLUMNS)),
        LINES="50",
        NO_COLOR="1",
        PYTHONUNBUFFERED="1",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
        # git and pre-commit (docs/shipping.md#in-ci): a fixed identity, no user config, a scratch cache.
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="You",
        GIT_AUTHOR_EMAIL="you@example.com",
        GIT_COMMITTER_NAME="You",
        GIT_COMMITTER_EMAIL="you@example.com",
        PRE_COMMIT_HOME=str(tmp / "pre-commit-home"),
    )
    shown = {str(work): opts["as"]} if "as" in opts else {}
    return Session(work, env, shown, tmp)


def parse_transcript(text: str) -> Iterator[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    command: str | None = None
    output: list[str] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(output)
            command, output = line[2:], []
        else:
            assert command is not None, f"output before the first command: {line!r}"
            output.append(line)
    if command is not None:
        yield command, "\n".join(output)


def normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


DOT_RUN = re.compile(r"(\.{10,})")
"""Ten dots or more are literal, not wildcards: pre-commit's `name.....Passed` lines."""


def matches(expected: str, actual: str) -> bool:
    pattern = ""
    for index, part in enumerate(DOT_RUN.split(normalise(expected))):  # odd items: the runs of dots
        pattern += re.escape(part) if index % 2 else ".*?".join(re.escape(piece) for piece in part.split("..."))
    return re.fullmatch(pattern, normalise(actual), flags=re.S) is not None


def console_groups() -> list[list[Block]]:
    groups: dict[tuple[Path, str], list[Block]] = {}
    for block in marked("console"):
        session = options(block.arg).get("session") or f"line{block.line}"
        groups.setdefault((block.page, session), []).append(block)
    return list(groups.values())


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path, so that Rich wraps lines that show it as the page does."""
    base = Path("/tmp") if Path("/tmp").is_dir() else None
    path = Path(tempfile.mkdtemp(prefix="rata-docs-", dir=base)).resolve()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.subprocess
@pytest.mark.parametrize("blocks", console_groups(), ids=[ids(g)[0] for g in console_groups()])
def test_console_transcript(blocks: list[Block], short_tmp: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("the transcripts run in bash")
    session: Session | None = None
    for block in blocks:
        assert block.lang == "console", f"{block.where}: a console marker must precede a ```console block"
        if session is None:
            session = new_session(block, short_tmp)
        else:
            assert "dir" not in options(block.arg) or options(block.arg)["dir"] == options(blocks[0].arg)["dir"]
        for command, expected in parse_transcript(block.text):
            actual = session.run(command)
            assert matches(expected, actual), f"{block.where}: `{command}` printed\n{actual}\nbut the page shows\n{expected}"


EXIT_SCENARIOS: dict[int, list[str]] = {
    0: ["mcp", "inspect", "--app", "docs/examples/first_app"],
    1: ["mcp", "inspect", "--app", "docs/examples/no_such_app.py"],
    2: ["mcp", "inspect", "--no-such-option"],
    3: ["mcp", "inspect", "--app", "docs/examples/lint_demo.py", "--strict"],
}


def test_exit_code_table_is_complete() -> None:
    (block,) = marked("exit-codes")
    codes = [int(row[0].strip("`")) for row in block.rows]
    assert codes == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("code", [0, 1, 2, 3, 4])
def test_exit_code(code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from rata.cli.main import app

    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    env = {"RATA_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    if code == 4:
        saved = tmp_path / "mcp-surface.json"
        legacy = runner.invoke(app, ["mcp", "inspect", "--app", "docs/examples/hello", "--json", "--era", "legacy"], env=env)
        saved.write_text(legacy.stdout, encoding="utf-8")
        args = ["mcp", "inspect", "--app", "docs/examples/hello", "--check", str(saved)]  # modern differs from legacy
    else:
        args = EXIT_SCENARIOS[code]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == code, result.output


def test_codegen_check_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mcp-inspect.md: `rata codegen --check` exits 1 without a catalog, 4 when it is stale, 0 when current."""
    from typer.testing import CliRunner

    from rata.cli.main import app

    project = tmp_path / "hello"
    shutil.copytree(EXAMPLES / "hello", project, ignore=IGNORED_IN_COPIES)
    monkeypatch.chdir(project)
    runner = CliRunner()
    env = {"RATA_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    assert runner.invoke(app, ["codegen", "--check"], env=env).exit_code == 1
    assert runner.invoke(app, ["codegen"], env=env).exit_code == 0
    catalog = project / "generated" / "rata.catalog.json"
    first = catalog.read_bytes()
    assert runner.invoke(app, ["codegen", "--check"], env=env).exit_code == 0
    assert runner.invoke(app, ["codegen"], env=env).exit_code == 0
    assert catalog.read_bytes() == first, "codegen writes the same bytes every run"
    catalog.write_text(first.decode("utf-8").replace("Say hello.", "Say hi."), encoding="utf-8")
    assert runner.invoke(app, ["codegen", "--check"], env=env).exit_code == 4
