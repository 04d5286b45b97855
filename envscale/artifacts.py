"""Versioned artifacts: how every stage writes, reads, checks and pins Hugging Face datasets.

An artifact is either a **local folder laid out like a Hub dataset repo** (the default) or a
**Hub repo** `hf://org/name[@revision]`. Locally, every write is a new immutable version:

```
outputs/quickstart/api_pool/
  README.md            card of the latest version; its `configs:` point at versions/v2/...
  envscale.json        manifest of the latest version
  versions/v1/         an immutable, self-contained Hub-style dataset (README, manifest, parquet)
  versions/v2/
  .staging/<fingerprint>/   work in progress; kept on interruption so a re-run resumes
  .envscale.lock       held by the one run writing this artifact (a second writer fails at once)
```

Inside a version, each config is a folder of parquet shards named `<split>-<data_id>-NNNNN.parquet`.
Most configs have the one split `train`; a kind may declare others (`tasks` has `train` and `test`,
see `ArtifactKind.splits`). The manifest's `counts` are rows per config (all splits together) and
its `splits` rows per split of each config that has several; a config not in `splits` (every
config of a version written before splits existed) is all `train`.

`load_dataset("outputs/quickstart/api_pool", "api_pool")` reads the latest version;
`open_artifact("outputs/quickstart/api_pool@v1")` pins one. A version is written to a staging
folder, checked (every config's parquet files hold the rows the manifest counts), and renamed into
place only when complete, so a crash never leaves half a version. Every version is checked again
when it is opened: a version whose files were deleted, truncated or edited fails with an
:class:`ArtifactError` naming the version and the way out, never with wrong data.

Inputs of a stage are recorded by content, not by where the command ran: files with size, mtime,
ctime and sha256 (the content decides whenever size or a timestamp moved; ctime is the one a hand-set
mtime cannot put back); artifacts with their `data_id` (a token unique to one written version), their
absolute path, and their path relative to the artifact that read them, so :func:`resolve_input` finds
them from any working directory and refuses a different artifact that happens to sit at the same path.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> art = open_artifact("outputs/quickstart/api_pool")
>>> art.pinned                      # what downstream stages record as their input
'/abs/outputs/quickstart/api_pool@v1'
>>> art.load("api_pool").num_rows > 1500
True
```
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features, Json

from . import __version__
from .cards import render_card
from .errors import ArtifactError
from .layout import MANIFEST, shard_files, split_counts
from .schemas import ArtifactKind, get_kind

LOCK = ".envscale.lock"
_VERSION_DIR = re.compile(r"^v(\d+)$")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_MANIFEST_KEYS = {"kind": str, "schema_version": str, "version": str, "data_id": str, "counts": dict}
_SPLIT_NAME = re.compile(r"^\w+$")  # what `datasets` accepts as a split name


class IncompatibleSchemaError(ArtifactError):
    """An artifact was written with a schema major version this envscale cannot read."""


class ArtifactNotFoundError(ArtifactError, FileNotFoundError):
    """A reference names no complete artifact."""


class ArtifactLockedError(ArtifactError):
    """Another run is writing the same artifact."""


# ----------------------------------------------------------------------------- references


@dataclass(frozen=True)
class ArtifactRef:
    """A parsed reference: a local folder or a Hub repo, with an optional version/revision."""

    location: str
    revision: str | None
    is_hub: bool

    def __str__(self) -> str:
        prefix = "hf://" if self.is_hub else ""
        return f"{prefix}{self.location}" + (f"@{self.revision}" if self.revision else "")


def parse_ref(ref: str | os.PathLike) -> ArtifactRef:
    """Parse `PATH[@vN]`, `hf://org/name[@revision]` or `org/name[@revision]`.

    A `Path` object is always local (stages pass their outputs and a run's folders as paths). In a
    string, `hf://` always means the Hub; a path that exists on disk, starts with `.`, `/` or `~`,
    or whose first folder exists (`myrun/api_pool` next to `myrun/`), is local; only a bare
    `org/name` matching nothing on disk is taken for a Hub repo id.
    """
    if isinstance(ref, os.PathLike) and not isinstance(ref, str):
        text = os.fspath(ref)
        location, at, rev = text.rpartition("@")
        if not at or "/" in rev or not _VERSION_DIR.match(rev):
            location, rev = text, ""
        return ArtifactRef(_local(location), rev or None, False)
    text = os.fspath(ref)
    if text.startswith("hf://"):
        repo, _, rev = text[5:].partition("@")
        if not _HUB_ID.match(repo):
            raise ArtifactError(f"{text!r} is not hf://org/name[@revision]")
        return ArtifactRef(repo, rev or None, True)
    location, at, rev = text.rpartition("@")
    if not at or "/" in rev:
        location, rev = text, ""
    local = (
        Path(location).expanduser().exists()
        or location.startswith((".", "/", "~"))
        or not _HUB_ID.match(location)
        or Path(location.split("/", 1)[0]).is_dir()
    )
    if local:
        return ArtifactRef(_local(location), rev or None, False)
    return ArtifactRef(location, rev or None, True)


def _local(location: str) -> str:
    """An absolute, normalised local path (`..` folded; symlinks kept as the user named them)."""
    return os.path.abspath(os.path.expanduser(location))


# ----------------------------------------------------------------------------- inputs by content


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's content (hex), read in blocks."""
    with Path(path).open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def file_input(path: str | os.PathLike) -> dict:
    """How a stage records a file it read: absolute path, size, mtime, ctime and sha256 of the content."""
    path = Path(path).absolute()
    stat = path.stat()
    digest = file_sha256(path)
    return {
        "type": "file",
        "path": str(path),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "ctime_ns": stat.st_ctime_ns,
        "sha256": digest,
    }


def file_changed(entry: dict) -> str | None:
    """Why a file recorded with :func:`file_input` is no longer the same, or None when it is.

    Size, mtime and ctime unchanged count as unchanged (no re-hash); otherwise the content hash decides,
    so touching or copying a file without editing it does not invalidate anything. ctime is part of the
    shortcut because every write moves it and no caller can set it: an in-place edit of the same size
    whose mtime was put back (`touch -r`, `os.utime`, a tool keeping timestamps) is still hashed and caught.
    An entry recorded before ctime was (no `ctime_ns`) is always hashed.
    """
    path = Path(entry["path"])
    try:
        stat = path.stat()
    except OSError:
        return f"{path} is gone"
    if (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns) == (
        entry.get("size"),
        entry.get("mtime_ns"),
        entry.get("ctime_ns"),
    ):
        return None
    if stat.st_size != entry.get("size"):
        return f"{path} changed ({entry.get('size')} -> {stat.st_size} bytes)"
    if file_sha256(path) != entry.get("sha256"):
        return f"{path} changed (different content)"
    return None


def changed_inputs(manifest: dict) -> list[str]:
    """What changed among the recorded file inputs of a version (empty: all the same)."""
    return [
        why
        for entry in manifest.get("inputs") or []
        if entry.get("type") == "file" and (why := file_changed(entry))
    ]


# ----------------------------------------------------------------------------- reading


@dataclass
class Artifact:
    """A resolved, pinned, checked artifact version.

    Attributes:
        location: absolute local folder, or Hub repo id.
        version: `vN` (local) or the revision asked for (Hub).
        manifest: the version's `envscale.json`.
        is_hub: whether it lives on the Hub.
        revision: the commit sha on the Hub; None locally.
    """

    location: str
    version: str
    manifest: dict
    is_hub: bool = False
    revision: str | None = None

    @property
    def kind(self) -> ArtifactKind:
        return get_kind(self.manifest["kind"])

    @property
    def data_id(self) -> str:
        """A token unique to this written version (kept when the version is copied or pushed)."""
        return self.manifest["data_id"]

    @property
    def pinned(self) -> str:
        """A reference that will always resolve to exactly this version."""
        prefix = "hf://" if self.is_hub else ""
        return f"{prefix}{self.location}@{self.revision or self.version}"

    @property
    def content_key(self) -> str:
        """What a downstream fingerprint records of this input: its kind and data, not its path."""
        return f"{self.manifest['kind']}:{self.data_id}"

    def provenance(self) -> dict:
        """How a stage that read this artifact records it among its inputs (see :func:`resolve_input`)."""
        entry = {
            "type": "artifact",
            "kind": self.manifest["kind"],
            "pinned": self.pinned,
            "version": self.version,
            "data_id": self.data_id,
            "fingerprint": self.manifest.get("fingerprint"),
        }
        if self.is_hub:
            entry.update(hub=self.location, revision=self.revision)
        else:
            entry["path"] = self.location
        return entry

    @property
    def data_dir(self) -> Path:
        """The local folder of this version (local artifacts only)."""
        if self.is_hub:
            raise ArtifactError(f"{self.pinned} is on the Hub; it has no local data folder")
        return Path(self.location) / "versions" / self.version

    @property
    def splits(self) -> dict[str, dict[str, int]]:
        """Rows per config and split (`{"tasks": {"train": 900, "test": 150}, "rejected": {"train": 40}}`)."""
        return split_counts(self.manifest)

    def data_files(self, config: str, split: str = "train") -> list[Path]:
        """The parquet shards of one split of one config of this local version (none when it is empty)."""
        return shard_files(self.data_dir / config, split, self.data_id)

    def load(
        self, config: str | None = None, split: str = "train", *, streaming: bool = False, **kwargs: Any
    ):
        """Load one split of one config of this version with `datasets.load_dataset`.

        Local versions are loaded from their resolved parquet files, which `datasets` caches by
        absolute path and modification time: no cache entry of another folder, or of this one before
        an edit, can stand in for the files on disk. An empty split loads as an empty dataset.
        """
        from datasets import Dataset, load_dataset

        config = config or self.kind.main_config
        counts = self.manifest["counts"]
        if config not in counts and not self.kind.may_lack(config, self.manifest["schema_version"]):
            raise ArtifactError(f"{self.pinned} has no config {config!r}; it has {', '.join(counts)}")
        splits = self.splits.get(config, {})  # a config added after this version was written reads as empty
        if split not in splits and split not in self.kind.splits_of(config):
            raise ArtifactError(
                f"{self.pinned}: config {config!r} has no split {split!r}; it has {', '.join(splits)}"
            )
        features = self.kind.configs.get(config)
        if splits.get(split, 0) == 0:
            empty = Dataset.from_dict({name: [] for name in features}, features=features, split=split)
            return empty.to_iterable_dataset() if streaming else empty
        with no_datasets_bars():  # a stage shows one bar of its own, not `datasets`' "Generating train split"
            if self.is_hub:
                return load_dataset(
                    self.location, config, revision=self.revision, split=split, streaming=streaming, **kwargs
                )
            files = [str(p) for p in self.data_files(config, split)]
            return load_dataset(
                "parquet",
                data_files={split: files},
                features=features,
                split=split,
                streaming=streaming,
                **kwargs,
            )


@contextlib.contextmanager
def no_datasets_bars() -> Iterator[None]:
    """`datasets`' own progress bars off inside the block (its "Generating train split" bar when a version
    is first read into its cache), as they were after. A user who set `HF_DATASETS_DISABLE_PROGRESS_BARS=0`
    keeps them (that variable wins, and `datasets` would warn about turning them off)."""
    import datasets

    if datasets.config.HF_DATASETS_DISABLE_PROGRESS_BARS is False or datasets.are_progress_bars_disabled():
        yield
        return
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        datasets.enable_progress_bars()


def check_manifest(manifest: Any, where: str, expect_kind: str | None = None) -> None:
    """Fail with the way out when a manifest is malformed, of the wrong kind, or an unreadable schema major."""
    if not isinstance(manifest, dict):
        raise ArtifactError(f"{where}: {MANIFEST} holds a {type(manifest).__name__}, not a manifest object")
    for key, typ in _MANIFEST_KEYS.items():
        if not isinstance(manifest.get(key), typ):
            raise ArtifactError(
                f"{where}: {MANIFEST} has no valid {key!r} (expected a {typ.__name__}); the artifact is damaged, "
                "re-run the stage that made it"
            )
    bad = {
        k: v for k, v in manifest["counts"].items() if isinstance(v, bool) or not isinstance(v, int) or v < 0
    }
    if bad:
        raise ArtifactError(
            f"{where}: {MANIFEST} counts {bad} are not row counts; re-run the stage that made it"
        )
    _check_splits(manifest, where)
    kind_name = manifest["kind"]
    if expect_kind and kind_name != expect_kind:
        raise ArtifactError(f"{where} is a {kind_name!r} artifact, expected {expect_kind!r}")
    try:
        kind = get_kind(kind_name)
    except ValueError as exc:
        raise ArtifactError(f"{where}: {exc}") from None
    found = manifest["schema_version"]
    if found.split(".")[0] != str(kind.major):
        raise IncompatibleSchemaError(
            f"{where} holds {kind_name} schema {found}, but this envscale ({__version__}) reads "
            f"{kind_name} schema {kind.major}.x. Re-run the stage that made it with this envscale to "
            f"rebuild it, or install the envscale release that wrote it (see CHANGELOG.md)."
        )
    missing = {c for c in set(kind.configs) - set(manifest["counts"]) if not kind.may_lack(c, found)}
    if missing:
        raise ArtifactError(f"{where}: {MANIFEST} counts lack configs {sorted(missing)}; re-run the stage")


def _check_splits(manifest: dict, where: str) -> None:
    """`splits`, when present: row counts per config and split that add up to the config's count."""
    splits = manifest.get("splits")
    if splits is None:
        return
    way_out = "the artifact is damaged, re-run the stage that made it"
    if not isinstance(splits, dict):
        raise ArtifactError(f"{where}: {MANIFEST} has no valid 'splits' (expected an object); {way_out}")
    for config, per_split in splits.items():
        if config not in manifest["counts"]:
            raise ArtifactError(
                f"{where}: {MANIFEST} splits name config {config!r}, which counts lack; {way_out}"
            )
        if not isinstance(per_split, dict) or any(
            not isinstance(k, str)
            or not _SPLIT_NAME.match(k)
            or isinstance(v, bool)
            or not isinstance(v, int)
            or v < 0
            for k, v in per_split.items()
        ):
            raise ArtifactError(
                f"{where}: {MANIFEST} splits of {config!r} ({per_split!r}) are not row counts per split; "
                f"{way_out}"
            )
        if sum(per_split.values()) != manifest["counts"][config]:
            raise ArtifactError(
                f"{where}: {MANIFEST} splits of {config!r} add up to {sum(per_split.values())} rows, "
                f"but counts say {manifest['counts'][config]}; {way_out}"
            )


def count_rows(files: Iterable[Path], where: str) -> int:
    """Rows in parquet files, from their footers; an unreadable file is an :class:`ArtifactError`."""
    total = 0
    for path in files:
        try:
            total += pq.read_metadata(path).num_rows
        except (OSError, pa.ArrowException) as exc:
            raise ArtifactError(f"{where}: {path} is not a readable parquet file ({exc})") from None
    return total


def data_files(folder: Path, manifest: dict) -> dict[str, dict]:
    """Size, mtime, ctime and sha256 of every parquet shard of a version, keyed by `config/file name`."""
    files = {}
    for config, per_split in split_counts(manifest).items():
        for split in per_split:
            for path in shard_files(folder / config, split, manifest["data_id"]):
                entry = file_input(path)
                files[f"{config}/{path.name}"] = {
                    k: entry[k] for k in ("size", "mtime_ns", "ctime_ns", "sha256")
                }
    return files


def _edited(folder: Path, recorded: dict[str, dict]) -> str | None:
    """The first shard whose content is not what the manifest records (size, mtime and ctime unchanged: the
    same, unhashed; otherwise its sha256 decides, so a copied version still opens)."""
    for name, entry in recorded.items():
        why = file_changed({"path": str(folder / name), **entry})
        if why is not None:
            return f"{name}: {why.removeprefix(str(folder / name) + ' ')}"
    return None


def check_data(folder: Path, manifest: dict, where: str) -> None:
    """Every split of every config has parquet files holding exactly the rows the manifest counts, and,
    for versions that record them (`files`), the content the manifest's sha256 digests say.

    Reads footers, and hashes only shards whose size, mtime or ctime changed (milliseconds for a version
    opened where it was written). Raises :class:`ArtifactError` naming the version, the config (and split,
    when the config has several), what was expected and found, and the way out.
    """
    for config, per_split in split_counts(manifest).items():
        for split, expected in per_split.items():
            files = shard_files(folder / config, split, manifest["data_id"])
            found = count_rows(files, where)
            if found != expected:
                what = "no data files" if not files else f"{found} rows in {len(files)} file(s)"
                name = f"config {config!r}" + (f" split {split!r}" if list(per_split) != ["train"] else "")
                raise ArtifactError(
                    f"{where} is damaged: {name} should hold {expected} rows ({MANIFEST}) but has {what} "
                    f"under {folder / config}. Re-run the stage that made it (a new version is written; "
                    f"`envscale run --force` for a recipe), or pin an earlier version with @vN."
                )
    recorded = manifest.get("files")
    if isinstance(recorded, dict) and (why := _edited(folder, recorded)):
        raise ArtifactError(
            f"{where} is damaged: a data file was edited after it was written ({why}). Re-run the stage "
            f"that made it (a new version is written; `envscale run --force` for a recipe), or pin an "
            f"earlier version with @vN."
        )


def read_manifest(path: Path, where: str) -> dict:
    """A version's manifest, with errors that name the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ArtifactError(f"{where}: cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ArtifactError(
            f"{where}: {path} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "the artifact is damaged, re-run the stage that made it"
        ) from None


def local_versions(root: Path) -> list[str]:
    """The sealed versions of a local artifact (folders `vN` with a manifest), oldest first."""
    vdir = Path(root) / "versions"
    if not vdir.is_dir():
        return []
    found = [(int(m.group(1)), p.name) for p in vdir.iterdir() if (m := _VERSION_DIR.match(p.name))]
    return [name for _, name in sorted(found) if (vdir / name / MANIFEST).is_file()]


def open_artifact(ref: str | os.PathLike, expect_kind: str | None = None, *, check: bool = True) -> Artifact:
    """Resolve a reference to one pinned, schema-checked, data-checked version.

    Args:
        ref: `PATH[@vN]`, `hf://org/name[@revision]`, or `org/name[@revision]` when no such local
            path exists (see :func:`parse_ref`). A `Path` is always local.
        expect_kind: fail unless the artifact is of this kind.
        check: check a local version's data files against its manifest (footers only).

    Raises:
        ArtifactNotFoundError: nothing complete at the reference.
        IncompatibleSchemaError: written with another schema major version.
        ArtifactError: a damaged version (manifest or data files).
        HubError: the Hub could not be reached or did not answer in time.
    """
    parsed = parse_ref(ref)
    if parsed.is_hub:
        return open_hub_artifact(parsed.location, parsed.revision, expect_kind)
    root = Path(parsed.location)
    if not root.exists():
        hint = f" (for a Hub dataset write hf://{os.fspath(ref)})" if _HUB_ID.match(str(ref)) else ""
        raise ArtifactNotFoundError(f"no such folder: {root}{hint}")
    if not root.is_dir():
        raise ArtifactNotFoundError(f"{root} is a file, not an artifact folder")
    versions = local_versions(root)
    if not versions:
        hint = (
            " (an interrupted run left work in .staging/; re-run the stage to resume)"
            if any(p.is_file() for p in (root / ".staging").rglob("*"))
            else ""
        )
        raise ArtifactNotFoundError(f"no complete envscale artifact at {root}{hint}")
    version = parsed.revision or versions[-1]
    if version not in versions:
        raise ArtifactNotFoundError(f"{root} has no version {version!r}; it has {', '.join(versions)}")
    where = f"{root}@{version}"
    folder = root / "versions" / version
    manifest = read_manifest(folder / MANIFEST, where)
    check_manifest(manifest, where, expect_kind)
    if check:
        check_data(folder, manifest, where)
    art = Artifact(location=str(root), version=version, manifest=manifest)
    if parsed.revision is None:
        _repair_root(art)
    return art


def open_hub_artifact(repo_id: str, revision: str | None, expect_kind: str | None = None) -> Artifact:
    """Resolve `repo_id@revision` on the Hub to a pinned, schema-checked :class:`Artifact`.

    Args:
        repo_id: `org/name` of the dataset repo.
        revision: branch, tag or commit; default `main`.
        expect_kind: fail unless the artifact is of this kind.

    Raises:
        ArtifactNotFoundError: no such repo or revision, or the repo is no envscale artifact.
        HubError: the Hub could not be reached, did not answer within `ENVSCALE_HUB_TIMEOUT` seconds, or
            refused the request (see :func:`envscale.hub.ensure_hub_timeouts`).
    """
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    from .hub import ensure_hub_timeouts, hub_errors

    where = f"hf://{repo_id}" + (f"@{revision}" if revision else "")
    ensure_hub_timeouts()
    with hub_errors(f"reading {where}"):
        try:
            sha = HfApi().dataset_info(repo_id, revision=revision).sha
            path = hf_hub_download(repo_id, MANIFEST, repo_type="dataset", revision=sha)
        except (RepositoryNotFoundError, RevisionNotFoundError) as exc:
            raise ArtifactNotFoundError(f"{where}: {type(exc).__name__} on the Hub") from None
        except LocalEntryNotFoundError:
            raise  # the Hub could not be reached and the file is not cached: hub_errors says so
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


def _repair_root(art: Artifact) -> None:
    """Point a stale top-level card at the latest version (a run killed between rename and card update)."""
    root = Path(art.location)
    try:
        current = json.loads((root / MANIFEST).read_text()).get("data_id")
    except (OSError, ValueError, AttributeError):
        current = None
    if current == art.data_id:
        return
    lock = _lock(root)
    try:
        lock.acquire(timeout=0)
    except Exception:  # noqa: BLE001 - a writer is at work; it will point the card itself
        return
    try:
        _point_root_at(root, art.kind, art.version, art.manifest)
    finally:
        lock.release()


def resolve_input(art: Artifact, kind: str) -> Artifact:
    """The input of `kind` that `art` was made from, found from any working directory.

    Tries the path relative to `art` (a run folder moved as a whole), then the recorded absolute
    path, then the Hub revision; each candidate must hold the same `data_id`, so a different artifact
    at the same path is refused instead of used.
    """
    entries = [e for e in art.manifest.get("inputs") or [] if e.get("kind") == kind]
    if not entries:
        raise ArtifactError(f"{art.pinned} records no {kind} input")
    entry = entries[0]
    candidates: list[str | Path] = []
    if not art.is_hub and entry.get("relative"):
        candidates.append(Path(art.location) / entry["relative"])
    if entry.get("path"):
        candidates.append(Path(entry["path"]))
    if entry.get("hub"):
        candidates.append(f"hf://{entry['hub']}@{entry.get('revision') or entry.get('version')}")
    if not candidates and entry.get("pinned"):  # written by envscale 0.1: a path relative to where it ran
        candidates.append(entry["pinned"].rpartition("@")[0])
    seen = []
    for cand in candidates:
        version = entry.get("version") if isinstance(cand, Path) else None
        try:
            found = open_artifact(Path(f"{cand}@{version}") if version else cand, expect_kind=kind)
        except ArtifactNotFoundError:
            seen.append(f"{cand}: not found")
            continue
        if entry.get("data_id") in (None, found.data_id):
            return found
        seen.append(f"{cand}: holds other data (data id {found.data_id}, expected {entry['data_id']})")
    raise ArtifactNotFoundError(
        f"the {kind} that {art.pinned} was made from (data id {entry.get('data_id')}) is not where it was: "
        + "; ".join(seen)
        + f". Put it back, or re-run the stage that made {art.kind.name} from the {kind} you have."
    )


# ----------------------------------------------------------------------------- writing


def _json_columns(features: Features) -> set[str]:
    return {name for name, feat in features.items() if isinstance(feat, Json)}


def iter_rows(dataset, columns: list[str] | None = None, *, batch_size: int = 4096) -> Iterable[dict]:
    """Rows of a loaded `datasets.Dataset` as dicts, straight from its Arrow batches.

    The same values as iterating the dataset (`Json` columns parsed), without the per-row
    formatting of `datasets`, which costs ~0.2 ms a row: 6 s for a 30,000-tool pool.
    """
    if dataset._indices is not None:  # a selected/shuffled view: materialise its order first
        dataset = dataset.flatten_indices()
    columns = list(columns or dataset.column_names)
    json_cols = _json_columns(dataset.features) & set(columns)
    for batch in dataset.data.table.select(columns).to_batches(max_chunksize=batch_size):
        values = {}
        for name in columns:
            col = batch.column(name)
            if name in json_cols:
                storage = col.storage if isinstance(col, pa.ExtensionArray) else col
                values[name] = [None if v is None else json.loads(v) for v in storage.to_pylist()]
            else:
                values[name] = col.to_pylist()
        for i in range(batch.num_rows):
            yield {name: vals[i] for name, vals in values.items()}


class RowLookup:
    """Rows of a loaded dataset by a key column, read from its Arrow table when asked (`rows(keys)`).

    What a stage keeps in memory is the key -> row numbers index (~100 bytes a row), not the rows: a
    107,000-operation pool is ~400 MB of Python dicts, ~10 MB of index. Rows are read one slice at a time,
    never by concatenating a column (a pool's text columns pass 2 GiB, Arrow's limit for one `string` array).

    Args:
        dataset: A loaded `datasets.Dataset`.
        key: The column to look rows up by (`id` of the `api_pool`, `domain_id` of the graph's `edges`).
        where: Optional `(column, predicate)` pairs: only rows whose value passes every predicate are indexed.
    """

    def __init__(self, dataset: Any, key: str = "id", where: dict[str, Any] | None = None):
        if dataset._indices is not None:
            dataset = dataset.flatten_indices()
        self._table = dataset.data.table
        self._json = _json_columns(dataset.features)
        keys = self._table.column(key).to_pylist()
        keep = [True] * len(keys)
        for column, test in (where or {}).items():
            keep = [k and test(v) for k, v in zip(keep, self._table.column(column).to_pylist(), strict=True)]
        self.index: dict[Any, list[int]] = {}
        for position, (value, kept) in enumerate(zip(keys, keep, strict=True)):
            if kept:
                self.index.setdefault(value, []).append(position)

    def __len__(self) -> int:
        return len(self.index)

    def __contains__(self, key: Any) -> bool:
        return key in self.index

    def get(self, key: Any, default: Any = None) -> Any:
        """The rows of one key (a list), or `default` when it has none."""
        return self.rows([key]) if key in self.index else default

    def count(self) -> int:
        """Rows indexed (every key's)."""
        return sum(len(p) for p in self.index.values())

    def rows(self, keys: Iterable[Any]) -> list[dict]:
        """The rows of `keys` that exist, in the order asked (all rows of a key in table order), `Json` parsed."""
        out = []
        for key in keys:
            for position in self.index.get(key, ()):
                row = self._table.slice(position, 1).to_pylist()[0]
                for name in self._json:
                    if row.get(name) is not None:
                        row[name] = json.loads(row[name])
                out.append(row)
        return out


class ShardWriter:
    """Stream rows into parquet shards of one config, in bounded memory.

    Rows are converted to Arrow `batch_size` at a time and written in row groups of about
    `row_group_rows`; a new shard starts every `rows_per_shard` rows. `Json` columns take any
    JSON-serialisable value. Column statistics are written for short columns only: min/max of
    JSON schemas and descriptions would bloat every footer (and the writer's memory) for no use.
    """

    #: Long free-text columns that get no parquet statistics.
    NO_STATS = frozenset({"description", "raw", "reason", "position"})

    def __init__(
        self,
        folder: Path,
        features: Features,
        *,
        prefix: str = "train",
        batch_size: int = 1_000,
        row_group_rows: int = 10_000,
        rows_per_shard: int = 250_000,
    ):
        self.folder = folder
        self.features = features
        self.schema = features.arrow_schema
        self.json_cols = _json_columns(features)
        self.stats_cols = [n for n in features if n not in self.json_cols and n not in self.NO_STATS]
        self.prefix = prefix
        self.batch_size = batch_size
        self.row_group_rows = row_group_rows
        self.rows_per_shard = rows_per_shard
        self.rows = 0
        self._buffer: list[dict] = []
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._writer: pq.ParquetWriter | None = None
        self._shard_rows = 0
        self._shards = 0
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, row: dict) -> None:
        self._buffer.append(row)
        if len(self._buffer) >= self.batch_size:
            self._convert()

    def write_many(self, rows: Iterable[dict]) -> None:
        for row in rows:
            self.write(row)

    def _convert(self) -> None:
        if not self._buffer:
            return
        rows, dumps = self._buffer, json.dumps
        columns = {
            name: [
                None if (v := row.get(name)) is None else dumps(v, ensure_ascii=False, default=str)
                for row in rows
            ]
            if name in self.json_cols
            else [row.get(name) for row in rows]
            for name in self.features
        }
        self._buffer = []
        self.write_table(pa.Table.from_pydict(columns, schema=self.schema))

    def write_table(self, table: pa.Table) -> None:
        """Append an Arrow table that already has this config's schema (no per-row work)."""
        if self._buffer:
            self._convert()
        if table.num_rows:
            self._pending.append(table)
            self._pending_rows += table.num_rows
            self.rows += table.num_rows
        if self._pending_rows >= self.row_group_rows:
            self._write_pending()

    def _write_pending(self) -> None:
        if not self._pending:
            return
        if self._writer is None or self._shard_rows >= self.rows_per_shard:
            self._open_shard()
        table = pa.concat_tables(self._pending)
        self._pending, self._pending_rows = [], 0
        self._writer.write_table(table, row_group_size=max(table.num_rows, 1))
        self._shard_rows += table.num_rows

    def _open_shard(self) -> None:
        if self._writer is not None:
            self._writer.close()
        path = self.folder / f"{self.prefix}-{self._shards:05d}.parquet"
        self._shards += 1
        self._writer = pq.ParquetWriter(path, self.schema, write_statistics=self.stats_cols)
        self._shard_rows = 0

    def files(self) -> list[Path]:
        """The shards written so far (all of them once closed)."""
        return sorted(self.folder.glob(f"{self.prefix}-*.parquet"))

    def close(self) -> int:
        """Write what is buffered and close; returns the number of rows. An empty config writes no file."""
        self._convert()
        self._write_pending()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        return self.rows


def _lock(root: Path):
    from filelock import FileLock

    return FileLock(str(root / LOCK))


@dataclass
class ArtifactWriter:
    """Write one new version of an artifact at `root`; one writer per artifact at a time.

    Use it as a context manager: entering takes the artifact's lock (a second writer, in this process
    or another, fails at once with :class:`ArtifactLockedError`; the operating system releases the
    lock of a killed process), leaving releases it. Work goes to `root/.staging/<fingerprint>/`;
    :meth:`commit` checks that every config's files hold the counted rows, writes the manifest and
    card, and renames the folder to `versions/vN` atomically. Stages keep resumable partial results
    in :attr:`parts_dir` (same fingerprint = same config and inputs, so they are reusable; a stage
    still checks the content of what it reuses).
    """

    root: Path
    kind: ArtifactKind
    fingerprint: str
    config: dict = field(default_factory=dict)
    inputs: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root = Path(self.root).absolute()
        self.staging = self.root / ".staging" / self.fingerprint
        self.started = time.time()
        # Shard names carry a per-write id. `datasets` caches a local folder's data by folder name and
        # *unresolved* data_files patterns, so two artifacts named alike (`a/api_pool`, `b/api_pool`)
        # would otherwise share a cache entry; the id also tells a version's own files from strays.
        self.data_id = secrets.token_hex(4)
        self._lock = None

    def __enter__(self) -> ArtifactWriter:
        from filelock import Timeout

        if self.root.exists() and not self.root.is_dir():
            raise ArtifactError(f"output {self.root} is a file, not a folder")
        self.root.mkdir(parents=True, exist_ok=True)
        lock = _lock(self.root)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise ArtifactLockedError(
                f"another envscale run is writing {self.root} (it holds {self.root / LOCK}); wait for it to "
                "finish, or write to another --output"
            ) from None
        self._lock = lock
        self.staging.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _require_lock(self) -> None:
        if self._lock is None:
            raise RuntimeError("ArtifactWriter used outside `with ArtifactWriter(...) as writer:`")

    @property
    def parts_dir(self) -> Path:
        self._require_lock()
        path = self.staging / "_parts"
        path.mkdir(exist_ok=True)
        return path

    def shard_writer(self, config: str, split: str = "train", **kwargs: Any) -> ShardWriter:
        """A :class:`ShardWriter` for one split of one config; that split is rewritten whole."""
        self._require_lock()
        if config not in self.kind.configs:
            raise ValueError(f"{self.kind.name} has no config {config!r}")
        if split not in self.kind.splits_of(config):
            raise ValueError(
                f"{self.kind.name} config {config!r} has no split {split!r}; "
                f"splits: {', '.join(self.kind.splits_of(config))}"
            )
        folder = self.staging / config
        for old in folder.glob(f"{split}-*.parquet"):  # files of an earlier attempt at this split
            old.unlink()
        return ShardWriter(folder, self.kind.configs[config], prefix=f"{split}-{self.data_id}", **kwargs)

    def _split_counts(self, counts: dict[str, int | dict[str, int]]) -> dict[str, dict[str, int]]:
        """`counts` as rows per config and split (an int is the split `train`); every declared split listed."""
        missing = set(self.kind.configs) - set(counts)
        if missing:
            raise ValueError(f"commit of {self.kind.name} lacks configs {sorted(missing)}")
        unknown = set(counts) - set(self.kind.configs)
        if unknown:
            raise ValueError(f"commit of {self.kind.name} counts unknown configs {sorted(unknown)}")
        result = {}
        for config, value in counts.items():
            declared = self.kind.splits_of(config)
            per_split = dict(value) if isinstance(value, dict) else {"train": value}
            bad = set(per_split) - set(declared)
            if bad:
                raise ValueError(
                    f"commit of {self.kind.name}: config {config!r} has no splits {sorted(bad)}; "
                    f"splits: {', '.join(declared)}"
                )
            for split, n in per_split.items():
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ValueError(
                        f"commit of {self.kind.name}: {config}/{split} count {n!r} is not a row count"
                    )
            result[config] = {split: per_split.get(split, 0) for split in declared}
        return result

    def _remove_strays(self, splits: dict[str, dict[str, int]]) -> None:
        """Delete parquet files in the staging config folders that this write did not make (earlier attempts)."""
        for config, per_split in splits.items():
            mine = tuple(f"{split}-{self.data_id}-" for split in per_split)
            for path in (self.staging / config).glob("*.parquet"):
                if not path.name.startswith(mine):
                    path.unlink()

    def commit(
        self,
        counts: dict[str, int | dict[str, int]],
        stats: dict | None = None,
        inputs: list[dict] | None = None,
    ) -> Artifact:
        """Check, seal the staging folder as the next version, and point the top-level card at it.

        Args:
            counts: rows written per config (checked against the files): an int for a config's one
                split `train`, or `{split: rows}` for a config with several splits.
            stats: stage statistics for the manifest and card.
            inputs: the stage's inputs, when only known at the end (files read by `collect`).
        """
        self._require_lock()
        splits = self._split_counts(counts)
        inputs = self.inputs if inputs is None else inputs
        for entry in inputs:  # an artifact input is also found relative to this one (a moved run folder)
            if entry.get("path") and "relative" not in entry:
                entry["relative"] = os.path.relpath(entry["path"], self.root)
        manifest = {
            "kind": self.kind.name,
            "schema_version": self.kind.schema_version,
            "envscale_version": __version__,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(time.time() - self.started, 3),
            "fingerprint": self.fingerprint,
            "data_id": self.data_id,
            "config": self.config,
            "inputs": inputs,
            "counts": {config: sum(per_split.values()) for config, per_split in splits.items()},
            "stats": stats or {},
        }
        several = {c: per_split for c, per_split in splits.items() if len(self.kind.splits_of(c)) > 1}
        if several:  # a config with the one split `train` is its count alone, as before splits existed
            manifest["splits"] = several
        versions_dir = self.root / "versions"
        versions_dir.mkdir(parents=True, exist_ok=True)
        existing = [int(m.group(1)) for p in versions_dir.iterdir() if (m := _VERSION_DIR.match(p.name))]
        version = f"v{max(existing, default=0) + 1}"  # the lock makes this number ours
        manifest["version"] = version
        self._remove_strays(splits)
        check_data(self.staging, manifest, f"{self.root} (new version {version}, not committed)")
        manifest["files"] = data_files(self.staging, manifest)  # an in-place edit is caught on the next read
        # The card is rendered before the resumable parts are removed: a failure here loses no work.
        _write_version_files(self.staging, self.kind, manifest, str(versions_dir / version))
        shutil.rmtree(self.staging / "_parts", ignore_errors=True)
        os.rename(self.staging, versions_dir / version)
        _point_root_at(self.root, self.kind, version, manifest)
        return Artifact(location=str(self.root), version=version, manifest=manifest)


def _write_version_files(folder: Path, kind: ArtifactKind, manifest: dict, load_target: str) -> None:
    import yaml

    (folder / "README.md").write_text(render_card(kind, manifest, folder, prefix="", load_target=load_target))
    (folder / "config.yaml").write_text(
        yaml.safe_dump(manifest["config"], sort_keys=False, allow_unicode=True)
    )
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n")


def _point_root_at(root: Path, kind: ArtifactKind, version: str, manifest: dict) -> None:
    """Rewrite the top-level card and manifest to the given version (atomic replace each)."""
    card = render_card(
        kind, manifest, root / "versions" / version, prefix=f"versions/{version}/", load_target=str(root)
    )
    for name, text in (
        ("README.md", card),
        (MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False, default=str) + "\n"),
    ):
        tmp = root / f".{name}.tmp"
        tmp.write_text(text)
        os.replace(tmp, root / name)


def is_complete(root: str | Path, fingerprint: str) -> Artifact | None:
    """The latest version at `root` if it was made from the same config and unchanged inputs, else None."""
    try:
        art = open_artifact(Path(root))
    except ArtifactError:
        return None
    if art.manifest.get("fingerprint") != fingerprint or not art.manifest.get("stats", {}).get(
        "complete", True
    ):
        return None
    return None if changed_inputs(art.manifest) else art
