"""The `rata` command line: the only layer that prints. The Typer app is in `rata.cli.main`."""
