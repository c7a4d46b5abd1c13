"""rata: apps whose commands are typed Python functions, and every app an MCP server.

    from rata import App, Ctx, Mcp, ValidationErrors, command

The names are imported on first use, so ``import rata.mcp.server`` (an MCP server
answering from an app's manifest, say) does not load the app model.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.app import App, Mcp
    from rata.command_spec import command
    from rata.content import Audio, Content, EmbeddedResource, Image, Part, ResourceLink, Text
    from rata.context import Ctx
    from rata.dispatch import CommandRequest, Origin
    from rata.errors import RataError
    from rata.prompts import PromptMessage, prompt
    from rata.resources import Resource, resource
    from rata.talk import Answer, Question
    from rata.typemodel import Field, JsonValue
    from rata.validation import ValidationErrors

__version__ = "0.1.0"

_WHERE = {
    "App": "rata.app",
    "Mcp": "rata.app",
    "command": "rata.command_spec",
    "Audio": "rata.content",
    "Content": "rata.content",
    "EmbeddedResource": "rata.content",
    "Image": "rata.content",
    "Part": "rata.content",
    "ResourceLink": "rata.content",
    "Text": "rata.content",
    "Ctx": "rata.context",
    "CommandRequest": "rata.dispatch",
    "Origin": "rata.dispatch",
    "RataError": "rata.errors",
    "PromptMessage": "rata.prompts",
    "prompt": "rata.prompts",
    "Resource": "rata.resources",
    "resource": "rata.resources",
    "Answer": "rata.talk",
    "Question": "rata.talk",
    "Field": "rata.typemodel",
    "JsonValue": "rata.typemodel",
    "ValidationErrors": "rata.validation",
}

__all__ = [
    "Answer",
    "App",
    "Audio",
    "CommandRequest",
    "Content",
    "Ctx",
    "EmbeddedResource",
    "Field",
    "Image",
    "JsonValue",
    "Mcp",
    "Origin",
    "Part",
    "PromptMessage",
    "Question",
    "RataError",
    "Resource",
    "ResourceLink",
    "Text",
    "ValidationErrors",
    "command",
    "prompt",
    "resource",
    "__version__",
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'rata' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
