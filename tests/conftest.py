"""Shared pytest fixtures."""

import signal

import pytest
from hubfake import refusing_endpoint, start_hub_fake, start_silent_server

# A suite started as a background job (`nohup make test &`, `cmd &` in a script) inherits SIGINT ignored, and so
# would every subprocess it starts (an ignored signal survives exec): the tests that press Ctrl-C on a
# subprocess would see nothing happen. A Python handler is not inherited: the children start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# What the broken-Hub fixtures set ENVSCALE_HUB_TIMEOUT to, so that a test waits seconds, not minutes.
SHORT_HUB_TIMEOUT = "2"


def _point_hub_at(monkeypatch, tmp_path, endpoint: str, token: str | None):
    """Make huggingface_hub and datasets talk to `endpoint`, with caches under `tmp_path`.

    `huggingface_hub` and `datasets` read `HF_ENDPOINT` and friends into module constants at import time, so
    besides the environment this patches those constants, the module-level `HfApi` of `huggingface_hub`, and
    points the Hub and datasets caches at `tmp_path` so that no test sees another test's downloads. The client
    factory that envscale may install (`envscale.hub.ensure_hub_timeouts`) is put back on teardown, so each test
    starts from huggingface_hub's own.
    """
    import datasets.config
    from huggingface_hub import constants, hf_api
    from huggingface_hub.utils import _http

    datasets_cache = tmp_path / "hf_datasets_cache"
    env = {
        "HF_ENDPOINT": endpoint,
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
    }
    if token is not None:
        env["HF_TOKEN"] = token
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for target, name, value in [
        (constants, "ENDPOINT", endpoint),
        (constants, "HUGGINGFACE_CO_URL_TEMPLATE", endpoint + "/{repo_id}/resolve/{revision}/{filename}"),
        (constants, "HF_URL_HOSTS", constants.HF_URL_HOSTS | {"127.0.0.1"}),
        (constants, "HF_HUB_DISABLE_XET", True),
        (constants, "HF_HUB_OFFLINE", False),
        (constants, "HF_HUB_CACHE", str(tmp_path / "hf_hub_cache")),
        (constants, "AGENT_HARNESSES_PATH", str(tmp_path / "agent_harnesses.json")),
        (hf_api.api, "endpoint", endpoint),
        (datasets.config, "HF_ENDPOINT", endpoint),
        (datasets.config, "HUB_DATASETS_URL", endpoint + "/datasets/{repo_id}/resolve/{revision}/{path}"),
        (datasets.config, "HF_HUB_OFFLINE", False),
        (datasets.config, "HF_DATASETS_OFFLINE", False),
        # The dataset viewer and the download counter live on other hosts, which the fake does not serve.
        (datasets.config, "USE_PARQUET_EXPORT", False),
        (datasets.config, "HF_UPDATE_DOWNLOAD_COUNTS", False),
        (datasets.config, "HF_DATASETS_CACHE", datasets_cache),
        (datasets.config, "DOWNLOADED_DATASETS_PATH", datasets_cache / "downloads"),
        (datasets.config, "EXTRACTED_DATASETS_PATH", datasets_cache / "downloads" / "extracted"),
    ]:
        monkeypatch.setattr(target, name, value)
    return getattr(_http, "_GLOBAL_CLIENT_FACTORY", None)


def _reset_hub_clients(factory) -> None:
    """Drop pooled connections and cached filesystems, and put the client factory found at setup back."""
    from huggingface_hub import HfFileSystem, set_client_factory
    from huggingface_hub.utils import close_session

    HfFileSystem.clear_instance_cache()
    close_session()  # drop the pooled keep-alive connections to this endpoint
    if factory is not None:
        set_client_factory(factory)


@pytest.fixture
def hub_fake(monkeypatch, tmp_path):
    """A fresh in-memory fake Hub (see `tests/hubfake.py`) that huggingface_hub and datasets talk to."""
    from huggingface_hub import HfFileSystem

    hub = start_hub_fake()
    factory = _point_hub_at(monkeypatch, tmp_path, hub.endpoint, hub.token)
    HfFileSystem.clear_instance_cache()
    yield hub
    _reset_hub_clients(factory)
    hub.stop()


@pytest.fixture
def hub_silent(monkeypatch, tmp_path):
    """A Hub endpoint that accepts connections and never answers, with `ENVSCALE_HUB_TIMEOUT` set to 2 seconds.

    Yields the running `hubfake.SilentServer` (`.endpoint`, `.accepted`). Tests using it should carry a
    `@pytest.mark.timeout(...)`: without a timeout on the client side, a request to it waits forever.
    """
    from huggingface_hub import HfFileSystem

    silent = start_silent_server()
    factory = _point_hub_at(monkeypatch, tmp_path, silent.endpoint, "hf_silent_token")
    monkeypatch.setenv("ENVSCALE_HUB_TIMEOUT", SHORT_HUB_TIMEOUT)
    HfFileSystem.clear_instance_cache()
    yield silent
    _reset_hub_clients(factory)
    silent.stop()


@pytest.fixture
def hub_unreachable(monkeypatch, tmp_path):
    """A Hub endpoint on a loopback port that refuses every connection (no network, or a wrong `HF_ENDPOINT`).

    Yields the `hubfake.RefusingEndpoint` (`.endpoint`); `ENVSCALE_HUB_TIMEOUT` is set to 2 seconds.
    """
    from huggingface_hub import HfFileSystem

    refusing = refusing_endpoint()
    factory = _point_hub_at(monkeypatch, tmp_path, refusing.endpoint, "hf_unreachable_token")
    monkeypatch.setenv("ENVSCALE_HUB_TIMEOUT", SHORT_HUB_TIMEOUT)
    HfFileSystem.clear_instance_cache()
    yield refusing
    _reset_hub_clients(factory)
    refusing.stop()


# The environments most pipeline tests start from: the shop OpenAPI spec and three function-doc fixtures,
# through collect -> graph -> materialize once per session (the graph stage loads an embedding model).
FIXTURE_SOURCES = [
    "openapi:recipes/sources/envscale_shop.openapi.yaml",
    "json:tests/fixtures/graph/shop.json",
    "json:tests/fixtures/graph/music.json",
    "json:tests/fixtures/graph/weather.json",
]


@pytest.fixture(scope="session")
def fixture_environments(tmp_path_factory):
    """The `environments` artifact of `FIXTURE_SOURCES` (read it; write outputs elsewhere)."""
    from envscale.graph.build import GraphConfig, build_graph
    from envscale.materialize.build import MaterializeConfig, materialize
    from envscale.sources.collect import CollectConfig, collect

    root = tmp_path_factory.mktemp("fixture_pipeline")
    pool = collect(CollectConfig(sources=FIXTURE_SOURCES), root / "api_pool")
    graph = build_graph(
        pool, GraphConfig(embedding_cache=str(root / "emb"), min_domain_size=2), root / "graph"
    )
    return materialize(graph, MaterializeConfig(), root / "environments")
