"""The live registry hears every write, however often the same statement runs."""

from __future__ import annotations

from rata.live import LiveRegistry


def test_every_run_of_the_same_insert_reaches_the_live_registry(crm_app):
    crm_app.migrate()
    heard: list[frozenset[str]] = []
    crm_app.live.listen(heard.append)
    for n in range(3):
        crm_app.call("customers_store", name=f"Customer {n}", email=f"c{n}@example.com")
    assert heard == [frozenset({"customers"})] * 3


def test_a_write_affects_only_the_live_queries_that_read_what_it_wrote():
    registry = LiveRegistry()
    registry.record_reads("customers_index", {"customers"})
    assert registry.affects("customers_index", frozenset({"customers"}))
    assert not registry.affects("customers_index", frozenset({"orders"}))
    assert registry.affects("never_ran", frozenset({"orders"}))  # unknown reads: assume it may change
