"""rata: apps whose commands are typed Python functions, and every app an MCP server.

    from rata import App, Ctx, Mcp, ValidationErrors, command
"""

from rata.app import App, Mcp
from rata.command import command
from rata.context import Ctx
from rata.dispatch import CommandRequest, Origin
from rata.errors import RataError
from rata.typemodel import Field, JsonValue
from rata.validation import ValidationErrors

__version__ = "0.1.0"

__all__ = [
    "App",
    "CommandRequest",
    "Ctx",
    "Field",
    "JsonValue",
    "Mcp",
    "Origin",
    "RataError",
    "ValidationErrors",
    "command",
    "__version__",
]
