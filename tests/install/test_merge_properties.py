"""Property tests over each config writer of `rata mcp install --write` (JSON, JSONC, TOML, YAML).

Hypothesis writes existing files with arbitrary other servers, keys, unicode, comments,
indentation and line breaks, with or without an entry of the same name. Rata's entry goes in;
the result is read back with the real parser (json, tomllib, PyYAML): everything else is as it
was, rata's entry is exactly the merge of what was there and what rata writes, comments and
line breaks are kept, and a second run changes nothing.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import pytest
import tomli_w
import yaml
from hypothesis import given
from hypothesis import strategies as st

from rata.install import jsonc
from rata.install import merge as install
from rata.install.formats import dump_yaml
from tests.install.known import known_client

NAMES = st.from_regex(r"[a-z][a-z0-9_-]{0,9}", fullmatch=True)
TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # no lone surrogates: no file can hold one raw
ANY_TEXT = st.text(max_size=12) | st.text(st.characters(categories=["Cs"]), max_size=1)  # one lone surrogate: two would be read back as a pair
CLIENT_OF = {"json": known_client("claude-code"), "jsonc": known_client("vscode"), "toml": known_client("codex")}


def entries(text: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[dict[str, Any]]:
    """What rata writes: a command, arguments, and a few environment variables."""
    env = st.dictionaries(st.from_regex(r"[A-Z_]{1,8}", fullmatch=True), text, max_size=3)
    return st.fixed_dictionaries({"type": st.just("stdio"), "command": text, "args": st.lists(text, max_size=3)}, optional={"env": env, "cwd": text})


def existing_entries(text: st.SearchStrategy[str], scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """What a user may have under the same name: rata-like keys with other values, their own keys, or not an object at all."""
    env = st.dictionaries(st.from_regex(r"[A-Z_]{1,8}", fullmatch=True), text, max_size=3)
    mine = st.fixed_dictionaries({}, optional={"command": text, "args": st.lists(text, max_size=2), "env": env, "timeout": scalars, "note": text})
    return mine | scalars


def json_values(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) | text
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3), max_leaves=8)


# --- JSON and JSONC ------------------------------------------------------------------------------


@st.composite
def json_texts(draw: st.DrawFn, value: Any, comments: bool) -> tuple[str, list[str]]:
    """`value` as JSON(C) text in a random style; also the comments it holds, in order."""
    unit = draw(st.sampled_from(["  ", "    ", "\t", ""]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    found: list[str] = []
    comment_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\u2028\u2029\x85"), max_size=8).filter(lambda t: "*/" not in t)

    def gap(indent: str) -> str:
        if not comments or not draw(st.booleans()):
            return draw(st.sampled_from(["", " "]))
        text = draw(comment_text)
        if draw(st.booleans()):
            found.append(f"/* {text} */")
            return f" /* {text} */ "
        found.append(f"// {text}")
        return f" // {text}{eol}{indent}"

    def emit(item: Any, indent: str) -> str:
        inner = indent + unit
        if isinstance(item, dict | list):
            opening, closing = ("{", "}") if isinstance(item, dict) else ("[", "]")
            if not item:
                return opening + gap(inner) + closing
            parts = []
            for key, child in item.items() if isinstance(item, dict) else enumerate(item):
                before = gap(inner)  # drawn in the order they appear in the text
                head = f"{json.dumps(key, ensure_ascii=draw(st.booleans()))}:{gap(inner)} " if isinstance(item, dict) else ""
                body = emit(child, inner)
                parts.append(f"{eol if unit else ''}{inner}{before}{head}{body}{gap(inner)}")
            trailing = "," if comments and draw(st.booleans()) else ""
            return opening + ",".join(parts) + trailing + (eol if unit else "") + indent + closing
        return json.dumps(item, ensure_ascii=draw(st.booleans()))

    head = gap("") if comments else ""
    return head + emit(value, "") + draw(st.sampled_from(["", eol])), found


@st.composite
def json_cases(draw: st.DrawFn, syntax: str) -> tuple[Any, ...]:
    client = CLIENT_OF[syntax]
    top = client.server_key
    name = draw(NAMES)
    text = TEXT | ANY_TEXT if syntax == "jsonc" else TEXT
    servers = draw(st.dictionaries(NAMES.filter(lambda n: n != name), json_values(text), max_size=3))
    if draw(st.booleans()):
        servers[name] = draw(existing_entries(text, json_values(text)))
    doc = draw(st.dictionaries(text.filter(lambda k: k != top), json_values(text), max_size=3))
    doc[top] = servers
    keys = list(doc)
    order = draw(st.permutations(keys))
    doc = {k: doc[k] for k in order}
    old, comments = draw(json_texts(doc, comments=syntax == "jsonc"))
    return client, name, draw(entries()), doc, old, comments


def check_json(client, name, entry, doc, old, comments, parse) -> None:
    top = client.server_key
    servers = doc[top]
    existing = servers.get(name)
    merged = install.merge_entry(client, existing, entry)[0] if name in servers else entry
    changes = name not in servers or not install.same(merged, existing)
    if changes and name in servers:
        with pytest.raises(install.EntryExistsError):
            install.merge_text(client, name, entry, "", old, replace=False)
    new = install.merge_text(client, name, entry, "", old, replace=True).text
    expected = {**doc, top: {**servers, name: merged}}
    assert install.same(parse(new), expected)
    if not changes:
        assert new == old
    inside = range(0)
    if name in servers:  # the bytes around the entry's value are the old ones
        node = jsonc.parse(old).member(top).node.member(name).node
        assert new.startswith(old[: node.start]) and new.endswith(old[node.end :])
        inside = range(node.start, node.end)
    position = found = 0
    for comment in comments:  # every comment outside the entry kept, in order
        found = old.index(comment, found) + len(comment)
        if found - len(comment) not in inside:
            position = new.index(comment, position) + len(comment)
    if "\r\n" in old:
        assert new.count("\n") == new.count("\r\n")
    else:
        assert "\r" not in new
    assert new.endswith("\n") == old.endswith("\n")
    assert install.merge_text(client, name, entry, "", new).text == new  # a second run changes nothing


@given(json_cases("json"))
def test_the_json_writer_changes_only_rata_s_entry(case):
    check_json(*case, parse=json.loads)


@given(json_cases("jsonc"))
def test_the_jsonc_writer_changes_only_rata_s_entry_and_keeps_every_comment(case):
    check_json(*case, parse=jsonc.loads)


# --- TOML ----------------------------------------------------------------------------------------

TOML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=10)
TOML_SCALARS = st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | TOML_TEXT
TOML_VALUES = st.recursive(TOML_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TOML_TEXT, inner, max_size=3), max_leaves=8)
COMMENTS = st.lists(st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"], exclude_characters="\u2028\u2029\x85"), max_size=10), max_size=2)


def header_name(line: str) -> list[str]:
    line = line.rstrip("\n")
    key = line[2:-2] if line.startswith("[[") else line[1:-1]
    data = tomllib.loads(f"[{key}]\n")
    parts = []
    while isinstance(data, dict) and len(data) == 1:
        parts.append(next(iter(data)))
        data = data[parts[-1]]
    return parts


@st.composite
def toml_cases(draw: st.DrawFn) -> tuple[Any, ...]:
    name = draw(NAMES)
    servers = draw(
        st.dictionaries(
            NAMES.filter(lambda n: n != name) | TOML_TEXT.filter(lambda n: n != name), st.dictionaries(TOML_TEXT, TOML_VALUES, max_size=3), max_size=3
        )
    )
    if draw(st.booleans()):
        servers[name] = draw(existing_entries(TOML_TEXT, TOML_SCALARS).filter(lambda e: isinstance(e, dict)))
    doc = draw(st.dictionaries(TOML_TEXT.filter(lambda k: k != "mcp_servers"), TOML_VALUES, max_size=3))
    doc["mcp_servers"] = servers
    doc = {k: doc[k] for k in draw(st.permutations(list(doc)))}
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    chunks: list[tuple[list[str], str]] = []  # (the comment lines above a table, the table's text)
    for line in re.split(r"(?<=\n)", tomli_w.dumps(doc))[:-1]:  # not splitlines: keys may hold U+2028
        if line.startswith("[") or not chunks:
            chunks.append(([f"# {c}\n" for c in draw(COMMENTS)] if line.startswith("[") else [], line))
        else:
            chunks[-1] = (chunks[-1][0], chunks[-1][1] + line)
    tail = [f"# {c}\n" for c in draw(COMMENTS)]
    old = "".join("".join(above) + table for above, table in chunks) + "".join(tail)
    owned = [i for i, (_, table) in enumerate(chunks) if table.startswith("[") and header_name(table.split("\n")[0])[:2] == ["mcp_servers", name]]
    outside = [c for i, (above, _) in enumerate(chunks) if i not in owned[1:] for c in above] + tail
    prefix = suffix = None
    if owned:
        first, last = owned[0], owned[-1]
        prefix = "".join("".join(above) + table for above, table in chunks[:first]) + "".join(chunks[first][0])
        suffix = (
            chunks[last][1][len(chunks[last][1].rstrip("\n")) + 1 :] + "".join("".join(above) + table for above, table in chunks[last + 1 :]) + "".join(tail)
        )
    if not draw(st.booleans()) and old.endswith("\n"):
        old, suffix = old[:-1], (suffix[:-1] if suffix else suffix)
    convert = (lambda t: t.replace("\n", eol)) if eol != "\n" else (lambda t: t)
    entry = draw(entries(TOML_TEXT))
    return name, entry, doc, convert(old), [c.rstrip("\n") for c in outside], prefix and convert(prefix), suffix and convert(suffix)


@given(toml_cases())
def test_the_toml_writer_changes_only_rata_s_tables_and_keeps_the_comments_around_them(case):
    name, entry, doc, old, outside, prefix, suffix = case
    client = CLIENT_OF["toml"]
    servers = doc["mcp_servers"]
    merged = install.merge_entry(client, servers[name], entry)[0] if name in servers else entry
    new = install.merge_text(client, name, entry, "", old, replace=True).text
    assert install.same(tomllib.loads(new), {**doc, "mcp_servers": {**servers, name: merged}})
    position = 0
    for comment in outside:  # comments above other tables and at the end: all kept, in order
        position = new.index(comment, position) + len(comment)
    if prefix is not None:
        assert new.startswith(prefix) and new.endswith(suffix)
    else:
        assert new.startswith(old)
    assert new.count("\n") == new.count("\r\n") if "\r\n" in old else "\r" not in new
    assert new.endswith("\n") == old.endswith("\n")
    assert install.merge_text(client, name, entry, "", new).text == new


# --- YAML ----------------------------------------------------------------------------------------

YAML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(st.characters(codec="utf-8")),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(st.characters(codec="utf-8")), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(st.characters(codec="utf-8")), YAML_VALUES, max_size=4))
def test_the_yaml_writer_reads_back_as_the_same_data(doc):
    assert yaml.safe_load(dump_yaml(doc)) == (doc or None)


@given(NAMES, entries(), st.text(st.characters(codec="utf-8"), max_size=40), st.sampled_from(["\n", "\r\n"]))
def test_continue_s_own_file_is_replaced_only_when_asked_and_a_second_run_changes_nothing(name, entry, other, eol):
    client = known_client("continue")
    snippet = dump_yaml({"name": name, "version": "0.0.1", "schema": "v1", "mcpServers": [entry]})
    assert yaml.safe_load(snippet)["mcpServers"] == [entry]
    old = ("# mine\n" + dump_yaml({"other": other})).replace("\n", eol)
    with pytest.raises(install.EntryExistsError) as refused:
        install.merge_text(client, name, entry, snippet, old)
    assert re.search(r"^-# mine$", refused.value.diff, re.M)
    new = install.merge_text(client, name, entry, snippet, old, replace=True).text
    assert new == snippet.replace("\n", eol)
    assert install.merge_text(client, name, entry, snippet, new).text == new
