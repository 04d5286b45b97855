"""A tiny launcher that ties an MCP server's life to the envscale process that started it.

:mod:`envscale.sources.mcp` does not start a `mcp:COMMAND` server directly: it starts this file
(by path, with `sys.executable -I -S`, so it imports only the standard library and starts in a few
milliseconds) and this file starts the server. The MCP SDK puts the guard in a new session, so
the guard leads a process group that holds the server and everything the server starts. The
guard then:

- asks Linux to send it SIGTERM when its parent dies (`prctl(PR_SET_PDEATHSIG)`, also after a
  SIGKILL of envscale; elsewhere it polls its parent id once a second instead), and exits at once
  if the parent is already gone;
- runs the server as its child, in the guard's process group, with stdin, stdout and stderr
  inherited, and waits for it;
- when the server exits on its own, writes the server's exit status to STATUS_FILE (so envscale
  can say "exited with status 3" instead of waiting for a reply that cannot come), then kills the
  whole group with SIGKILL: children of the server that still hold its stdout die too, stdout
  reaches end-of-file and the client fails at once;
- on SIGTERM, SIGHUP or SIGINT (the SDK's shutdown, the parent-death signal), passes SIGTERM to
  the group, gives the server `GRACE_SECONDS` to exit, then kills the group with SIGKILL.

The guard keeps its own copy of the server's stdout until it dies, so end-of-file on stdout
always comes after STATUS_FILE is written. A process that leaves the group (`setsid`, a daemon)
is beyond its reach, as it is beyond the SDK's.

Example (what :func:`envscale.sources.mcp.read_mcp` runs):

```bash
python -I -S envscale/sources/_mcp_guard.py PARENT_PID STATUS_FILE -- mcp-server-time --local-timezone UTC
```
"""

import contextlib
import os
import signal
import subprocess
import sys

#: Seconds the server has to exit after SIGTERM before its group is killed with SIGKILL.
GRACE_SECONDS = 2.0
#: Seconds between checks that the parent is alive, where the parent-death signal is not available.
PARENT_POLL_SECONDS = 1.0
#: `prctl` option that sets the signal a process gets when its parent (thread) exits; linux/prctl.h.
PR_SET_PDEATHSIG = 1

USAGE = "usage: _mcp_guard.py PARENT_PID STATUS_FILE -- COMMAND [ARG ...]"


class _Stop(BaseException):
    """Raised by the signal handler, so that a blocking wait for the server stops at once."""


def _set_parent_death_signal() -> bool:
    """Ask the kernel for SIGTERM when the parent exits (Linux only).

    Returns:
        Whether the kernel accepted; if not, the caller polls the parent instead.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _write_status(path: str, returncode: int) -> None:
    """Write the server's exit status to `path` (atomically: a reader never sees half a file)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{returncode}\n")
    os.replace(tmp, path)


def _kill_group(sig: int) -> None:
    """Send `sig` to this guard's process group (the guard itself included)."""
    with contextlib.suppress(OSError):
        os.killpg(os.getpgrp(), sig)


def main(argv: list[str]) -> int:
    """Run the server in `argv` under the guard; see the module docstring.

    Args:
        argv: `PARENT_PID STATUS_FILE -- COMMAND [ARG ...]`.

    Returns:
        An exit status, only where the guard did not kill its own group (usage errors, a parent
        already gone); otherwise the guard ends by SIGKILL with the rest of its group.
    """
    if len(argv) < 4 or argv[2] != "--" or not argv[0].isdigit():
        print(USAGE, file=sys.stderr)
        return 2
    parent, status_path, command = int(argv[0]), argv[1], argv[3:]
    if os.getpgrp() != os.getpid():
        # Never signal a group this guard does not lead (the SDK's new session makes it a leader).
        try:
            os.setpgid(0, 0)
        except OSError as exc:
            print(f"envscale MCP guard: cannot lead a process group: {exc}", file=sys.stderr)
            return 2

    stopping: list[int] = []
    server = None

    def on_signal(signum: int, frame: object) -> None:
        if not stopping:
            stopping.append(signum)
            raise _Stop()

    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, on_signal)
        watch_parent = not _set_parent_death_signal()
        if os.getppid() != parent:
            return 1  # the parent died before the parent-death signal was set: nothing to serve
        try:
            server = subprocess.Popen(command)
        except OSError as exc:
            print(f"envscale MCP guard: could not start {command[0]!r}: {exc}", file=sys.stderr)
            _write_status(status_path, 127)
            return 127
        while True:
            try:
                returncode = server.wait(timeout=PARENT_POLL_SECONDS if watch_parent else None)
                break
            except subprocess.TimeoutExpired:
                if os.getppid() != parent:
                    raise _Stop() from None
        _write_status(status_path, returncode)
    except _Stop:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        _kill_group(signal.SIGTERM)
        if server is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=GRACE_SECONDS)
    finally:
        # Whatever is left of the group (the server's children, this guard) goes now.
        _kill_group(signal.SIGKILL)
    return 0  # not reached: SIGKILL above ends this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
