"""Finding and importing an app, and the errors when that fails."""

from __future__ import annotations

import textwrap

import pytest

from rata import App
from rata.errors import AppLoadError, CodegenError
from rata.loader import load_app

GOOD = '''
from rata import App, Ctx, command

@command(can="x.view")
def hello(ctx: Ctx, name: str = "world") -> str:
    """Say hello."""
    return f"hello {name}"

app = App("hello", identifier="com.example.hello").commands(hello)
'''


def project(tmp_path, *, module="hello_app", body=GOOD, target=None):
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(body))
    rata_table = f'[tool.rata]\napp = "{target or module + ":app"}"\n' if target != "" else ""
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "p"\nversion = "0"\n\n{rata_table}')
    return tmp_path


def test_a_file_path_loads_the_app_attribute(tmp_path):
    (tmp_path / "one.py").write_text(GOOD)
    loaded = load_app(str(tmp_path / "one.py"))
    assert isinstance(loaded.app, App) and loaded.app.name == "hello"


def test_a_file_path_with_an_attribute(tmp_path):
    (tmp_path / "two.py").write_text(GOOD + "\nother = app\n")
    assert load_app(f"{tmp_path / 'two.py'}:other").app.name == "hello"


def test_a_project_folder_uses_its_pyproject(tmp_path):
    loaded = load_app(str(project(tmp_path, module="proj_a")))
    assert loaded.app.name == "hello" and loaded.project == tmp_path


def test_without_app_the_nearest_pyproject_upward_is_used(tmp_path):
    project(tmp_path, module="proj_b")
    deeper = tmp_path / "src" / "deep"
    deeper.mkdir(parents=True)
    assert load_app(None, cwd=deeper).app.name == "hello"


def test_module_and_attribute(tmp_path, monkeypatch):
    (tmp_path / "mod_c.py").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_app("mod_c:app").app.name == "hello"
    assert load_app("mod_c").app.name == "hello"


def test_the_example_project_loads_from_its_folder():
    from tests.conftest import CRM

    loaded = load_app(str(CRM))
    assert loaded.app.name == "crm" and loaded.target == "crm.app:app"


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path / "nope.py"))
    assert "does not exist" in caught.value.message


def test_a_missing_module_says_how_to_make_it_importable():
    with pytest.raises(AppLoadError) as caught:
        load_app("no_such_module_anywhere:app")
    assert "was not found" in caught.value.message and "pip install -e ." in (caught.value.hint or "")


def test_a_folder_without_pyproject_is_refused(tmp_path):
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path))
    assert "has no pyproject.toml" in caught.value.message


def test_a_pyproject_without_the_rata_table_says_what_to_add(tmp_path):
    project(tmp_path, target="")
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path))
    assert "[tool.rata]" in (caught.value.hint or "")


def test_no_pyproject_anywhere_up_is_explained(tmp_path):
    with pytest.raises(AppLoadError) as caught:
        load_app(None, cwd=tmp_path)
    assert "--app" in (caught.value.hint or "")


def test_an_import_error_names_the_failing_file_line_and_source(tmp_path):
    body = GOOD.replace('app = App(', 'raise RuntimeError("database not configured")\napp = App(')
    (tmp_path / "broken.py").write_text(body)
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path / "broken.py"))
    message = caught.value.message
    assert "RuntimeError: database not configured" in message
    assert f"{tmp_path / 'broken.py'}:9" in message
    assert 'raise RuntimeError("database not configured")' in message


def test_a_syntax_error_names_the_line(tmp_path):
    (tmp_path / "syntax.py").write_text("x = (\n")
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path / "syntax.py"))
    assert "syntax error" in caught.value.message and "syntax.py:1" in caught.value.message


def test_a_missing_attribute_points_at_the_app_that_is_there(tmp_path):
    (tmp_path / "named.py").write_text(GOOD.replace("app = App", "crm = App"))
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path / "named.py"))
    assert "no attribute 'app'" in caught.value.message and "...:crm" in (caught.value.hint or "")


def test_something_that_is_not_an_app_is_refused(tmp_path):
    (tmp_path / "notapp.py").write_text("app = 42\n")
    with pytest.raises(AppLoadError) as caught:
        load_app(str(tmp_path / "notapp.py"))
    assert "is a int, not a rata.App" in caught.value.message


def test_a_codegen_error_in_the_app_comes_through_unchanged(tmp_path):
    body = GOOD.replace('name: str = "world"', "name")
    (tmp_path / "untyped.py").write_text(body)
    with pytest.raises(CodegenError) as caught:
        load_app(str(tmp_path / "untyped.py"))
    assert "command 'hello', parameter 'name'" in caught.value.message
