"""An app whose commands return content parts (`rata.content`): one of each kind, several, typed data with parts, and faults.

It imports only rata, so `rata mcp serve --app <a copy of this file>` serves it as a real process.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from rata import App, Audio, Content, Ctx, EmbeddedResource, Image, Mcp, Part, ResourceLink, Text, command


def png(width: int = 2, height: int = 1) -> bytes:
    """A real PNG: red pixels, as any decoder reads it."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def wav(samples: int = 8) -> bytes:
    """A real WAV: 8-bit mono silence at 8 kHz."""
    data = b"\x80" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    return (
        b"RIFF"
        + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


PNG = png()
WAV = wav()
NOTES = "Q3 notes: revenue up 4%."
ZIP = b"PK\x05\x06" + b"\x00" * 18  # an empty zip archive


@dataclass
class Summary:
    """Sales in one quarter."""

    quarter: str
    total: int


@command(can="reports.view", read_only=True)
def chart(ctx: Ctx) -> Image:
    """The sales chart, as a PNG."""
    return Image(PNG, mime_type="image/png")


@command(can="reports.view", read_only=True)
def chart_file(ctx: Ctx, path: str) -> Image:
    """An image read from a file; its type read from its bytes."""
    return Image(path=path)


@command(can="reports.view", read_only=True)
def chime(ctx: Ctx) -> Audio:
    """A short sound."""
    return Audio(WAV, mime_type="audio/wav")


@command(can="reports.view", read_only=True)
def notes(ctx: Ctx) -> EmbeddedResource:
    """The quarter's notes, embedded as a text resource."""
    return EmbeddedResource("file:///reports/q3-notes.txt", text=NOTES, mime_type="text/plain")


@command(can="reports.view", read_only=True)
def archive(ctx: Ctx) -> EmbeddedResource:
    """The quarter's files, embedded as a binary resource."""
    return EmbeddedResource("file:///reports/q3.zip", blob=ZIP, mime_type="application/zip")


@command(can="reports.view", read_only=True)
def link(ctx: Ctx) -> ResourceLink:
    """A link to the full report."""
    return ResourceLink("file:///reports/q3.pdf", "q3.pdf", title="Q3 report", mime_type="application/pdf", size=52_000)


@command(can="reports.view", read_only=True)
def mixed(ctx: Ctx) -> list[Part]:
    """Every kind of part, in this order."""
    return [
        Text("Q3 at a glance:"),
        Image(PNG, mime_type="image/png"),
        EmbeddedResource("file:///reports/q3-notes.txt", text=NOTES, mime_type="text/plain"),
        ResourceLink("file:///reports/q3.pdf", "q3.pdf"),
        Audio(WAV, mime_type="audio/wav"),
    ]


@command(can="reports.view", read_only=True)
def report(ctx: Ctx, quarter: str = "Q3") -> Content[Summary]:
    """The quarter's summary as data, with its chart."""
    return Content(Summary(quarter, 1200), [Image(PNG, mime_type="image/png"), Text("Amounts are in EUR.")])


@command(can="reports.view", read_only=True)
def quarters(ctx: Ctx) -> Content[list[str]]:
    """Typed data that is not an object (wrapped under "result" for 2025-11-25), with a note."""
    return Content(["Q1", "Q2", "Q3"], [Text("Q4 is not closed yet.")])


@command(can="reports.view", read_only=True)
def maybe_chart(ctx: Ctx, show: bool) -> Image | None:
    """The chart, or nothing."""
    return Image(PNG) if show else None


@command(can="reports.view", read_only=True)
def caption(ctx: Ctx) -> Text:
    """A text part for the user more than the model."""
    return Text("Shown to the user.", audience=["user"], priority=0.8)


@command(can="reports.view", read_only=True)
def greeting(ctx: Ctx, name: str) -> str:
    """A string result: its text block is the string itself."""
    return f"Hello, {name}!"


@command(can="reports.view", read_only=True)
def mislabelled(ctx: Ctx) -> Image:
    """A PNG that says it is a JPEG."""
    return Image(PNG, mime_type="image/jpeg")


@command(can="reports.view", read_only=True)
def oversized(ctx: Ctx, size: int) -> list[Part]:
    """Images of `size` bytes each, three of them."""
    return [Image(PNG + b"\x00" * (size - len(PNG)), mime_type="image/png") for _ in range(3)]


def rich_app() -> App:
    return (
        App("reports", identifier="com.example.reports", version="1.0.0")
        .commands(chart, chart_file, chime, notes, archive, link, mixed, report, quarters, maybe_chart, caption, greeting, mislabelled, oversized)
        .allow_abilities(["reports.*"])
        .mcp(Mcp().allow_abilities(["reports.*"]).rate_limit(None))
    )


app = rich_app()
