"""One module per method family; each handler is ``handler(app_server, call) -> result``."""
