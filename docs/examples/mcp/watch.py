"""Hear about every agent call: the AgentCalled event and the "rata:mcp" channel."""

from rata.events import AgentCalled
from rata.logs import configure_logging
from rata.testing import AgentClient

from stock import app

configure_logging(app.folder, app.name)
app.on(AgentCalled, lambda event: print(f"AgentCalled: {event.tool} by {event.client}, ok={event.ok}"))
app.subscribe("rata:mcp", lambda message: print(f"rata:mcp: {message}"))

with AgentClient(app, client="claude-code") as agent:
    agent.call("stock_take", {"item": "bolt", "count": 5})
    agent.call("stock_recount")
