"""MCP: the agent-facing surface of an app (tools/list, resources/list), per protocol era."""
