"""What `search_docs` answers: the ranked hits that fit the token budget, its text for a model, the next part.

The ranking (`DocsIndex.ranking`) is every section that matches, best first, the same for the
same docs and queries; an answer shows the hits from place ``skip`` on while both its text and
its JSON stay within the budget (`rata.dev_server.budget.Fit`), and when some are left names
the call that shows them: the same queries with ``skip`` set to ``next_skip``. Following it
until ``next_skip`` is null gives every hit of the ranking once, in order.

Every byte of a page is hostile: a heading or a snippet is cut to `HEADING_CHARS` and
`SNIPPET_CHARS`, and a hit still larger than the whole budget (a link of thousands of
characters) is shortened inside, and the note says so.
"""

from __future__ import annotations

from typing import TypedDict

from rata.cleantext import quote
from rata.dev_server import budget
from rata.dev_server.docs_index import MAX_DOC_BYTES, DocsIndex, Hit
from rata.errors import RataError

DEFAULT_TOKENS = 2_000
"""search_docs' budget when the call names none: a few dozen sections, or the server's budget when that is smaller."""
HEADING_CHARS = 300
SNIPPET_CHARS = 600
SHORTENED = "Its one hit was larger than the whole budget, so its heading, link and snippet are shortened in the middle."
MIN_HIT_TOKENS = 20
"""The least a hit costs in the JSON (its five keys and quotes): a budget shows at most budget / 20 hits."""
MIN_ROOM = 150
"""Tokens a budget must leave for hits after the answer's fixed parts: room for one hit shortened to its bones."""
BATCH = 50
"""Hits whose snippets are made at a time: a budget holds a few hundred at most, the ranking can hold tens of thousands."""


class DocsError(RataError):
    """A search_docs call that cannot be answered as asked (`skip` past the end, queries longer than the budget)."""


class DocHit(TypedDict):
    source: str
    link: str
    heading: str
    snippet: str
    score: float


class DocsAnswer(TypedDict):
    """Ranked doc sections for the queries, from place `skip` on, within the token budget."""

    hits: list[DocHit]
    skip: int
    total: int
    next_skip: int | None
    sources: list[str]
    note: str


def hit_line(hit: DocHit) -> str:
    """One hit as a model reads it: heading, link, score and source on a line, then its snippet."""
    snippet = f"\n  {hit['snippet']}" if hit["snippet"] else ""
    return f"{hit['heading']} · {hit['link']} · score {hit['score']:g} · {hit['source']}{snippet}"


def docs_text(answer: DocsAnswer) -> str:
    """The answer as a model reads it: a count, one hit after another, the folders searched and the note."""
    shown, first = len(answer["hits"]), answer["skip"] + 1
    if shown == 0:
        head = "No sections matched." if answer["total"] == 0 else f"No hits shown of {answer['total']:,}."
    elif shown == answer["total"]:
        head = f"{shown:,} {'section' if shown == 1 else 'sections'}, best first:"
    else:
        head = f"Hits {first:,} to {first + shown - 1:,} of {answer['total']:,}, best first:"
    lines = [head, *(hit_line(hit) for hit in answer["hits"])]
    if answer["sources"]:
        lines.append(f"Searched: {'; '.join(answer['sources'])}")
    return "\n".join(lines + ([answer["note"]] if answer["note"] else []))


QUERY_CHARS = 500
"""The longest query: a search is a few words (not in the schema: OpenAI's strict mode refuses maxLength on a list's items)."""


def answer(index: DocsIndex, queries: list[str], skip: int, limit: int, asked: int | None) -> DocsAnswer:
    """The hits of `queries` from place `skip` on that fit `limit` tokens, with the note naming the next call.

    `asked` is the call's own budget_tokens (None: the default), repeated as it was in the next call."""
    for number, query in enumerate(queries, 1):  # checked here, not in the schema: strict-mode clients refuse maxLength on items
        if len(query) > QUERY_CHARS:
            raise DocsError(
                f"Query {number} is {len(query):,} characters long; a query may have at most {QUERY_CHARS:,}.",
                hint="Search for a few words, not a passage: the ranking only uses the words.",
            )
    sources = [f"{label}: {root}" for label, root in index.roots]
    ranked = index.ranking(queries, stop=skip + limit // MIN_HIT_TOKENS + 1)  # more than the budget could show
    total = index.count(queries)
    if skip and skip >= total:
        valid = f"Ask with skip from 0 to {total - 1:,}; the docs may have changed since the answer that gave it."
        raise DocsError(
            f"skip {skip:,} is past the last of the {total:,} hits for these queries.",
            hint=valid if total else "Nothing matches these queries now; try other words.",
        )

    def arguments(next_skip: int) -> dict[str, object]:
        return {"queries": queries, "skip": next_skip, "budget_tokens": asked}

    widest = " ".join((budget.cut_note(_shown(total, total, total), _left(total), limit, "search_docs", arguments(total)), SHORTENED, _extra(index, total)))
    empty = DocsAnswer(hits=[], skip=skip, total=total, next_skip=total, sources=sources, note=widest)
    fit = budget.Fit(limit, docs_text(empty), empty, reserve=30)
    if total and fit.room() < MIN_ROOM:
        raise DocsError(
            f"The queries are too long for a {limit:,}-token budget: the note that names the next call would leave no room for a hit.",
            hint="Send shorter queries, or fewer, or a larger budget_tokens.",
        )
    hits: list[DocHit] = []
    shortened = False
    place = skip
    while place < len(ranked):
        batch = [_hit(hit) for hit in index.hits(ranked[place : place + BATCH])]
        taken = budget.take(batch, fit, hit_line)
        hits += batch[:taken]
        place += taken
        if taken < len(batch):
            break
    if not hits and place < len(ranked):  # one hit larger than the whole budget: its fields shortened to fit
        hits, place, shortened = [_shortened(_hit(index.hits(ranked[place : place + 1])[0]), fit)], place + 1, True
    next_skip = place if place < total else None
    note = ""
    if next_skip is not None:
        note = budget.cut_note(_shown(skip + 1, place, total), _left(total - place), limit, "search_docs", arguments(next_skip))
    if shortened:
        note = (note + " " + SHORTENED).strip()
    note = (note + " " + _extra(index, total)).strip()
    return DocsAnswer(hits=hits, skip=skip, total=total, next_skip=next_skip, sources=sources, note=note)


def _shown(first: int, last: int, total: int) -> str:
    return f"hits {first:,} to {last:,} of {total:,}"


def _left(count: int) -> str:
    return f"the {count:,} after them"


def _extra(index: DocsIndex, total: int) -> str:
    extra = "" if total else "Nothing matched; try other words."
    if not any(label == "project" for label, _ in index.roots):
        extra = (extra + " The project has no docs/ folder, so only rata's docs were searched.").strip()
    if index.passed_over:
        named = sorted(set(index.passed_over))
        which = ", ".join(quote(name, 120) for name in named[:5]) + (", ..." if len(named) > 5 else "")
        over = f"{MAX_DOC_BYTES // (1024 * 1024)} MiB"
        extra = (extra + f" {len(named):,} file(s) were not searched ({which}): not regular files, over {over}, or unreadable.").strip()
    if index.cut:
        extra = (extra + " The docs folder is too large to look through whole; only part of it was searched.").strip()
    return extra


def _hit(hit: Hit) -> DocHit:
    return DocHit(
        source=hit.source,
        link=hit.link,
        heading=budget.shorten(hit.heading, HEADING_CHARS),
        snippet=budget.shorten(hit.snippet, SNIPPET_CHARS),
        score=hit.score,
    )


def _shortened(hit: DocHit, fit: budget.Fit) -> DocHit:
    """`hit` with its heading, link and snippet cut in the middle until it fits what is left of the budget."""
    chars = max(fit.room(), 20)
    while True:
        small = DocHit(
            source=hit["source"],
            link=budget.shorten(hit["link"], chars),
            heading=budget.shorten(hit["heading"], chars),
            snippet=budget.shorten(hit["snippet"], chars),
            score=hit["score"],
        )
        if fit.add(hit_line(small), small) or chars <= 20:
            return small
        chars //= 2
