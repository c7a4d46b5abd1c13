"""The `__app_name__` console script: `__app_name__ --mcp` serves agents, `__app_name__ --migrate` migrates."""

from rata.cli.appmain import main_for


def main() -> None:
    # The app by reference: `__app_name__ --mcp` answers an agent's first requests from the
    # app's manifest while its code loads.
    main_for("__app_package__.app:app")


if __name__ == "__main__":
    main()
