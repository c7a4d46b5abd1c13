"""What a model reads back from each kind of call to the stock app."""

from rata.logs import configure_logging
from rata.mcp.wire import McpError
from rata.testing import AgentClient

from stock import app

configure_logging(app.folder, app.name)  # as `rata mcp serve` does: tracebacks go to the log file


def show(title, result):
    print(f"{title}: isError={result.is_error}")
    print("  " + result.text.replace("\n", "\n  "))


with AgentClient(app) as agent:
    show("A good call", agent.call("stock_count", {"item": "bolt"}))
    show("Bad arguments", agent.call("stock_take", {"item": 7, "count": 0, "colour": "red"}))
    show("ValidationErrors", agent.call("stock_take", {"item": "nut", "count": 500}))
    show("A failing command", agent.call("stock_recount"))
    show("Declined by the user", agent.call("stock_remove", {"item": "nut"}, confirm=False))
    try:
        agent.call("stock_reset")
    except McpError as error:
        print(f"Not a tool: JSON-RPC error {error.code}: {error.message}")
    for _ in range(30):
        result = agent.call("stock_count", {"item": "nut"})
        if result.is_error:
            break
    show("Too many calls", result)
