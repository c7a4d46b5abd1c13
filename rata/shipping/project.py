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

Read (PEP 621): ``[project]`` name, version (written, or None when ``dynamic``), description,
readme, requires-python, license (an SPDX expression), authors, maintainers, keywords, urls,
scripts, dependencies; and ``[tool.rata]``: app, icon (a PNG file in the project),
``[tool.rata.env.NAME]`` (the environment variables the app reads, as settings its users give) and
``[tool.rata.bundle] platforms``. The shipping formats (the MCP Registry's `server.json`,
`rata.shipping.registry`; an MCP Bundle's manifest, `rata.shipping.bundle`) are built from a
`Project` and check their own bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from rata.cleantext import clean_text
from rata.errors import ConfigError

TYPE_CHECKING = False  # the type-only import idiom (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from rata.loader import LoadedApp

MAX_PYPROJECT_BYTES = 1024 * 1024
MAX_README_BYTES = 4 * 1024 * 1024
_DIST_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")  # PEP 508 names
# A PEP 440 public version in its normal form, as PyPI shows it (no local "+..." part: PyPI refuses those).
_VERSION = re.compile(r"^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?$")
_SCRIPT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_OBJECT_REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?::[A-Za-z_][A-Za-z0-9_.]*)?$")
_EMAIL = re.compile(r"^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$")
_SPECIFIER = re.compile(r"^\s*(?:(?:~=|==|!=|<=|>=|<|>|===)\s*[0-9][0-9A-Za-z.*+!-]*\s*)(?:,\s*(?:~=|==|!=|<=|>=|<|>|===)\s*[0-9][0-9A-Za-z.*+!-]*\s*)*$")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
PLATFORMS = ("darwin", "linux", "win32")
"""The platforms an MCP Bundle can claim (``[tool.rata.bundle] platforms``; all three by default)."""
ENV_TYPES = ("string", "number", "boolean", "directory", "file")
"""The types of a ``[tool.rata.env.NAME]`` setting: MCPB's ``user_config`` types."""
ENV_KEYS = ("title", "description", "type", "sensitive", "required", "default")
RESERVED_ENV = frozenset({"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"})
_REGISTRY_FORMATS = {"string": "string", "number": "number", "boolean": "boolean", "directory": "filepath", "file": "filepath"}


@dataclass(frozen=True)
class Person:
    """One of ``[project] authors``: a name, an email, or both."""

    name: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class EnvVar:
    """An environment variable the app's server reads, as an installer should offer it: ``[tool.rata.env.NAME]``."""

    name: str
    description: str
    title: str = ""
    """How a settings form labels it (default: the name)."""
    type: str = "string"
    """One of `ENV_TYPES`."""
    sensitive: bool = False
    """A secret (a key, a password): clients mask it, and it has no default."""
    required: bool = False
    default: str | int | float | bool | None = None

    @property
    def format(self) -> str:
        """The MCP Registry's input format for it: ``string``, ``number``, ``boolean`` or ``filepath``."""
        return _REGISTRY_FORMATS[self.type]


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
    version: str | None
    """None when ``[project] dynamic`` names it (the build backend writes it): the App's version stands in where it can."""
    description: str = ""
    requires_python: str | None = None
    license: str | None = None
    """An SPDX expression (PEP 639), or None (none, or a ``{file = ...}``/``{text = ...}`` table)."""
    authors: tuple[Person, ...] = ()
    maintainers: tuple[Person, ...] = ()
    keywords: tuple[str, ...] = ()
    urls: dict[str, str] = field(default_factory=dict)
    readme: Path | None = None
    readme_text: str | None = None  # ``readme = {text = "..."}``
    dynamic: tuple[str, ...] = ()  # ``[project] dynamic``: keys the build backend fills in
    scripts: dict[str, str] = field(default_factory=dict)
    dependencies: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    """The ``[tool.rata]`` table as written; the keys below are read from it, checked."""
    icon: str | None = None
    """``[tool.rata] icon``: a PNG file's path in the project, relative and in POSIX form."""
    env: tuple[EnvVar, ...] = ()
    """``[tool.rata.env.NAME]``: the environment variables the app declares, sorted by name."""
    platforms: tuple[str, ...] = PLATFORMS
    """``[tool.rata.bundle] platforms``, sorted."""
    app: AppInfo | None = None

    @property
    def root(self) -> Path:
        return self.pyproject.parent

    @property
    def author(self) -> Person | None:
        """The first of ``authors`` (then ``maintainers``) with a name: the one an MCP Bundle names."""
        return next((person for person in self.authors + self.maintainers if person.name is not None), None)

    @property
    def app_target(self) -> str | None:
        """``[tool.rata] app`` as written (``crm.app:app``), or None."""
        target = self.settings.get("app")
        return target if isinstance(target, str) else None

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
        target = self.app_target
        if not target:
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
        """Every environment variable the app's server reads, sorted: the ones it declares, and rata's RATA_HOME (unless declared)."""
        where = f"the user data folder for {self.app.identifier}" if self.app else "the platform's user data folder"
        home = EnvVar("RATA_HOME", f"The folder for the app's data (its database and logs). Default: {where}.", title="Data folder", type="directory")
        declared = {var.name: var for var in self.env}
        return tuple(sorted({"RATA_HOME": home, **declared}.values(), key=lambda var: var.name))


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
        raise ConfigError(
            f"{key} in {str(pyproject)!r} must be a table, not {type(value).__name__} {shown(value)}.",
            hint=f"Write it as [{key.strip('[]')}] with key = value lines.",
        )
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
    if version is None and "version" not in dynamic:
        raise ConfigError(f"[project] in {str(pyproject)!r} has no version.", hint='Add version = "0.1.0" to [project].')
    if version is not None:
        version = _text(version, "[project] version", pyproject)
        if not is_version(version):
            raise ConfigError(
                f"[project] version {shown(version)} is not a release version in PEP 440's normal form.",
                hint="Write it as PyPI shows it: 1.2.3, 1.2.3rc1, 1.2.3.post1 or 1.2.3.dev1 (no 'v', no '-beta', no '+local').",
            )
    description = _text(table.get("description", ""), "[project] description", pyproject)
    requires_python = _text(table["requires-python"], "[project] requires-python", pyproject) if "requires-python" in table else None
    if requires_python is not None and not _SPECIFIER.match(requires_python):
        raise ConfigError(f"[project] requires-python {shown(requires_python)} is not a version specifier.", hint='Write e.g. requires-python = ">=3.11".')
    readme, readme_text = _readme(table.get("readme"), pyproject)
    tool = _table(data.get("tool", {}), "[tool]", pyproject)
    rata = _table(tool.get("rata", {}), "[tool.rata]", pyproject)
    bundle = _table(rata.get("bundle", {}), "[tool.rata.bundle]", pyproject)
    return Project(
        pyproject=pyproject,
        name=name,
        version=version,
        description=description,
        requires_python=requires_python,
        license=_license(table.get("license"), pyproject),
        authors=_people(table.get("authors", []), "authors", pyproject),
        maintainers=_people(table.get("maintainers", []), "maintainers", pyproject),
        keywords=_string_list(table.get("keywords", []), "[project] keywords", pyproject),
        urls=_strings(table.get("urls", {}), "[project.urls]", pyproject),
        readme=readme,
        readme_text=readme_text,
        dynamic=tuple(dynamic),
        scripts=_scripts(table.get("scripts", {}), pyproject),
        dependencies=_string_list(table.get("dependencies", []), "[project] dependencies", pyproject),
        settings=rata,
        icon=_icon(rata.get("icon"), pyproject),
        env=_env(rata.get("env", {}), pyproject),
        platforms=_platforms(bundle.get("platforms", list(PLATFORMS)), pyproject),
        app=app,
    )


def is_version(text: str) -> bool:
    """Whether `text` is a release version in PEP 440's normal form, as PyPI shows it."""
    return bool(_VERSION.match(text))


def app_info(app: object) -> AppInfo:
    """What a loaded `App` says about itself, checked to be strings.

    Raises:
        ConfigError: one of its name, identifier, version or description is not a string.
    """
    said: dict[str, str] = {}
    for key in ("name", "identifier", "version", "description"):
        value = getattr(app, key, None)
        if not isinstance(value, str):
            raise ConfigError(f"The app's {key} must be a string, not {type(value).__name__} {shown(value)}.", hint=f"Pass a string as App(..., {key}=...).")
        said[key] = value
    return AppInfo(**said)


def project_of(loaded: LoadedApp) -> Project:
    """The project of a loaded app (``rata.loader.load_app``), with the app attached.

    Raises:
        ConfigError: the app has no project folder, or its pyproject.toml is malformed.
    """
    if loaded.project is None:
        raise ConfigError(
            f"The app {loaded.target!r} is not in a project folder, and shipping reads the project's pyproject.toml.",
            hint="Run this in the project folder, or pass --app with the folder that holds pyproject.toml.",
        )
    return read_project(loaded.project / "pyproject.toml", app_info(loaded.app))


def load_project(spec: str | None = None, cwd: Path | None = None) -> Project:
    """The project of the app `spec` names (as ``--app`` does), with the app loaded.

    Raises:
        ConfigError: the app has no project folder, or its pyproject.toml is malformed.
        AppLoadError: the app cannot be found or imported.
    """
    from rata.loader import load_app

    return project_of(load_app(spec, cwd))


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
    """The SPDX expression (PEP 639); a ``{file = ...}`` or ``{text = ...}`` table gives none."""
    if value is None:
        return None
    if isinstance(value, str):
        return _text(value, "[project] license", pyproject)
    if not isinstance(value, dict):
        raise ConfigError(
            f"[project] license in {str(pyproject)!r} must be an SPDX expression (a string) or a table, not {type(value).__name__} {shown(value)}.",
            hint='Write license = "MIT" (an SPDX expression).',
        )
    if "text" in value:
        _text(value["text"], "[project] license.text", pyproject, one_line=False)
    elif "file" in value:
        _text(value["file"], "[project] license.file", pyproject)
    else:
        raise ConfigError(f"[project] license in {str(pyproject)!r} has neither text nor file.", hint='Write license = "MIT" (an SPDX expression).')
    return None


def _people(value: object, key: str, pyproject: Path) -> tuple[Person, ...]:
    """``[project] authors`` or ``maintainers``: tables with a name, an email (an address), or both."""
    if not isinstance(value, list):
        example = f'For example {key} = [{{ name = "Ada", email = "ada@example.com" }}].'
        raise ConfigError(f"[project] {key} in {str(pyproject)!r} must be a list of tables.", hint=example)
    people = []
    for index, each in enumerate(value):
        where = f"[project] {key}[{index}]"
        person = _table(each, where, pyproject)
        name = _text(person["name"], f"{where}.name", pyproject) if "name" in person else None
        email = _text(person["email"], f"{where}.email", pyproject) if "email" in person else None
        if name is None and email is None:
            raise ConfigError(f"{where} in {str(pyproject)!r} has neither name nor email.", hint='Write { name = "Ada" } or { email = "ada@example.com" }.')
        if name is not None and not name.strip():
            raise ConfigError(f"{where}.name in {str(pyproject)!r} is empty.", hint='Write { name = "Ada" }, or leave the name out.')
        if email is not None and not _EMAIL.match(email):
            raise ConfigError(f"{where}.email {shown(email)} is not an email address.", hint="Fix it, or leave the email out.")
        people.append(Person(name.strip() if name is not None else None, email))
    return tuple(people)


def _string_list(value: object, key: str, pyproject: Path) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(
            f"{key} in {str(pyproject)!r} must be a list of strings, not {type(value).__name__} {shown(value)}.",
            hint=f'Write {key.split()[-1]} = ["...", "..."].',
        )
    return tuple(_text(each, f"{key}[{index}]", pyproject) for index, each in enumerate(value))


def _icon(value: object, pyproject: Path) -> str | None:
    """``[tool.rata] icon``: a PNG file inside the project (not where the bundle puts its own files)."""
    if value is None:
        return None
    hint = 'Write icon = "icon.png" under [tool.rata], a PNG file in the project (512x512 is best).'
    if not isinstance(value, str) or not value or "\\" in value or not value.isprintable():
        raise ConfigError(f"[tool.rata] icon must be a relative path to a PNG file (found {shown(value)}).", hint=hint)
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or path.parts[:1] in (("server",), ("manifest.json",)) or "${" in value:
        raise ConfigError(f"[tool.rata] icon {shown(value)} must be a path inside the project (not under server/).", hint=hint)
    file = pyproject.parent / path
    try:
        head = file.read_bytes()[:8] if file.is_file() else None
    except OSError:
        head = None
    if head is None:
        raise ConfigError(f"[tool.rata] icon {shown(value)} is not a file in {str(pyproject.parent)!r}.", hint=hint)
    if head != b"\x89PNG\r\n\x1a\n":
        raise ConfigError(f"[tool.rata] icon {shown(value)} is not a PNG file.", hint=hint)
    return str(path)


def _platforms(value: object, pyproject: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item in PLATFORMS for item in value):
        raise ConfigError(
            f"[tool.rata.bundle] platforms in {str(pyproject)!r} must be a non-empty list of {', '.join(map(repr, PLATFORMS))}, not {shown(value)}.",
            hint="Leave it out for all three; narrow it when a dependency has compiled code for one platform only.",
        )
    return tuple(sorted(set(value)))


def _env(value: object, pyproject: Path) -> tuple[EnvVar, ...]:
    """``[tool.rata.env.NAME]`` tables: the environment variables the app reads, each a setting its users give."""
    declared = _table(value, "[tool.rata.env]", pyproject)
    settings = []
    for name in sorted(declared):
        where = f"[tool.rata.env.{shown(name, 40).strip(chr(39))}]"
        if not _ENV_NAME.match(name) or name in RESERVED_ENV:
            raise ConfigError(
                f"{where}: {shown(name, 40)} cannot be an environment variable of the app.",
                hint="Use upper-case letters, digits and '_', starting with a letter; not PYTHONPATH or PYTHONHOME.",
            )
        table = declared[name]
        if not isinstance(table, dict):
            raise ConfigError(f"{where} must be a table with a description.", hint=f'Write [tool.rata.env.{name}] then description = "What it is for".')
        unknown = sorted(set(table) - set(ENV_KEYS))
        if unknown:
            listed = ", ".join(shown(key, 30) for key in unknown)
            raise ConfigError(f"{where} has unknown keys: {listed}.", hint="Use title, description, type, sensitive, required and default.")
        if "description" not in table:
            raise ConfigError(f"{where} description is missing.", hint=f'Add description = "What it is for" to {where}.')
        description = _text(table["description"], f"{where} description", pyproject, one_line=False).strip()
        if not description:
            raise ConfigError(f"{where} description is empty.", hint=f'Write description = "What it is for" in {where}.')
        title = _text(table.get("title", name), f"{where} title", pyproject).strip() or name
        kind = table.get("type", "string")
        if kind not in ENV_TYPES:
            raise ConfigError(f"{where} type must be one of {', '.join(ENV_TYPES)} (found {shown(kind)}).", hint='Leave it out for "string".')
        flags = {}
        for flag in ("sensitive", "required"):
            flags[flag] = table.get(flag, False)
            if not isinstance(flags[flag], bool):
                raise ConfigError(f"{where} {flag} must be true or false, not {shown(flags[flag])}.", hint=f"Write {flag} = true, or leave it out.")
        if flags["sensitive"] and kind != "string":
            raise ConfigError(f"{where} is sensitive but of type {kind!r}: only a string can be sensitive.", hint='Drop sensitive, or use type = "string".')
        default = table.get("default")
        if default is not None and flags["sensitive"]:
            raise ConfigError(f"{where} is sensitive, so it cannot have a default in a published manifest.", hint="Drop the default.")
        if default is not None and not _default_fits(default, kind):
            raise ConfigError(f"{where} default {shown(default)} is not a {kind}.", hint=f"Write a {kind} as the default, or leave it out.")
        settings.append(EnvVar(name, description, title, kind, flags["sensitive"], flags["required"], default))
    return tuple(settings)


def _default_fits(value: object, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")
    return isinstance(value, str) and value.isprintable() and clean_text(value) == value


def _strings(value: object, key: str, pyproject: Path) -> dict[str, str]:
    table = _table(value, key, pyproject)
    return {_text(name, f"A key of {key}", pyproject): _text(each, f"{key} {name!s:.40}", pyproject) for name, each in table.items()}


def _scripts(value: object, pyproject: Path) -> dict[str, str]:
    scripts = _strings(value, "[project.scripts]", pyproject)
    for name, target in scripts.items():
        if not _SCRIPT_NAME.match(name):
            raise ConfigError(
                f"The console script name {shown(name)} in [project.scripts] is not a valid command name.", hint="Use letters, digits, '-', '_' or '.'."
            )
        if not _OBJECT_REF.match(target):
            raise ConfigError(
                f"[project.scripts] {name} = {shown(target)} is not a module:function reference.", hint=f'For example {name} = "my_app.main:main".'
            )
    return scripts
