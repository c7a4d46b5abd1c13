"""The protocol methods: one table (`METHODS`), one module per method family, one table of versions (`VERSIONS`).

A row of `METHODS` says all the server knows about a method: the eras it exists in
(``"modern"`` = 2026-07-28, ``"legacy"`` = the 2025 ``initialize`` era), whether it needs
the loaded app, whether it may block (then it runs on a worker thread) and its handler,
``handler(server, call) -> result``. What a handler needs of its server is a small
`typing.Protocol` beside it in its module (`lifecycle.Described`, `listing.Offer`,
`resources.Readable`, `tools.ToolHost`, `subscriptions.Subscribed`, `prompts.PromptHost`,
`completion.Completable`), not a concrete class:
an app's server (`rata.mcp.app_server`) serves every row, and the server that answers from the app's manifest while the app loads
(`rata.mcp.loading`) serves the rows that do not need the app and holds the others until it
is loaded, so a method means the same before and after. A row without a handler is a method
the core answers itself (``initialize``) or that is not served; it still has its eras, so a
request for it in an era it does not exist in hears so.

How a result is shaped is a property of the protocol version a call speaks, a row of
`VERSIONS` (`Version`): its era, whether results carry the 2026-07-28 envelope
(``resultType`` and ``_meta`` server info), the result keys it does not have, and the
features it has (and, for a handshake version, the keys of a listed tool or resource, of the
server's info, of a content item and of an elicitation request that it lacks). The server shapes
every method's result from that row (`Server.shape`, `listing`, `Server._initialize`), and
a handler reads what differs from ``call.version`` (a feature, an error code), not from the
version string. (Two era branches remain in `tools`: a non-object result wrapped under
``result`` for 2025-11-25, and confirmation asked mid-call there, by a retry in 2026-07-28.)

To add a method: write its handler in the module of its family (a function
``handler(server: <the protocol of what it needs>, call: Call) -> dict``) and add its row here.
Nothing else changes: both servers build their dispatch dicts from this table
(`tests/mcp/test_methods.py::test_a_new_row_and_handler_are_served_in_its_eras_and_refused_in_others`).
To add a protocol version: add its row to `VERSIONS` (a handshake version: `legacy_version` with
the features it has; what each feature brings is `FEATURE_KEYS`), and accept it where it is
negotiated (`wire.MODERN_VERSIONS` for the envelope, `wire.HANDSHAKE_VERSIONS` for ``initialize``).
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
    "logging/setLevel": Row(LEGACY_ONLY, handler="logs.set_level"),  # 2026-07-28: a level per request (`rata.mcp.talking`)
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
    "prompts/list": Row(BOTH, handler="listing.list_prompts"),
    "prompts/get": Row(BOTH, needs_app=True, blocking=True, handler="prompts.get_prompt"),
    "completion/complete": Row(BOTH, needs_app=True, blocking=True, handler="completion.complete"),
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
    `resource_not_found`: the error code of an unknown resource URI.
    `tool_drops`, `info_drops`, `resource_drops`, `item_drops`, `elicit_drops`: the keys this version
    does not have in a listed tool, the server's info, a listed resource, a content item of a
    result, and the params of an ``elicitation/create`` request; `content_types`: the content item
    types it has. `legacy_version` fills them in from `features` and `FEATURE_KEYS`."""

    __slots__ = (
        "name", "era", "envelope", "drops", "features", "resource_not_found",
        "tool_drops", "info_drops", "resource_drops", "item_drops", "elicit_drops", "content_types",
    )  # fmt: skip
    _defaults: ClassVar[dict[str, Any]] = {
        "tool_drops": frozenset(),
        "info_drops": frozenset(),
        "resource_drops": frozenset(),
        "item_drops": frozenset(),
        "elicit_drops": frozenset(),
        "content_types": frozenset({"text", "image", "audio", "resource", "resource_link"}),
    }
    name: str
    era: str
    envelope: bool
    drops: frozenset[str]
    features: frozenset[str]
    resource_not_found: int
    tool_drops: frozenset[str]
    info_drops: frozenset[str]
    resource_drops: frozenset[str]
    item_drops: frozenset[str]
    elicit_drops: frozenset[str]
    content_types: frozenset[str]

    def tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A ``tools/list`` list as this version has it."""
        drops = self.tool_drops
        return tools if not drops else [{k: v for k, v in tool.items() if k not in drops} for tool in tools]

    def resources(self, resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A ``resources/list`` list as this version has it."""
        drops = self.resource_drops
        return resources if not drops else [{k: v for k, v in resource.items() if k not in drops} for resource in resources]

    def info(self, info: dict[str, Any]) -> dict[str, Any]:
        """The server's info (``serverInfo``) as this version has it."""
        return {k: v for k, v in info.items() if k not in self.info_drops}

    def elicitation(self, params: dict[str, Any]) -> dict[str, Any]:
        """The params of an ``elicitation/create`` request as this version has them."""
        return {k: v for k, v in params.items() if k not in self.elicit_drops}

    def content(self, items: list[Any]) -> list[Any]:
        """A result's content items as this version has them: keys it lacks dropped, a type it lacks told in text."""
        shaped = []
        for item in items:
            if not isinstance(item, dict):
                shaped.append(item)
            elif item.get("type") not in self.content_types:
                shaped.append({"type": "text", "text": left_out(item, self.name)})
            else:
                shaped.append({k: v for k, v in item.items() if k not in self.item_drops})
        return shaped


def left_out(item: dict[str, Any], version: str) -> str:
    """The text a content item of a type `version` lacks becomes: what it was, and a link's address, which is still of use."""
    kind = item.get("type")
    if kind == "resource_link":
        name, uri = item.get("name"), item.get("uri")
        return f"(a resource link, shown as text: protocol version {version} has no resource links) {name}: {uri}"
    return f"({kind} content left out: protocol version {version} has no {kind} content)"


FEATURE_KEYS: dict[str, dict[str, frozenset[str]]] = {
    # 2025-03-26 (its changelog: "tool annotations", "support for audio data")
    "toolAnnotations": {"tool": frozenset({"annotations"})},
    "audio": {"content": frozenset({"audio"})},
    "progressMessage": {},  # a progress report's `message` (`rata.mcp.talking`)
    # 2025-06-18 (its changelog: structured tool output, elicitation, resource links, `_meta` on more types, `title`)
    "structuredContent": {"result": frozenset({"structuredContent"})},
    "outputSchema": {"tool": frozenset({"outputSchema"})},
    "elicitation": {},  # what it changes is behaviour: a confirmed command (`tools.call_tool`), a question (`rata.mcp.talking`)
    "resourceLinks": {"content": frozenset({"resource_link"})},
    "titles": {"tool": frozenset({"title"}), "info": frozenset({"title"}), "resource": frozenset({"title"})},
    "meta": {"tool": frozenset({"_meta"}), "resource": frozenset({"_meta"}), "item": frozenset({"_meta"})},
    # 2025-11-25 (icons on tools, resources and implementations; Tool.execution; Implementation.description
    # and websiteUrl; the elicitation request's `mode`)
    "icons": {"tool": frozenset({"icons"}), "info": frozenset({"icons"}), "resource": frozenset({"icons"})},
    "toolExecution": {"tool": frozenset({"execution"})},
    "implementationDetails": {"info": frozenset({"description", "websiteUrl"})},
    "elicitationModes": {"elicit": frozenset({"mode"})},
}
"""feature -> the keys (per place: ``result``, ``tool``, ``info``, ``resource``, ``item``, ``elicit``) or
content types (``content``) it brings; a version without the feature has none of them (`legacy_version`)."""

_FEATURES_2025_11_25 = frozenset(FEATURE_KEYS)
_FEATURES_2025_06_18 = _FEATURES_2025_11_25 - {"icons", "toolExecution", "implementationDetails", "elicitationModes"}
_FEATURES_2025_03_26 = _FEATURES_2025_06_18 - {"structuredContent", "outputSchema", "elicitation", "resourceLinks", "titles", "meta"}
_FEATURES_2024_11_05 = _FEATURES_2025_03_26 - {"toolAnnotations", "audio", "progressMessage"}
_ENVELOPE_KEYS = frozenset({"resultType", "ttlMs", "cacheScope"})  # 2026-07-28 only


def legacy_version(name: str, features: frozenset[str]) -> Version:
    """A version negotiated by ``initialize``, shaped by what its `features` leave out (`FEATURE_KEYS`)."""
    lacks: dict[str, frozenset[str]] = {}
    for feature, places in FEATURE_KEYS.items():
        if feature not in features:
            for place, keys in places.items():
                lacks[place] = lacks.get(place, frozenset()) | keys
    none: frozenset[str] = frozenset()
    return Version(
        name, "legacy", False, _ENVELOPE_KEYS | lacks.get("result", none), features, -32002,
        lacks.get("tool", none), lacks.get("info", none), lacks.get("resource", none), lacks.get("item", none),
        lacks.get("elicit", none), Version._defaults["content_types"] - lacks.get("content", none),
    )  # fmt: skip


VERSIONS: dict[str, Version] = {
    "2026-07-28": Version("2026-07-28", "modern", True, frozenset(), _FEATURES_2025_11_25, -32602),
    "2025-11-25": legacy_version("2025-11-25", _FEATURES_2025_11_25),
    "2025-06-18": legacy_version("2025-06-18", _FEATURES_2025_06_18),
    "2025-03-26": legacy_version("2025-03-26", _FEATURES_2025_03_26),
    "2024-11-05": legacy_version("2024-11-05", _FEATURES_2024_11_05),
}
"""version -> its row; the versions served (2026-07-28 per request, the others through ``initialize``:
the version the client asks for when it is one of them, else 2025-11-25)"""
