"""The example rata app: a customer list."""
