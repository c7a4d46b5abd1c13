"""The real `crm --mcp` on the raw wire: how it tells the two eras apart when a client probes (the conformance suite's probes)."""

from __future__ import annotations

import json
import subprocess

import pytest

from rata.mcp import wire
from tests.conftest import subprocess_env
from tests.mcp.peers import crm_command, crm_home, migrated_folder  # noqa: F401 - pytest fixtures
from tests.mcp.strict import strict_json

pytestmark = pytest.mark.subprocess
META = {wire.META_VERSION: wire.MODERN, wire.META_CAPABILITIES: {}, wire.META_CLIENT: {"name": "conformance-client", "version": "1.0.0"}}
HANDSHAKE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}


def request(id: int | str, method: str, params: dict | None = None) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}) + "\n").encode()


def serve(home, data: bytes) -> dict:
    """Run `crm --mcp` on `data` (then EOF): each answer by its id, strictly parsed."""
    done = subprocess.run(crm_command(), input=data, capture_output=True, env=subprocess_env(home), timeout=30)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    answers = [strict_json(text) for text in done.stdout.decode().splitlines()]
    return {answer["id"]: answer for answer in answers}


def test_an_initialize_carrying_the_2026_envelope_is_a_removed_method_and_pins_nothing(crm_home):  # noqa: F811 - the fixture
    answers = serve(
        crm_home,
        request(500, "initialize", {"_meta": META})
        + request(501, "initialize", {**HANDSHAKE, "_meta": META})
        + request(502, "initialize", {**HANDSHAKE, "_meta": {"progressToken": 7}}),  # the probes left the connection free; legacy _meta is no envelope
    )
    for probe in (500, 501):
        error = answers[probe]["error"]
        assert error["code"] == wire.METHOD_NOT_FOUND and "does not exist in 2026-07-28" in error["message"]
    assert answers[502]["result"]["protocolVersion"] == "2025-11-25"


def test_on_a_2026_connection_an_enveloped_initialize_is_still_not_found_and_a_plain_one_is_unsupported(crm_home):  # noqa: F811 - the fixture
    answers = serve(
        crm_home,
        request(1, "tools/list", {"_meta": META})
        + request(2, "initialize", {"_meta": META})
        + request(3, "initialize", HANDSHAKE)
        + request(4, "initialize", {"capabilities": {}}),
    )
    assert answers[1]["result"]["tools"]
    assert answers[2]["error"]["code"] == wire.METHOD_NOT_FOUND
    assert answers[3]["error"]["code"] == wire.UNSUPPORTED_VERSION
    assert answers[3]["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}
    # no version sent: no "requested" (the schema has it a string, never null)
    assert answers[4]["error"]["code"] == wire.UNSUPPORTED_VERSION and answers[4]["error"]["data"] == {"supported": ["2026-07-28"]}


@pytest.mark.parametrize(
    ("sent", "data"),
    [
        ("2099-01-01", {"supported": ["2026-07-28"], "requested": "2099-01-01"}),
        ("", {"supported": ["2026-07-28"], "requested": ""}),
        (None, {"supported": ["2026-07-28"]}),
        (20260728, {"supported": ["2026-07-28"]}),
    ],
)
def test_an_unsupported_envelope_version_is_echoed_as_the_client_wrote_it(crm_home, sent, data):  # noqa: F811 - the fixture
    answers = serve(crm_home, request("u-1", "server/discover", {"_meta": {**META, wire.META_VERSION: sent}}))
    assert answers["u-1"]["error"] == {"code": wire.UNSUPPORTED_VERSION, "message": "Unsupported protocol version", "data": data}
