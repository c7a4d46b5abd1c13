"""Shipping an app to its users: an MCP Bundle (`rata mcp pack`)."""
