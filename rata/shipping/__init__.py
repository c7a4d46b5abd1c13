"""Shipping an app to its users: what a project says about itself (`rata.shipping.project`) and the
entries made from it, such as its MCP Registry `server.json` (`rata.shipping.registry`)."""
