"""Everything envscale does with the Hugging Face Hub: open a pushed artifact, publish a local one.

`push_artifact("outputs/quickstart/api_pool", "org/tools")` uploads the latest version (or the
one pinned with `@vN`) to the dataset repo's `main`: parquet per config, `envscale.json`, and
the card, merged with the card already on the Hub (people's edits survive). It then tags the
commit with the version, so `open_artifact("org/tools@v1")` and
`load_dataset("org/tools", "api_pool", revision="v1")` read exactly that version later.

Example:

```python
>>> from envscale.hub import push_artifact
>>> result = push_artifact("outputs/quickstart/api_pool", "me/envscale-api-pool")
>>> result["tag"], result["url"]
('v1', 'https://huggingface.co/datasets/me/envscale-api-pool/tree/v1')
```
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from .artifacts import MANIFEST, Artifact, ArtifactNotFoundError, check_manifest, open_artifact, read_manifest
from .cards import merge_cards, render_card
from .errors import HubError


class TagExistsError(HubError):
    """The version tag is already on the Hub repo (tags are immutable versions)."""


def open_hub_artifact(repo_id: str, revision: str | None, expect_kind: str | None = None) -> Artifact:
    """Resolve `repo_id@revision` on the Hub to a pinned, schema-checked :class:`Artifact`."""
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    where = f"hf://{repo_id}" + (f"@{revision}" if revision else "")
    try:
        sha = HfApi().dataset_info(repo_id, revision=revision).sha
        path = hf_hub_download(repo_id, MANIFEST, repo_type="dataset", revision=sha)
    except (RepositoryNotFoundError, RevisionNotFoundError) as exc:
        raise ArtifactNotFoundError(f"{where}: {type(exc).__name__} on the Hub") from None
    except EntryNotFoundError:
        raise ArtifactNotFoundError(
            f"{where} is a dataset repo but not an envscale artifact (no {MANIFEST})"
        ) from None
    manifest = read_manifest(Path(path), where)
    check_manifest(manifest, where, expect_kind)
    return Artifact(
        location=repo_id,
        version=revision or manifest.get("version", "main"),
        manifest=manifest,
        is_hub=True,
        revision=sha,
    )


def push_artifact(
    ref: str | os.PathLike,
    repo_id: str,
    *,
    tag: str | None = None,
    private: bool = False,
    token: str | None = None,
    commit_message: str | None = None,
) -> dict:
    """Upload one local artifact version to `repo_id` and tag it.

    Args:
        ref: local artifact, optionally pinned (`outputs/x@v2`); default the latest version.
        repo_id: `org/name` of the dataset repo (created if missing).
        tag: the Hub tag (default: the local version, e.g. `v1`); refused if it exists.
        private: create the repo private.
        token: Hub token (default: the logged-in one / `HF_TOKEN`).
        commit_message: default `envscale <kind> <version>`.

    Returns:
        `{"repo_id", "tag", "commit", "url"}`.
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import EntryNotFoundError

    art = open_artifact(ref if isinstance(ref, os.PathLike) else Path(ref))  # push reads a local folder
    tag = tag or art.version
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    refs = api.list_repo_refs(repo_id, repo_type="dataset")
    if any(t.name == tag for t in refs.tags):
        raise TagExistsError(
            f"{repo_id} already has tag {tag!r}; pass --tag NEW_TAG to publish this version under another name"
        )
    card = render_card(art.kind, art.manifest, art.data_dir, prefix="", load_target=repo_id)
    try:
        existing = Path(api.hf_hub_download(repo_id, "README.md", repo_type="dataset")).read_text()
        card = merge_cards(existing, card)
    except EntryNotFoundError:
        pass
    with tempfile.TemporaryDirectory(prefix="envscale-push-") as tmp:
        staging = Path(tmp)
        for config in art.kind.configs:
            if (art.data_dir / config).is_dir():  # empty configs have no files
                shutil.copytree(art.data_dir / config, staging / config)
        for name in (MANIFEST, "config.yaml"):
            shutil.copy2(art.data_dir / name, staging / name)
        (staging / "README.md").write_text(card)
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=staging,
            commit_message=commit_message or f"envscale {art.kind.name} {art.version}",
            # A new version replaces the data of the previous one on main; old versions stay under their tags.
            delete_patterns=[f"{config}/*.parquet" for config in art.kind.configs],
        )
    commit = info.oid
    api.create_tag(
        repo_id,
        tag=tag,
        revision=commit,
        repo_type="dataset",
        tag_message=f"envscale {art.kind.name} {art.version} ({art.manifest['fingerprint']})",
    )
    endpoint = api.endpoint.rstrip("/")
    return {
        "repo_id": repo_id,
        "tag": tag,
        "commit": commit,
        "url": f"{endpoint}/datasets/{repo_id}/tree/{tag}",
    }


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale push PATH REPO_ID`."""
    kwargs = {
        "description": "Publish a local artifact version to a Hub dataset repo (card merged, version tagged)."
    }
    if subparsers is None:
        parser = argparse.ArgumentParser(prog="envscale push", **kwargs)
    else:
        parser = subparsers.add_parser("push", help="publish a local artifact version to the Hub", **kwargs)
    parser.add_argument("path", help="local artifact folder, optionally @vN")
    parser.add_argument("repo_id", help="dataset repo id, org/name")
    parser.add_argument("--tag", help="Hub tag for this version (default: the local version, e.g. v1)")
    parser.add_argument("--private", action="store_true", help="create the repo private")
    parser.add_argument("--token", help="Hub token (default: HF_TOKEN / the logged-in token)")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    result = push_artifact(
        Path(args.path), args.repo_id, tag=args.tag, private=args.private, token=args.token
    )
    print(f"pushed {args.path} to {result['repo_id']} (commit {result['commit'][:12]}, tag {result['tag']})")
    print(f"  {result['url']}")
    print(f"  load: datasets.load_dataset({result['repo_id']!r}, revision={result['tag']!r})")
    return 0
