"""`rata.errors`: the tree its docstring draws is the classes' own, and every error shows its message then its hint."""

from __future__ import annotations

import inspect

import rata.errors as errors


def drawn_tree() -> list[str]:
    """The class tree as the module docstring draws it: each class under its base, in the order the module defines them."""
    classes = [value for value in vars(errors).values() if inspect.isclass(value) and issubclass(value, errors.RataError)]
    place = {cls: inspect.getsourcelines(cls)[1] for cls in classes}

    def lines(cls: type, depth: int) -> list[str]:
        own = f"  (exit {cls.exit_code})" if "exit_code" in vars(cls) else ""
        out = ["    " * depth + cls.__name__ + own]
        for child in sorted((c for c in classes if c.__bases__[0] is cls), key=place.__getitem__):
            out += lines(child, depth + 1)
        return out

    return lines(errors.RataError, 0)


def test_the_docstring_draws_every_error_class_under_its_base():
    doc = inspect.getdoc(errors) or ""
    drawn = [line[4:] for line in doc.splitlines() if line.startswith("    ")]
    assert drawn == drawn_tree()


def test_an_error_shows_its_message_then_its_hint():
    assert str(errors.ConfigError("The file is missing.", hint="Create it.")) == "The file is missing.\nCreate it."
    assert str(errors.ConfigError("The file is missing.")) == "The file is missing."
