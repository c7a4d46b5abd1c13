"""Shipping an app to its users: what a project says about itself (`rata.shipping.project`) and what is made
from it: its MCP Registry `server.json` (`rata.shipping.registry`) and its MCP Bundle (`rata mcp pack`, `rata.shipping.bundle`)."""
