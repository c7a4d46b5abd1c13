"""hello: one live query, granted to agents."""

from rata import App, Mcp, command


@command(can="greetings.view", live=True)
def greeting(name: str = "world") -> str:
    """Say hello.

    Args:
        name: Who to greet.
    """
    return f"Hello, {name}!"


app = App("hello", identifier="com.example.hello").commands(greeting).mcp(Mcp().allow_abilities(["greetings.view"]))
