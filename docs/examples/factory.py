"""An app made by a function: load it with `--app factory.py:create_app`."""

from rata import App, Mcp, command


@command(can="ping.run", read_only=True)
def ping() -> str:
    """Answer "pong"."""
    return "pong"


def create_app() -> App:
    return App("ping", identifier="com.example.ping").commands(ping).mcp(Mcp().allow_abilities(["ping.run"]))
