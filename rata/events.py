"""Events and channels: how an app hears what happened.

    app.on(AgentCalled, lambda event: print(event.tool, event.ok))
    app.subscribe("rata:mcp", lambda payload: window.post(payload))

Listeners run synchronously, in the order added; one that raises is logged and the rest
still run, so a broken listener never breaks a call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

from rata._record import Record
from rata.logs import LazyLogger

log = LazyLogger("rata")

MCP_CHANNEL = "rata:mcp"


class AgentCalled(Record):
    """An agent called a tool (whatever the outcome)."""

    __slots__ = ("tool", "client", "ok", "duration_ms")
    tool: str
    client: str
    ok: bool
    duration_ms: float
    _defaults: ClassVar[dict[str, Any]] = {"duration_ms": 0.0}


class Events:
    """Typed event listeners and named channels.

    A listener list is never changed in place: adding or removing one replaces it (under the
    lock), so emitting reads it without locking, and a listener added while an event is
    being emitted hears the next one.
    """

    def __init__(self) -> None:
        self._listeners: dict[type, list[Callable[[Any], None]]] = {}
        self._channels: dict[str, list[Callable[[Any], None]]] = {}
        self._lock = threading.Lock()

    def on(self, event_type: type, listener: Callable[[Any], None]) -> None:
        with self._lock:
            self._listeners[event_type] = [*self._listeners.get(event_type, ()), listener]

    def has_listeners(self, event_type: type) -> bool:
        """Whether `emit` of this type would call anyone (to skip building an event nobody hears)."""
        return bool(self._listeners.get(event_type))

    def emit(self, event: Any) -> None:
        listeners = self._listeners.get(type(event))
        if listeners:
            _call_all(listeners, event, type(event).__name__)

    def subscribe(self, channel: str, listener: Callable[[Any], None]) -> Callable[[], None]:
        """Listen on a channel; returns a function that stops listening."""
        with self._lock:
            self._channels[channel] = [*self._channels.get(channel, ()), listener]

        def unsubscribe() -> None:
            with self._lock:
                current = list(self._channels.get(channel, ()))
                if listener in current:
                    current.remove(listener)
                    self._channels[channel] = current

        return unsubscribe

    def has_subscribers(self, channel: str) -> bool:
        """Whether `publish` on this channel would call anyone (to skip building a payload nobody reads)."""
        return bool(self._channels.get(channel))

    def publish(self, channel: str, payload: Any) -> None:
        listeners = self._channels.get(channel)
        if listeners:
            _call_all(listeners, payload, channel)


def _call_all(listeners: list[Callable[[Any], None]], value: Any, what: str) -> None:
    for listener in listeners:
        try:
            listener(value)
        except Exception:  # noqa: BLE001 - one bad listener must not break the call that emitted
            log.exception("a listener for %s failed", what)
