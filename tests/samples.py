"""Sample types that the type model, schema and conversion tests share.

`tests/test_typemodel.py`, `tests/codegen/test_schema.py` and `tests/test_convert.py` read
the same types into nodes, schemas and values, so each type is defined once, here. The
docstrings are part of the samples: the tests check the descriptions read from them.
A test module that needs a type that differs keeps it locally and says why.
"""

import datetime as dt
import enum
from dataclasses import dataclass, field
from typing import NamedTuple, NotRequired, Optional, TypedDict


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Status(enum.Enum):
    """Where an order is.

    More words that are not the summary.
    """

    OPEN = "open"
    SHIPPED = "shipped"


@dataclass
class Order:
    """An order of some items.

    Attributes:
        customer: Who ordered.
        note: Anything the customer added.
    """

    customer: str
    sku: str = field(metadata={"description": "Stock keeping unit."})
    note: str = ""
    tags: list[str] = field(default_factory=list)
    placed: dt.date = dt.date(2026, 7, 28)
    status: Status = Status.OPEN
    total: int = field(default=0, init=False)


class Movie(TypedDict):
    """A film.

    Attributes:
        title: Its title.
    """

    title: str
    year: int


class Filters(TypedDict, total=False):
    search: str
    limit: int


class Draft(TypedDict):
    title: str
    body: NotRequired[str]


class Coord(NamedTuple):
    """A point on a map.

    Attributes:
        lat: Latitude.
    """

    lat: float
    lon: float = 0.0


@dataclass
class TreeNode:
    """A node of a tree."""

    name: str
    children: list["TreeNode"] = field(default_factory=list)


@dataclass
class Dept:
    name: str
    staff: list["Person"]


@dataclass
class Person:
    name: str
    dept: Optional["Dept"] = None
