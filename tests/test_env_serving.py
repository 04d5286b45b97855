"""Environments served to agents: a real MCP client over stdio, and the Gymnasium / TRL adapters."""

import contextlib
import gc
import json
import socket
import sys
import threading
import time

import anyio
import pytest
from transformers.utils import get_json_schema

from envscale.env import Environment
from envscale.env.adapters import GymEnvironment, trl_environment_class
from envscale.env.mcp_server import build_server

SHOP = "tests/fixtures/envs/shop.yaml"


def test_mcp_client_lists_tools_calls_a_write_and_sees_the_state_change():
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    spec_tools = {t["name"]: t for t in Environment.from_yaml(SHOP).spec["tools"]}
    env = Environment.from_yaml(SHOP)
    env.reset()
    customer = env.dump()["customers"][0]["customer_id"]

    async def session_run():
        server = StdioServerParameters(command=sys.executable, args=["-m", "envscale.cli", "serve-mcp", SHOP])
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            before = (await session.read_resource("envscale://state_hash")).contents[0].text
            created = await session.call_tool(
                "update_customer_email", {"customer_id": customer, "email": "new.address@example.com"}
            )
            after = (await session.read_resource("envscale://state_hash")).contents[0].text
            got = await session.call_tool("get_customer", {"customer_id": customer})
            bad = await session.call_tool("get_customer", {"customer_id": 42})
            return tools, before, created, after, got, bad

    tools, before, created, after, got, bad = anyio.run(session_run)
    assert {t.name for t in tools} == set(spec_tools)
    listed = {t.name: t for t in tools}
    assert listed["get_customer"].annotations.read_only_hint is True
    assert (
        listed["update_customer_email"].input_schema["required"]
        == spec_tools["update_customer_email"]["parameters"]["required"]
    )
    assert not getattr(created, "is_error", False) and before != after
    assert json.loads(got.content[0].text)["result"]["email"] == "new.address@example.com"
    assert getattr(bad, "is_error", False) and json.loads(bad.content[0].text)["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    "mode",
    [
        "legacy",  # the initialize handshake: one session per client
        "auto",  # fastmcp's default, the sessionless 2026-07-28 protocol: one environment per client stream
    ],
)
def test_every_mcp_client_session_has_its_own_environment(mode):
    from fastmcp import Client

    template = Environment.from_yaml(SHOP)
    initial = template.state_hash()
    server = build_server(template)

    async def text(client, uri):
        return (await client.read_resource(uri))[0].text

    async def email(client):
        observation = await client.call_tool("get_customer", {"customer_id": "cus_0001"})
        return json.loads(observation.content[0].text)["result"]["email"]

    async def sessions():
        async with Client(server, mode=mode) as a, Client(server, mode=mode) as b:
            written = await a.call_tool(
                "update_customer_email", {"customer_id": "cus_0001", "email": "a@example.com"}
            )
            assert not written.is_error
            seen = {
                "a": (await email(a), await text(a, "envscale://state_hash")),
                "b": (await email(b), await text(b, "envscale://state_hash")),
                "a_state": json.loads(await text(a, "envscale://state"))["customers"][0]["email"],
                "b_state": json.loads(await text(b, "envscale://state"))["customers"][0]["email"],
                "live": len(server.environments),
            }
        return seen

    seen = anyio.run(sessions)
    assert seen["a"][0] == seen["a_state"] == "a@example.com" and seen["a"][1] != initial
    assert seen["b"] == (template.dump()["customers"][0]["email"], initial)
    assert seen["b_state"] == template.dump()["customers"][0]["email"]
    assert seen["live"] == 2
    assert template.state_hash() == initial  # the template is never written
    if mode == "legacy":  # closed when the session's connection closes
        assert len(server.environments) == 0
    gc.collect()  # a sessionless client's environment goes with its stream
    assert len(server.environments) == 0


def test_gym_adapter_rewards_reaching_the_goal_state():
    env = Environment.from_yaml(SHOP)
    env.reset()
    customer = env.dump()["customers"][0]["customer_id"]
    env.step("update_customer_email", {"customer_id": customer, "email": "goal@example.com"})
    goal = env.state_hash()
    gym = GymEnvironment(Environment.from_yaml(SHOP), max_steps=3)
    obs, info = gym.reset(options={"gold_state_hash": goal})
    assert {t["function"]["name"] for t in obs["tools"]} >= {"get_customer", "cancel_order"}
    _, reward, terminated, truncated, _ = gym.step(
        {"tool": "get_customer", "arguments": {"customer_id": customer}}
    )
    assert (reward, terminated, truncated) == (0.0, False, False)
    _, reward, terminated, _, info = gym.step(
        {"tool": "update_customer_email", "arguments": {"customer_id": customer, "email": "goal@example.com"}}
    )
    assert (reward, terminated) == (1.0, True) and info["state_hash"] == goal
    _, _, _, truncated, _ = gym.step({"nonsense": True})
    assert truncated


def test_trl_environment_class_exposes_tools_trl_can_render():
    spec = Environment.from_yaml(SHOP).spec
    ShopEnv = trl_environment_class(spec)
    env = ShopEnv()
    env.reset()
    customer = env.env.dump()["customers"][0]["customer_id"]
    # TRL renders environment methods with transformers' get_json_schema: it must match the spec.
    schema = get_json_schema(env.update_customer_email)["function"]
    params = spec["tools"][[t["name"] for t in spec["tools"]].index("update_customer_email")]["parameters"]
    assert schema["name"] == "update_customer_email"
    assert set(schema["parameters"]["properties"]) == set(params["properties"])
    assert set(schema["parameters"]["required"]) == set(params["required"])
    observation = json.loads(env.update_customer_email(customer_id=customer, email="x@example.com"))
    assert observation["ok"]
    goal = env.env.state_hash()
    assert env.reset(gold_state_hash=goal) is None and env.get_reward() == 0.0
    env.update_customer_email(customer_id=customer, email="x@example.com")
    assert env.get_reward() == 1.0


@contextlib.contextmanager
def served_over_http(server):
    """`server` on fastmcp's streamable HTTP transport, run by uvicorn on a free loopback port (a socket
    bound before uvicorn starts, so no other process can take the port); yields the endpoint's URL."""
    import uvicorn

    sock = socket.create_server(("127.0.0.1", 0))
    app = server.http_app(transport="http")
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(600):  # up to 60 s for uvicorn to start (a guard, not a measure)
            if web.started or not thread.is_alive():
                break
            time.sleep(0.1)
        assert web.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        web.should_exit = True
        thread.join(60)
        sock.close()


HTTP_CLIENTS = 8


@pytest.mark.parametrize(
    ("mode", "isolated"),
    [
        ("legacy", True),  # the initialize handshake (up to 2025-11-25): one environment per client session
        ("2026-07-28", False),  # sessionless over HTTP: nothing tells clients apart, so they share one
        ("auto", False),  # fastmcp's default client negotiates the sessionless protocol
    ],
)
def test_http_clients_of_one_server_see_their_own_writes_when_their_protocol_has_sessions(mode, isolated):
    """Real streamable HTTP on loopback, several clients at once, each writing its own email to one row.

    Handshake clients each see only their own write (`build_server` keeps an environment per session,
    freed when the session ends). Sessionless 2026-07-28 clients over HTTP share one environment, as the
    README says: a change of either behaviour fails this test, so the README is updated with it."""
    from fastmcp import Client

    template = Environment.from_yaml(SHOP)
    initial = template.state_hash()
    server = build_server(template)

    async def email(client):
        observation = await client.call_tool("get_customer", {"customer_id": "cus_0001"})
        return json.loads(observation.content[0].text)["result"]["email"]

    async def clients(url):
        seen = {}
        async with contextlib.AsyncExitStack() as stack:
            connected = [await stack.enter_async_context(Client(url, mode=mode)) for _ in range(HTTP_CLIENTS)]
            for i, client in enumerate(connected):  # every client writes before any reads
                written = await client.call_tool(
                    "update_customer_email", {"customer_id": "cus_0001", "email": f"c{i}@example.com"}
                )
                assert not written.is_error

            async def read(i, client):
                state = (await client.read_resource("envscale://state_hash"))[0].text
                seen[i] = (await email(client), state)

            async with anyio.create_task_group() as group:  # and read at once, over their own connections
                for i, client in enumerate(connected):
                    group.start_soon(read, i, client)
            live = len(server.environments)
        return seen, live

    with served_over_http(server) as url:
        seen, live = anyio.run(clients, url)
        for _ in range(100):  # sessions end as their HTTP connections close (a guard, not a measure)
            if not server.environments:
                break
            time.sleep(0.1)
        left = len(server.environments)
    emails = [seen[i][0] for i in range(HTTP_CLIENTS)]
    if isolated:
        assert emails == [f"c{i}@example.com" for i in range(HTTP_CLIENTS)]
        assert len({state for _, state in seen.values()}) == HTTP_CLIENTS  # eight different databases
        assert (live, left) == (HTTP_CLIENTS, 0)
    else:  # one shared database: every client reads the last write
        assert emails == [f"c{HTTP_CLIENTS - 1}@example.com"] * HTTP_CLIENTS
        assert live == 0
    assert all(state != initial for _, state in seen.values())
    assert template.state_hash() == initial  # the template is never written
