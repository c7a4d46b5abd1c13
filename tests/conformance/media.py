"""The small media files the conformance suite's content scenarios want: a PNG and a WAV, made in code.

Both servers under test use them: the fixture app (app.py) and the SDK's server (sdk_server.py).
"""

from __future__ import annotations

import io
import struct
import wave
import zlib


def _png() -> bytes:
    """A 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")


def _wav() -> bytes:
    """A tenth of a second of silence, 8 kHz mono."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 800)
    return buffer.getvalue()


PNG = _png()
WAV = _wav()
