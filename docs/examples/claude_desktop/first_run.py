"""Install an app's .mcpb the way Claude Desktop does, start it, and make the first tool calls.

    python first_run.py tasks/dist/tasks-0.1.0.mcpb "Water the plants"

It unpacks the bundle into extensions/NAME (a second bundle of the same app replaces the
first, as an update does), starts the command the manifest names with a bare Python (this
Python's own interpreter with -S: no site-packages, so neither rata nor the app is
installed) and a fresh home folder, so the app's data goes where it goes on a user's
machine, then speaks MCP to it on stdin and stdout, one JSON-RPC message a line.
"""

import json
import os
import queue
import shutil
import sqlite3
import subprocess
import sys
import threading
import zipfile
from contextlib import closing
from pathlib import Path

TIMEOUT = 30  # seconds to wait for any one answer


def install(bundle: Path) -> Path:
    """Unpack the bundle where the client keeps its extensions; an update replaces the old files."""
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        folder = Path("extensions") / manifest["name"]
        shutil.rmtree(folder, ignore_errors=True)
        archive.extractall(folder)
    print(f"Installed {manifest['display_name']} {manifest['version']} in {folder}")
    return folder


def start(folder: Path, home: Path) -> subprocess.Popen:
    """The manifest's own command, ${__dirname} replaced, on a bare Python, with nothing in the environment but a home."""
    config = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["server"]["mcp_config"]
    args = [arg.replace("${__dirname}", str(folder.resolve())) for arg in config["args"]]
    print(f"Started: {config['command']} {' '.join(config['args'])}")
    bare = [getattr(sys, "_base_executable", sys.executable), "-S"]  # stands in for the user's python3
    env = {"HOME": str(home.resolve()), "PATH": os.defpath, "PYTHONIOENCODING": "utf-8"}
    return subprocess.Popen(bare + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)


class Client:
    """Just enough of an MCP client (the 2025-11-25 era's initialize handshake) to make calls."""

    def __init__(self, server: subprocess.Popen) -> None:
        self.server = server
        self.lines: queue.Queue = queue.Queue()
        self.next_id = 0
        self.reader = threading.Thread(target=lambda: [self.lines.put(line) for line in server.stdout], daemon=True)
        self.reader.start()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.server.stdin.flush()
        while True:
            message = json.loads(self.lines.get(timeout=TIMEOUT))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise SystemExit(f"{method}: {message['error']['message']}")
                return message["result"]

    def notify(self, method: str) -> None:
        self.server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.server.stdin.flush()

    def call(self, tool: str, arguments: dict) -> None:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        shown = json.dumps(result["structuredContent"]) if not result.get("isError") else "isError: " + result["content"][0]["text"]
        print(f"{tool} {json.dumps(arguments)}: {shown}")

    def close(self) -> None:
        """Quit, as a client does: close the server's stdin, and it exits."""
        self.server.stdin.close()
        self.server.wait(TIMEOUT)
        self.reader.join(TIMEOUT)
        self.server.stdout.close()


def main(bundle: str, title: str) -> None:
    folder = install(Path(bundle))
    server = start(folder, Path("home"))
    client = Client(server)
    hello = client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "first_run.py", "version": "1"}})
    client.notify("notifications/initialized")
    print(f"initialize: {hello['serverInfo']['name']} {hello['serverInfo']['version']}, protocol {hello['protocolVersion']}")
    print("tools/list:", ", ".join(tool["name"] for tool in client.request("tools/list", {})["tools"]))
    client.call("tasks_add", {"title": title})
    client.call("tasks_list", {})
    client.close()
    (database,) = Path("home").rglob("app.db")
    with closing(sqlite3.connect(database)) as db:
        count = db.execute("SELECT count(*) FROM tasks").fetchone()[0]
    print(f"The data: {database}, {count} task(s)")
    copies = [path for path in database.parent.rglob("*") if path != database and is_copy(path)]
    print(f"Copies of the database kept beside it: {len(copies)}")


def is_copy(path: Path) -> bool:
    """Whether the file is an SQLite database (its first 16 bytes say so) with the app's table in it."""
    if not path.is_file():
        return False
    with path.open("rb") as file:
        if file.read(16) != b"SQLite format 3\x00":
            return False
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tasks'").fetchone() is not None


if __name__ == "__main__":
    main(*sys.argv[1:])
