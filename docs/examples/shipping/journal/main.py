"""The `journal` console script: `journal --mcp` serves agents."""

from rata.cli.appmain import main_for


def main() -> None:
    main_for("journal.app:app")
