"""The docs index: Markdown split into sections, FTS5/BM25 search, incremental updates, kept in the cache folder."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rata.dev_server import docs_index
from rata.dev_server.docs_index import DocsIndex, slug, split_sections
from tests.dev_server.helpers import bump_mtime


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("RATA_CACHE_DIR", str(folder))
    return folder


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@contextmanager
def opened(roots: list[tuple[str, Path]], **options) -> Iterator[DocsIndex]:
    index = DocsIndex(roots, **options)
    try:
        yield index
    finally:
        if index._conn is not None:
            index._conn.close()


def sections(text: str, path: str = "docs/guide.md") -> list[tuple[str, str, str]]:
    return [(s.anchor, s.heading, s.body) for s in split_sections(path, textwrap.dedent(text).lstrip())]


# --- sections -----------------------------------------------------------------------------------


def test_a_file_is_split_into_sections_at_its_headings():
    assert sections(
        """
        Text before any heading.

        # Getting started
        Install it.

        ## Your first command
        Write a function.

        ### Types ###
        They become schemas.
        """
    ) == [
        ("", "guide", "Text before any heading."),
        ("getting-started", "Getting started", "Install it."),
        ("your-first-command", "Your first command", "Write a function."),
        ("types", "Types", "They become schemas."),
    ]


def test_a_hash_line_inside_a_code_fence_is_not_a_heading():
    found = sections(
        """
        # Scripts
        Run this:

        ```bash
        # install the app
        pip install crm
        ```

        ~~~python
        # a comment, not a heading
        ~~~

        ## Next
        Done.
        """
    )
    assert [(anchor, heading) for anchor, heading, _ in found] == [("scripts", "Scripts"), ("next", "Next")]
    assert "# install the app" in found[0][2] and "# a comment, not a heading" in found[0][2]


def test_hashes_without_a_space_or_indented_are_not_headings():
    found = sections(
        """
        # Tags
        #hashtag is not a heading
            # an indented code line is not one either
        """
    )
    assert [heading for _, heading, _ in found] == ["Tags"]


def test_every_heading_is_a_section_even_one_directly_followed_by_another():
    # "# Guide" has no text of its own before "## Install"; its heading must still be indexed (and linkable).
    found = sections(
        """
        # Guide
        ## Install
        pip install rata-toolkit
        """
    )
    assert [(anchor, heading) for anchor, heading, _ in found] == [("guide", "Guide"), ("install", "Install")]


def test_anchors_are_the_ones_a_markdown_renderer_gives_headings():
    assert slug("Getting started") == "getting-started"
    assert slug("Live queries & resources!") == "live-queries--resources"
    assert slug("  `rata mcp dev`: the dev server  ") == "rata-mcp-dev-the-dev-server"
    assert slug("Über die Änderungen") == "über-die-änderungen"
    assert slug("snake_case and kebab-case") == "snake_case-and-kebab-case"


def test_repeated_headings_get_distinct_anchors_like_a_markdown_renderer_gives_them():
    found = sections(
        """
        ## Example
        one
        ## Example
        two
        ## Example
        three
        """
    )
    assert [anchor for anchor, _, _ in found] == ["example", "example-1", "example-2"]


# --- search -------------------------------------------------------------------------------------


def test_a_heading_match_ranks_above_a_mention_in_a_body(tmp_path, cache):
    docs = tmp_path / "docs"
    write(
        docs / "a-guide.md",
        """
        # Guide
        ## Storing customers
        Storing customers works like this, and the confirmation of a delete is explained
        elsewhere; here we only store. Storing, storing, storing.
        """,
    )
    write(
        docs / "b-confirm.md",
        """
        # Reference
        ## Confirmation
        An agent asks the user before a destructive command runs.
        """,
    )
    for i in range(10):  # a corpus where the word is rare, as in real docs (BM25 weighs rare words up)
        write(docs / f"other-{i}.md", f"# Page {i}\nAbout something else entirely, number {i}.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        hits = index.search(["confirmation"])
    assert [hit.link for hit in hits][:2] == ["docs/b-confirm.md#confirmation", "docs/a-guide.md#storing-customers"]
    assert hits[0].heading == "Confirmation" and hits[0].source == "project"
    assert hits[0].score > hits[1].score > 0
    assert "destructive command" in hits[0].snippet


def test_search_words_are_stemmed_and_case_blind(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "m.md", "# Migrations\nEach migration runs in a transaction.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        hits = index.search(["MIGRATING transactions"])
    assert [hit.link for hit in hits] == ["docs/m.md#migrations"]


def test_several_queries_in_one_call_each_find_their_sections_once(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "one.md", "# Live queries\nResources stay fresh.\n\n# Confirm\nThe user agrees first.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        hits = index.search(["live queries", "confirm", "fresh resources"])
    assert [hit.link for hit in hits] == ["docs/one.md#live-queries", "docs/one.md#confirm"]


def test_query_text_is_words_only_so_search_syntax_cannot_break_it(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "one.md", "# Confirm\nThe user agrees first.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        for query in ['confirm"', "NEAR(confirm user)", "confirm OR", "* ^confirm", "heading:confirm", "(", "", "   "]:
            index.search([query])  # no sqlite3.OperationalError (fts5: syntax error)
        hits = index.search(['"confirm" (user*)'])
    assert [hit.link for hit in hits] == ["docs/one.md#confirm"]


def test_the_ranking_takes_each_query_in_turn_and_shows_a_section_once(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "a.md", "# Apples\nApples apples apples.\n\n# Fruit\nApples and pears.\n")
    write(docs / "p.md", "# Pears\nPears pears pears.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        ranked = [section.path + "#" + section.anchor for section in index.ranking(["apples", "pears"])]
        assert ranked == ["docs/a.md#apples", "docs/p.md#pears", "docs/a.md#fruit"]  # apples' 1st, pears' 1st, apples' 2nd (pears' 2nd: shown)
        assert [hit.link for hit in index.search(["apples", "pears"], skip=1, count=1)] == ["docs/p.md#pears"]
        assert [hit.link for hit in index.search(["apples", "pears"], skip=2)] == ["docs/a.md#fruit"]


def test_a_ranking_read_to_a_stop_is_the_start_of_the_whole_one_and_count_is_its_length(tmp_path, cache):
    docs = tmp_path / "docs"
    for n in range(12):  # words shared unevenly, so that the queries find many of the same sections
        write(docs / f"p{n:02}.md", f"# Apples {n}\n{'apples ' * (n % 4)}pears {'fruit ' * (n % 3)}\n\n# Pears {n}\n{'pears ' * (n % 5)}\n")
    queries = ["apples", "pears fruit", "pears", "fruit apples"]
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        whole = index.ranking(queries)
        assert index.count(queries) == len(whole) == len({(s.path, s.anchor) for s in whole}) > 12
        for stop in range(len(whole) + 2):
            assert index.ranking(queries, stop=stop) == whole[:stop], stop
        assert index.count(["", "  "]) == 0 and index.ranking(["", "  "]) == []


def test_the_ranking_is_the_same_for_the_same_docs_whatever_order_they_were_indexed_in(tmp_path, cache):
    """Equal scores are broken by path and anchor, never by the order rows went into the index."""
    docs = tmp_path / "docs"
    pages = [write(docs / f"p{i:02}.md", f"# Page {i}\nThe same words on every page.\n") for i in range(30)]
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        first = [(hit.link, hit.score, hit.snippet) for hit in index.search(["same words", "page"])]
        rows_before = [section.rowid for section in index.ranking(["page"])]
        for page in pages[:15]:  # read again: their rows now come after the other half's
            bump_mtime(page)
        assert index.refresh() == (15, 0)
        rows_after = [section.rowid for section in index.ranking(["page"])]
        again = [(hit.link, hit.score, hit.snippet) for hit in index.search(["same words", "page"])]
    assert rows_after != rows_before and sorted(rows_after) != rows_after  # the rows did move
    assert again == first and len(first) == 30
    assert len({score for _, score, _ in first}) == 1  # every page scores the same: only the tie-break orders them


def test_project_docs_and_rata_docs_are_searched_together_and_labelled(tmp_path, cache):
    project = write(tmp_path / "docs" / "crm.md", "# Customers\nOur customers are stored in SQLite.\n").parent
    rata_docs = docs_index.rata_docs_dir()
    assert rata_docs is not None and rata_docs.is_dir()
    with opened([("project", project), ("rata", rata_docs)], shown={"project": "docs"}) as index:
        hits = index.search(["customers sqlite", "live"])
    sources = {hit.source for hit in hits}
    assert sources == {"project", "rata"}
    assert hits[0].link == "docs/crm.md#customers"
    assert all(hit.path.startswith(str(rata_docs)) for hit in hits if hit.source == "rata")


# --- incremental updates and where the index lives ----------------------------------------------


def test_the_index_is_brought_up_to_date_one_changed_file_at_a_time(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "a.md", "# Alpha\nThe first page.\n")
    b = write(docs / "b.md", "# Beta\nThe second page mentions zebras.\n")
    gone = write(docs / "nested" / "c.md", "# Gamma\nThe third page mentions okapis.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        assert index.refresh() == (3, 0)
        assert index.refresh() == (0, 0)  # nothing changed: nothing read again

        b.write_text("# Beta\nThe second page now mentions giraffes.\n", encoding="utf-8")
        bump_mtime(b)
        assert index.refresh() == (1, 0)
        assert [h.link for h in index.search(["giraffes"])] == ["docs/b.md#beta"]
        assert index.search(["zebras"]) == []

        gone.unlink()
        assert index.refresh() == (0, 1)
        assert index.search(["okapis"]) == []
        assert [h.link for h in index.search(["alpha"])] == ["docs/a.md#alpha"]


def test_search_refreshes_the_index_by_itself_once_the_refresh_interval_has_passed(tmp_path, cache):
    from rata.dev_server import docs_index

    docs = tmp_path / "docs"
    write(docs / "a.md", "# Alpha\nThe first page.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        assert index.search(["hedgehogs"]) == []
        write(docs / "new.md", "# Hedgehogs\nA new page.\n")
        assert index.search(["hedgehogs"]) == []  # searches in quick succession trust the last look at the files
        assert index._refreshed_at is not None
        index._refreshed_at -= docs_index.REFRESH_INTERVAL  # the interval has passed
        assert [h.link for h in index.search(["hedgehogs"])] == ["docs/new.md#hedgehogs"]


def test_a_second_index_on_the_same_docs_reuses_the_file_in_the_cache(tmp_path, cache):
    docs = tmp_path / "docs"
    write(docs / "a.md", "# Alpha\nThe first page.\n")
    with opened([("project", docs)], shown={"project": "docs"}) as first:
        assert first.refresh() == (1, 0)
    with opened([("project", docs)], shown={"project": "docs"}) as second:
        assert second.path == first.path
        assert second.refresh() == (0, 0)


def test_the_index_file_lives_under_rata_cache_dir_and_nowhere_near_the_docs(tmp_path, cache):
    project = tmp_path / "project"
    docs = project / "docs"
    write(docs / "a.md", "# Alpha\nThe first page.\n")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    with opened([("project", docs)], shown={"project": "docs"}) as index:
        index.search(["alpha"])
    assert index.path.parent == cache
    assert index.path.is_file() and index.path.name.startswith("docs-") and index.path.suffix == ".sqlite"
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_without_rata_cache_dir_the_index_goes_to_the_xdg_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("RATA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert docs_index.cache_dir() == tmp_path / "xdg" / "rata"
    docs = write(tmp_path / "docs" / "a.md", "# Alpha\n").parent
    with opened([("project", docs)]) as index:
        index.refresh()
    assert index.path.parent == tmp_path / "xdg" / "rata" and index.path.is_file()


def test_a_missing_docs_folder_is_no_root_and_no_error(tmp_path, cache):
    with opened([("project", tmp_path / "no-docs-here")]) as index:
        assert index.roots == []
        assert index.search(["anything"]) == []
