"""photos: the stock room's pictures, to show commands that return images and other content parts."""

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rata import App, Content, Image, Mcp, ResourceLink, Text, command

PHOTOS = Path(__file__).parent / "photos"
SHELVES = {"bolt": 120, "nut": 80, "washer": 300}
Item = Literal["bolt", "nut", "washer"]


@dataclass
class Shelf:
    item: str
    count: int


@command(can="stock.view", read_only=True)
def stock_photo(item: Item) -> Image:
    """A photo of an item's shelf.

    Args:
        item: The item's name.
    """
    return Image(path=PHOTOS / f"{item}.png")


@command(can="stock.view", read_only=True)
def stock_sheet(item: Item) -> Content[Shelf]:
    """How many of an item are on the shelves, with its photo and a link to its data sheet.

    Args:
        item: The item's name.
    """
    return Content(
        Shelf(item, SHELVES[item]),
        [
            Image(path=PHOTOS / f"{item}.png"),
            Text(f"The {item} shelf, photographed this morning."),
            ResourceLink(f"https://example.com/sheets/{item}.pdf", f"{item}.pdf", mime_type="application/pdf"),
        ],
    )


app = (
    App("photos", identifier="com.example.photos")
    .commands(stock_photo, stock_sheet)
    .allow_abilities(["stock.view"])
    .mcp(Mcp().allow_abilities(["stock.view"]))
)
