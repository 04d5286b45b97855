"""The Hub fake (`tests/hubfake.py`) driven through the real `huggingface_hub` and `datasets` clients."""

import re
import urllib.error
import urllib.request
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import (
    HfHubHTTPError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

REPO = "org/name"
README = """---
configs:
- config_name: alpha
  data_files:
  - split: train
    path: alpha/*.parquet
- config_name: beta
  data_files:
  - split: train
    path: beta/*.parquet
---
# A fake dataset
"""


def is_commit_id(value):
    return re.fullmatch(r"[0-9a-f]{40}", value) is not None


def http_get(url, **headers):
    """A plain GET outside of the Hub clients: `(status, headers, body)`, also for error statuses."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.fixture
def api(hub_fake):
    return HfApi(endpoint=hub_fake.endpoint, token=hub_fake.token)


@pytest.fixture
def folder(tmp_path):
    """A dataset folder: a README with two configs, a JSON file and one parquet file per config."""
    root = tmp_path / "folder"
    (root / "alpha").mkdir(parents=True)
    (root / "beta").mkdir()
    (root / "README.md").write_text(README)
    (root / "meta.json").write_text('{"version": 1}')
    pq.write_table(pa.table({"x": [1, 2, 3]}), root / "alpha" / "train-00000.parquet")
    pq.write_table(pa.table({"y": ["a", "b"]}), root / "beta" / "train-00000.parquet")
    return root


@pytest.fixture
def uploaded(api, folder):
    """`folder` uploaded to the dataset repo `REPO`; returns the `CommitInfo`."""
    api.create_repo(REPO, repo_type="dataset")
    return api.upload_folder(
        folder_path=folder, repo_id=REPO, repo_type="dataset", commit_message="First version"
    )


def test_repo_is_not_found_until_created(api):
    with pytest.raises(RepositoryNotFoundError) as info:
        api.dataset_info(REPO)
    assert info.value.response.status_code == 404
    assert info.value.response.headers["X-Error-Code"] == "RepoNotFound"
    with pytest.raises(RepositoryNotFoundError):
        api.repo_info(REPO, repo_type="dataset")

    url = api.create_repo(REPO, repo_type="dataset", exist_ok=True)
    assert (url.repo_id, url.repo_type) == (REPO, "dataset")
    assert api.create_repo(REPO, repo_type="dataset", exist_ok=True).repo_id == REPO
    with pytest.raises(HfHubHTTPError) as info:
        api.create_repo(REPO, repo_type="dataset")
    assert info.value.response.status_code == 409

    dataset = api.dataset_info(REPO)
    assert dataset.id == REPO
    assert is_commit_id(dataset.sha)
    assert [s.rfilename for s in dataset.siblings] == [".gitattributes"]
    with pytest.raises(RepositoryNotFoundError):
        api.model_info(REPO)  # same name, other repo type


def test_upload_folder_sends_parquet_through_lfs(hub_fake, api, uploaded, folder):
    assert is_commit_id(uploaded.oid)
    assert uploaded.commit_url == f"{hub_fake.endpoint}/datasets/{REPO}/commit/{uploaded.oid}"
    assert api.dataset_info(REPO).sha == uploaded.oid
    assert sorted(api.list_repo_files(REPO, repo_type="dataset")) == [
        ".gitattributes",
        "README.md",
        "alpha/train-00000.parquet",
        "beta/train-00000.parquet",
        "meta.json",
    ]
    parquet, meta = api.get_paths_info(REPO, ["alpha/train-00000.parquet", "meta.json"], repo_type="dataset")
    assert parquet.lfs is not None
    assert parquet.lfs.size == parquet.size == (folder / "alpha" / "train-00000.parquet").stat().st_size
    assert parquet.lfs.sha256 in hub_fake.lfs_objects
    assert meta.lfs is None
    siblings = {s.rfilename: s for s in api.dataset_info(REPO, files_metadata=True).siblings}
    assert siblings["alpha/train-00000.parquet"].lfs.sha256 == parquet.lfs.sha256
    assert siblings["meta.json"].lfs is None and siblings["meta.json"].blob_id == meta.blob_id
    assert api.file_exists(REPO, "meta.json", repo_type="dataset")
    assert not api.file_exists(REPO, "missing.json", repo_type="dataset")

    top = api.list_repo_tree(REPO, repo_type="dataset")
    assert {(e.path, type(e).__name__) for e in top if "/" not in e.path} >= {("alpha", "RepoFolder")}
    nested = [e.path for e in api.list_repo_tree(REPO, "beta", repo_type="dataset", expand=True)]
    assert nested == ["beta/train-00000.parquet"]
    with pytest.raises(RemoteEntryNotFoundError) as info:
        list(api.list_repo_tree(REPO, "no/such/folder", repo_type="dataset"))
    assert info.value.response.headers["X-Error-Code"] == "EntryNotFound"

    api.delete_folder("beta", REPO, repo_type="dataset")
    api.delete_file("meta.json", REPO, repo_type="dataset")
    remaining = sorted(api.list_repo_files(REPO, repo_type="dataset"))
    assert remaining == [".gitattributes", "README.md", "alpha/train-00000.parquet"]
    assert api.file_exists(REPO, "meta.json", repo_type="dataset", revision=uploaded.oid)
    assert hub_fake.unhandled == []


def test_tags_pin_files_while_main_moves_on(api, uploaded, tmp_path):
    api.create_tag(REPO, tag="v1", repo_type="dataset", revision=uploaded.oid)
    with pytest.raises(HfHubHTTPError) as info:
        api.create_tag(REPO, tag="v1", repo_type="dataset")
    assert info.value.response.status_code == 409
    later = api.upload_file(
        path_or_fileobj=b'{"version": 2}', path_in_repo="meta.json", repo_id=REPO, repo_type="dataset"
    )
    assert later.oid != uploaded.oid

    refs = api.list_repo_refs(REPO, repo_type="dataset")
    assert [(t.name, t.target_commit) for t in refs.tags] == [("v1", uploaded.oid)]
    assert [(b.name, b.target_commit) for b in refs.branches] == [("main", later.oid)]
    assert api.dataset_info(REPO, revision="v1").sha == uploaded.oid
    assert api.dataset_info(REPO).sha == later.oid
    commits = api.list_repo_commits(REPO, repo_type="dataset")
    assert [c.title for c in commits] == [
        "Upload meta.json with huggingface_hub",
        "First version",
        "initial commit",
    ]

    def meta(revision=None):
        return Path(hf_hub_download(REPO, "meta.json", repo_type="dataset", revision=revision)).read_text()

    assert meta("v1") == meta(uploaded.oid) == '{"version": 1}'
    assert meta() == meta("main") == '{"version": 2}'
    with pytest.raises(RevisionNotFoundError):
        meta("v2")

    api.create_branch(REPO, branch="stable", repo_type="dataset", revision="v1")
    assert meta("stable") == '{"version": 1}'
    api.delete_tag(REPO, tag="v1", repo_type="dataset")
    api.delete_branch(REPO, branch="stable", repo_type="dataset")
    refs = api.list_repo_refs(REPO, repo_type="dataset")
    assert (refs.tags, [b.name for b in refs.branches]) == ([], ["main"])
    with pytest.raises(RemoteEntryNotFoundError):
        hf_hub_download(REPO, "missing.json", repo_type="dataset")


def test_load_dataset_reads_the_requested_revision(api, uploaded, folder):
    api.create_tag(REPO, tag="v1", repo_type="dataset")
    pq.write_table(pa.table({"x": [4, 5]}), folder / "alpha" / "train-00000.parquet")
    api.upload_folder(folder_path=folder, repo_id=REPO, repo_type="dataset", commit_message="New rows")

    assert datasets.load_dataset(REPO, "alpha", revision="v1", split="train")["x"] == [1, 2, 3]
    assert datasets.load_dataset(REPO, "alpha", split="train")["x"] == [4, 5]
    assert datasets.load_dataset(REPO, "beta", split="train")["y"] == ["a", "b"]


def test_push_to_hub_then_load_dataset(hub_fake, api):
    datasets.Dataset.from_dict({"z": [7, 8]}).push_to_hub("org/pushed", config_name="x")
    datasets.Dataset.from_dict({"w": ["p"]}).push_to_hub("org/pushed", config_name="y")

    assert datasets.load_dataset("org/pushed", "x", split="train")["z"] == [7, 8]
    assert datasets.load_dataset("org/pushed", "y", split="train")["w"] == ["p"]
    readme = Path(hf_hub_download("org/pushed", "README.md", repo_type="dataset")).read_text()
    assert "config_name: x" in readme and "config_name: y" in readme
    assert hub_fake.unhandled == []


def test_model_repos_and_range_reads(hub_fake, api):
    api.create_repo("org/model")
    api.upload_file(path_or_fileobj=b"\0weights\0", path_in_repo="model.bin", repo_id="org/model")
    assert Path(hf_hub_download("org/model", "model.bin")).read_bytes() == b"\0weights\0"
    assert api.model_info("org/model").siblings[-1].rfilename == "model.bin"

    url = f"{hub_fake.endpoint}/org/model/resolve/main/model.bin"
    status, headers, body = http_get(url, Range="bytes=1-7")
    assert (status, body, headers["Content-Range"]) == (206, b"weights", "bytes 1-7/9")
    assert http_get(url, Range="bytes=9-")[0] == 416


def test_writes_need_the_token_and_unknown_routes_are_recorded(hub_fake):
    with pytest.raises(HfHubHTTPError) as info:
        HfApi(endpoint=hub_fake.endpoint, token="hf_wrong").create_repo("org/other")
    assert info.value.response.status_code == 401
    assert HfApi(endpoint=hub_fake.endpoint, token=hub_fake.token).whoami()["name"] == "hubfake"

    assert http_get(f"{hub_fake.endpoint}/api/no-such-route")[0] == 404
    assert hub_fake.unhandled == ["GET /api/no-such-route"]
