"""The read-only dev MCP server for the coding agent (``rata mcp dev``), built on `rata.mcp`."""
