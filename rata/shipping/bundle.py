"""An app's MCP Bundle manifest (`manifest.json`), made from its catalog and its project.

    project = read_project(Path("pyproject.toml"))
    manifest = build_manifest(catalog.to_dict(), project, app_description=app.description)
    text = manifest_json(manifest)

The manifest follows the MCPB manifest spec, version `MANIFEST_VERSION` (the spec's current
version, which `@anthropic-ai/mcpb` 2.1.2 validates; its 0.4 is experimental):

- ``name``, ``version``, ``description``, ``author``, ``license``, ``keywords`` and the URLs
  from ``[project]`` in ``pyproject.toml``; ``display_name`` is the App's name;
- ``tools`` and ``prompts``: the ones the catalog grants to agents, with their descriptions;
- ``server``: a ``python`` server whose entry (``server/main.py``, `rata.shipping.bundle_files`)
  starts the same ``--mcp`` server as ``<app> --mcp``, from the app and rata bundled in
  ``server/lib``;
- ``compatibility``: the platforms (``[tool.rata.bundle] platforms``, default all three) and the
  Python requirement (``requires-python``);
- ``user_config``: one entry for each environment variable the app declares in
  ``[tool.rata.env.NAME]``, passed to the server in ``mcp_config.env`` (``sensitive`` ones
  are masked by the client);
- ``icon``: ``[tool.rata] icon``, a PNG file in the project.

Everything read from the project is hostile: a value of the wrong type or shape is a
`ConfigError` naming the key and the fix. The same catalog and project always give the same bytes.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from rata._record import Record
from rata.codegen.catalog import dump_json
from rata.cleantext import clean_line, clean_text
from rata.errors import ConfigError

MANIFEST_VERSION = "0.3"
MANIFEST_FILE = "manifest.json"
ENTRY_POINT = "server/main.py"
PLATFORMS = ("darwin", "linux", "win32")
DEFAULT_PYTHON = ">=3.11"  # rata's own requires-python
GENERATOR = {"dev.rata": {"generator": "rata mcp pack"}}
"""The ``_meta`` that marks a manifest rata wrote, so that it may write it again."""
USER_CONFIG_TYPES = ("string", "number", "boolean", "directory", "file")
RESERVED_ENV = frozenset({"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"})

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")  # a PEP 508 project name
_ENV = re.compile(r"^[A-Z][A-Z0-9_]*$")
_EMAIL = re.compile(r"^[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$")
_SPECIFIER = re.compile(r"^\s*(?:(?:~=|==|!=|<=|>=|<|>|===)\s*[0-9][0-9A-Za-z.*+!-]*\s*)(?:,\s*(?:~=|==|!=|<=|>=|<|>|===)\s*[0-9][0-9A-Za-z.*+!-]*\s*)*$")
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+!_-]*$")
_URL_KEYS = {
    "homepage": ("homepage", "home", "home-page", "website"),
    "documentation": ("documentation", "docs"),
    "support": ("issues", "bug tracker", "bugs", "issue tracker", "support"),
    "repository": ("repository", "source", "source code", "code"),
}
_FIX = "Fix it in pyproject.toml."


class EnvSetting(Record):
    """An environment variable the app reads, declared in ``[tool.rata.env.NAME]``: a setting its users give."""

    __slots__ = ("name", "title", "description", "type", "sensitive", "required", "default")
    name: str
    title: str
    description: str
    type: str
    sensitive: bool
    required: bool
    default: str | int | float | bool | None


class Project(Record):
    """What a bundle needs from ``pyproject.toml``: ``[project]`` and ``[tool.rata]``, checked."""

    __slots__ = ("root", "name", "version", "description", "author", "license", "keywords", "urls", "requires_python", "dependencies", "app", "icon", "platforms", "env")
    root: Path
    name: str
    version: str | None
    """None when ``[project]`` declares it dynamic: the App's version is used."""
    description: str
    author: dict[str, str] | None
    license: str | None
    keywords: list[str]
    urls: dict[str, str]
    requires_python: str
    dependencies: list[str]
    app: str
    """``[tool.rata] app``: ``package.module:attribute``."""
    icon: str | None
    """``[tool.rata] icon``: a PNG file's path in the project, relative and in POSIX form."""
    platforms: list[str]
    env: list[EnvSetting]


def read_project(pyproject: Path) -> Project:
    """Read and check what a bundle needs from a ``pyproject.toml``.

    Raises:
        ConfigError: the file is missing, is not TOML, or a value has the wrong type or shape.
    """
    import tomllib

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"There is no {str(pyproject)!r}.", hint="rata mcp pack bundles a project: run it in one, or pass --app PROJECT_FOLDER.") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{str(pyproject)!r} is not valid TOML: {error}.", hint=_FIX) from None
    project = _table(data, "project", "[project]")
    tool = _table(data, "tool", "[tool]")
    rata = _table(tool, "rata", "[tool.rata]")
    bundle = _table(rata, "bundle", "[tool.rata.bundle]")
    name = _string(project, "name", "[project]", required=True)
    if not _NAME.match(name):
        raise ConfigError(f"[project] name {name!r} is not a valid project name.", hint="Use letters, digits, '.', '_' or '-', starting and ending with a letter or digit.")
    dynamic = project.get("dynamic", [])
    if not isinstance(dynamic, list) or not all(isinstance(item, str) for item in dynamic):
        raise ConfigError("[project] dynamic must be a list of strings.", hint=_FIX)
    version = None if "version" in dynamic else _string(project, "version", "[project]", required=True)
    if version is not None and not _VERSION.match(version):
        raise ConfigError(f"[project] version {version!r} is not a version.", hint='Write a version such as "1.0.0".')
    requires = _string(project, "requires-python", "[project]") or DEFAULT_PYTHON
    if not _SPECIFIER.match(requires):
        raise ConfigError(f"[project] requires-python {requires!r} is not a version specifier.", hint='Write e.g. ">=3.11".')
    root = pyproject.parent
    return Project(
        root=root,
        name=name,
        version=version,
        description=clean_line(_string(project, "description", "[project]") or ""),
        author=_author(project),
        license=_license(project),
        keywords=[clean_line(word) for word in _strings(project, "keywords", "[project]")],
        urls=_urls(project),
        requires_python=requires.strip(),
        dependencies=_strings(project, "dependencies", "[project]"),
        app=_app_target(rata),
        icon=_icon(rata, root),
        platforms=_platforms(bundle),
        env=_env(rata),
    )


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where} in pyproject.toml must be a table.", hint=_FIX)
    return value


def _string(table: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = table.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        what = "is missing" if value is None else "must be a non-empty string"
        raise ConfigError(f"{where} {key} {what}.", hint=f"Add {key} = \"...\" to {where} in pyproject.toml.")
    return value


def _strings(table: dict[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} {key} must be a list of strings.", hint=_FIX)
    return list(value)


def _author(project: dict[str, Any]) -> dict[str, str] | None:
    """The first of ``authors`` (then ``maintainers``) with a name; None if there is none."""
    for key in ("authors", "maintainers"):
        people = project.get(key, [])
        if not isinstance(people, list) or not all(isinstance(person, dict) for person in people):
            raise ConfigError(f"[project] {key} must be a list of tables, like [{{ name = \"Ada\", email = \"ada@example.com\" }}].", hint=_FIX)
        for person in people:
            name, email = person.get("name"), person.get("email")
            if name is None:
                continue
            if not isinstance(name, str) or not clean_line(name).strip():
                raise ConfigError(f"[project] {key}: a name must be a non-empty string.", hint=_FIX)
            author = {"name": clean_line(name).strip()}
            if email is not None:
                if not isinstance(email, str) or not _EMAIL.match(email):
                    raise ConfigError(f"[project] {key}: {email!r} is not an email address.", hint="Fix it, or leave the email out.")
                author["email"] = email
            return author
    return None


def _license(project: dict[str, Any]) -> str | None:
    value = project.get("license")
    if isinstance(value, str):
        return clean_line(value).strip() or None
    if value is None or isinstance(value, dict):
        return None  # {file = ...} or {text = ...}: no identifier to give
    raise ConfigError("[project] license must be an SPDX expression (a string) or a table.", hint='Write e.g. license = "MIT".')


def _urls(project: dict[str, Any]) -> dict[str, str]:
    urls = _table(project, "urls", "[project.urls]")
    by_label = {str(label).strip().lower(): (label, value) for label, value in urls.items()}
    found: dict[str, str] = {}
    for field, labels in _URL_KEYS.items():
        for label in labels:
            if label in by_label:
                found[field] = _url(by_label[label][1], by_label[label][0])
                break
    return found


def _url(value: Any, label: str) -> str:
    from urllib.parse import urlsplit

    ok = isinstance(value, str) and value.isascii() and value.isprintable() and " " not in value
    if ok:
        try:
            parts = urlsplit(value)
        except ValueError:
            ok = False
        else:
            ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    if not ok:
        raise ConfigError(f"[project.urls] {label!r} is not an http(s) URL: {value!r}.", hint="Write a full URL such as https://example.com/app.")
    return value


def _app_target(rata: dict[str, Any]) -> str:
    target = rata.get("app")
    if not isinstance(target, str) or target.endswith(".py") or ".py:" in target or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?::[A-Za-z_][A-Za-z0-9_]*)?", target):
        raise ConfigError(
            f"[tool.rata] app must name the app as package.module:attribute to bundle it (found {target!r}).",
            hint='Write e.g. app = "crm.app:app"; a file.py app cannot be bundled.',
        )
    return target if ":" in target else f"{target}:app"


def _icon(rata: dict[str, Any], root: Path) -> str | None:
    icon = rata.get("icon")
    if icon is None:
        return None
    hint = 'Write icon = "icon.png" under [tool.rata], a PNG file in the project (512x512 is best).'
    if not isinstance(icon, str) or not icon or "\\" in icon or not icon.isprintable():
        raise ConfigError(f"[tool.rata] icon must be a relative path to a PNG file (found {icon!r}).", hint=hint)
    path = PurePosixPath(icon)
    if path.is_absolute() or ".." in path.parts or path.parts[:1] in (("server",), ("manifest.json",)) or "${" in icon:
        raise ConfigError(f"[tool.rata] icon {icon!r} must be a path inside the project (not under server/).", hint=hint)
    file = root / path
    try:
        head = file.read_bytes()[:8] if file.is_file() else None
    except OSError:
        head = None
    if head is None:
        raise ConfigError(f"[tool.rata] icon {icon!r} is not a file in {str(root)!r}.", hint=hint)
    if head != b"\x89PNG\r\n\x1a\n":
        raise ConfigError(f"[tool.rata] icon {icon!r} is not a PNG file.", hint=hint)
    return str(path)


def _platforms(bundle: dict[str, Any]) -> list[str]:
    platforms = bundle.get("platforms", list(PLATFORMS))
    if not isinstance(platforms, list) or not platforms or not all(item in PLATFORMS for item in platforms):
        raise ConfigError(
            f"[tool.rata.bundle] platforms must be a non-empty list of {', '.join(map(repr, PLATFORMS))}.",
            hint="Leave it out for all three; narrow it when a dependency has compiled code for one platform only.",
        )
    return sorted(set(platforms))


def _env(rata: dict[str, Any]) -> list[EnvSetting]:
    declared = _table(rata, "env", "[tool.rata.env]")
    settings = []
    for name in sorted(declared):
        where = f"[tool.rata.env.{name}]"
        if not isinstance(name, str) or not _ENV.match(name) or name in RESERVED_ENV:
            raise ConfigError(f"{where}: {name!r} cannot be an environment variable of the app.", hint="Use upper-case letters, digits and '_', starting with a letter; not PYTHONPATH or PYTHONHOME.")
        table = declared[name]
        if not isinstance(table, dict):
            raise ConfigError(f"{where} must be a table with a description.", hint=f'Write [tool.rata.env.{name}] then description = "What it is for".')
        unknown = sorted(set(table) - {"title", "description", "type", "sensitive", "required", "default"})
        if unknown:
            raise ConfigError(f"{where} has unknown keys: {', '.join(map(str, unknown))}.", hint="Use title, description, type, sensitive, required and default.")
        description = _string(table, "description", where, required=True)
        title = _string(table, "title", where) or name
        kind = table.get("type", "string")
        if kind not in USER_CONFIG_TYPES:
            raise ConfigError(f"{where} type must be one of {', '.join(USER_CONFIG_TYPES)} (found {kind!r}).", hint='Leave it out for "string".')
        flags = {}
        for flag in ("sensitive", "required"):
            value = table.get(flag, False)
            if not isinstance(value, bool):
                raise ConfigError(f"{where} {flag} must be true or false.", hint=_FIX)
            flags[flag] = value
        if flags["sensitive"] and kind != "string":
            raise ConfigError(f"{where} is sensitive but of type {kind!r}: only a string can be sensitive.", hint='Drop sensitive, or use type = "string".')
        default = table.get("default")
        if default is not None and not _default_fits(default, kind):
            raise ConfigError(f"{where} default {default!r} is not a {kind}.", hint=_FIX)
        if default is not None and flags["sensitive"]:
            raise ConfigError(f"{where} is sensitive, so it cannot have a default in a published manifest.", hint="Drop the default.")
        settings.append(EnvSetting(name, clean_line(title).strip() or name, clean_text(description).strip(), kind, flags["sensitive"], flags["required"], default))
    return settings


def _default_fits(value: Any, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")
    return isinstance(value, str) and value.isprintable()


# --- the manifest -----------------------------------------------------------------------------


def build_manifest(catalog: dict[str, Any], project: Project, *, app_description: str = "") -> dict[str, Any]:
    """The bundle's ``manifest.json`` for an app's catalog (`Catalog.to_dict`) and its project.

    Raises:
        ConfigError: the project gives no author or no description (both are required by MCPB).
    """
    app = catalog.get("app", {})
    version = project.version or str(app.get("version", ""))
    if not _VERSION.match(version):
        raise ConfigError(f"The App's version {version!r} ([project] version is dynamic) is not a version.", hint='Give the App a version such as "1.0.0".')
    description = project.description or clean_line(app_description).strip()
    if not description:
        raise ConfigError("The bundle needs a description, and [project] has none.", hint='Add description = "What the app does" to [project] in pyproject.toml.')
    if project.author is None:
        raise ConfigError(
            "The bundle needs an author, and [project] names none (MCPB requires one).",
            hint='Add authors = [{ name = "Your Name" }] to [project] in pyproject.toml.',
        )
    manifest: dict[str, Any] = {
        "manifest_version": MANIFEST_VERSION,
        "name": project.name,
        "display_name": clean_line(str(app.get("name") or project.name)),
        "version": version,
        "description": description,
        "author": project.author,
    }
    if "repository" in project.urls:
        manifest["repository"] = {"type": "git", "url": project.urls["repository"]}
    for field in ("homepage", "documentation", "support"):
        if field in project.urls:
            manifest[field] = project.urls[field]
    if project.icon is not None:
        manifest["icon"] = project.icon
    manifest["server"] = {"type": "python", "entry_point": ENTRY_POINT, "mcp_config": _mcp_config(project)}
    manifest["tools"] = [_tool(tool) for tool in catalog.get("tools", [])]
    prompts = [_prompt(prompt) for prompt in catalog.get("prompts", [])]
    if prompts:
        manifest["prompts"] = prompts
    if project.keywords:
        manifest["keywords"] = project.keywords
    if project.license:
        manifest["license"] = project.license
    manifest["compatibility"] = {"platforms": project.platforms, "runtimes": {"python": project.requires_python}}
    if project.env:
        manifest["user_config"] = {setting.name.lower(): _user_config(setting) for setting in project.env}
    manifest["_meta"] = GENERATOR
    return manifest


def _mcp_config(project: Project) -> dict[str, Any]:
    """``python3 ${__dirname}/server/main.py`` (``python`` on Windows), with the app's declared environment."""
    config: dict[str, Any] = {"command": "python3", "args": ["${__dirname}/" + ENTRY_POINT]}
    if project.env:
        config["env"] = {setting.name: "${user_config." + setting.name.lower() + "}" for setting in project.env}
    config["platform_overrides"] = {"win32": {"command": "python"}}
    return config


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {"name": tool["name"], "description": tool["description"]} if tool.get("description") else {"name": tool["name"]}


def _prompt(prompt: dict[str, Any]) -> dict[str, Any]:
    """A prompt as MCPB lists it. Its required ``text`` is the prompt's description: the server's
    ``prompts/get`` builds the real messages, from Python, so there is no static template to give."""
    description = prompt.get("description") or prompt.get("title") or prompt["name"]
    entry: dict[str, Any] = {"name": prompt["name"], "description": description}
    arguments = [argument["name"] for argument in prompt.get("arguments", [])]
    if arguments:
        entry["arguments"] = arguments
    entry["text"] = description
    return entry


def _user_config(setting: EnvSetting) -> dict[str, Any]:
    option: dict[str, Any] = {"type": setting.type, "title": setting.title, "description": setting.description, "required": setting.required}
    if setting.sensitive:
        option["sensitive"] = True
    if setting.default is not None:
        option["default"] = setting.default
    return option


def manifest_json(manifest: dict[str, Any]) -> str:
    """The manifest's text: two-space indent, UTF-8, final newline; the same manifest gives the same bytes."""
    return dump_json(manifest)


def written_by_rata(path: Path) -> bool:
    """Whether the file at `path` is a manifest rata wrote (its ``_meta`` says so), so rata may write it again."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("_meta") == GENERATOR
