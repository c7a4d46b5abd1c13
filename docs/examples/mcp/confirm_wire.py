"""Confirm a call by hand, over the wire: the 2026-07-28 input_required round trip."""

import json
import subprocess

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "by-hand", "version": "1.0"},
}
server = subprocess.Popen(["crm", "--mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def call(request_id, params):
    """Send one tools/call, print the answer line, and return its result or error."""
    request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"_meta": META, **params}}
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    print(answer, end="")
    return json.loads(answer)


delete = {"name": "customers_delete", "arguments": {"id": 1}}
state = call(1, delete)["result"]["requestState"]
allow = {"confirm": {"action": "accept", "content": {"confirm": True}}}
call(2, {"name": "customers_delete", "arguments": {"id": 2}, "inputResponses": allow, "requestState": state})
call(3, {**delete, "inputResponses": allow, "requestState": state})
server.stdin.close()
server.wait()
