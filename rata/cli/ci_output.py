"""Writing lint and drift findings for CI (`--format github|sarif`): the formats are `rata.codegen.ci`."""

from __future__ import annotations

from pathlib import Path

from rata.cli.console import write_raw
from rata.cli.options import OutputFormat
from rata.codegen.catalog import dump_json
from rata.codegen.ci import Report, github_commands, sarif_log


def write_reports(output_format: OutputFormat, reports: list[Report]) -> None:
    """Print `reports` on stdout as GitHub workflow commands (nothing when there are none) or one SARIF log."""
    import rata

    if output_format is OutputFormat.github:
        write_raw(github_commands(reports))
    else:
        write_raw(dump_json(sarif_log(reports, rata.__version__)))


def base() -> Path:
    """The folder report paths are relative to: the repository's root on GitHub Actions (``GITHUB_WORKSPACE``, when the
    current folder is inside it, as a step's ``working-directory`` is), else the current folder."""
    import os

    here = Path.cwd().resolve()
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        root = Path(workspace).resolve()
        if here == root or root in here.parents:
            return root
    return here
