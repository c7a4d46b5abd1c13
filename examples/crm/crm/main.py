"""The `crm` console script."""

from rata.cli.appmain import main_for


def main() -> None:
    # The app by reference: `crm --mcp` answers an agent's first requests from the app's
    # manifest while crm.app loads (docs/mcp.md, "Start-up").
    main_for("crm.app:app")


if __name__ == "__main__":
    main()
