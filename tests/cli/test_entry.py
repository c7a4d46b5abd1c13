"""The `rata` console script: the two server commands start without Typer or rich, yet their help and usage errors look like
every other command's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.exceptions import TyperException
from typer.testing import CliRunner

from rata.cli.entry import _options
from rata.cli.main import app
from tests.conftest import CRM, subprocess_env

ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}


def rata(*args: str, home: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("rata")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "rata"]
    return subprocess.run([*command, *args], input=stdin.decode(), capture_output=True, text=True, env=subprocess_env(home, **ENV), timeout=60)


@pytest.mark.parametrize("server", ["serve", "dev"])
def test_the_server_commands_help_is_typers_like_every_other_commands(server, rata_home):
    shown = rata("mcp", server, "--help", home=rata_home)
    in_process = CliRunner().invoke(app, ["mcp", server, "--help"], env=ENV, prog_name="rata")
    assert shown.returncode == 0 and shown.stdout == in_process.stdout
    assert f"Usage: rata mcp {server} [OPTIONS]" in shown.stdout and "╭─ Options" in shown.stdout
    assert "[tool.rata]" in shown.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["mcp", "serve", "--bogus"], "No such option: --bogus"),
        (["mcp", "dev", "--budget-tokens", "many"], "Invalid value for '--budget-tokens': 'many' is not a valid int."),
        (["mcp", "dev", "--app"], "Option '--app' requires an argument."),
        (["mcp", "serve", "--budget-tokens", "2000"], "No such option: --budget-tokens"),
    ],
)
def test_a_wrong_option_of_a_server_command_gets_typers_error_box_and_exit_2(args, said, rata_home):
    shown = rata(*args, home=rata_home)
    assert shown.returncode == 2 and shown.stdout == ""
    assert "╭─ Error" in shown.stderr and said in shown.stderr
    in_process = CliRunner().invoke(app, args, env=ENV, prog_name="rata")
    assert in_process.exit_code == 2 and shown.stderr == in_process.stderr  # as Typer says it for every command


@pytest.mark.parametrize("args", [["mcp", "serve", "--app", str(CRM)], ["mcp", "dev", f"--app={CRM}", "--budget-tokens", "2000"]])
def test_serving_loads_neither_typer_nor_rich(args, rata_home):
    code = (
        "import sys; import rata.mcp.stdio as s; orig = s.serve\n"
        "def probe(make, *a, **k):\n"
        "    heavy = sorted(m for m in ('typer', 'rich', 'click', 'argparse') if m in sys.modules)\n"
        "    sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n'); return orig(make, *a, **k)\n"
        "s.serve = probe\n"
        f"from rata.cli.entry import main; main({json.dumps(args)})"
    )
    result = subprocess.run([sys.executable, "-c", code], input=b"", capture_output=True, env=subprocess_env(rata_home), timeout=60)
    assert "HEAVY=\n" in result.stderr.decode(), result.stderr.decode()


TOKENS = st.sampled_from(
    ["--app", "-a", "--budget-tokens", "--app=x.py", "-a=y", "--budget-tokens=5000", "--budget-tokens=", "--help", "-h", "--bogus",
     "--", "crm.app:app", "12", " 7", "1_000", "many", "-1", "", "--app="]
)


@given(server=st.sampled_from(["serve", "dev"]), args=st.lists(TOKENS, max_size=6))
def test_options_read_by_hand_are_read_as_typer_reads_them_or_left_to_typer(server, args):
    """The hand-read options never start a server Typer would have refused, nor with other values than Typer's."""
    command = typer.main.get_command(app).commands["mcp"].commands[server]  # type: ignore[attr-defined] - Typer's command groups are click groups; get_command is typed as a plain Command
    try:
        with command.make_context(f"rata mcp {server}", list(args), resilient_parsing=False) as ctx:
            typers: tuple[str | None, int | None] | None = (ctx.params["app_spec"], ctx.params.get("budget_tokens"))
    except (typer.Exit, TyperException):  # --help, or a usage error
        typers = None
    mine = _options(args, server)
    if mine is not None:
        assert typers is not None
        assert (mine[0], 10_000 if mine[1] is None and server == "dev" else mine[1]) == typers
