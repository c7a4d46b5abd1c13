"""The protocol methods: one table (`METHODS`), one module per method family, one table of versions (`VERSIONS`).

A row of `METHODS` says all the server knows about a method: the eras it exists in
(``"modern"`` = 2026-07-28, ``"legacy"`` = the 2025 ``initialize`` era), whether it needs
the loaded app, whether it may block (then it runs on a worker thread) and its handler,
``handler(server, call) -> result``. What a handler needs of its server is a small
`typing.Protocol` beside it in its module (`lifecycle.Described`, `listing.Offer`,
`resources.Readable`, `tools.ToolHost`, `subscriptions.Subscribed`), not a concrete class:
an app's server (`rata.mcp.app_server`) serves every row, and the server that answers from the app's manifest while the app loads
(`rata.mcp.loading`) serves the rows that do not need the app and holds the others until it
is loaded, so a method means the same before and after. A row without a handler is a method
the core answers itself (``initialize``) or that is not served; it still has its eras, so a
request for it in an era it does not exist in hears so.

How a result is shaped is a property of the protocol version a call speaks, a row of
`VERSIONS` (`Version`): its era, whether results carry the 2026-07-28 envelope
(``resultType`` and ``_meta`` server info), the result keys it does not have, and the
features it has. The server shapes every method's result from that row (`Server.shape`), and
a handler reads what differs from ``call.version`` (a feature, an error code), not from the
version string. (Two era branches remain in `tools`: a non-object result wrapped under
``result`` for 2025-11-25, and confirmation asked mid-call there, by a retry in 2026-07-28.)

To add a method: write its handler in the module of its family (a function
``handler(server: <the protocol of what it needs>, call: Call) -> dict``) and add its row here.
Nothing else changes: both servers build their dispatch dicts from this table
(`tests/mcp/test_methods.py::test_a_new_row_and_handler_are_served_in_its_eras_and_refused_in_others`).
To add a protocol version: add its row to `VERSIONS`, and accept it where it is negotiated
(`wire.MODERN_VERSIONS` for the envelope, `Server._initialize` for the handshake).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, ClassVar

from rata._record import Record

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable

BOTH = frozenset({"modern", "legacy"})
MODERN_ONLY = frozenset({"modern"})
LEGACY_ONLY = frozenset({"legacy"})


class Row(Record):
    """A method: its eras, whether it needs the loaded app, whether it may block, and its handler.

    `handler`: ``handler(server, call) -> result``, or ``"module.function"`` in this package (imported
    when a server is built, so a server that needs only some rows imports only their modules), or
    None for a method the server core answers itself or does not serve."""

    __slots__ = ("eras", "needs_app", "blocking", "handler")
    _defaults: ClassVar[dict[str, Any]] = {"needs_app": False, "blocking": False, "handler": None}
    eras: frozenset[str]
    needs_app: bool
    blocking: bool
    handler: Callable[..., dict[str, Any]] | str | None

    def resolve(self) -> Callable[..., dict[str, Any]]:
        """The handler function (its module imported if it is named)."""
        handler = self.handler
        if isinstance(handler, str):
            module, _, function = handler.rpartition(".")
            return getattr(import_module(f"{__name__}.{module}"), function)
        assert handler is not None, "a row without a handler is not served"
        return handler


METHODS: dict[str, Row] = {
    "initialize": Row(LEGACY_ONLY),  # the handshake: answered by the server core (`Server._initialize`)
    "notifications/initialized": Row(LEGACY_ONLY),
    "logging/setLevel": Row(LEGACY_ONLY),  # not served: 2025-11-25 logging is not offered
    "server/discover": Row(MODERN_ONLY, handler="lifecycle.discover"),
    "ping": Row(LEGACY_ONLY, handler="lifecycle.ping"),
    "tools/list": Row(BOTH, handler="listing.list_tools"),
    "tools/call": Row(BOTH, needs_app=True, blocking=True, handler="tools.call_tool"),
    "resources/list": Row(BOTH, handler="listing.list_resources"),
    "resources/templates/list": Row(BOTH, handler="listing.list_templates"),
    "resources/read": Row(BOTH, needs_app=True, blocking=True, handler="resources.read_resource"),
    "subscriptions/listen": Row(MODERN_ONLY, needs_app=True, handler="subscriptions.listen"),
    "resources/subscribe": Row(LEGACY_ONLY, needs_app=True, handler="subscriptions.subscribe"),
    "resources/unsubscribe": Row(LEGACY_ONLY, needs_app=True, handler="subscriptions.unsubscribe"),
}
"""method name -> its row; the one place a protocol method is declared"""


def removed_in_modern() -> frozenset[str]:
    """The methods that exist only before 2026-07-28: an enveloped request for one hears that it does not exist there."""
    return frozenset(name for name, row in METHODS.items() if "modern" not in row.eras)


class Version(Record):
    """A protocol version: its era, and how a result is shaped for it.

    `envelope`: results carry ``resultType`` and the server's info in ``_meta`` (2026-07-28).
    `drops`: result keys this version does not have (removed from every result).
    `features`: what this version has (``"structuredContent"``, ``"elicitation"``...): handlers ask
    ``call.version.features``, not the version string.
    `resource_not_found`: the error code of an unknown resource URI."""

    __slots__ = ("name", "era", "envelope", "drops", "features", "resource_not_found")
    name: str
    era: str
    envelope: bool
    drops: frozenset[str]
    features: frozenset[str]
    resource_not_found: int


_FEATURES_2025_11_25 = frozenset({"structuredContent", "outputSchema", "titles", "elicitation", "audio", "toolAnnotations"})

VERSIONS: dict[str, Version] = {
    "2026-07-28": Version("2026-07-28", "modern", True, frozenset(), _FEATURES_2025_11_25, -32602),
    "2025-11-25": Version("2025-11-25", "legacy", False, frozenset({"resultType", "ttlMs", "cacheScope"}), _FEATURES_2025_11_25, -32002),
}
"""version -> its row; the versions served (2026-07-28 per request, 2025-11-25 through ``initialize``)"""
