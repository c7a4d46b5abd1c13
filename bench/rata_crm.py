"""The crm example app served over MCP with the per-tool rate limit off (the rata peer of benchmark 5's throughput run).

`crm --mcp` serves the same app with rata's default limit of 300 calls per tool per 60 s,
which a run of 2,000 calls would hit after 300 (the rest would come back as fast
``isError`` results). This is the same app object, the same command line path
(`rata.cli.appmain.run_app` with ``--mcp``: logging to the app folder, the stdio server of
both protocol eras), with only ``app.mcp_config.rate_limit(None)`` added. Cold start is
measured on the real ``crm --mcp``.

    RATA_HOME=/tmp/crm-bench .venv/bin/crm --migrate
    RATA_HOME=/tmp/crm-bench .venv/bin/python bench/rata_crm.py
    RATA_HOME=/tmp/crm-bench .venv/bin/python bench/rata_crm.py --headless   # the running app (bench/shim_bench.py)
"""

import sys

from crm.app import app
from rata.cli.appmain import run_app

assert app.mcp_config is not None
app.mcp_config.rate_limit(None)

if __name__ == "__main__":
    sys.exit(run_app(app, sys.argv[1:] or ["--mcp"]))
