"""Dev tools that run inside the app's windows: the page script behind `window_snapshot` and `window_act`.

Only dev mode (`rata dev`) loads this package. `page.js` ships as package data and is
read from the installed package, so the script a window runs is always the one that
belongs to the installed rata.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def page_script() -> str:
    """The source of ``page.js`` (ASCII only), to install at the start of every document in dev mode."""
    return files(__name__).joinpath("page.js").read_text(encoding="ascii")
