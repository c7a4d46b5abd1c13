"""An app's MCP Bundle manifest (`manifest.json`), made from its catalog and its project.

    project = read_project(Path("pyproject.toml"))     # rata.shipping.project: the one reader of the project
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

`rata.shipping.project` reads and checks the project (everything in it is hostile); this module
checks what a bundle needs on top (an author, a description, an app given as
``package.module:attribute``, http(s) URLs) and says what is missing and how to fix it. The same
catalog and project always give the same bytes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rata.cleantext import clean_line
from rata.codegen.catalog import dump_json
from rata.errors import ConfigError
from rata.shipping.owned import standing
from rata.shipping.project import EnvVar, Project, is_version, shown

MANIFEST_VERSION = "0.3"
MANIFEST_FILE = "manifest.json"
ENTRY_POINT = "server/main.py"
DEFAULT_PYTHON = ">=3.11"  # rata's own requires-python
GENERATOR = {"dev.rata": {"generator": "rata mcp pack"}}
"""The ``_meta`` that marks a manifest rata wrote, so that it may write it again."""

_APP_TARGET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?::[A-Za-z_][A-Za-z0-9_]*)?$")
_URL_KEYS = {
    "homepage": ("homepage", "home", "home-page", "website"),
    "documentation": ("documentation", "docs"),
    "support": ("issues", "bug tracker", "bugs", "issue tracker", "support"),
    "repository": ("repository", "source", "source code", "code"),
}


def app_target(project: Project) -> str:
    """``[tool.rata] app`` as ``package.module:attribute``: what the bundle's entry imports.

    Raises:
        ConfigError: it is missing, a file.py app (which cannot be bundled), or not a module path.
    """
    target = project.app_target
    if target is None or target.endswith(".py") or ".py:" in target or not _APP_TARGET.match(target):
        raise ConfigError(
            f"[tool.rata] app must name the app as package.module:attribute to bundle it (found {shown(target)}).",
            hint='Write e.g. app = "crm.app:app"; a file.py app cannot be bundled.',
        )
    return target if ":" in target else f"{target}:app"


def links(project: Project) -> dict[str, str]:
    """The manifest's URLs (homepage, documentation, support, repository) from ``[project.urls]``, each an http(s) URL.

    Raises:
        ConfigError: a URL the manifest would carry is not an http(s) URL.
    """
    found: dict[str, str] = {}
    for field, labels in _URL_KEYS.items():
        for label in labels:
            url = project.url(label)
            if url is not None:
                found[field] = _url(url, label)
                break
    return found


def _url(value: str, label: str) -> str:
    from urllib.parse import urlsplit

    ok = value.isascii() and value.isprintable() and " " not in value
    if ok:
        try:
            parts = urlsplit(value)
        except ValueError:
            ok = False
        else:
            ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    if not ok:
        raise ConfigError(f"[project.urls] {shown(label, 40)} is not an http(s) URL: {shown(value)}.", hint="Write a full URL such as https://example.com/app.")
    return value


# --- the manifest -----------------------------------------------------------------------------


def build_manifest(catalog: dict[str, Any], project: Project, *, app_description: str = "") -> dict[str, Any]:
    """The bundle's ``manifest.json`` for an app's catalog (`Catalog.to_dict`) and its project.

    Raises:
        ConfigError: the project gives no author or no description (both are required by MCPB), or
            something the bundle carries is malformed (see `app_target`, `links`).
    """
    app = catalog.get("app", {})
    version = project.version or str(app.get("version", ""))
    if not is_version(version):
        raise ConfigError(
            f"The App's version {shown(version)} ([project] version is dynamic) is not a version.", hint='Give the App a version such as "1.0.0".'
        )
    app_target(project)
    description = project.description or clean_line(app_description).strip()
    if not description:
        raise ConfigError(
            "The bundle needs a description, and [project] has none.", hint='Add description = "What the app does" to [project] in pyproject.toml.'
        )
    author = project.author
    if author is None:
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
        "author": {"name": author.name, **({"email": author.email} if author.email else {})},
    }
    urls = links(project)
    if "repository" in urls:
        manifest["repository"] = {"type": "git", "url": urls["repository"]}
    for field in ("homepage", "documentation", "support"):
        if field in urls:
            manifest[field] = urls[field]
    if project.icon is not None:
        manifest["icon"] = project.icon
    manifest["server"] = {"type": "python", "entry_point": ENTRY_POINT, "mcp_config": _mcp_config(project)}
    manifest["tools"] = [_tool(tool) for tool in catalog.get("tools", [])]
    prompts = [_prompt(prompt) for prompt in catalog.get("prompts", [])]
    if prompts:
        manifest["prompts"] = prompts
    if project.keywords:
        manifest["keywords"] = list(project.keywords)
    if project.license:
        manifest["license"] = project.license
    python = (project.requires_python or DEFAULT_PYTHON).strip()
    manifest["compatibility"] = {"platforms": list(project.platforms), "runtimes": {"python": python}}
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


def _user_config(setting: EnvVar) -> dict[str, Any]:
    option: dict[str, Any] = {"type": setting.type, "title": setting.title, "description": setting.description, "required": setting.required}
    if setting.sensitive:
        option["sensitive"] = True
    if setting.default is not None:
        option["default"] = setting.default
    return option


def manifest_json(manifest: dict[str, Any]) -> str:
    """The manifest's text: two-space indent, UTF-8, final newline; the same manifest gives the same bytes."""
    return dump_json(manifest)


def marked(data: object) -> bool:
    """Whether a parsed manifest carries rata's mark (`GENERATOR` as its ``_meta``)."""
    return isinstance(data, dict) and data.get("_meta") == GENERATOR


def written_by_rata(path: Path) -> bool:
    """Whether the file at `path` is a manifest rata wrote (its ``_meta`` says so), so rata may write it again."""
    try:
        return standing(path, None, marked) == "ours"
    except OSError:
        return False
