"""Throughput and client cost of `envscale rollout` against an OpenAI-compatible server on loopback.

The server is a real HTTP/1.1 server (asyncio streams, keep-alive) that speaks the Chat Completions route
and answers every request after a fixed `--delay` (50 ms), no model behind it. It runs in a **subprocess**, so
its CPU is not counted as the client's. What it answers (`--reply`):

- `text` (default): plain text. The agent answers without tool calls and the scripted user stops: one LLM turn
  per episode, the least work besides the request.
- `tool`: first a tool call of the first offered tool with `{}` arguments, then, once a tool result is in the
  conversation, plain text: two LLM turns and one environment step per episode.

The client is `envscale.rollout.run.rollout` in this process (`agent={kind: endpoint}`, scripted user) on a
tasks artifact built as the tests build it (collect the shop OpenAPI spec -> graph -> materialize -> tasks, in a
temporary folder; ~20 s) or given with `--tasks`. In one run, after a small warm-up:

1. concurrency 1, `--episodes-c1` episodes (default 32);
2. concurrency `--concurrency` (64), `--episodes` episodes (default 256);
3. the same concurrency under `tracemalloc`, for memory (a separate run: tracing slows everything down).

Episodes are `max_tasks` tasks x `trials`. Timed: the stage's play phase (`_play`: episodes in flight on the
event loop, environment builds included), wrapped here, not the artifact commit. Printed per run: episodes/s,
LLM requests (counted by the server), client CPU per LLM turn (`time.process_time()` of this process over the
play phase, every thread; divided by the server's request count), the server's CPU per request, and memory per
in-flight episode (tracemalloc peak above the start of the play, and RSS peak above its start, over the
concurrency). The CPU is split into the event loop's thread and the other threads (environment builds,
restores and steps run in worker threads), and the environments the pool constructs are counted and timed.
Targets: throughput at concurrency 64 >= 40x concurrency 1; client CPU <= 2 ms per LLM turn.
When a target is missed (or with `--profile`), the high-concurrency run is repeated under cProfile, timed by
the thread's CPU clock (`time.thread_time`, so waits for the GIL or the OS scheduler do not count), and the
event loop thread's CPU is printed per component (package), then the top functions.

Usage:

```bash
python bench/rollout.py                                   # builds the tasks, ~1 min
python bench/rollout.py --tasks outputs/quickstart/tasks --reply tool
python bench/rollout.py --episodes 512 --concurrency 128 --profile
python bench/rollout.py --serve --port 8000 --delay 0.05  # the server alone
```
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import urllib.request
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")  # progress bars off: the table is the output

REPO = Path(__file__).resolve().parent.parent
SHOP = "openapi:recipes/sources/envscale_shop.openapi.yaml"
TARGET_RATIO, TARGET_CPU_MS = 40.0, 2.0


# ----------------------------------------------------------------------------- the server (subprocess)


def _completion(content=None, tool_calls=None) -> dict:
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def _answer(body: dict, reply: str) -> dict:
    messages = body.get("messages") or []
    if reply == "tool" and body.get("tools") and not any(m.get("role") == "tool" for m in messages):
        name = body["tools"][0]["function"]["name"]
        call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}
        return _completion(None, [call])
    return _completion("I have looked into it: all done.")


def serve(port: int, delay: float, reply: str) -> None:
    """Serve `POST /v1/chat/completions` (answer after `delay`) and `GET /stats` until killed."""
    stats = {"requests": 0, "in_flight": 0, "max_in_flight": 0}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)
                }
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                if method == "POST" and path.rstrip("/") == "/v1/chat/completions":
                    stats["requests"] += 1
                    stats["in_flight"] += 1
                    stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
                    try:
                        await asyncio.sleep(delay)
                        status, data = 200, _answer(json.loads(body), reply)
                    finally:
                        stats["in_flight"] -= 1
                elif method == "GET" and path == "/stats":
                    status, data = 200, {**stats, "cpu_s": time.process_time()}
                elif method == "POST" and path == "/reset":
                    stats.update(requests=0, max_in_flight=0)
                    status, data = 200, {}
                else:
                    status, data = 404, {"error": f"no route {method} {path}"}
                raw = json.dumps(data).encode()
                writer.write(
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Not Found'}\r\ncontent-type: application/json"
                    f"\r\ncontent-length: {len(raw)}\r\n\r\n".encode()
                    + raw
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


class Server:
    """The server in a subprocess; `stats()` and `reset()` over HTTP."""

    def __init__(self, delay: float, reply: str):
        command = [
            sys.executable,
            __file__,
            "--serve",
            "--port",
            "0",
            "--delay",
            str(delay),
            "--reply",
            reply,
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def _call(self, method: str, path: str) -> dict:
        request = urllib.request.Request(
            self.url + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stats(self) -> dict:
        return self._call("GET", "/stats")

    def reset(self) -> None:
        self._call("POST", "/reset")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


# ----------------------------------------------------------------------------- the client


def build_tasks(root: Path):
    """collect (shop OpenAPI) -> graph -> materialize -> tasks under `root`, as `tests/test_rollout*.py` do."""
    from envscale.graph.build import GraphConfig, build_graph
    from envscale.materialize.build import MaterializeConfig, materialize
    from envscale.sources.collect import CollectConfig, collect
    from envscale.tasks.build import TasksConfig, generate_tasks

    pool = collect(CollectConfig(sources=[SHOP]), root / "api_pool")
    graph_config = GraphConfig(embedding_cache=str(root / "emb"), min_domain_size=2, embedding_processes=1)
    graph = build_graph(pool, graph_config, root / "graph")
    envs = materialize(graph, MaterializeConfig(), root / "environments")
    return generate_tasks(envs, TasksConfig(tasks_per_env=10, test_env_share=0.0), root / "tasks")


class PlayMeter:
    """Wraps the stage's `_play` (the episodes, not the commit): wall, process CPU, RSS and tracemalloc peaks."""

    def __init__(self, module):
        self.module, self.real = module, module._play
        self.trace = False
        self.profile: cProfile.Profile | None = None
        self.last: dict = {}

    def __enter__(self):
        import envscale.rollout.envs as envs_module

        meter, real_env = self, envs_module.Environment
        builds = self.builds = {"n": 0, "cpu_s": 0.0}

        class CountedEnvironment(real_env):  # counts the environments the pool constructs, and their CPU
            def __init__(self, *args, **kwargs):
                start = time.thread_time()
                try:
                    super().__init__(*args, **kwargs)
                finally:
                    builds["n"] += 1
                    builds["cpu_s"] += time.thread_time() - start

        self._envs_module, self._real_env = envs_module, real_env
        envs_module.Environment = CountedEnvironment

        async def play(*args, **kwargs):
            builds.update(n=0, cpu_s=0.0)
            rss = _RssSampler()
            if meter.trace:
                tracemalloc.start()
                traced0 = tracemalloc.get_traced_memory()[0]
            if meter.profile is not None:
                meter.profile.enable()
            cpu0, wall0, thread0 = time.process_time(), time.perf_counter(), time.thread_time()
            with rss:
                try:
                    await meter.real(*args, **kwargs)
                finally:
                    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
                    loop_cpu = time.thread_time() - thread0
                    if meter.profile is not None:
                        meter.profile.disable()
            meter.last = {
                "wall_s": wall,
                "cpu_s": cpu,
                "loop_cpu_s": loop_cpu,
                "rss_peak_delta": rss.peak_delta,
                "env_builds": builds["n"],
                "env_build_cpu_s": builds["cpu_s"],
            }
            if meter.trace:
                meter.last["traced_peak_delta"] = tracemalloc.get_traced_memory()[1] - traced0
                tracemalloc.stop()

        self.module._play = play
        return self

    def __exit__(self, *exc):
        self.module._play = self.real
        self._envs_module.Environment = self._real_env


class _RssSampler:
    """Peak resident memory above its value at the start, sampled every 20 ms in a thread (Linux /proc)."""

    def __init__(self):
        self.peak_delta = 0
        self._stop = threading.Event()

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak_delta = max(self.peak_delta, self.rss() - self.start)

    def __enter__(self):
        self.start = self.rss()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak_delta = max(self.peak_delta, self.rss() - self.start)


def run_once(
    tasks, server: Server, meter: PlayMeter, out: Path, *, episodes: int, concurrency: int, n_tasks: int
):
    """One rollout of `episodes` (n_tasks x trials) at `concurrency`; its measures."""
    from envscale.rollout.run import RolloutConfig, rollout

    trials = max(1, episodes // n_tasks)
    agent = {
        "kind": "endpoint",
        "base_url": server.url + "/v1",
        "model": "bench",
        "timeout": 30.0,
        "max_retries": 0,
    }
    config = RolloutConfig(agent=agent, max_tasks=n_tasks, trials=trials, concurrency=concurrency)
    server.reset()
    before = server.stats()
    art = rollout(tasks, config, out)
    after = server.stats()
    stats = art.manifest["stats"]
    failed = {k: v for k, v in stats["per_status"].items() if k != "completed"}
    if failed:
        print(f"warning: episodes not completed at concurrency {concurrency}: {failed}", file=sys.stderr)
    m = dict(meter.last)
    m.update(
        episodes=stats["episodes"],
        concurrency=concurrency,
        requests=after["requests"],
        max_in_flight=after["max_in_flight"],
        server_cpu_s=after["cpu_s"] - before["cpu_s"],
    )
    m["eps"] = m["episodes"] / m["wall_s"]
    turns = max(1, m["requests"])
    m["cpu_ms_per_turn"] = 1000 * m["cpu_s"] / turns
    m["loop_cpu_ms_per_turn"] = 1000 * m["loop_cpu_s"] / turns
    m["other_cpu_ms_per_turn"] = m["cpu_ms_per_turn"] - m["loop_cpu_ms_per_turn"]
    m["env_build_ms"] = 1000 * m["env_build_cpu_s"] / max(1, m["env_builds"])
    m["cpu_ms_per_turn_without_builds"] = 1000 * (m["cpu_s"] - m["env_build_cpu_s"]) / turns
    m["server_cpu_ms_per_request"] = 1000 * m["server_cpu_s"] / max(1, m["requests"])
    return m


HTTP_STACK = {"httpx2", "httpcore2", "anyio", "h11", "sniffio", "certifi"}


def _component(filename: str) -> str:
    """The package a profiled function belongs to (the HTTP client's libraries together)."""
    path = filename.replace("\\", "/")
    if "/site-packages/" in path:
        package = path.split("/site-packages/")[1].split("/")[0].removesuffix(".py")
        return "HTTP client (httpx2, httpcore2, anyio, h11)" if package in HTTP_STACK else package
    if "/envscale/" in path:
        return "envscale." + path.split("/envscale/")[-1].removesuffix(".py").replace("/", ".")
    parent = Path(path).parent.name
    return "stdlib " + (parent if parent and not parent.startswith("python") else Path(path).stem)


def _hot_spots(profile: cProfile.Profile, requests: int, top: int = 25) -> str:
    """Own time per component (a built-in counted with its main caller's), then the top functions."""
    stream = io.StringIO()
    stats = pstats.Stats(profile, stream=stream)
    per: dict[str, float] = {}
    for (filename, _, _), (_, _, tottime, _, callers) in stats.stats.items():
        if (
            filename == "~" and callers
        ):  # a built-in (socket call, json encoder...): its main caller's package
            filename = max(callers.items(), key=lambda kv: kv[1][2])[0][0]
        name = _component(filename)
        per[name] = per.get(name, 0.0) + tottime
    total, turns = sum(per.values()), max(1, requests)
    stream.write(
        f"event loop thread under cProfile: {1000 * total / turns:.3f} ms per LLM turn (profiler included)\n"
    )
    stream.write(f"{'component (own time, built-ins with their caller)':<52} {'ms/turn':>8} {'share':>6}\n")
    for name, seconds in sorted(per.items(), key=lambda kv: -kv[1])[:15]:
        stream.write(f"{name:<52} {1000 * seconds / turns:>8.3f} {seconds / total:>6.1%}\n")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return stream.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", help="a tasks artifact (default: build one from the shop OpenAPI spec)")
    parser.add_argument("--episodes", type=int, default=256, help="episodes at --concurrency")
    parser.add_argument("--episodes-c1", type=int, default=32, help="episodes at concurrency 1")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--max-tasks", type=int, default=8, help="tasks sampled (episodes = tasks x trials)")
    parser.add_argument("--delay", type=float, default=0.05, help="the server's answer time, seconds")
    parser.add_argument("--reply", choices=("text", "tool"), default="text")
    parser.add_argument("--profile", action="store_true", help="profile the high-concurrency run anyway")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.port, args.delay, args.reply)
        return 0

    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    import envscale.rollout.run as rollout_module
    from envscale.artifacts import open_artifact

    with tempfile.TemporaryDirectory(prefix="bench-rollout-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        tasks = (
            open_artifact(args.tasks, expect_kind="tasks") if args.tasks else build_tasks(root / "pipeline")
        )
        available = tasks.splits["tasks"].get("train", 0)
        n_tasks = min(args.max_tasks, available)
        print(
            f"tasks: {tasks.pinned} ({available} train tasks, {n_tasks} used; {time.perf_counter() - start:.1f} s)"
        )
        server = Server(args.delay, args.reply)
        try:
            with PlayMeter(rollout_module) as meter:
                run = lambda name, **kw: run_once(tasks, server, meter, root / name, n_tasks=n_tasks, **kw)  # noqa: E731
                run("warmup", episodes=n_tasks, concurrency=n_tasks)
                c1 = run("c1", episodes=args.episodes_c1, concurrency=1)
                cn = run("cn", episodes=args.episodes, concurrency=args.concurrency)
                meter.trace = True
                mem = run("mem", episodes=args.episodes, concurrency=args.concurrency)
                meter.trace = False
                ratio = cn["eps"] / c1["eps"]
                per_episode_traced = mem["traced_peak_delta"] / args.concurrency
                per_episode_rss = cn["rss_peak_delta"] / args.concurrency
                _table(args, c1, cn, ratio, per_episode_traced, per_episode_rss)
                missed = [
                    f"throughput ratio {ratio:.1f}x < {TARGET_RATIO:g}x" for _ in [0] if ratio < TARGET_RATIO
                ] + [
                    f"client CPU {cn['cpu_ms_per_turn']:.2f} ms/turn > {TARGET_CPU_MS:g} ms"
                    for _ in [0]
                    if cn["cpu_ms_per_turn"] > TARGET_CPU_MS
                ]
                for line in missed:
                    print(f"MISSED: {line}")
                if missed or args.profile:
                    meter.profile = cProfile.Profile(time.thread_time)
                    prof = run("profile", episodes=args.episodes, concurrency=args.concurrency)
                    print(
                        f"\ncProfile of the concurrency-{args.concurrency} run ({prof['requests']} LLM turns):"
                    )
                    print(_hot_spots(meter.profile, prof["requests"]))
        finally:
            server.stop()
    return 0


def _table(args, c1: dict, cn: dict, ratio: float, traced: float, rss: float) -> None:
    rows = [
        ("episodes", f"{c1['episodes']}", f"{cn['episodes']}", ""),
        ("LLM turns (server count)", f"{c1['requests']}", f"{cn['requests']}", ""),
        ("max requests in flight", f"{c1['max_in_flight']}", f"{cn['max_in_flight']}", ""),
        ("play wall time (s)", f"{c1['wall_s']:.2f}", f"{cn['wall_s']:.2f}", ""),
        ("episodes/s", f"{c1['eps']:.1f}", f"{cn['eps']:.1f}", ""),
        ("throughput ratio", "1.0x", f"{ratio:.1f}x", f">= {TARGET_RATIO:g}x"),
        ("client CPU per LLM turn (ms)", f"{c1['cpu_ms_per_turn']:.2f}", f"{cn['cpu_ms_per_turn']:.2f}",
         f"<= {TARGET_CPU_MS:g}"),
        ("  event loop thread", f"{c1['loop_cpu_ms_per_turn']:.2f}", f"{cn['loop_cpu_ms_per_turn']:.2f}", ""),
        ("  other threads (environments, ...)", f"{c1['other_cpu_ms_per_turn']:.2f}",
         f"{cn['other_cpu_ms_per_turn']:.2f}", ""),
        ("  without environment constructions", f"{c1['cpu_ms_per_turn_without_builds']:.2f}",
         f"{cn['cpu_ms_per_turn_without_builds']:.2f}", ""),
        ("environments constructed", f"{c1['env_builds']}", f"{cn['env_builds']}", ""),
        ("CPU per environment construction (ms)", f"{c1['env_build_ms']:.1f}", f"{cn['env_build_ms']:.1f}", ""),
        ("server CPU per request (ms)", f"{c1['server_cpu_ms_per_request']:.2f}",
         f"{cn['server_cpu_ms_per_request']:.2f}", "(not counted)"),
        ("memory per in-flight episode, tracemalloc (KiB)", "", f"{traced / 1024:.0f}", ""),
        ("memory per in-flight episode, RSS (KiB)", "", f"{rss / 1024:.0f}", ""),
    ]  # fmt: skip
    head = ("", "concurrency 1", f"concurrency {args.concurrency}", "target")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(4)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nrollout against a loopback server answering after {1000 * args.delay:g} ms (reply: {args.reply}); "
        f"{os.cpu_count()} CPUs, load average {load} (wall-clock figures depend on it, CPU figures less)"
    )
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print(
            "  ".join(
                str(c).ljust(w) if i == 0 else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
