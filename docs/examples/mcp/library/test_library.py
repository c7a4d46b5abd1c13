"""Test the library's resources with rata.testing.AgentClient. Run: pytest test_library.py"""

import pytest
from library_app import LOGO
from library_app import app as library

from rata.testing import AgentClient


@pytest.fixture
def app(tmp_path):
    library.folder = tmp_path / "library"
    library.migrate()
    yield library
    library.close()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_resources_templates_files_and_blobs(app, era):
    with AgentClient(app, era=era) as agent:
        assert [r["uri"] for r in agent.list_resources()] == ["library://about", "library://books.csv", "library://guide", "library://logo"]
        assert [t["uriTemplate"] for t in agent.list_templates()] == ["library://books/{id}/title"]
        book = agent.call("books_add", {"title": "Dune", "author": "Frank Herbert"}).text  # "1"
        assert agent.read("library://books.csv") == "id,title,author\n1,Dune,Frank Herbert\n"
        assert agent.read(f"library://books/{book}/title") == "Dune"
        assert agent.read("library://guide").startswith("# The library")
        assert agent.read("library://logo") == LOGO  # a blob, decoded


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_watched_function_hears_writes_to_the_tables_it_read(app, era):
    with AgentClient(app, era=era) as agent:
        agent.read("library://books.csv")  # once read, its tables are known
        with agent.listen("library://books.csv") as listen:
            agent.call("books_add", {"title": "Emma", "author": "Jane Austen"})
            listen.wait_for_update("library://books.csv")
