"""Real MCP servers from PyPI, started over stdio with the official SDK; crashing and hanging ones;
no server or child of one outlives `envscale collect` (SIGTERM, SIGKILL, a server that exits)."""

import argparse
import contextlib
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from envscale.artifacts import open_artifact
from envscale.sources import SourceError, SourceInfo, read_source
from envscale.sources.collect import CollectConfig, collect
from envscale.sources.mcp import read_mcp


def test_time_server_tools_with_output_schemas_and_annotations():
    info, items = read_source("mcp:mcp-server-time --local-timezone UTC")
    tools = {t.name: t for t in items}
    assert set(tools) == {"get_current_time", "convert_time"}
    assert info.title == "mcp-time" and info.version
    tool = tools["get_current_time"]
    assert tool.parameters["required"] == ["timezone"]
    assert tool.output_schema["properties"]["datetime"]["type"] == "string"
    assert "mcp:read_only_hint=true" in tool.kind_hints


def test_git_server_on_a_scratch_repository_through_the_stage(tmp_path):
    art = collect(
        CollectConfig(sources=["mcp:mcp-server-git --repository {scratch_git_repo}"]), tmp_path / "pool"
    )
    pool = {r["name"]: r for r in art.load("api_pool")}
    assert len(pool) >= 10 and {"git_status", "git_commit", "git_log"} <= set(pool)
    assert pool["git_status"]["kind"] == "read" and pool["git_commit"]["kind"] == "write"
    assert pool["git_commit"]["kind_evidence"][0].startswith(
        "mcp:"
    )  # decided by the server's own annotations
    assert all(r["source_kind"] == "mcp" and r["group"] == "mcp-git" for r in pool.values())
    # The output schema's $defs references are inlined: rows are self-contained.
    assert all("$ref" not in str(r["output_schema"]) for r in pool.values())


def test_crashing_and_hanging_servers_fail_clearly_and_do_not_stop_the_run(tmp_path):
    crash = f"mcp:{sys.executable} -c \"import sys; sys.stderr.write('boom: bad config\\n'); sys.exit(3)\""
    hang = f'mcp:{sys.executable} -c "import time; time.sleep(120)"'
    with pytest.raises(SourceError, match="boom: bad config"):
        list(read_source(crash)[1])
    art = collect(CollectConfig(sources=[hang, "mcp:mcp-server-time"], mcp_timeout=2), tmp_path / "pool")
    failed = art.manifest["stats"]["failed_sources"]
    assert [f["source"] for f in failed] == [hang] and "did not answer within 2s" in failed[0]["error"]
    assert art.manifest["counts"]["api_pool"] == 2


def test_unknown_server_command_is_named():
    with pytest.raises(SourceError, match="'no-such-mcp-server' not found"):
        list(read_source("mcp:no-such-mcp-server --flag")[1])


# A fake MCP server: enough of the protocol over stdio to answer `initialize`; it never answers
# `tools/list`. At start it spawns a child that inherits its stdout (as helper processes do); when
# `tools/list` arrives it writes "SERVER_PID CHILD_PID" to PIDFILE. MODE: `exits-on-eof` keeps
# reading stdin and exits when it closes (as real servers do), `ignores-eof` blocks for good,
# `crash` writes to stderr and exits with status 3 before answering anything.
FAKE_SERVER = r"""
import json, os, subprocess, sys, time

pidfile, mode = sys.argv[1], sys.argv[2]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def write_pids():
    with open(pidfile + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.replace(pidfile + ".tmp", pidfile)


if mode == "crash":
    write_pids()
    sys.stderr.write("fake server: cannot load its config\n")
    sys.exit(3)
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "0"},
        }
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    elif message.get("method") == "tools/list":
        write_pids()
        if mode == "ignores-eof":
            time.sleep(600)
"""


def _start_collect(tmp_path, mode, extra_sources=()):
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    pidfile = tmp_path / "pids"
    source = f"mcp:{sys.executable} {script} {pidfile} {mode}"
    cmd = [sys.executable, "-m", "envscale.cli", "collect", "--sources", source, *extra_sources]
    cmd += ["--output", str(tmp_path / "pool"), "--mcp-timeout", "60"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, pidfile


def _read_pids(pidfile, proc, within=30.0):
    deadline = time.monotonic() + within
    while not pidfile.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the fake server never got tools/list: {proc.communicate()}")
        time.sleep(0.05)
    return [int(p) for p in pidfile.read_text().split()]


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _still_alive_after(pids, within=10.0):
    """The pids still running (zombies count as gone) after waiting up to `within` seconds."""
    deadline = time.monotonic() + within
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for pid in left:  # do not leave them behind when the test fails
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "sigterms"), [("exits-on-eof", 1), ("ignores-eof", 1), ("ignores-eof", 2)])
def test_sigterm_of_collect_ends_the_server_and_its_children(tmp_path, mode, sigterms):
    proc, pidfile = _start_collect(tmp_path, mode)
    pids = _read_pids(pidfile, proc)
    proc.send_signal(signal.SIGTERM)
    if sigterms == 2:  # a second one while collect stops the server (an impatient supervisor)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    if sigterms == 1:
        assert proc.returncode == 143, err
        assert "terminated" in err
    assert _still_alive_after(pids) == []


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["exits-on-eof", "ignores-eof"])
def test_sigkill_of_collect_ends_the_server_and_its_children(tmp_path, mode):
    proc, pidfile = _start_collect(tmp_path, mode)
    pids = _read_pids(pidfile, proc)
    proc.kill()
    proc.communicate(timeout=30)
    assert _still_alive_after(pids) == []


@pytest.mark.slow
def test_server_exiting_while_its_child_holds_stdout_fails_at_once_with_its_status(tmp_path):
    other = f"json:{Path(__file__).parent / 'fixtures' / 'json' / 'openai_tools.json'}"
    proc, pidfile = _start_collect(tmp_path, "crash", extra_sources=[other])
    try:
        _, err = proc.communicate(timeout=30)  # far less than the 60 s mcp timeout
    except subprocess.TimeoutExpired:
        proc.kill()
        _still_alive_after(_read_pids(pidfile, proc), within=0)
        pytest.fail(f"collect waited for the exited server's stdout: {proc.communicate()}")
    assert proc.returncode == 1, err  # a source failed; the other one was still collected
    art = open_artifact(tmp_path / "pool")
    [failed] = art.manifest["stats"]["failed_sources"]
    assert "exited with status 3 before listing its tools" in failed["error"]
    assert "fake server: cannot load its config" in failed["error"]
    assert art.manifest["counts"]["api_pool"] > 0
    assert _still_alive_after(_read_pids(pidfile, proc)) == []


@pytest.mark.parametrize("timeout", [math.inf, math.nan, 0, -1.0, "30"])
def test_timeout_that_would_never_end_or_ends_at_once_is_refused(timeout):
    with pytest.raises(ValueError, match="finite number of seconds above 0"):
        read_mcp("mcp-server-time", SourceInfo(source="mcp:mcp-server-time", source_kind="mcp"), timeout)


GARBAGE_SERVER = """
import sys
from fastmcp import FastMCP

for i in range(50):  # a banner and debug prints on stdout, where only JSON-RPC belongs
    print(f"garbage line {i}, not json", flush=True)
server = FastMCP("noisy")


@server.tool()
def add_note(text: str) -> str:
    \"\"\"Add a note.\"\"\"
    return "ok"


server.run()
"""


def test_a_server_printing_garbage_on_stdout_is_listed_with_one_warning_and_no_traceback(tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text(GARBAGE_SERVER)
    proc = subprocess.run(
        [sys.executable, "-m", "envscale.cli", "collect", "--sources", f"mcp:{sys.executable} {script}"]
        + ["--output", str(tmp_path / "pool")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.replace("\r", "\n").splitlines() if "not JSON-RPC" in line]
    assert len(warnings) == 1 and "printed 50 line(s)" in warnings[0] and "garbage line 0" in warnings[0]
    assert [r["name"] for r in open_artifact(tmp_path / "pool").load("api_pool")] == ["add_note"]


def test_a_second_sigterm_while_the_first_ones_cleanups_run_does_not_raise_inside_them():
    """`envscale <command>` turns SIGTERM into one `Terminated`; a second SIGTERM (an impatient supervisor) is
    noted, not raised inside the cleanups the first one runs (it once left `collect` hanging past 30 s while it
    stopped an MCP server that ignores EOF). The handler is restored when the command returns."""
    from envscale.entry import run_command
    from envscale.errors import Terminated

    before = signal.getsignal(signal.SIGTERM)
    cleaned = []

    def command(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the signal arrives here
        except Terminated:
            os.kill(os.getpid(), signal.SIGTERM)  # the second, during the cleanup
            time.sleep(0.2)
            cleaned.append("done")
            raise
        return 0

    assert run_command("collect", command, argparse.Namespace()) == 143
    assert cleaned == ["done"]
    assert signal.getsignal(signal.SIGTERM) == before
