"""One headless Chromium for the whole test session, shared by tests/windows and tests/debug_build.

Starting Chromium costs about a second, so the session starts it once (lazily, on the
first test that asks) and each test opens its own page in it. Where Chromium is missing
the browser tests skip, except in CI (``CI=true``) or with ``RATA_CHROMIUM_REQUIRED=1``,
where they fail so that a missing install step is noticed.
"""

from __future__ import annotations

import os

import pytest

from rata.errors import WindowError
from rata.windows.cdp import Browser, find_chromium

_shared: list[Browser] = []


def chromium_required() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1") or os.environ.get("RATA_CHROMIUM_REQUIRED") == "1"


def require_chromium() -> str:
    """The Chromium binary, or skip (locally) / fail (in CI) the calling test."""
    try:
        return find_chromium()
    except WindowError as error:
        if chromium_required():
            pytest.fail(f"{error}; it is required here (CI=true or RATA_CHROMIUM_REQUIRED=1)")
        pytest.skip(str(error))


def shared_browser() -> Browser:
    """The session's browser, started on first use and closed at interpreter exit."""
    binary = require_chromium()
    if not _shared or not _shared[0].alive:
        _shared[:] = [Browser(binary)]
    return _shared[0]
