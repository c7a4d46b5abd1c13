"""Optional desktop package (see typings/README.md): every name is Any to the checker."""

from typing import Any

def __getattr__(name: str) -> Any: ...
