"""Fixtures for the in-process server tests; test modules import the ones they use."""

from __future__ import annotations

import pytest

from rata.testing import AgentClient
from tests.mcp.lab import lab_app, release


@pytest.fixture
def lab():
    release.clear()
    yield lab_app()
    release.set()


@pytest.fixture
def crm(crm_app):
    crm_app.migrate()
    return crm_app


@pytest.fixture(params=["modern", "legacy"])
def era(request):
    return request.param


@pytest.fixture
def agent(crm, era):
    with AgentClient(crm, era=era) as client:
        yield client
