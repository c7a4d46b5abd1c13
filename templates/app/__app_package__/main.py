"""The `__app_name__` console script: `__app_name__ --mcp` serves agents, `__app_name__ --migrate` migrates."""

from rata.cli.appmain import main_for

from __app_package__.app import app


def main() -> None:
    main_for(app)


if __name__ == "__main__":
    main()
