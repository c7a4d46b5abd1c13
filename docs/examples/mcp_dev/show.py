"""Print an MCP server's answers (JSON lines on stdin) in the order of their ids, for reading.

A tool's result is shown as its structured JSON, one field per line (short lists and objects
stay on one line), or with --text as its text block, the form most clients give their model;
a tool that failed, or a JSON-RPC error, as its text.
"""

import json
import sys

WIDTH = 90
TEXT = "--text" in sys.argv[1:]


def pretty(value, indent=0):
    compact = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (list, dict)) or not value or indent + len(compact) <= WIDTH:
        return compact
    pad = " " * (indent + 2)
    if isinstance(value, list):
        lines = [pad + pretty(item, indent + 2) for item in value]
        return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
    lines = [f"{pad}{json.dumps(key)}: {pretty(item, indent + 2)}" for key, item in value.items()]
    return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"


for answer in sorted((json.loads(line) for line in sys.stdin), key=lambda answer: answer["id"]):
    result = answer.get("result", {})
    if "error" in answer:
        shown = f"JSON-RPC error {answer['error']['code']}: {answer['error']['message']}"
    elif result.get("isError"):
        shown = "isError: " + result["content"][0]["text"]
    elif TEXT:
        shown = "\n".join(part["text"] for part in result["content"] if part["type"] == "text")
    else:
        shown = pretty(result["structuredContent"])
    print(f"[{answer['id']}] {shown}")
