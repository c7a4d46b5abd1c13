"""Nothing a Windows user imports needs `fcntl`, `termios` or `resource`: every module of rata, imported in a fresh
process where those three do not exist (as on Windows), loads, or fails with rata's own error that says why."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

PROBE = r"""
import importlib, importlib.abc, json, pkgutil, sys

BLOCKED = {"fcntl", "termios", "resource"}


class WindowsHasNone(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"No module named {name!r} (Windows has none)", name=name)
        return None


for name in BLOCKED:
    sys.modules.pop(name, None)
sys.meta_path.insert(0, WindowsHasNone())
try:
    import fcntl  # noqa: F401
except ImportError:
    blocked = True
else:
    blocked = False

import rata
from rata.errors import RataError

found = {}
for info in pkgutil.walk_packages(rata.__path__, "rata.", onerror=lambda name: None):
    if info.name.endswith(".__main__"):
        continue  # `python -m rata` runs the CLI when imported: its imports are rata.cli's, walked here anyway
    try:
        importlib.import_module(info.name)
        found[info.name] = "loads"
    except RataError as error:
        found[info.name] = "rata: " + error.message
    except BaseException as error:
        found[info.name] = f"{type(error).__name__}: {error}"
print(json.dumps({"blocked": blocked, "modules": found, "loaded": sorted(BLOCKED & set(sys.modules))}))
"""


def test_every_module_of_rata_loads_without_fcntl_termios_or_resource_or_fails_with_rata_s_own_error():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["blocked"], "the probe did not block fcntl: it proves nothing"
    modules = seen["modules"]
    assert {"rata.endpoint", "rata.endpoint_platform", "rata.mcp.shim", "rata.windows.cdp", "rata.upgrade"} <= set(modules)
    assert len(modules) > 100
    failed = {name: said for name, said in modules.items() if said != "loads" and not said.startswith("rata: ")}
    assert failed == {}
    assert seen["loaded"] == []
