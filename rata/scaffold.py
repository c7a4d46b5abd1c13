"""Scaffolding a new app from a template (what `rata new` does).

    written = scaffold("tasks", Path("tasks"))   # -> [Path(".gitignore"), Path(".mcp.json"), ...]

A template is a folder of real files under ``templates/`` (shipped in the package as
``rata/_templates``). Three placeholders, each a valid Python identifier so the templates stay
readable and importable, are replaced in file contents and in paths:

- ``__app_name__``: the name as given (the distribution, the console script, the App's name);
- ``__app_package__``: the import package, the name with ``-`` turned into ``_``;
- ``__app_identifier__``: the App's identifier, which names its data folder.

And in ``pyproject.toml``, ``{ name = "__app_author__" }`` is the author (`Author`): the one
given (``rata new --author``, else git's ``user.name`` and ``user.email``, as ``uv init`` does),
else ``The NAME authors``. An MCP Bundle requires an author, so a new app always has one.

Beside the template's files, `scaffold` writes ``requirements-rata.txt``: the pip requirement of the
rata it runs with (`rata_requirement`), which the new README installs first. Until `rata-toolkit` is on
the package index, that is a checkout or a wheel of this machine, so the file is git-ignored.

``.mcp.json``, which registers `rata mcp dev` for Claude Code, is not a template file: it is
`rata.install.plan.new_project_dev_file`, the entry `rata mcp install --dev --client claude-code --write`
writes from the project's ``.venv``, so that command finds it up to date (one rule for both).

Nothing is written unless every check passes, and `render` gives the same bytes for the same arguments.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rata.cleantext import clean_text
from rata.errors import ConfigError
from rata.install.plan import new_project_dev_file
from rata.shipping.project import normalize

TEMPLATE = "app"
NAME_RULE = "lowercase letters, digits, '-' or '_', starting with a letter and ending with a letter or digit"
_NAME = re.compile(r"^[a-z](?:[a-z0-9_-]*[a-z0-9])?$")
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)+$")
# Names that would shadow a package the app imports or a folder the template writes.
_TAKEN = frozenset({"test", "rata", "tests", "docs", "typer", "rich", "pytest", "jsonschema", "pygments"})
PACKAGING_TOOLS = frozenset({
    "pip", "setuptools", "wheel", "build", "twine", "virtualenv", "venv", "pipx", "uv", "poetry", "pdm", "hatch", "hatchling",
    "flit", "flit-core", "pkg-resources", "distutils", "packaging", "ensurepip", "python", "python3", "conda", "mamba",
})  # fmt: skip
"""Names a new app may never take: installing it (`pip install -e .`) would replace the tool that installs it."""
_SKIPPED = ("__pycache__", ".pytest_cache")
AUTHOR_SLOT = '{ name = "__app_author__" }'
"""Where the template's pyproject.toml names its author."""
MAX_AUTHOR = 200
_AUTHOR = re.compile(r"^(?P<name>[^<>]*?)\s*(?:<(?P<email>[^<>]*)>)?$")
_EMAIL = re.compile(r"^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$")


@dataclass(frozen=True)
class Author:
    """The author a new app's ``pyproject.toml`` names: a name, and an email when known."""

    name: str
    email: str | None = None

    def toml(self) -> str:
        """The inline table for ``authors = [...]``: ``{ name = "Ada", email = "ada@example.com" }``."""
        email = f", email = {json.dumps(self.email)}" if self.email else ""
        return f"{{ name = {json.dumps(self.name, ensure_ascii=False)}{email} }}"


def parse_author(text: str) -> Author:
    """``Ada Lovelace <ada@example.com>`` or ``Ada Lovelace``, as ``rata new --author`` takes it.

    Raises:
        ConfigError: no name, an email that is not one, or control characters.
    """
    hint = 'Write it as --author "Ada Lovelace <ada@example.com>", or just the name.'
    found = _AUTHOR.match(text.strip()) if clean_text(text) == text and len(text) <= MAX_AUTHOR else None
    if found is None or not found.group("name").strip():
        raise ConfigError(f"The author {text[:60]!r} is not a name, with an email in <...> if you like.", hint=hint)
    email = found.group("email")
    if email is not None and not _EMAIL.match(email.strip()):
        raise ConfigError(f"The author's email {email[:60]!r} is not an email address.", hint=hint)
    return Author(found.group("name").strip(), email.strip() if email is not None else None)


def git_author(cwd: Path | None = None) -> Author | None:
    """git's ``user.name`` (and ``user.email``, when it is an address), or None when git or the name is missing."""
    import subprocess

    def setting(key: str) -> str | None:
        try:
            done = subprocess.run(["git", "config", "--get", key], cwd=cwd, capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            return None
        value = done.stdout.strip()
        return value if done.returncode == 0 and value and clean_text(value) == value and len(value) <= MAX_AUTHOR else None

    name = setting("user.name")
    if name is None or "<" in name or ">" in name:
        return None
    email = setting("user.email")
    return Author(name, email if email is not None and _EMAIL.match(email) else None)


RATA_REQUIREMENT = "requirements-rata.txt"
"""The file `rata new` writes with the requirement of the rata it ran with; the new app's .gitignore lists it."""
NEXT_STEPS = (
    "python3 -m venv .venv",
    ". .venv/bin/activate",
    f"pip install -r {RATA_REQUIREMENT}",
    'pip install -e ".[test]"',
    "rata migrate",
    "pytest",
)
"""What a new app's README says to run in the project, in order (and `rata new` prints): `tests/cli/test_new_journey.py` runs them."""


def rata_requirement() -> str:
    """How pip installs the rata running now, as one line of a requirements file (`requirement_from` its install record)."""
    import importlib.metadata

    from rata import __version__

    try:
        record = importlib.metadata.distribution("rata-toolkit").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        record = None
    return requirement_from(record, __version__)


def requirement_from(record: str | None, version: str) -> str:
    """The requirement line for rata from its PEP 610 install record (``direct_url.json``), if it has one.

    ``-e /path/to/rata`` for an editable checkout, the folder or file itself for a local build or wheel,
    ``rata-toolkit @ git+URL@COMMIT`` or ``rata-toolkit @ URL`` for a VCS or remote install, and, with
    no record (installed from the index) or one that cannot be read, ``rata-toolkit==VERSION``.
    """
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    published = f"rata-toolkit=={version}"
    try:
        found = json.loads(record) if record else None
    except ValueError:
        return published
    if not isinstance(found, dict):
        return published
    url = found.get("url")
    if not isinstance(url, str) or not url or clean_text(url) != url or any(c.isspace() for c in url):
        return published  # one line of a requirements file, never more: no control characters, no spaces
    vcs = found.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str) and vcs["vcs"].isalpha():
        commit = vcs.get("commit_id")
        return f"rata-toolkit @ {vcs['vcs']}+{url}" + (f"@{commit}" if isinstance(commit, str) and commit.isalnum() else "")
    parts = urlsplit(url)
    if parts.scheme != "file":
        return f"rata-toolkit @ {url}"
    path = url2pathname(parts.path)
    if not path or path.startswith("-"):
        return published
    if any(c.isspace() for c in path):
        path = url  # pip splits a requirements line at spaces; the file URL keeps them escaped
    editable = isinstance(found.get("dir_info"), dict) and found["dir_info"].get("editable") is True
    return f"-e {path}" if editable else path


def package_name(name: str) -> str:
    """The import package for an app name: ``my-tasks`` -> ``my_tasks``."""
    return name.replace("-", "_")


def validate_name(name: str) -> str:
    """Check an app name; return its package name.

    Raises:
        ConfigError: the name breaks the naming rule or clashes with a Python or stdlib name.
    """
    if not _NAME.match(name):
        raise ConfigError(f"The app name {name!r} is not allowed: use {NAME_RULE}.", hint="For example: rata new tasks, or rata new my-tasks.")
    package = package_name(name)
    if keyword.iskeyword(package):
        raise ConfigError(f"The app name {name!r} is a Python keyword, so it cannot be a package name.", hint="Pick another name, e.g. my-" + name + ".")
    stdlib = package in sys.stdlib_module_names or package == "test"
    if stdlib or package in _TAKEN:
        what = "a module of Python's standard library" if stdlib else "a name the app already needs"
        raise ConfigError(f"The app name {name!r} would shadow {package!r}, {what}.", hint=f"Pick another name, e.g. my-{name}.")
    if normalize(name) in PACKAGING_TOOLS or package in PACKAGING_TOOLS:
        raise ConfigError(
            f"The app name {name!r} is a packaging tool's: installing the app (pip install -e .) would replace it in the environment.",
            hint=f"Pick another name, e.g. my-{name}.",
        )
    taken = installed_names()
    if normalize(name) in taken or package in taken:
        raise ConfigError(
            f"The app name {name!r} is taken by {taken.get(normalize(name)) or taken[package]!r}, installed in this Python environment: "
            "installing the app (pip install -e .) would replace it, or the app's package would shadow it.",
            hint=f"Pick another name, e.g. my-{name}.",
        )
    return package


def installed_names() -> dict[str, str]:
    """Every name an installed distribution holds in this environment, the distribution's name (PEP 503 form) and its
    top-level import packages, each mapped to the distribution that holds it."""
    import importlib.metadata

    names: dict[str, str] = {}
    for top, distributions in importlib.metadata.packages_distributions().items():
        for distribution in distributions:
            names.setdefault(top, distribution)
    for distribution in importlib.metadata.distributions():
        found = distribution.metadata["Name"] if distribution.metadata is not None else None
        if found:
            names.setdefault(normalize(found), found)
    return names


def name_warnings(name: str) -> list[str]:
    """What a user should know about `name` that is no reason to refuse it: a command of that name on the PATH."""
    import shutil

    command = shutil.which(name)
    if command is None:
        return []
    return [
        f"A command named {name!r} is already on your PATH ({command}); the app's own command `{name}` may run instead of it, "
        "or it instead of the app, depending on the PATH's order."
    ]


def validate_identifier(identifier: str) -> str:
    """Check an App identifier (reverse DNS, e.g. ``com.example.tasks``); return it.

    Raises:
        ConfigError: it is not dot-separated words, which could not safely name a folder.
    """
    if not _IDENTIFIER.match(identifier):
        raise ConfigError(
            f"The identifier {identifier!r} is not allowed: use reverse-DNS words of letters, digits, '-' or '_', joined by dots.",
            hint="For example: --identifier com.example.tasks.",
        )
    return identifier


def templates_dir() -> Path:
    """The templates of the installed rata: shipped in the package, or beside it in a source checkout.

    Raises:
        ConfigError: neither folder exists (a broken install).
    """
    package = Path(__file__).resolve().parent
    for candidate in (package / "_templates", package.parent / "templates"):
        if (candidate / TEMPLATE).is_dir():
            return candidate
    raise ConfigError("rata's templates are missing from this install.", hint="Reinstall rata-toolkit (pip install --force-reinstall rata-toolkit).")


def render(name: str, identifier: str | None = None, author: Author | None = None) -> list[tuple[PurePosixPath, bytes]]:
    """The files of a new app as (relative path, content) pairs, sorted by path; writes nothing.

    Raises:
        ConfigError: the name or identifier is not allowed.
    """
    package = validate_name(name)
    identifier = validate_identifier(identifier if identifier is not None else f"com.example.{name}")
    values = {"__app_name__": name, "__app_package__": package, "__app_identifier__": identifier}
    author_table = (author if author is not None else Author(f"The {name} authors")).toml()

    def fill(text: str) -> str:
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        return text.replace(AUTHOR_SLOT, author_table)  # last: the author's name is the user's text, never a placeholder

    root = templates_dir() / TEMPLATE
    files = []
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if not path.is_file() or path.suffix == ".pyc" or any(part in _SKIPPED for part in relative.parts):
            continue
        files.append((PurePosixPath(fill(relative.as_posix())), fill(path.read_text(encoding="utf-8")).encode("utf-8")))
    dev_file, dev_text = new_project_dev_file()  # the entry `rata mcp install --dev --write` would write: one rule for both
    files.append((PurePosixPath(dev_file), dev_text.encode("utf-8")))
    return sorted(files)


def scaffold(name: str, target: Path, *, identifier: str | None = None, author: Author | None = None) -> list[PurePosixPath]:
    """Write a new app called `name` into `target` (created if missing); return the files written.

    The files are `render`'s and ``requirements-rata.txt`` (`rata_requirement`, the rata running now).
    `author` defaults to ``The NAME authors`` (`rata new` passes git's identity when there is one).

    Raises:
        ConfigError: the name or identifier is not allowed, or `target` is a file or a folder
            that is not empty. Nothing is written then.
    """
    if target.is_symlink() and not target.exists():
        raise ConfigError(
            f"{str(target)!r} is a link to {os.readlink(target)!r}, which does not exist.", hint="Pass --dir with a new or empty folder, or remove the link."
        )
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{str(target)!r} is a file, not a folder.", hint="Pass --dir with a new or empty folder.")
    if target.is_dir() and any(target.iterdir()):
        raise ConfigError(
            f"The folder {str(target)!r} is not empty; rata new writes only into a new or empty folder.",
            hint="Pick another name, pass --dir with a new folder, or empty this one first.",
        )
    files = render(name, identifier, author)
    requirement = (
        "# The rata that `rata new` ran with: `pip install -r requirements-rata.txt` installs it (see README.md).\n"
        "# It may name a folder or file of this machine, so it is not committed (.gitignore).\n"
        f"{rata_requirement()}\n"
    )
    files = sorted([*files, (PurePosixPath(RATA_REQUIREMENT), requirement.encode("utf-8"))])
    for relative, content in files:
        path = target.joinpath(*relative.parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        except OSError as error:
            raise ConfigError(f"{str(path)!r} cannot be written: {error.strerror or error}.", hint="Pass --dir with a folder you can write to.") from None
    return [relative for relative, _ in files]
