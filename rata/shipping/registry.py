"""The app's entry in the official MCP Registry: its `server.json`, for a package published on PyPI.

    entry = build_entry(load_project())   # checked against the registry's bounds and schema
    entry.text                            # the server.json to commit and hand to `mcp-publisher publish`
    entry.notes                           # what still stands between the entry and a publish

The format is the registry's published schema, committed beside this module
(`schemas/server.schema.json`, with its source in `schemas/README.md`); `validate` checks against
it with no network. The registry's own rules on top of the schema (its docs and validators):

- the name is ``namespace/name``; the namespace is ``io.github.<user>`` (GitHub login) or the
  reverse-DNS form of a domain the publisher proves (DNS or HTTP login);
- a PyPI package proves its owner by the line ``mcp-name: <name>`` in its README, which PyPI
  shows as the package's description (`ownership_line`, `readme_declares`);
- the description is 1 to 100 characters; versions are exact (never ``latest`` or a range).

What rata derives, and the ``[tool.rata.registry]`` keys that override it: ``name`` (else
``io.github.<owner>/<repo>`` from a GitHub repository URL, else the app identifier's domain and
last word: ``com.example.crm`` -> ``com.example/crm``), ``description`` (else ``[project]
description``, else the app's), ``title`` (none by default). The environment variables are the
app's ``[tool.rata.env.NAME]`` settings and rata's ``RATA_HOME`` (`Project.environment`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rata.codegen.catalog import dump_json
from rata.errors import ConfigError, RataError
from rata.shipping.owned import standing
from rata.shipping.project import EnvVar, Project, normalize, shown

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SCHEMA_FILE = Path(__file__).parent / "schemas" / "server.schema.json"
PUBLISHER_KEY = "io.modelcontextprotocol.registry/publisher-provided"  # the one _meta key the registry keeps
MARKER = {"tool": "rata"}
"""What rata writes under `PUBLISHER_KEY`: how it knows a server.json is its own to rewrite."""
DEFAULT_FILE = "server.json"
MAX_DESCRIPTION = 100
MAX_TITLE = 100
MAX_NAME = 200
_NAMESPACE = r"[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]"
_NAME_PART = r"[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]"
SERVER_NAME = re.compile(rf"^{_NAMESPACE}/{_NAME_PART}$")
_SERVER_NAME_BYTE = re.compile(r"[a-zA-Z0-9./_-]")
_REPOSITORY = re.compile(r"^https://(github\.com|gitlab\.com)/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")
_WEBSITE = re.compile(r"^https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]*)?$")
_EXAMPLE_DOMAINS = ("com.example", "org.example", "net.example", "example")
PUBLISHER_URL = "https://github.com/modelcontextprotocol/registry"


@dataclass(frozen=True)
class Entry:
    """A server.json for the registry, and what still stands between it and a publish."""

    server: dict[str, Any]
    notes: tuple[str, ...] = ()
    readme_declares_name: bool = False
    """Whether the project's README (PyPI's description) already holds `ownership_line`."""

    @property
    def name(self) -> str:
        return self.server["name"]

    @property
    def version(self) -> str:
        return self.server["version"]

    @property
    def text(self) -> str:
        """The file's bytes (as text): two-space indent, keys sorted, final newline."""
        return dump_json(_sorted(self.server))

    @property
    def ownership_line(self) -> str:
        """The line PyPI's README must hold for the registry to accept this name (hidden in a comment)."""
        return ownership_line(self.name)


def ownership_line(name: str) -> str:
    return f"<!-- mcp-name: {name} -->"


def readme_declares(text: str, name: str) -> bool:
    """Whether `text` holds ``mcp-name: <name>`` as the registry matches it: the name whole, not a prefix of a longer one."""
    token = f"mcp-name: {name}"
    start = text.find(token)
    while start >= 0:
        end = start + len(token)
        if end == len(text) or not _SERVER_NAME_BYTE.match(text[end]):
            return True
        start = text.find(token, start + 1)
    return False


def server_name(project: Project) -> str:
    """The entry's name: ``[tool.rata.registry] name``, else from the GitHub repository, else from the app identifier.

    Raises:
        ConfigError: the name (given or derived) breaks the registry's grammar.
    """
    settings = registry_settings(project)
    if "name" in settings:
        return _check_name(settings["name"], "[tool.rata.registry] name")
    repository = project.repository
    found = _REPOSITORY.match(repository) if repository else None
    if found and found.group(1) == "github.com":
        return _check_name(f"io.github.{found.group(2)}/{found.group(3)}", f"The name made from the repository URL {repository!r}")
    if project.app is None:
        raise ConfigError(
            "No registry name: the project has no GitHub repository URL and no app identifier.", hint='Set [tool.rata.registry] name = "io.github.<you>/<app>".'
        )
    *domain, last = project.app.identifier.split(".")
    return _check_name(f"{'.'.join(domain)}/{last}", f"The name made from the app identifier {project.app.identifier!r}")


def _check_name(name: object, what: str) -> str:
    hint = 'Set [tool.rata.registry] name = "io.github.<you>/<app>" (GitHub login) or "com.yourdomain/<app>" (a domain you own).'
    if not isinstance(name, str):
        raise ConfigError(f"{what} must be a string, not {type(name).__name__} {shown(name)}.", hint=hint)
    if len(name) > MAX_NAME or not SERVER_NAME.match(name):
        raise ConfigError(
            f"{what}, {shown(name)}, is not a registry name: namespace/name of ASCII letters, digits, '.', '-' (and '_' after the slash), "
            f"at most {MAX_NAME} characters.",
            hint=hint,
        )
    return name


def registry_settings(project: Project) -> dict[str, Any]:
    """The ``[tool.rata.registry]`` table (empty when absent).

    Raises:
        ConfigError: it is not a table, or has a key rata does not know.
    """
    settings = project.settings.get("registry", {})
    if not isinstance(settings, dict):
        raise ConfigError(f"[tool.rata.registry] in {str(project.pyproject)!r} must be a table.", hint='Write [tool.rata.registry] then name = "...".')
    unknown = sorted(set(settings) - {"name", "description", "title"})
    if unknown:
        raise ConfigError(f"[tool.rata.registry] has unknown keys: {', '.join(shown(k, 30) for k in unknown)}.", hint="It takes name, description and title.")
    return settings


def _bounded(value: object, what: str, limit: int, key: str) -> str:
    from rata.cleantext import clean_text

    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string, not {type(value).__name__} {shown(value)}.", hint=f"Write [tool.rata.registry] {key} as a quoted string.")
    text = value.strip()
    if not text or len(text) > limit:
        size = "empty" if not text else f"{len(text):,} characters long"
        raise ConfigError(
            f"{what} is {size}; the MCP Registry takes 1 to {limit} characters.",
            hint=f'Shorten it, or give the registry its own: [tool.rata.registry] {key} = "..." (1 to {limit} characters).',
        )
    if clean_text(text) != text or "\n" in text:
        raise ConfigError(
            f"{what} contains line breaks, invisible or control characters: {shown(text)}.", hint=f"Write [tool.rata.registry] {key} as one line of plain text."
        )
    return text


def build_entry(project: Project) -> Entry:
    """The registry entry of a project whose app is published on PyPI, checked against the registry's schema.

    Raises:
        ConfigError: the project lacks something the entry needs, or has a value the registry refuses.
    """
    settings = registry_settings(project)
    name = server_name(project)
    version = _written_version(project)
    if "description" in settings:
        description = _bounded(settings["description"], "[tool.rata.registry] description", MAX_DESCRIPTION, "description")
    else:
        source = project.description or (project.app.description if project.app else "")
        what = "[project] description" if project.description else "The app's description"
        description = _bounded(source, what, MAX_DESCRIPTION, "description")
    _uvx_script(project)
    package: dict[str, Any] = {
        "registryType": "pypi",
        "registryBaseUrl": "https://pypi.org",
        "identifier": project.name,
        "version": version,
        "runtimeHint": "uvx",
        "transport": {"type": "stdio"},
        "packageArguments": [{"type": "positional", "value": "--mcp"}],
    }
    package["environmentVariables"] = [environment_variable(var) for var in project.environment]
    server: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "name": name,
        "description": description,
        "version": version,
        "packages": [package],
        "_meta": {PUBLISHER_KEY: dict(MARKER)},
    }
    if "title" in settings:
        server["title"] = _bounded(settings["title"], "[tool.rata.registry] title", MAX_TITLE, "title")
    notes = []
    if project.app is not None and project.app.version != version:
        notes.append(
            f"The app says it is version {shown(project.app.version, 30)} (what its MCP server tells clients), and [project] version is {version!r} "
            "(what PyPI and the entry list). Give App(...) the same version."
        )
    repository = _REPOSITORY.match(project.repository) if project.repository else None
    if repository:
        server["repository"] = {
            "url": f"https://{repository.group(1)}/{repository.group(2)}/{repository.group(3)}",
            "source": repository.group(1).split(".")[0],
        }
    elif project.repository:
        notes.append(f"The repository {shown(project.repository)} is left out: the registry takes https URLs on github.com or gitlab.com.")
    homepage = project.url("homepage", "documentation")
    if homepage and _WEBSITE.match(homepage) and (not repository or homepage.rstrip("/") != server["repository"]["url"]):
        server["websiteUrl"] = homepage
    namespace = name.split("/")[0]
    if namespace in _EXAMPLE_DOMAINS or namespace.startswith(tuple(d + "." for d in _EXAMPLE_DOMAINS)):
        notes.append(
            f"The namespace {namespace!r} is an example domain, which no one can prove to own. "
            'Set [tool.rata.registry] name = "io.github.<you>/<app>", or a domain you own, or add your GitHub repository to [project.urls].'
        )
    ownership = _ownership_notes(project, name)
    notes.extend(ownership)
    problems = validate(server)
    if problems:
        raise RataError(
            f"The entry rata made does not match the registry's schema: {problems[0]}.",
            hint="Please report this: rata should not write an entry the registry refuses.",
        )
    return Entry(server, tuple(notes), readme_declares_name=not ownership)


def environment_variable(var: EnvVar) -> dict[str, Any]:
    """An environment variable as the registry's ``KeyValueInput``: its name, description, format
    (``directory`` and ``file`` are ``filepath``), ``isRequired``, ``isSecret`` and ``default``.

    The default is a string, as the schema says (numbers as decimals, booleans as ``true`` or
    ``false``). One holding ``${...}`` (MCPB's ``${HOME}``, ``${DOCUMENTS}``: a bundle's client
    fills them in) is left out, since registry clients would pass it on as written."""
    entry: dict[str, Any] = {"name": var.name, "description": var.description, "format": var.format, "isRequired": var.required, "isSecret": var.sensitive}
    default = json.dumps(var.default) if isinstance(var.default, (bool, int, float)) else var.default
    if default is not None and "${" not in default:
        entry["default"] = default
    return entry


def _written_version(project: Project) -> str:
    """``[project] version``: the entry names the exact release on PyPI, so it must be written, not dynamic."""
    if project.version is None:
        raise ConfigError(
            f"[project] version in {str(project.pyproject)!r} is dynamic (the build backend sets it), and the registry entry names the exact version on PyPI.",
            hint='Write the version in [project]: version = "1.2.3", and remove "version" from dynamic.',
        )
    return project.version


def _uvx_script(project: Project) -> str:
    """The console script `uvx <package>` runs: one named like the distribution, into the app's package."""
    wanted = project.normalized_name
    for script in project.server_scripts:
        if normalize(script) == wanted:
            return script
    target = project.scripts.get(project.server_script or "", None)
    example = target or (f"{project.package}.main:main" if project.package else "my_app.main:main")
    raise ConfigError(
        f"[project.scripts] has no console script named {project.name!r} that starts the app; "
        f"registry clients run a PyPI package as `uvx {project.name} --mcp`, which runs the script named like the package.",
        hint=f'Add it to [project.scripts]: "{project.name}" = "{example}" (a function that calls rata.cli.appmain.main_for).',
    )


def _ownership_notes(project: Project, name: str) -> list[str]:
    from rata.shipping.project import read_readme

    line = ownership_line(name)
    if project.readme is None and project.readme_text is None and "readme" in project.dynamic:
        return [f"[project] readme is dynamic (the build backend writes it), so rata cannot check it: make sure PyPI's description holds the line {line}."]
    if project.readme is None and project.readme_text is None:
        return [
            f"[project] has no readme, so PyPI shows no description and the registry cannot find `mcp-name: {name}` there. "
            f'Add readme = "README.md" holding the line {line}.'
        ]
    text = read_readme(project) or ""
    if readme_declares(text, name):
        return []
    where = project.readme.name if project.readme is not None else "[project] readme.text"
    return [f"{where} lacks the line the registry checks on PyPI: {line}. Add it, then upload a release with it before publishing."]


def validate(server: Any) -> list[str]:
    """What makes `server` invalid against the committed registry schema, one message per problem (empty when valid)."""
    import jsonschema

    validator = jsonschema.Draft7Validator(schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    problems = sorted(validator.iter_errors(server), key=lambda error: list(error.absolute_path))
    return [f"{'/'.join(str(part) for part in error.absolute_path) or '(top)'}: {error.message}" for error in problems]


def schema() -> dict[str, Any]:
    """The registry's server.json schema, as committed (see schemas/README.md)."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def written_by_rata(value: object) -> bool:
    """Whether a parsed server.json carries rata's marker (`MARKER` under `PUBLISHER_KEY`)."""
    meta = value.get("_meta") if isinstance(value, dict) else None
    provided = meta.get(PUBLISHER_KEY) if isinstance(meta, dict) else None
    return isinstance(provided, dict) and provided.get("tool") == MARKER["tool"]


def plan_write(path: Path, entry: Entry, *, force: bool = False, shown_as: str | None = None) -> str:
    """``"same"`` when `path` already holds the entry, ``"write"`` when rata may write it (new, rata's own, or `force`).

    `shown_as` is how messages name the file (default: `path`).

    Raises:
        ConfigError: the file exists and rata did not write it (and not `force`): it is the user's.
    """
    try:
        found = standing(path, entry.text, written_by_rata)
    except IsADirectoryError:
        raise ConfigError(f"{shown_as or str(path)!r} is a folder.", hint="Pass --out with a file path.") from None
    if found == "same":
        return "same"
    if found == "theirs" and not force:
        raise ConfigError(
            f"{shown_as or str(path)!r} exists and rata did not write it (it has no {PUBLISHER_KEY} tool = \"rata\" in _meta).",
            hint="Compare it with `rata mcp publish --dry-run --out other.json`; pass --force to replace it.",
        )
    return "write"


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(each) for each in value]
    return value
