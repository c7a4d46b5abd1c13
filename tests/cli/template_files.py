"""The files `rata new` commits for its checks: the catalog and the saved surface of the template app.

`rata codegen --check` and `rata mcp inspect --check mcp-surface.json` (the pre-commit hooks and the CI workflow that
`rata new` writes) pass on a fresh app only if the template ships these two files, generated from the template app
itself with the placeholders put back. tests/cli/test_new_ci.py checks they are current; after changing the template
app, refresh them with:

    python -m tests.cli.template_files
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from rata.scaffold import scaffold, templates_dir

NAME = "placeholder-app"
IDENTIFIER = "com.example.placeholder-app"
GENERATED = {
    "rata.catalog.json": ["codegen", "--stdout"],
    "mcp-surface.json": ["mcp", "inspect", "--json"],
}
"""Each committed file of the template, and the `rata` arguments whose output it is."""


def expected() -> dict[str, str]:
    """The committed files as the template should hold them: generated for a rendered app, placeholders put back."""
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / NAME
        scaffold(NAME, project, identifier=IDENTIFIER)
        files = {}
        for name, args in GENERATED.items():
            done = subprocess.run([sys.executable, "-m", "rata", *args, "--app", str(project)], capture_output=True, text=True, timeout=120, check=True)
            text = done.stdout.replace(IDENTIFIER, "__app_identifier__").replace(NAME, "__app_name__")
            if "placeholder" in text:
                raise AssertionError(f"{name} names the app in a form the placeholders do not cover")
            files[name] = text
        return files


def main() -> None:
    template = templates_dir() / "app"
    for name, text in expected().items():
        (template / name).write_text(text, encoding="utf-8")
        sys.stdout.write(f"Wrote {template / name}\n")


if __name__ == "__main__":
    main()
