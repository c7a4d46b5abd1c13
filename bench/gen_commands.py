"""Generate a Python module with N command functions, for the codegen benchmark.

The same seed gives the same functions, byte for byte, in two flavours:

- ``rata``: each function is a ``@command(can=...)`` taking ``ctx: Ctx`` first, constraints are
  ``rata.Field``, and ``build_app()`` returns an ``App`` whose ``Mcp`` grants ``"*"`` (every
  command is a tool);
- ``plain``: the same functions without decorator or ``ctx``, constraints are ``pydantic.Field``
  (what FastMCP and the MCP SDK read); ``build_fastmcp()`` and ``build_sdk()`` register every
  function with ``server.tool(fn)`` / ``server.add_tool(fn)``.

Signatures vary: str/int/float/bool parameters, defaults, Optional, Literal, list[...],
dict[str, ...], five dataclasses shared across the commands (two of them nested), and
Annotated constraints. Every function has a docstring with an Args section, so each
framework has the same descriptions to read. Bodies only raise: nothing is ever called.

    python bench/gen_commands.py rata 1000 > /tmp/app1000.py
"""

from __future__ import annotations

import random
import sys

DATACLASSES = '''

@dataclass
class Address:
    """A postal address."""

    street: str
    city: str
    country: str = "NL"


@dataclass
class Item:
    """One line of an order."""

    sku: str
    quantity: int
    price: float


@dataclass
class Order:
    """An order and its lines.

    Args:
        items: The lines, in the order they were added.
        ship_to: Where the order goes.
    """

    id: int
    items: list[Item]
    ship_to: Address
    note: Optional[str] = None


@dataclass
class Customer:
    """A person or company you sell to."""

    id: int
    name: str
    email: str
    created_at: str


@dataclass
class Page:
    """One page of customers."""

    total: int
    customers: list[Customer]
'''

# (annotation, default or None for required, description). "{F}" is where Field goes.
PARAMS: list[tuple[str, str | None, str]] = [
    ("str", None, "A name or title."),
    ("int", None, "The record's id."),
    ("float", None, "An amount, in euros."),
    ("bool", "False", "Whether to include archived records."),
    ("str", '""', "Text to search for; empty matches everything."),
    ("int", "10", "How many records to return."),
    ("float", "1.0", "A weight between records."),
    ("Optional[str]", "None", "An optional note."),
    ("Optional[int]", "None", "An optional parent id."),
    ('Literal["asc", "desc"]', '"asc"', "The sort order."),
    ('Literal["draft", "open", "closed"]', None, "The new status."),
    ("list[str]", None, "Tags to apply."),
    ("list[int]", None, "The ids to act on."),
    ("Optional[list[str]]", "None", "Fields to return; all when omitted."),
    ("dict[str, int]", None, "Counts per key."),
    ("Address", None, "Where to ship."),
    ("list[Item]", None, "The order lines."),
    ("Optional[Address]", "None", "A billing address, if it differs."),
    ("Annotated[int, Field(ge=1, le=500)]", "50", "Rows per page."),
    ("Annotated[str, Field(min_length=1, max_length=200)]", None, "A short label."),
    ("Annotated[float, Field(gt=0, le=1000000)]", None, "A positive price."),
    ('Annotated[str, Field(pattern=r"^[a-z0-9-]+$")]', None, "A slug."),
    ("Annotated[int, Field(ge=0)]", "0", "Records to skip."),
    ("Annotated[list[str], Field(max_length=20)]", None, "Up to 20 labels."),
]

RETURNS = ["str", "int", "bool", "float", "None", "list[Item]", "Order", "Customer", "Page", "Optional[Customer]", "dict[str, float]", "list[str]"]
NOUNS = ["customers", "orders", "invoices", "products", "tickets", "notes", "projects", "users", "reports", "shipments"]
VERBS = [
    ("index", "view", True),
    ("show", "view", True),
    ("store", "create", False),
    ("update", "update", False),
    ("delete", "delete", False),
    ("export", "view", True),
]


def _function(index: int, rng: random.Random, flavor: str) -> tuple[str, str]:
    noun = NOUNS[index % len(NOUNS)]
    verb, ability, read_only = VERBS[(index // len(NOUNS)) % len(VERBS)]
    name = f"{noun}_{verb}_{index:04d}"
    count = rng.randint(0, 6)
    chosen = rng.sample(range(len(PARAMS)), count)
    required = [i for i in chosen if PARAMS[i][1] is None]
    optional = [i for i in chosen if PARAMS[i][1] is not None]
    returns = rng.choice(RETURNS)
    args = ["ctx: Ctx"] if flavor == "rata" else []
    docs = []
    for n, i in enumerate(required + optional):
        annotation, default, description = PARAMS[i]
        pname = f"p{n}_{i}"
        args.append(f"{pname}: {annotation}" + (f" = {default}" if default is not None else ""))
        docs.append(f"        {pname}: {description}")
    lines = []
    if flavor == "rata":
        options = [f'can="{noun}.{ability}"'] + (["read_only=True"] if read_only else [])
        lines.append(f"@command({', '.join(options)})")
    lines.append(f"def {name}({', '.join(args)}) -> {returns}:")
    lines.append(f'    """{verb.capitalize()} {noun} (generated command {index}).')
    if docs:
        lines.append("")
        lines.append("    Args:")
        lines.extend(docs)
    lines.append('    """')
    lines.append("    raise NotImplementedError")
    return name, "\n".join(lines)


def generate(flavor: str, count: int = 1000, seed: int = 1000) -> str:
    """The module's source text for `flavor` ("rata" or "plain")."""
    if flavor not in ("rata", "plain"):
        raise ValueError(f"unknown flavor {flavor!r}")
    rng = random.Random(seed)
    header = [f'"""{count} generated commands ({flavor} flavour; bench/gen_commands.py, seed {seed})."""', ""]
    header.append("from __future__ import annotations")
    header.append("")
    header.append("from dataclasses import dataclass")
    header.append("from typing import Annotated, Literal, Optional")
    header.append("")
    if flavor == "rata":
        header.append("from rata import App, Ctx, Field, Mcp, command")
    else:
        header.append("from pydantic import Field")
    parts = ["\n".join(header), DATACLASSES]
    names = []
    for index in range(count):
        name, text = _function(index, rng, flavor)
        names.append(name)
        parts.append("\n\n" + text + "\n")
    listing = "COMMANDS = [\n" + "".join(f"    {n},\n" for n in names) + "]\n"
    parts.append("\n\n" + listing)
    if flavor == "rata":
        parts.append(
            '''

def build_app() -> App:
    """Register every command; agents are granted every ability."""
    return (
        App("bench", identifier="com.example.bench", version="1.0.0", root=".")
        .commands(COMMANDS)
        .allow_abilities(["*"])
        .mcp(Mcp().allow_abilities(["*"]))
    )
'''
        )
    else:
        parts.append(
            '''

def build_fastmcp():
    """Register every function as a FastMCP tool."""
    from fastmcp import FastMCP

    server = FastMCP("bench", version="1.0.0")
    for fn in COMMANDS:
        server.tool(fn)
    return server


def build_sdk():
    """Register every function as a tool of the MCP SDK's MCPServer."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench", version="1.0.0")
    for fn in COMMANDS:
        server.add_tool(fn)
    return server
'''
        )
    return "".join(parts)


if __name__ == "__main__":
    flavor = sys.argv[1] if len(sys.argv) > 1 else "rata"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    sys.stdout.write(generate(flavor, count))
