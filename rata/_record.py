"""`Record`: a small value-object base, for classes built on every server start.

Dataclasses generate and compile code for each class (about a millisecond apiece), which
adds up on a path that must answer in well under 100 ms. A record declares its fields in
``__slots__`` and optional ``_defaults``; instances compare by value.

    class ParamSpec(Record):
        __slots__ = ("name", "node", "required")
        _defaults = {"required": True}
"""

from __future__ import annotations

from typing import Any, ClassVar


class Record:
    __slots__ = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} positional arguments")
        for name, value in zip(names, args, strict=False):
            object.__setattr__(self, name, value)
        for name in names[len(args):]:
            if name in kwargs:
                object.__setattr__(self, name, kwargs.pop(name))
            elif name in self._defaults:
                object.__setattr__(self, name, self._defaults[name])
            else:
                raise TypeError(f"{type(self).__name__} is missing {name!r}")
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected {', '.join(sorted(kwargs))}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"
