from rata.cli.main import main

main()
