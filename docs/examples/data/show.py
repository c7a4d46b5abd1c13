"""Print an MCP server's answers (JSON lines on stdin) in the order of their ids: each tool's text, or its error."""

import json
import sys

for answer in sorted((json.loads(line) for line in sys.stdin), key=lambda answer: answer["id"]):
    if "error" in answer:
        print(f"[{answer['id']}] JSON-RPC error {answer['error']['code']}: {answer['error']['message']}")
        continue
    result = answer["result"]
    parts = result.get("content") or result.get("contents") or []  # a tool's result, or a resource's
    text = "\n".join(part["text"] for part in parts if "text" in part)
    print(f"[{answer['id']}] {'isError: ' if result.get('isError') else ''}{text}")
