"""What a project says about itself, for shipping it: its `pyproject.toml` and its app.

    project = load_project()          # the nearest pyproject.toml, and the app its [tool.rata] names
    project.name, project.version     # "rata-example-crm", "1.0.0"
    project.server_script             # "rata-example-crm": a console script into the app's package
    project.app.identifier            # "com.example.crm"
    project.environment               # the environment variables the app's server reads

`read_project(pyproject)` reads the file alone (nothing is imported); `load_project(spec)` also
loads the app, as every `rata` command does. Everything read is treated as hostile: a problem is a
`ConfigError` that names the key and says how to fix it, never a traceback. Values shown in
messages are cut short, so a megabyte of description is never echoed back.

Read (PEP 621): ``[project]`` name, version (static), description, readme, requires-python,
license, authors, urls, scripts; and the ``[tool.rata]`` table. The shipping formats (the MCP
Registry's `server.json`, an MCP Bundle's manifest) are built from a `Project` and check their own
bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rata.cleantext import clean_text
from rata.errors import ConfigError

MAX_PYPROJECT_BYTES = 1024 * 1024
MAX_README_BYTES = 4 * 1024 * 1024
_DIST_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")  # PEP 508 names
# A PEP 440 public version in its normal form, as PyPI shows it (no local "+..." part: PyPI refuses those).
_VERSION = re.compile(r"^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?$")
_SCRIPT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_OBJECT_REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?::[A-Za-z_][A-Za-z0-9_.]*)?$")


@dataclass(frozen=True)
class Person:
    """One of ``[project] authors``: a name, an email, or both."""

    name: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class EnvVar:
    """An environment variable the app's server reads, as an installer should offer it."""

    name: str
    description: str
    required: bool = False
    secret: bool = False
    format: str = "string"  # "string", "number", "boolean" or "filepath"


@dataclass(frozen=True)
class AppInfo:
    """What the app itself says: `App(name, identifier, version, description=...)`."""

    name: str
    identifier: str
    version: str
    description: str


@dataclass(frozen=True)
class Project:
    """A project's metadata, checked. Build it with `read_project` or `load_project`."""

    pyproject: Path
    name: str
    version: str
    description: str = ""
    requires_python: str | None = None
    license: str | None = None
    authors: tuple[Person, ...] = ()
    urls: dict[str, str] = field(default_factory=dict)
    readme: Path | None = None
    readme_text: str | None = None  # ``readme = {text = "..."}``
    dynamic: tuple[str, ...] = ()  # ``[project] dynamic``: keys the build backend fills in
    scripts: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    app: AppInfo | None = None

    @property
    def root(self) -> Path:
        return self.pyproject.parent

    @property
    def normalized_name(self) -> str:
        """The name as PyPI and installers compare it (PEP 503): ``Rata_Example.CRM`` -> ``rata-example-crm``."""
        return normalize(self.name)

    def url(self, *labels: str) -> str | None:
        """The first of ``[project.urls]`` under one of these labels, compared as PEP 753 normalizes them."""
        found = {_label(key): value for key, value in self.urls.items()}
        for label in labels:
            if _label(label) in found:
                return found[_label(label)]
        return None

    @property
    def repository(self) -> str | None:
        """The source repository's URL: ``[project.urls]`` Repository or Source (or a Homepage on GitHub or GitLab)."""
        found = self.url("repository", "source", "source code", "code")
        if found is not None:
            return found
        home = self.url("homepage")
        return home if home is not None and re.match(r"^https://(?:github\.com|gitlab\.com)/", home) else None

    @property
    def package(self) -> str | None:
        """The top-level package of the app's module, from ``[tool.rata] app`` (``crm.app:app`` -> ``crm``)."""
        target = self.settings.get("app")
        if not isinstance(target, str) or not target:
            return None
        module = target.partition(":")[0]
        if module.endswith(".py") or ".py:" in target:
            return Path(module).stem.split(".")[0] or None
        return module.split(".")[0] or None

    @property
    def server_scripts(self) -> tuple[str, ...]:
        """The console scripts that point into the app's package (one of them runs ``--mcp``), sorted."""
        package = self.package
        if package is None:
            return ()
        return tuple(sorted(name for name, target in self.scripts.items() if target.partition(":")[0].split(".")[0] == package))

    @property
    def server_script(self) -> str | None:
        """The console script that starts the app: the one named like the distribution, else the app's name, else the only one."""
        scripts = self.server_scripts
        for wanted in (self.normalized_name, self.app.name if self.app else None):
            for name in scripts:
                if wanted is not None and normalize(name) == normalize(wanted):
                    return name
        return scripts[0] if len(scripts) == 1 else None

    @property
    def environment(self) -> tuple[EnvVar, ...]:
        """The environment variables the app's server reads. rata apps declare none of their own; rata reads RATA_HOME."""
        where = f"the user data folder for {self.app.identifier}" if self.app else "the platform's user data folder"
        return (
            EnvVar(
                "RATA_HOME",
                f"The folder for the app's data (its database and logs). Default: {where}.",
                format="filepath",
            ),
        )


def normalize(name: str) -> str:
    """A distribution or script name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _label(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


def shown(value: object, limit: int = 60) -> str:
    """A value for an error message: repr'd, cleaned, and cut at `limit` characters."""
    text = clean_text(repr(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: object, key: str, pyproject: Path, *, one_line: bool = True) -> str:
    """A string from the file: a string, without invisible or control characters, one line."""
    if not isinstance(value, str):
        raise ConfigError(f"{key} in {str(pyproject)!r} must be a string, not {type(value).__name__} {shown(value)}.", hint=f"Write {key} as a quoted string.")
    if clean_text(value) != value or (one_line and "\n" in value):
        what = "a line break" if "\n" in value and clean_text(value) == value else "invisible or control characters"
        raise ConfigError(f"{key} in {str(pyproject)!r} contains {what}: {shown(value)}.", hint=f"Write {key} as one line of plain text.")
    return value


def _table(value: object, key: str, pyproject: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} in {str(pyproject)!r} must be a table, not {type(value).__name__} {shown(value)}.", hint=f"Write it as [{key.strip('[]')}] with key = value lines.")
    return value


def read_pyproject(pyproject: Path) -> dict[str, Any]:
    """The parsed file, bounded in size.

    Raises:
        ConfigError: it is missing, too large, not UTF-8 or not valid TOML.
    """
    import tomllib

    try:
        size = pyproject.stat().st_size
        if size > MAX_PYPROJECT_BYTES:
            raise ConfigError(f"{str(pyproject)!r} is {size:,} bytes; rata reads at most {MAX_PYPROJECT_BYTES:,}.", hint="Is this the right file?")
        return tomllib.loads(pyproject.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"There is no {str(pyproject)!r}.", hint="Run this in the app's project folder, or pass --app with the project folder.") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{str(pyproject)!r} is not UTF-8 text.", hint="Save it as UTF-8.") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{str(pyproject)!r} is not valid TOML: {error}.", hint="Fix the file.") from None


def read_project(pyproject: Path, app: AppInfo | None = None) -> Project:
    """Read and check a project's ``pyproject.toml`` (nothing is imported); `app` is attached as given.

    Raises:
        ConfigError: the file, or one of the keys this module reads, is missing or malformed.
    """
    data = read_pyproject(pyproject)
    table = _table(data.get("project"), "[project]", pyproject) if "project" in data else None
    if table is None:
        raise ConfigError(f"{str(pyproject)!r} has no [project] table.", hint='Add [project] with name = "..." and version = "...".')
    name = table.get("name")
    if name is None:
        raise ConfigError(f"[project] in {str(pyproject)!r} has no name.", hint='Add name = "my-app": the name it has on PyPI.')
    name = _text(name, "[project] name", pyproject)
    if not _DIST_NAME.match(name):
        raise ConfigError(
            f"[project] name {shown(name)} is not a valid package name.",
            hint="Use ASCII letters, digits, '-', '_' or '.', starting and ending with a letter or digit.",
        )
    dynamic = table.get("dynamic", [])
    if not isinstance(dynamic, list) or not all(isinstance(each, str) for each in dynamic):
        raise ConfigError(f"[project] dynamic in {str(pyproject)!r} must be a list of strings.", hint='For example dynamic = ["readme"].')
    version = table.get("version")
    if version is None:
        if "version" in dynamic:
            raise ConfigError(
                f"[project] version in {str(pyproject)!r} is dynamic (the build backend sets it), and rata reads only a written version.",
                hint='Write the version in [project]: version = "1.2.3", and remove "version" from dynamic.',
            )
        raise ConfigError(f"[project] in {str(pyproject)!r} has no version.", hint='Add version = "0.1.0" to [project].')
    version = _text(version, "[project] version", pyproject)
    if not _VERSION.match(version):
        raise ConfigError(
            f"[project] version {shown(version)} is not a release version in PEP 440's normal form.",
            hint="Write it as PyPI shows it: 1.2.3, 1.2.3rc1, 1.2.3.post1 or 1.2.3.dev1 (no 'v', no '-beta', no '+local').",
        )
    description = _text(table.get("description", ""), "[project] description", pyproject)
    requires_python = _text(table["requires-python"], "[project] requires-python", pyproject) if "requires-python" in table else None
    readme, readme_text = _readme(table.get("readme"), pyproject)
    rata_settings = data.get("tool", {}).get("rata", {}) if isinstance(data.get("tool"), dict) else {}
    return Project(
        pyproject=pyproject,
        name=name,
        version=version,
        description=description,
        requires_python=requires_python,
        license=_license(table.get("license"), pyproject),
        authors=_authors(table.get("authors", []), pyproject),
        urls=_strings(table.get("urls", {}), "[project.urls]", pyproject),
        readme=readme,
        readme_text=readme_text,
        dynamic=tuple(dynamic),
        scripts=_scripts(table.get("scripts", {}), pyproject),
        settings=_table(rata_settings, "[tool.rata]", pyproject),
        app=app,
    )


def load_project(spec: str | None = None, cwd: Path | None = None) -> Project:
    """The project of the app `spec` names (as ``--app`` does), with the app loaded.

    Raises:
        ConfigError: the app has no project folder, or its pyproject.toml is malformed.
        AppLoadError: the app cannot be found or imported.
    """
    from rata.loader import load_app

    loaded = load_app(spec, cwd)
    if loaded.project is None:
        raise ConfigError(
            f"The app {loaded.target!r} is not in a project folder, and shipping reads the project's pyproject.toml.",
            hint="Run this in the project folder, or pass --app with the folder that holds pyproject.toml.",
        )
    app = loaded.app
    pyproject = loaded.project / "pyproject.toml"
    for key in ("name", "identifier", "version", "description"):
        if not isinstance(getattr(app, key), str):
            value = getattr(app, key)
            raise ConfigError(f"The app's {key} must be a string, not {type(value).__name__} {shown(value)}.", hint=f"Pass a string as App(..., {key}=...).")
    info = AppInfo(name=app.name, identifier=app.identifier, version=app.version, description=app.description)
    return read_project(pyproject, info)


def _readme(value: object, pyproject: Path) -> tuple[Path | None, str | None]:
    if value is None:  # no readme key: the package has no long description on PyPI (backends do not guess one)
        return None, None
    if isinstance(value, str):
        return _inside(value, "[project] readme", pyproject), None
    table = _table(value, "[project] readme", pyproject)
    if "file" in table:
        return _inside(_text(table["file"], "[project] readme.file", pyproject), "[project] readme.file", pyproject), None
    if "text" in table:
        return None, _text(table["text"], "[project] readme.text", pyproject, one_line=False)
    raise ConfigError(f"[project] readme in {str(pyproject)!r} has neither file nor text.", hint='Write readme = "README.md".')


def _inside(relative: str, key: str, pyproject: Path) -> Path:
    """A path the file names, which must stay inside the project folder."""
    root = pyproject.parent.resolve()
    path = (root / relative).resolve()
    if root != path and root not in path.parents:
        raise ConfigError(f"{key} {shown(relative)} points outside the project folder.", hint="Name a file inside the project, e.g. README.md.")
    return path


def read_readme(project: Project) -> str | None:
    """The README's text (what PyPI shows as the description), or None when the project has none.

    Raises:
        ConfigError: the file named is missing, too large or not UTF-8.
    """
    if project.readme_text is not None:
        return project.readme_text
    if project.readme is None:
        return None
    try:
        size = project.readme.stat().st_size
        if size > MAX_README_BYTES:
            raise ConfigError(f"The README {str(project.readme)!r} is {size:,} bytes; rata reads at most {MAX_README_BYTES:,}.", hint="Is this the right file?")
        return project.readme.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"[project] readme names {str(project.readme)!r}, which does not exist.", hint="Create it, or fix [project] readme.") from None
    except UnicodeDecodeError:
        raise ConfigError(f"The README {str(project.readme)!r} is not UTF-8 text.", hint="Save it as UTF-8.") from None


def _license(value: object, pyproject: Path) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _text(value, "[project] license", pyproject)  # PEP 639: an SPDX expression
    table = _table(value, "[project] license", pyproject)
    if "text" in table:
        return _text(table["text"], "[project] license.text", pyproject, one_line=False)
    if "file" in table:
        return _text(table["file"], "[project] license.file", pyproject)
    raise ConfigError(f"[project] license in {str(pyproject)!r} has neither text nor file.", hint='Write license = "MIT" (an SPDX expression).')


def _authors(value: object, pyproject: Path) -> tuple[Person, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"[project] authors in {str(pyproject)!r} must be a list of tables.", hint='For example authors = [{ name = "Ada", email = "ada@example.com" }].')
    people = []
    for index, each in enumerate(value):
        key = f"[project] authors[{index}]"
        person = _table(each, key, pyproject)
        name = _text(person["name"], f"{key}.name", pyproject) if "name" in person else None
        email = _text(person["email"], f"{key}.email", pyproject) if "email" in person else None
        if name is None and email is None:
            raise ConfigError(f"{key} in {str(pyproject)!r} has neither name nor email.", hint='Write { name = "Ada" } or { email = "ada@example.com" }.')
        people.append(Person(name, email))
    return tuple(people)


def _strings(value: object, key: str, pyproject: Path) -> dict[str, str]:
    table = _table(value, key, pyproject)
    return {_text(name, f"A key of {key}", pyproject): _text(each, f"{key} {name!s:.40}", pyproject) for name, each in table.items()}


def _scripts(value: object, pyproject: Path) -> dict[str, str]:
    scripts = _strings(value, "[project.scripts]", pyproject)
    for name, target in scripts.items():
        if not _SCRIPT_NAME.match(name):
            raise ConfigError(f"The console script name {shown(name)} in [project.scripts] is not a valid command name.", hint="Use letters, digits, '-', '_' or '.'.")
        if not _OBJECT_REF.match(target):
            raise ConfigError(f"[project.scripts] {name} = {shown(target)} is not a module:function reference.", hint=f'For example {name} = "my_app.main:main".')
    return scripts
