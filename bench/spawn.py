"""Run one command and report its wall time, CPU time and peak RSS as JSON (used by bench/run.py).

    python -I -S bench/spawn.py STDOUT_FILE STDERR_FILE CWD -- COMMAND [ARG ...]
    python -I -S bench/spawn.py - STDERR_FILE CWD -- COMMAND [ARG ...]

With ``-`` for STDOUT_FILE the command keeps the launcher's stdin and stdout (a server
talking to the caller over pipes, as in benchmark 5) and the report is written to stdout
as one last line after the command has exited; otherwise the report is stdout's only line.

Why a separate, small process: Linux carries a parent's peak RSS into a child's ru_maxrss
(a vfork'd or forked child starts from the parent's memory, and exec keeps the high-water
mark), so a child started by the benchmark driver could never report less than the driver's
own peak. This launcher imports almost nothing; a command's ru_maxrss is its own whenever it
is above ``launcher_maxrss_kb`` (this launcher's own peak, VmHWM), which is reported alongside
so the caller can check.

The command gets this process's environment (the caller sets it); with -I the launcher
itself ignores PYTHON* variables.
"""

import json
import os
import resource
import sys
import time


def own_peak_kb() -> int:
    """This process's own peak RSS (VmHWM): its ru_maxrss would include the caller's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    out_path, err_path, cwd, dashes, *argv = sys.argv[1:]
    if dashes != "--" or not argv:
        raise SystemExit("usage: spawn.py STDOUT_FILE STDERR_FILE CWD -- COMMAND [ARG ...]")
    actions = [(os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    if out_path != "-":
        actions.insert(0, (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    os.chdir(cwd)
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    report = {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "maxrss_kb": usage.ru_maxrss,
        "exit_code": os.waitstatus_to_exitcode(status),
        "launcher_maxrss_kb": own_peak_kb(),
    }
    # With an inherited stdout, a newline first: the command's last line may lack one.
    sys.stdout.write(("\n" if out_path == "-" else "") + json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
