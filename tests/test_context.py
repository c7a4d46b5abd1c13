"""`Ctx`: a command's view of its app, its request and its call's unit of work."""

from __future__ import annotations

import inspect

from rata import App, CommandRequest, Ctx
from rata.context import AppLike


def test_ctx_db_is_the_connection_of_the_call_s_unit_of_work_opened_on_first_use():
    app = App("c", identifier="com.example.c")
    with app.unit_of_work() as work:
        ctx = Ctx(app, CommandRequest("anything"), work)
        assert not work.used
        assert ctx.db is work.connection and work.used
        ctx.db.execute("CREATE TABLE t (x INTEGER)")
        ctx.db.execute("INSERT INTO t VALUES (1)")
        assert ctx.tables is work.tables and ctx.tables.writes == {"t"}
    assert work.changed == {"t"}
    app.close()


def test_the_app_offers_everything_ctx_app_promises_a_command():
    app = App("c", identifier="com.example.c", version="1.2.3", description="C.")
    promised = set(AppLike.__annotations__) | {name for name in vars(AppLike) if not name.startswith("_")}
    assert {"name", "version", "folder", "call", "dispatch"} <= promised
    for name in sorted(promised):
        assert hasattr(app, name), name
        declared = getattr(AppLike, name, None)
        if inspect.isfunction(declared):
            assert inspect.signature(getattr(app, name)) == inspect.signature(declared.__get__(app)), name
