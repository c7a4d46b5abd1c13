from rata.cli.entry import main

main()
