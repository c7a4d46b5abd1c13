"""Fixtures for the window tests: the session's shared headless Chromium."""

from __future__ import annotations

import pytest

from rata.windows.cdp import Browser
from tests.windows.shared import shared_browser


@pytest.fixture
def browser() -> Browser:
    """The session's one headless Chromium (each test opens and closes its own pages)."""
    return shared_browser()
