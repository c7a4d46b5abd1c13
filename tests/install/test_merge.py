"""`rata.install.merge`: the way an entry goes into a file is the client row's."""

from __future__ import annotations

import dataclasses

import pytest

from rata.install import merge
from rata.install.formats import YAML
from tests.install.known import known_client

ENTRY = {"type": "stdio", "command": "/bin/crm", "args": ["--mcp"]}


def test_a_shared_file_in_a_format_rata_cannot_edit_is_refused_and_left():
    goose_with_a_project_file = dataclasses.replace(known_client("goose"), project_file="goose.yaml")
    with pytest.raises(merge.WriteRefusedError, match="cannot merge an entry into a YAML file"):
        merge.merge_text(goose_with_a_project_file, "crm", ENTRY, "", "extensions: {}\n")


def test_a_file_of_its_own_is_written_whole_not_merged():
    own = dataclasses.replace(known_client("claude-code"), own_file=True)
    assert merge.merge_text(own, "crm", ENTRY, "{}\n", "{}\n").text == "{}\n"
    assert merge.merge_text(own, "crm", ENTRY, "snippet\n", None).text == "snippet\n"
    assert known_client("continue").own_file and known_client("continue").format is YAML
