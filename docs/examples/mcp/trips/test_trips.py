"""Test a command that talks back, with rata.testing.AgentClient. Run: pytest test_trips.py"""

import logging

import pytest
from trips_app import app as trips

from rata.testing import AgentClient


@pytest.fixture
def app(tmp_path):
    trips.folder = tmp_path / "trips"
    trips.migrate()
    logging.getLogger("trips").setLevel(logging.INFO)  # what `trips --mcp` does with configure_logging
    yield trips
    trips.close()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_booking_asks_where_to_sit(app, era):
    with AgentClient(app, era=era) as agent:
        booked = agent.call("trips_book", {"city": "Oslo"}, answers=[{"seat": "window", "bags": 1}])
        assert booked.text == "Trip 1 to Oslo: window seat, 1 bags."
        assert booked.asked[0]["requestedSchema"]["properties"]["seat"] == {"title": "Seat", "type": "string", "enum": ["window", "aisle"]}
        assert agent.call("trips_index").text == '["Oslo (window)"]'


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_declined_question_books_nothing(app, era):
    with AgentClient(app, era=era) as agent:
        declined = agent.call("trips_book", {"city": "Oslo"}, answers=["decline"])
        assert declined.is_error and declined.text == "trips_book failed: The user declined the question; nothing was done."
        assert agent.call("trips_index").text == "[]"


def test_importing_reports_progress_and_logs(app):
    with AgentClient(app, log_level="info") as agent:
        imported = agent.call("trips_import", {"cities": ["Oslo", "Rome", "Lima"]}, progress=True)
    assert imported.progress[-1]["progress"] == 3 and imported.progress[-1]["message"] == "imported Lima"
    assert [log["data"]["message"] for log in imported.logs] == ["imported Oslo", "imported Rome", "imported Lima"]


def test_planning_asks_the_clients_model(app):
    def model(params):
        assert params["messages"][0]["content"]["text"] == "Plan a day in Oslo."
        return {"role": "assistant", "content": {"type": "text", "text": "Walk by the fjord."}, "model": "test"}

    with AgentClient(app, sampling=model) as agent:
        assert agent.call("trips_plan", {"city": "Oslo"}).text == "Walk by the fjord."
