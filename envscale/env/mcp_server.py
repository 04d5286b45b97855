"""Serve an environment as an MCP server, so any MCP client or agent can use it.

Each tool of the environment becomes an MCP tool with its JSON Schema and a read-only
annotation for reads; a call runs `Environment.step` and answers its observation (an error
observation is an MCP tool error). Two resources expose the state: `envscale://state_hash`
and `envscale://state` (all rows, as JSON). Built on fastmcp.

Example:

```bash
envscale serve-mcp outputs/quickstart/environments --env domain_3_orders     # stdio
envscale serve-mcp tests/fixtures/envs/shop.yaml
```

```python
>>> from envscale.env.mcp_server import build_server, load_environment
>>> server = build_server(load_environment("tests/fixtures/envs/shop.yaml"))
```
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .runtime import Environment


def load_environment(ref: str, name: str | None = None, *, seed: int | None = None) -> Environment:
    """An environment from a YAML/JSON spec file or from an `environments` artifact (by name)."""
    path = Path(ref)
    if path.is_file() and path.suffix in (".yaml", ".yml", ".json"):
        env = Environment.from_yaml(path)
    else:
        from ..artifacts import open_artifact

        rows = open_artifact(ref, expect_kind="environments").load("environments")
        names = rows["name"]
        if not names:
            raise ValueError(f"{ref} holds no environments")
        if name is not None and name not in names:
            raise ValueError(f"{ref} has no environment {name!r}; it has {', '.join(names[:20])}")
        env = Environment.from_row(rows[names.index(name) if name else 0])
    env.reset(seed=seed)
    return env


def build_server(env: Environment):
    """A FastMCP server whose tools are the environment's tools."""
    from fastmcp import FastMCP
    from fastmcp.tools import Tool, ToolResult
    from mcp.types import ToolAnnotations
    from pydantic import PrivateAttr

    class EnvironmentTool(Tool):
        """One environment tool; `run` is a step of the shared environment."""

        _env: Any = PrivateAttr()

        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            observation = self._env.step(self.name, arguments)
            return ToolResult(
                content=json.dumps(observation, ensure_ascii=False, default=str),
                is_error=not observation.get("ok", False),
            )

    spec = env.spec
    server = FastMCP(
        name=f"envscale-{spec['name']}", instructions=spec.get("policy") or spec.get("description")
    )
    for tool in spec["tools"]:
        mcp_tool = EnvironmentTool(
            name=tool["name"],
            description=tool.get("description") or tool["name"],
            parameters=tool["parameters"],
            annotations=ToolAnnotations(
                readOnlyHint=tool["kind"] == "read", destructiveHint=tool["kind"] == "write"
            ),
        )
        mcp_tool._env = env
        server.add_tool(mcp_tool)

    @server.resource("envscale://state_hash", mime_type="text/plain")
    def state_hash() -> str:
        """Content hash of the environment's database state."""
        return env.state_hash()

    @server.resource("envscale://state", mime_type="application/json")
    def state() -> str:
        """Every row of every table."""
        return json.dumps(env.dump(), ensure_ascii=False, default=str)

    return server


def serve_stdio(env: Environment) -> None:
    """Run the environment's MCP server on stdin/stdout until the client disconnects."""
    build_server(env).run(transport="stdio", show_banner=False)


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale serve-mcp REF [--env NAME] [--seed N]`."""
    kwargs = {"description": "Serve one environment as an MCP server over stdio."}
    if subparsers is None:
        parser = argparse.ArgumentParser(prog="envscale serve-mcp", **kwargs)
    else:
        parser = subparsers.add_parser(
            "serve-mcp", help="serve one environment as an MCP server (stdio)", **kwargs
        )
    parser.add_argument(
        "ref",
        help="an environments artifact (PATH[@vN], hf://org/name[@rev]) or an environment YAML/JSON file",
    )
    parser.add_argument("--env", help="environment name (default: the first one)")
    parser.add_argument("--seed", type=int, help="initial state seed (default: the spec's)")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    serve_stdio(load_environment(args.ref, args.env, seed=args.seed))
    return 0
