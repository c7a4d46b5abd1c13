"""Signatures rata refuses, and what it says about each."""

from typing import Any

from rata import App, Ctx, RataError, command


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents


@command(can="demo.run")
def no_hint(ctx: Ctx, name) -> str: ...


@command(can="demo.run")
def no_return(name: str): ...


@command(can="demo.run")
def any_value(value: Any) -> None: ...


@command(can="demo.run")
def bare_list(names: list) -> None: ...


@command(can="demo.run")
def int_keys(counts: dict[int, str]) -> None: ...


@command(can="demo.run")
def plain_class(price: Money) -> None: ...


@command(can="demo.run")
def star_args(*names: str) -> None: ...


@command(can="demo.*")
def wildcard_ability() -> None: ...


@command(can="demo.run", name="run demo")
def bad_name() -> None: ...


def not_decorated() -> None: ...


for fn in (no_hint, no_return, any_value, bare_list, int_keys, plain_class, star_args, wildcard_ability, bad_name, not_decorated):
    try:
        App("demo", identifier="com.example.demo").commands(fn)
    except RataError as error:
        print(f"{fn.__name__}: {type(error).__name__}")
        print(f"    {error.message}")
        print(f"    {error.hint}")
