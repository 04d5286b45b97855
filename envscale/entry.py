"""How an envscale command runs as a process: logging, signals and the one-line error path.

Every entry point (`envscale <command>`, `python -m envscale.stages.<stage>`, the processes that
`accelerate launch` starts for `envscale train`) runs its command through :func:`run_command`, so they
all behave the same:

- a known failure (:class:`~envscale.errors.EnvscaleError`, or `ValueError`/`OSError` from a config or
  a file) prints one line naming the command and the cause and exits 2;
- Ctrl-C exits 130 and SIGTERM 143, after the cleanups a `KeyboardInterrupt` runs; a command that
  resumes says so;
- anything else is a bug in envscale: its traceback is shown, with a request to report it (exit 1).

Logging and process-wide settings are configured here and only by entry points, never at import.
This module sits below the stages and the CLI: it imports nothing of envscale but its version and
errors.

Example:

```python
>>> import argparse
>>> from envscale.entry import run_command
>>> def fail(args):
...     raise ValueError("recipe r.yaml: unknown key 'sedd'")
>>> run_command("tasks", fail, argparse.Namespace())
envscale tasks: error: recipe r.yaml: unknown key 'sedd'      (on stderr)
2
```
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading
import traceback
from collections.abc import Callable

from . import __version__
from .errors import EnvscaleError, Terminated

#: Loggers of libraries that chat at INFO; an envscale command shows their warnings only.
NOISY_LOGGERS = "httpx httpx2 httpcore httpcore2 mcp datasets huggingface_hub filelock fsspec".split()


def configure_process() -> None:
    """Process-wide settings for long runs, applied by entry points only (never at import).

    Arrow's default allocator (mimalloc) keeps freed pages, so a streaming pass over parquet
    shards grew resident memory with the input; the system allocator returns them
    (measured in bench/collect.py).
    """
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def configure_logging(verbose: bool = False) -> None:
    """envscale's log format at INFO (DEBUG with `verbose`), libraries' chatter at WARNING."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    for noisy in NOISY_LOGGERS:
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _on_sigterm(signum: int, frame: object) -> None:
    # once: a second SIGTERM (an impatient supervisor) while the first one's cleanups run would raise inside them
    # (an MCP server's shutdown, a checkpoint's flush) and could leave the process hanging; the cleanups are
    # bounded (a server gets `_mcp_guard`'s grace, then SIGKILL), and Ctrl-C still interrupts them
    signal.signal(signal.SIGTERM, _already_terminating)
    raise Terminated()


def _already_terminating(signum: int, frame: object) -> None:
    """SIGTERM after the first: the process is already stopping."""


def error_message(exc: BaseException) -> str:
    """The one line a known failure prints (`No such file or directory: r.yaml`)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc) or type(exc).__name__


def run_command(
    command: str,
    func: Callable[[argparse.Namespace], int],
    args: argparse.Namespace,
    *,
    resumable: bool = False,
) -> int:
    """Run `func(args)` as the command `envscale <command>`: its exit status, or the error path's.

    Args:
        command: the command's name, as the user typed it (`tasks`, `train`, `run`).
        func: the command's `main(args)`.
        args: the parsed arguments; `args.verbose` (if present) turns on debug logging.
        resumable: whether re-running the same command resumes an interrupted run (said on Ctrl-C).
    """
    configure_process()
    configure_logging(bool(getattr(args, "verbose", False)))
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main_thread else None
    try:
        return func(args)
    except KeyboardInterrupt as exc:
        what = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(
            f"envscale {command}: {what}" + ("; re-run the same command to resume" if resumable else ""),
            file=sys.stderr,
        )
        return 143 if isinstance(exc, Terminated) else 130
    except (EnvscaleError, ValueError, OSError) as exc:
        print(f"envscale {command}: error: {error_message(exc)}", file=sys.stderr)
        return 2
    except Exception:  # noqa: BLE001 - anything else is a bug: show it, and ask for a report
        traceback.print_exc()
        print(
            f"envscale {command}: internal error in envscale {__version__} (a bug, not your input). "
            "Please report it with the command you ran and the traceback above.",
            file=sys.stderr,
        )
        return 1
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def run_script(
    parser: argparse.ArgumentParser, command: str, argv: list[str] | None = None, *, resumable: bool = False
) -> int:
    """`python -m envscale.<module> ...`: parse with the command's own parser and run it as `envscale <command>`.

    The parser gets `-v/--verbose` as `envscale` has; its `func` default is the command's `main`.
    """
    with contextlib.suppress(argparse.ArgumentError):  # unless the command has its own
        parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    args.command = command
    return run_command(command, args.func, args, resumable=resumable)
