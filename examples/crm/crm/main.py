"""The `crm` console script."""

from rata.cli.appmain import main_for

from crm.app import app


def main() -> None:
    main_for(app)


if __name__ == "__main__":
    main()
