"""README.md: its two commands come first, and what it says a full test run needs is what the tests and .ci/run do."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
FULL_RUN = README.split("## The full test run", 1)[1].split("\n## ", 1)[0]


def fences(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_the_two_commands_come_first_and_unchanged() -> None:
    first, second = fences(README)[:2]
    assert first.strip() == "pip install -e . -e examples/crm && rata mcp inspect --app examples/crm"
    assert second.strip() == "pip install -e . -e examples/crm -r requirements-test.txt && python -m pytest"
    assert README.index("## The full test run") > README.index(second)


def test_ci_run_runs_the_second_command_with_the_peers_it_names() -> None:
    second = fences(README)[1].strip()
    assert CI_RUN.rstrip().endswith(second)
    assert "(cd .ci/peers && npm install" in CI_RUN and "`cd .ci/peers && npm install`" in FULL_RUN
    assert "export RATA_PEERS_REQUIRED=1" in CI_RUN and "RATA_PEERS_REQUIRED=1" in FULL_RUN
    assert "apt-get install -y -q chromium" in CI_RUN and "`apt-get install chromium`" in FULL_RUN


def test_every_switch_the_readme_names_is_read_by_the_tests_or_rata() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for folder in ("tests", "rata") for p in (ROOT / folder).rglob("*.py"))
    for name in ("RATA_PEERS_REQUIRED", "RATA_CHROMIUM_REQUIRED", "RATA_CHROMIUM", "CI"):
        assert name in FULL_RUN, name
        assert re.search(rf"""environ\.get\(\s*["']{name}["']""", sources), f"nothing reads {name}"


def test_every_test_folder_and_marker_the_readme_names_exists() -> None:
    for path in re.findall(r"`(tests/[\w/.]+)`", FULL_RUN):
        assert (ROOT / path).exists(), path
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["markers"]
    declared = {marker.split(":")[0] for marker in markers}
    named = [a or b for a, b in re.findall(r'-m "(?:not )?(\w+)"|`-m (\w+)`', FULL_RUN)]
    assert set(named) == {"subprocess", "desktop"}
    for marker in named:
        assert marker in declared, marker
    for command in fences(FULL_RUN):
        for folder in re.findall(r"pytest (tests/\S+)", command):
            assert (ROOT / folder).is_dir(), folder


def test_the_readme_and_the_index_link_to_the_newcomers_pages() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in ("zero-to-claude-desktop.md", "from-fastmcp.md", "api.md", "performance.md"):
        assert (ROOT / "docs" / page).is_file(), page
        assert f"(docs/{page})" in README, f"README.md does not link to docs/{page}"
        assert f"]({page})" in index, f"docs/index.md does not link to {page}"
