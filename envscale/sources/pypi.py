"""Function docs shipped inside a PyPI package (`pypi:REQUIREMENT[!MEMBER_GLOBS]`).

Benchmarks and toolkits often ship their function docs as package data (BFCL ships ~1,850
in `bfcl-eval`). This source fetches the wheel with `pip download --no-deps` (so the package's
own, possibly conflicting, dependencies are never installed), caches it, and reads the JSON
members with the `json` reader. Provenance records the exact package version and licence.

Example (recipe):

```yaml
sources:
  - "pypi:bfcl-eval==2026.3.23!bfcl_eval/data/multi_turn_func_doc/*.json"
```
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .base import RawError, RawTool, SourceError, SourceInfo
from .json_docs import read_archive


def wheel_cache_dir() -> Path:
    """Where fetched wheels are kept (`$ENVSCALE_CACHE/wheels`, default `~/.cache/envscale/wheels`)."""
    root = os.environ.get("ENVSCALE_CACHE") or Path.home() / ".cache" / "envscale"
    return Path(root) / "wheels"


def _dist_name(requirement: str) -> str:
    match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    if not match:
        raise SourceError(
            f"{requirement!r} is not a package requirement (expected e.g. 'bfcl-eval==2026.3.23')"
        )
    return re.sub(r"[-_.]+", "_", match.group(1)).lower()


def fetch_wheel(requirement: str, timeout: float = 300.0) -> Path:
    """Return a local wheel for `requirement`, downloading it with pip when not cached."""
    cache = wheel_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    dist = _dist_name(requirement)
    pinned = re.search(r"==\s*([^\s,;]+)\s*$", requirement)
    if pinned:
        cached = sorted(
            p for p in cache.glob("*.whl") if p.name.lower().startswith(f"{dist}-{pinned.group(1)}-")
        )
        if cached:
            return cached[-1]
    before = set(cache.glob("*.whl"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(cache),
        requirement,
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SourceError(f"pip download {requirement!r} timed out after {timeout:.0f}s") from None
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-3:])
        raise SourceError(f"pip download {requirement!r} failed (exit {proc.returncode}): {tail}")
    candidates = [p for p in cache.glob("*.whl") if p.name.lower().startswith(f"{dist}-")]
    fresh = [p for p in candidates if p not in before] or candidates
    if not fresh:
        raise SourceError(f"pip download {requirement!r} produced no wheel in {cache}")
    return max(fresh, key=lambda p: p.stat().st_mtime)


def wheel_metadata(wheel: Path) -> tuple[str | None, str | None, str | None]:
    """(name, version, licence) from a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next((n for n in zf.namelist() if n.endswith(".dist-info/METADATA")), None)
        if meta_name is None:
            return None, None, None
        fields: dict[str, str] = {}
        for line in zf.read(meta_name).decode("utf-8", "replace").splitlines():
            if not line.strip():
                break  # headers end at the first blank line
            key, _, value = line.partition(":")
            if key in ("Name", "Version", "License-Expression", "License") and key not in fields:
                fields[key] = value.strip()
            elif (
                key == "Classifier" and value.strip().startswith("License ::") and "Classifier" not in fields
            ):
                fields["Classifier"] = value.strip().rsplit("::", 1)[-1].strip()
    licence = fields.get("License-Expression") or fields.get("License") or fields.get("Classifier")
    return fields.get("Name"), fields.get("Version"), licence


def read_pypi(target: str, info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Yield the tools of the JSON members (default: all `*.json`/`*.jsonl`) of a package's wheel."""
    requirement, _, members = target.partition("!")
    wheel = fetch_wheel(requirement.strip())
    name, version, licence = wheel_metadata(wheel)
    info.title, info.version, info.license = name, version, licence
    patterns = members.split(",") if members else ["*.json", "*.jsonl"]
    yield from read_archive(wheel, patterns, info)
