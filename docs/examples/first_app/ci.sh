#!/bin/sh
# Checks for any CI system: run from the project folder with rata installed.
# Fails (non-zero exit) when lint finds errors or the agent-facing surface or the catalog
# differs from the committed files.
set -e
rata mcp inspect --strict --check mcp-surface.json
rata codegen --check
