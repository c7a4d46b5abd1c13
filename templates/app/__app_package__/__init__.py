"""__app_name__: a small task list, built with rata."""
