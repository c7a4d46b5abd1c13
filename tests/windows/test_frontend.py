"""`Frontend`: which file a URL path names, and which it never does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rata import App
from rata.windows.frontend import Frontend


@pytest.fixture
def site(tmp_path: Path) -> Frontend:
    root = tmp_path / "frontend"
    (root / "css").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>Home</title>")
    (root / "app.js").write_text("1")
    (root / "css" / "app.css").write_text("body{}")
    (root / "docs").mkdir()
    (root / "docs" / "index.html").write_text("docs")
    (root / "empty").mkdir()
    (tmp_path / "secret.txt").write_text("not for the page")
    return Frontend(root)


def test_root_and_index_paths_name_index_html(site):
    assert site.resolve("/") == site.root / "index.html"
    assert site.resolve("") == site.root / "index.html"
    assert site.resolve("/index.html") == site.root / "index.html"


def test_files_are_found_by_path_ignoring_query_and_fragment(site):
    assert site.resolve("/app.js?v=3") == site.root / "app.js"
    assert site.resolve("/css/app.css#top") == site.root / "css" / "app.css"
    assert site.resolve("/css%2Fapp.css") == site.root / "css" / "app.css"


def test_a_folder_means_its_index_html_and_a_folder_without_one_is_unknown(site):
    assert site.resolve("/docs/") == site.root / "docs" / "index.html"
    assert site.resolve("/empty/") is None


def test_unknown_files_are_none(site):
    assert site.resolve("/missing.js") is None
    assert site.resolve("/customers/3") is None


@pytest.mark.parametrize(
    "path",
    ["/../secret.txt", "/css/../../secret.txt", "/%2e%2e/secret.txt", "//etc/passwd", "/C:/x", "/app.js%00.png", "/..%5csecret.txt", "..\\secret.txt"],
)
def test_paths_that_would_leave_the_root_are_refused(site, path):
    assert site.resolve(path) is None


def test_a_symlink_pointing_outside_the_root_is_refused_and_one_inside_is_followed(site):
    os.symlink(site.root.parent / "secret.txt", site.root / "leak.txt")
    os.symlink(site.root / "app.js", site.root / "alias.js")
    os.symlink(site.root.parent, site.root / "up")
    assert site.resolve("/leak.txt") is None
    assert site.resolve("/up/secret.txt") is None
    assert site.resolve("/alias.js") == site.root / "app.js"


def test_a_client_side_route_gets_index_html_but_a_missing_file_does_not(site):
    assert site.resolve_route("/customers/3") == site.root / "index.html"
    assert site.resolve_route("/css/app.css") == site.root / "css" / "app.css"
    assert site.resolve_route("/missing.js") is None
    assert site.resolve_route("/../secret") is None


def test_content_types_come_from_a_fixed_table(site):
    assert site.mime("index.html") == "text/html; charset=utf-8"
    assert site.mime(site.root / "app.js") == "text/javascript; charset=utf-8"
    assert site.mime("x.CSS") == "text/css; charset=utf-8"
    assert site.mime("logo.svg") == "image/svg+xml"
    assert site.mime("blob.unknown") == "application/octet-stream"


def test_an_apps_frontend_is_the_frontend_folder_next_to_its_module(tmp_path):
    app = App("demo", identifier="com.example.demo", root=tmp_path)
    assert Frontend.of(app) is None
    (tmp_path / "frontend").mkdir()
    assert Frontend.of(app) is None  # a folder without index.html is not a frontend
    (tmp_path / "frontend" / "index.html").write_text("<!doctype html>")
    frontend = Frontend.of(app)
    assert frontend is not None and frontend.root == (tmp_path / "frontend").resolve()
