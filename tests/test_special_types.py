"""The special types (`rata.special_types`): one row each, and a new row is all a new type needs.

The rows are read by the type model, the schema writer, argument and result conversion and the
dev server's signatures; the test with a fake row proves none of them names a type on its own.
"""

import datetime as dt
import decimal
import ipaddress
import pathlib
import uuid

import pytest

from rata import App, CommandRequest, Origin, ValidationErrors, command
from rata.codegen.catalog import build_catalog
from rata.dev_server.tools import python_type
from rata.errors import ResultError
from rata.special_types import BY_HINT, DECIMAL_PATTERN, ROWS, SpecialType
from rata.typemodel import Analyzer


def _ipv4(text: str) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(text)  # AddressValueError is a ValueError


IPV4 = SpecialType(
    kind="ipv4",
    hints=(("ipaddress", "IPv4Address"),),
    schema={"type": "string", "format": "ipv4"},
    signature="IPv4Address",
    words="an IPv4 address such as 192.0.2.1",
    parse=_ipv4,
    accepts=lambda value: isinstance(value, ipaddress.IPv4Address),
    dump=str,
)


@command
def hosts_next(address: ipaddress.IPv4Address, skip: list[ipaddress.IPv4Address] | None = None) -> ipaddress.IPv4Address:
    """The address after `address`, passing over those in `skip`."""
    following = address + 1
    while skip and following in skip:
        following += 1
    return following


@command
def hosts_broken(address: ipaddress.IPv4Address) -> ipaddress.IPv4Address:
    """Return the address as text, which is not what it declares."""
    return str(address)  # type: ignore[return-value] - a command that returns the wrong type, on purpose


@pytest.fixture
def ipv4_row(monkeypatch: pytest.MonkeyPatch) -> SpecialType:
    """The fake row, registered for this test only."""
    for hint in IPV4.hints:
        monkeypatch.setitem(BY_HINT, hint, IPV4)
    return IPV4


def test_a_new_row_reaches_the_schema_the_arguments_the_result_and_the_signature(ipv4_row: SpecialType) -> None:
    app = App("t", identifier="com.example.t").commands(hosts_next, hosts_broken)

    tool = build_catalog(app).command("hosts_next")
    assert tool is not None
    assert tool["inputSchema"]["properties"]["address"] == {"type": "string", "format": "ipv4"}
    assert tool["inputSchema"]["properties"]["skip"]["anyOf"][0] == {"type": "array", "items": {"type": "string", "format": "ipv4"}}
    assert tool["outputSchema"] == {"type": "string", "format": "ipv4"}

    request = CommandRequest("hosts_next", {"address": "192.0.2.1", "skip": ["192.0.2.2"]})
    assert app.dispatch(request) == "192.0.2.3"
    with pytest.raises(ValidationErrors) as caught:
        app.dispatch(CommandRequest("hosts_next", {"address": "192.0.2.300", "skip": [7]}))
    assert caught.value.to_dict() == {
        "address": ["must be an IPv4 address such as 192.0.2.1, not '192.0.2.300'"],
        "skip[0]": ["must be a string (an IPv4 address such as 192.0.2.1), not an integer"],
    }

    with pytest.raises(ResultError) as broken:
        app.dispatch(CommandRequest("hosts_broken", {"address": "192.0.2.1"}, Origin.internal()))
    assert "result is str, not an IPv4 address such as 192.0.2.1" in str(broken.value)

    spec = app.specs["hosts_next"]
    assert [python_type(p.node) for p in spec.params] + [python_type(spec.returns)] == [
        "IPv4Address",
        "list[IPv4Address] | None",
        "IPv4Address",
    ]


def test_a_class_without_a_row_is_refused_as_before() -> None:
    from rata.errors import CodegenError

    with pytest.raises(CodegenError, match="does not know how to turn the class ipaddress.IPv4Address into JSON"):
        Analyzer().analyze(ipaddress.IPv4Address, "command 'f', parameter 'x'")


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.kind)
def test_every_row_is_a_json_string_whose_dump_parses_back(row: SpecialType) -> None:
    samples = {
        "datetime": dt.datetime(2026, 7, 28, 9, 30, tzinfo=dt.UTC),
        "date": dt.date(2026, 7, 28),
        "time": dt.time(9, 30),
        "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "decimal": decimal.Decimal("12.50"),
        "path": pathlib.Path("a/b.txt"),
        "bytes": b"\x00rata",
    }
    value = samples[row.kind]
    assert row.schema["type"] == "string"
    assert row.accepts(value)
    assert row.parse(row.dump(value)) == value


def test_the_decimal_schema_and_parse_share_one_pattern() -> None:
    decimal_row = next(row for row in ROWS if row.kind == "decimal")
    assert decimal_row.schema["pattern"] == DECIMAL_PATTERN
    with pytest.raises(ValueError):
        decimal_row.parse("1e5")
