"""`ValidationErrors`: field -> messages, raised by a command (or by argument checks)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class ValidationErrors(Exception):
    """A bag of field messages; raise it from a command to refuse its input.

        errors = ValidationErrors()
        if "@" not in email:
            errors.add("email", "must be an email address")
        errors.raise_if_any()

    or at once: ``raise ValidationErrors({"email": "has already been taken"})``.
    """

    def __init__(self, errors: Mapping[str, str | Iterable[str]] | None = None) -> None:
        self.errors: dict[str, list[str]] = {}
        for field, messages in (errors or {}).items():
            for message in [messages] if isinstance(messages, str) else messages:
                self.add(field, message)
        super().__init__(self.errors)

    def add(self, field: str, message: str) -> ValidationErrors:
        """Record one message for `field` (use "" for the input as a whole)."""
        self.errors.setdefault(field, []).append(message)
        return self

    def raise_if_any(self) -> None:
        """Raise this bag if anything was added."""
        if self.errors:
            raise self

    def __bool__(self) -> bool:
        return bool(self.errors)

    def to_dict(self) -> dict[str, list[str]]:
        """The messages by field, fields sorted, as plain JSON."""
        return {field: list(self.errors[field]) for field in sorted(self.errors)}

    def summary(self) -> str:
        """Every message on one line, ``field: message`` joined by ``; `` (a message for the whole input alone)."""
        return "; ".join(f"{field}: {message}" if field else message for field, messages in self.to_dict().items() for message in messages)

    def __str__(self) -> str:
        parts = [f"{field} {message}" if field else message for field, messages in self.to_dict().items() for message in messages]
        return "; ".join(parts) or "invalid input"
