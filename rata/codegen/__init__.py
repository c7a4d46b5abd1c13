"""The codegen pass: app -> catalog (tools, schemas, resources), type hints -> JSON Schema, lint."""
