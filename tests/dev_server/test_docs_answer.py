"""search_docs' answer: within its token budget in both forms at its worst (10,000 pages), its text, and `skip` to the rest."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rata import tokens
from rata.dev_server import budget, docs_answer
from rata.dev_server.docs_index import DocsIndex, rata_docs_dir
from rata.dev_server.target import Target
from rata.dev_server.tools import dev_app
from rata.testing import AgentClient
from tests.dev_server.helpers import dev_command, dev_env

PAGES = 10_000
APP = 'from rata import App\n\napp = App("shop", identifier="com.example.shop")\n'


def page(number: int) -> str:
    """A page every search for "customers" finds; every 25th also mentions zebras, every 40th okapis (every 200th: both)."""
    extra = " A zebra wanders in." * (number % 25 == 0) + " An okapi looks on." * (number % 40 == 0)
    return (
        f"# Customers page {number}\n\nCustomers of region {number} are stored with their email and their orders.{extra}\n\n"
        f"## Orders of region {number}\n\nEach order belongs to one of the customers and has {number % 7} lines.\n"
    )


def project_with_docs(folder: Path, pages: dict[str, str]) -> Path:
    (folder / "docs").mkdir(parents=True)
    (folder / "shop.py").write_text(APP, encoding="utf-8")
    for name, text in pages.items():
        (folder / "docs" / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A project with 10,000 pages of docs, its index built once: (project, cache folder)."""
    folder = tmp_path_factory.mktemp("big")
    project = project_with_docs(folder / "project", {f"page-{number:05}.md": page(number) for number in range(PAGES)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RATA_CACHE_DIR", str(folder / "cache"))
        yield project, folder / "cache"


@pytest.fixture(scope="module")
def agent(big: tuple[Path, Path]) -> Iterator[AgentClient]:
    project, _ = big
    with AgentClient(dev_app(Target(str(project / "shop.py"), project))) as client:
        yield client


def sizes(result: Any) -> tuple[int, int]:
    """The answer's tokens as a model reads it: (its text, its structuredContent JSON)."""
    return tokens.estimate(result.text), tokens.estimate(budget.compact_json(result.raw["structuredContent"]))


def unbounded(project: Path, queries: list[str]) -> list[tuple[str, str, str, float]]:
    """Every hit of one search with no budget, as (link, heading, snippet, score), from an index of the same docs."""
    docs = rata_docs_dir()
    assert docs is not None
    index = DocsIndex([("project", project / "docs"), ("rata", docs)], shown={"project": "docs"})
    return [(hit.link, hit.heading, hit.snippet, hit.score) for hit in index.search(queries)]


def followed(agent: AgentClient, arguments: dict[str, Any]) -> tuple[list[tuple[str, str, str, float]], int]:
    """Every hit got by following next_skip from the first call until there is none; (hits, calls)."""
    hits: list[tuple[str, str, str, float]] = []
    calls = 0
    skip = 0
    while skip is not None:
        result = agent.call("search_docs", {**arguments, "skip": skip})
        calls += 1
        assert not result.is_error, result.text
        assert max(sizes(result)) <= (arguments.get("budget_tokens") or docs_answer.DEFAULT_TOKENS)
        answer = result.data
        hits += [(hit["link"], hit["heading"], hit["snippet"], hit["score"]) for hit in answer["hits"]]
        assert answer["hits"], "a part with no hit would never end"
        skip = answer["next_skip"]
    return hits, calls


# --- the worst case: 10,000 pages ---------------------------------------------------------------


def test_at_its_largest_budget_on_10000_pages_the_answer_fits_in_both_forms_and_names_the_next_call(agent):
    result = agent.call("search_docs", {"queries": ["customers"], "budget_tokens": budget.MAX_TOKENS})
    answer = result.data
    text_tokens, json_tokens = sizes(result)
    assert text_tokens <= budget.MAX_TOKENS and json_tokens <= budget.MAX_TOKENS
    assert json_tokens > budget.MAX_TOKENS * 0.9  # filled, not stopped early
    assert answer["total"] >= 2 * PAGES and answer["next_skip"] == len(answer["hits"]) > 100
    call = f'search_docs {{"queries": ["customers"], "skip": {answer["next_skip"]}, "budget_tokens": {budget.MAX_TOKENS}}}'
    assert answer["note"].endswith(f"Get them with {call}.") and answer["note"] in result.text
    assert f"Hits 1 to {len(answer['hits']):,} of {answer['total']:,}, best first:" in result.text


def test_without_a_budget_the_answer_keeps_to_2000_tokens_and_its_next_call_names_none(agent):
    result = agent.call("search_docs", {"queries": ["customers", "orders"]})
    assert max(sizes(result)) <= docs_answer.DEFAULT_TOKENS
    assert result.data["note"].endswith(f'search_docs {{"queries": ["customers", "orders"], "skip": {result.data["next_skip"]}}}.')


def test_a_server_budget_below_2000_is_the_default_of_search_docs_too(big):
    project, _ = big
    with AgentClient(dev_app(Target(str(project / "shop.py"), project), budget_tokens=1_200)) as small:
        result = small.call("search_docs", {"queries": ["customers"]})
    assert max(sizes(result)) <= 1_200 and "the 1,200-token budget" in result.data["note"]


def test_following_skip_gives_exactly_the_hits_of_one_unbounded_search_in_order(agent, big):
    project, _ = big
    queries = ["zebra", "okapi"]  # 400 and 250 pages, 50 of them both: each shown once
    hits, calls = followed(agent, {"queries": queries, "budget_tokens": budget.MIN_TOKENS})
    everything = unbounded(project, queries)
    assert hits == everything
    assert len(everything) == len(set(everything)) >= 600 and calls > 10


def test_the_text_shows_each_hit_as_heading_link_score_and_snippet_and_no_json(agent):
    result = agent.call("search_docs", {"queries": ["okapi"], "budget_tokens": budget.MIN_TOKENS})
    first = result.data["hits"][0]
    assert f"{first['heading']} · {first['link']} · score {first['score']:g} · project\n  {first['snippet']}" in result.text
    assert "{" not in result.text.replace(result.data["note"], "")  # only the note's next call is JSON-like
    assert f"Searched: project: {Path(result.data['sources'][0].split(': ', 1)[1])}" in result.text


def test_one_real_server_answers_the_worst_case_within_the_budget(big, tmp_path):
    project, cache = big
    with AgentClient.spawn(dev_command(project / "shop.py"), env=dev_env(tmp_path / "home", cache), stderr=subprocess.DEVNULL) as server:
        result = server.call("search_docs", {"queries": ["customers", "orders"], "budget_tokens": budget.MAX_TOKENS})
        last = server.call("search_docs", {"queries": ["customers", "orders"], "skip": result.data["total"] - 1})
    assert not result.is_error and max(sizes(result)) <= budget.MAX_TOKENS and result.data["next_skip"]
    assert len(last.data["hits"]) == 1 and last.data["next_skip"] is None and "Cut to fit" not in last.data["note"]


# --- hostile pages and arguments ----------------------------------------------------------------


@pytest.fixture
def small_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "cache"))
    pages = {f"p{n}.md": f"# Título {n} 字\n\na b 字 é page {n} {'zebra ' * (n % 3)}\n" for n in range(60)}
    return project_with_docs(tmp_path / "project", pages)


def test_a_hit_larger_than_the_whole_budget_is_shortened_inside_and_the_note_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("RATA_CACHE_DIR", str(tmp_path / "cache"))
    deep = "/".join(["folder" + "x" * 200] * 15)  # a link of 3,000 characters
    project = project_with_docs(tmp_path / "project", {"small.md": "# Giraffe\n\nA giraffe.\n"})
    (project / "docs" / deep).mkdir(parents=True)
    (project / "docs" / deep / "huge.md").write_text("# Giraffe " + "giraffe " * 5_000 + "\n\n" + "giraffe " * 5_000 + "\n", encoding="utf-8")
    with AgentClient(dev_app(Target(str(project / "shop.py"), project))) as client:
        first = client.call("search_docs", {"queries": ["giraffe"], "budget_tokens": budget.MIN_TOKENS})
        hits, calls = followed(client, {"queries": ["giraffe"], "budget_tokens": budget.MIN_TOKENS})
    assert max(sizes(first)) <= budget.MIN_TOKENS
    (hit,) = first.data["hits"]
    assert "characters left out" in hit["link"] and "characters left out" in hit["heading"]
    assert "shortened in the middle" in first.data["note"] and first.data["next_skip"] == 1
    assert [link for link, *_ in hits][1] == "docs/small.md#giraffe" and calls == 2


def test_queries_too_long_for_the_budget_are_an_error_that_names_them(small_docs):
    with AgentClient(dev_app(Target(str(small_docs / "shop.py"), small_docs))) as client:
        result = client.call("search_docs", {"queries": ["字 " * 249] * 10, "budget_tokens": budget.MIN_TOKENS})
        roomy = client.call("search_docs", {"queries": ["字 " * 249] * 10, "budget_tokens": budget.MAX_TOKENS})
    assert result.is_error and "queries are too long for a 1,000-token budget" in result.text and "budget_tokens" in result.text
    assert not roomy.is_error and roomy.data["hits"]


def test_a_skip_past_the_end_is_an_error_that_says_which_skips_there_are(small_docs):
    with AgentClient(dev_app(Target(str(small_docs / "shop.py"), small_docs))) as client:
        total = client.call("search_docs", {"queries": ["zebra"]}).data["total"]
        result = client.call("search_docs", {"queries": ["zebra"], "skip": total})
    assert result.is_error and f"skip {total:,} is past the last of the {total:,} hits" in result.text
    assert f"skip from 0 to {total - 1:,}" in result.text


SKIPS = st.one_of(
    st.integers(0, 80),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.none(),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)
QUERY = st.one_of(st.text(alphabet="ab字é zebra", max_size=520), st.text(max_size=520))
QUERIES = st.one_of(st.lists(QUERY, min_size=1, max_size=10), st.lists(QUERY, max_size=12), QUERY, st.none(), st.integers())
BUDGETS = st.sampled_from([None, budget.MIN_TOKENS, 1_500, budget.MAX_TOKENS, 0, 999, 25_001, "many"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(skip=SKIPS, queries=QUERIES, asked=BUDGETS)
def test_hostile_skips_queries_and_budgets_get_an_answer_within_the_budget_or_an_error_naming_the_argument(small_docs, skip, queries, asked):
    arguments = {name: value for name, value in (("queries", queries), ("skip", skip), ("budget_tokens", asked)) if value is not None}
    with AgentClient(dev_app(Target(str(small_docs / "shop.py"), small_docs))) as client:
        result = client.call("search_docs", arguments)
    assert "Traceback" not in result.text
    if result.is_error:
        assert re.search(r"\b(queries|skip|budget_tokens)\b", result.text), result.text
        event("an error")
        return
    event("hits" if result.data["hits"] else "no hit")
    limit = asked if isinstance(asked, int) else docs_answer.DEFAULT_TOKENS
    assert max(sizes(result)) <= limit
    assert not result.text.lstrip().startswith(("{", "[")) and json.loads(budget.compact_json(result.data)) == result.data
    answer = result.data
    assert answer["next_skip"] is None or answer["next_skip"] == answer["skip"] + len(answer["hits"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    queries=st.lists(st.text(alphabet="ab字é zebra page", max_size=60), min_size=1, max_size=4),
    skip=st.integers(0, 130),
    asked=st.sampled_from([None, budget.MIN_TOKENS]),
)
def test_any_skip_within_the_ranking_shows_the_hits_from_that_place_on(small_docs, queries, skip, asked):
    everything = unbounded(small_docs, queries)
    arguments = {"queries": queries, "skip": skip, **({"budget_tokens": asked} if asked else {})}
    with AgentClient(dev_app(Target(str(small_docs / "shop.py"), small_docs))) as client:
        result = client.call("search_docs", arguments)
    if skip and skip >= len(everything):
        event("past the end")
        assert result.is_error and f"skip {skip:,} is past the last" in result.text
        return
    event("hits" if everything else "nothing matched")
    answer = result.data
    shown = [(hit["link"], hit["heading"], hit["snippet"], hit["score"]) for hit in answer["hits"]]
    assert shown == everything[skip : skip + len(shown)] and answer["total"] == len(everything)
    assert answer["next_skip"] == (skip + len(shown) if skip + len(shown) < len(everything) else None)
    assert max(sizes(result)) <= (asked or docs_answer.DEFAULT_TOKENS)


def test_a_query_longer_than_500_characters_is_refused_naming_it_and_the_fix(tmp_path):
    from rata.dev_server.docs_answer import QUERY_CHARS, DocsError, answer

    with pytest.raises(DocsError, match=r"Query 2 is 501 characters long; a query may have at most 500\.") as refused:
        answer(None, ["fine", "x" * (QUERY_CHARS + 1)], 0, 2_000, None)  # type: ignore[arg-type] - no index: the query is refused before one is needed
    assert "a few words" in (refused.value.hint or "")
