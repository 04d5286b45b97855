"""`envscale push`: publish a local artifact version to the Hub.

`push_artifact("outputs/quickstart/api_pool", "org/tools")` uploads the latest version (or the
one pinned with `@vN`) to the dataset repo's `main`: parquet per config, `envscale.json`, and
the card, merged with the card already on the Hub (people's edits survive). It then tags the
commit with the version, so `open_artifact("org/tools@v1")` and
`load_dataset("org/tools", "api_pool", revision="v1")` read exactly that version later. Every request
has the time limits of :mod:`envscale.hub`.

Example:

```python
>>> from envscale.publish import push_artifact
>>> result = push_artifact("outputs/quickstart/api_pool", "me/envscale-api-pool")
>>> result["tag"], result["url"]
('v1', 'https://huggingface.co/datasets/me/envscale-api-pool/tree/v1')
```

```bash
ENVSCALE_HUB_TIMEOUT=300 envscale push outputs/quickstart/api_pool me/envscale-api-pool  # a slow link
```
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from .artifacts import open_artifact
from .cards import merge_cards, render_card
from .config import command_parser
from .errors import HubError
from .hub import ensure_hub_timeouts, hub_errors
from .layout import MANIFEST


class TagExistsError(HubError):
    """The version tag is already on the Hub repo (tags are immutable versions)."""


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

    Raises:
        TagExistsError: the repo already has the tag.
        HubError: the Hub could not be reached, did not answer within `ENVSCALE_HUB_TIMEOUT` seconds (each
            request; see :func:`envscale.hub.ensure_hub_timeouts`), or refused a request (token, permissions).
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    art = open_artifact(ref if isinstance(ref, os.PathLike) else Path(ref))  # push reads a local folder
    tag = tag or art.version
    ensure_hub_timeouts()
    api = HfApi(token=token)
    endpoint = api.endpoint.rstrip("/")
    with hub_errors(f"creating dataset repo {repo_id}", endpoint):
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    with hub_errors(f"listing the tags of dataset repo {repo_id}", endpoint):
        refs = api.list_repo_refs(repo_id, repo_type="dataset")
    if any(t.name == tag for t in refs.tags):
        raise TagExistsError(
            f"{repo_id} already has tag {tag!r}; pass --tag NEW_TAG to publish this version under another name"
        )
    card = render_card(art.kind, art.manifest, art.data_dir, prefix="", load_target=repo_id)
    with hub_errors(f"reading the card of dataset repo {repo_id}", endpoint):
        try:
            existing = Path(api.hf_hub_download(repo_id, "README.md", repo_type="dataset")).read_text()
            card = merge_cards(existing, card)
        except LocalEntryNotFoundError:
            raise  # the Hub could not be reached: hub_errors says so
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
        with hub_errors(f"uploading {art.kind.name} {art.version} to dataset repo {repo_id}", endpoint):
            info = api.upload_folder(
                repo_id=repo_id,
                repo_type="dataset",
                folder_path=staging,
                commit_message=commit_message or f"envscale {art.kind.name} {art.version}",
                # A new version replaces the data of the previous one on main; old versions stay under their tags.
                delete_patterns=[f"{config}/*.parquet" for config in art.kind.configs],
            )
    commit = info.oid
    with hub_errors(f"tagging commit {commit[:12]} of dataset repo {repo_id} as {tag}", endpoint):
        api.create_tag(
            repo_id,
            tag=tag,
            revision=commit,
            repo_type="dataset",
            tag_message=f"envscale {art.kind.name} {art.version} ({art.manifest['fingerprint']})",
        )
    return {
        "repo_id": repo_id,
        "tag": tag,
        "commit": commit,
        "url": f"{endpoint}/datasets/{repo_id}/tree/{tag}",
    }


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale push PATH REPO_ID`."""
    parser = command_parser(
        subparsers,
        "push",
        help="publish a local artifact version to the Hub",
        description="Publish a local artifact version to a Hub dataset repo (card merged, version tagged).",
    )
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
