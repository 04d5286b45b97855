"""Shared pytest fixtures."""

import pytest
from hubfake import start_hub_fake


@pytest.fixture
def hub_fake(monkeypatch, tmp_path):
    """A fresh in-memory fake Hub (see `tests/hubfake.py`) that huggingface_hub and datasets talk to.

    `huggingface_hub` and `datasets` read `HF_ENDPOINT` and friends into module constants at import time, so
    besides the environment this patches those constants, the module-level `HfApi` of `huggingface_hub`, and
    points the Hub and datasets caches at `tmp_path` so that no test sees another test's downloads.
    """
    import datasets.config
    from huggingface_hub import HfFileSystem, constants, hf_api
    from huggingface_hub.utils import close_session

    hub = start_hub_fake()
    datasets_cache = tmp_path / "hf_datasets_cache"
    for name, value in {
        "HF_ENDPOINT": hub.endpoint,
        "HF_TOKEN": hub.token,
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
    }.items():
        monkeypatch.setenv(name, value)
    for target, name, value in [
        (constants, "ENDPOINT", hub.endpoint),
        (constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.endpoint + "/{repo_id}/resolve/{revision}/{filename}"),
        (constants, "HF_URL_HOSTS", constants.HF_URL_HOSTS | {"127.0.0.1"}),
        (constants, "HF_HUB_DISABLE_XET", True),
        (constants, "HF_HUB_OFFLINE", False),
        (constants, "HF_HUB_CACHE", str(tmp_path / "hf_hub_cache")),
        (constants, "AGENT_HARNESSES_PATH", str(tmp_path / "agent_harnesses.json")),
        (hf_api.api, "endpoint", hub.endpoint),
        (datasets.config, "HF_ENDPOINT", hub.endpoint),
        (datasets.config, "HUB_DATASETS_URL", hub.endpoint + "/datasets/{repo_id}/resolve/{revision}/{path}"),
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
    HfFileSystem.clear_instance_cache()
    yield hub
    HfFileSystem.clear_instance_cache()
    close_session()  # drop the pooled keep-alive connections to this fake
    hub.stop()
