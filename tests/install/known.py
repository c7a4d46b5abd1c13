"""The clients the install tests work with, looked up by name: a name rata does not know fails the test here, saying so."""

from __future__ import annotations

from rata.install.clients import Client, find_client


def known_client(name: str) -> Client:
    """The client rata knows by `name` (its key or an alias)."""
    found = find_client(name)
    assert found is not None, f"rata knows no client named {name!r}"
    return found
