from rata.cli.appmain import main_for

main_for("tests.mcp.talkers.app:app")
