"""Loopback fake of the Hugging Face Hub, for tests.

This is a protocol-level FAKE of the Hugging Face Hub for tests; no real Hub is reachable here.

It answers, over plain HTTP on 127.0.0.1, the part of the Hub API that the real `huggingface_hub` client
(`HfApi`, `hf_hub_download`, `HfFileSystem`) and `datasets` (`load_dataset`, `push_to_hub`) call for model and
dataset repos. Repos have git-like semantics: every commit gets a new 40-hex id and points at its parent,
branches and tags point at commits, and files can be read at any revision (branch, tag or commit id). Large
and binary files go through the LFS protocol (preupload, batch, PUT). Everything is kept in memory.

Two stand-ins for a Hub that does not work, for testing timeouts and errors: `start_silent_server()` accepts
connections and never answers (a hung proxy or server), and `refusing_endpoint()` is a loopback port that nothing
listens on (no network / wrong `HF_ENDPOINT`).

Not implemented: Xet storage, pull requests, pagination, private or gated repos, the dataset viewer, chunked
request bodies (the clients always send `Content-Length`). Requests to unknown routes answer 404, are printed
to stderr and recorded in `HubFake.unhandled`.

Example:

```python
>>> from huggingface_hub import HfApi
>>> hub = start_hub_fake()
>>> api = HfApi(endpoint=hub.endpoint, token=hub.token)
>>> api.create_repo("org/name", repo_type="dataset")
>>> hub.stop()
>>> silent = start_silent_server()  # HfApi(endpoint=silent.endpoint) now waits for an answer that never comes
>>> silent.stop()
```
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import socket
import sys
import threading
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

FAKE_TOKEN = "hf_hubfake_write_token"
_URL_PREFIXES = {"model": "", "dataset": "datasets/", "space": "spaces/"}
_LFS_SUFFIXES = (".parquet", ".arrow", ".bin", ".safetensors", ".pt", ".pth", ".npy", ".npz", ".zip", ".gz")
_GITATTRIBUTES = b"".join(b"*%s filter=lfs diff=lfs merge=lfs -text\n" % s.encode() for s in _LFS_SUFFIXES)
_API = r"/api/(?P<kind>model|dataset|space)s/(?P<repo_id>[^/]+/[^/]+)"
_GIT = r"/(?:(?P<kind>dataset|space)s/)?(?P<repo_id>[^/]+/[^/]+)"
# (methods, path regex, handler method name, needs the write token)
_ROUTES = [
    ({"GET"}, r"/api/whoami-v2", "_whoami", True),
    ({"GET"}, r"/api/agent-harnesses", "_agent_harnesses", False),
    ({"POST"}, r"/api/repos/create", "_create_repo", True),
    ({"POST"}, r"/api/validate-yaml", "_validate_yaml", False),
    ({"GET"}, _API + r"(?:/revision/(?P<rev>[^/]+))?", "_repo_info", False),
    ({"GET"}, _API + r"/refs", "_refs", False),
    ({"GET"}, _API + r"/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?", "_tree", False),
    ({"POST"}, _API + r"/paths-info/(?P<rev>[^/]+)", "_paths_info", False),
    ({"GET"}, _API + r"/commits/(?P<rev>[^/]+)", "_commits", False),
    ({"POST"}, _API + r"/preupload/(?P<rev>[^/]+)", "_preupload", True),
    ({"POST"}, _API + r"/commit/(?P<rev>[^/]+)", "_commit", True),
    ({"POST", "DELETE"}, _API + r"/(?P<ref>tag|branch)/(?P<rev>[^/]+)", "_ref", True),
    ({"POST"}, _GIT + r"\.git/info/lfs/objects/batch", "_lfs_batch", True),
    ({"PUT"}, r"/lfs-upload/(?P<oid>[0-9a-f]{64})", "_lfs_upload", False),
    ({"GET", "HEAD"}, _GIT + r"/resolve/(?P<rev>[^/]+)/(?P<path>.+)", "_resolve", False),
]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _git_oid(kind: str, data: bytes) -> str:
    return hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)) + data).hexdigest()


@dataclass(frozen=True)
class _File:
    """One version of a file: its content, and whether it is stored with LFS."""

    data: bytes
    lfs: bool

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def pointer(self) -> bytes:
        """The git-lfs pointer file that git stores in place of an LFS file."""
        pointer = (
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.sha256}\nsize {len(self.data)}\n"
        )
        return pointer.encode()

    @property
    def oid(self) -> str:
        """The git blob id (of the pointer file for LFS files), as the Hub reports it."""
        return _git_oid("blob", self.pointer if self.lfs else self.data)


@dataclass
class _Commit:
    oid: str
    title: str
    message: str
    date: str
    parent: _Commit | None
    files: dict[str, _File]

    def tree_oid(self, folder: str) -> str:
        """A stable id for the content under `folder` (`""` for the root)."""
        prefix = folder + "/" if folder else ""
        listing = "".join(f"{p} {f.oid}\n" for p, f in sorted(self.files.items()) if p.startswith(prefix))
        return _git_oid("tree", listing.encode())

    def version(self, path: str) -> str | None:
        """The id of `path` (file or folder) in this commit, `None` if it does not exist."""
        if path in self.files:
            return self.files[path].oid
        return self.tree_oid(path) if any(p.startswith(path + "/") for p in self.files) else None

    def last_change(self, path: str) -> _Commit:
        """The oldest commit of the unbroken line of ancestors in which `path` has the same content."""
        commit = self
        while commit.parent is not None and commit.parent.version(path) == commit.version(path):
            commit = commit.parent
        return commit


@dataclass
class _Repo:
    kind: str
    repo_id: str
    created_at: str = field(default_factory=_now)
    commits: dict[str, _Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def at(self, rev: str) -> _Commit:
        """The commit a branch name, tag name or full commit id points at; 404 `RevisionNotFound` if none."""
        oid = self.branches.get(rev) or self.tags.get(rev) or rev
        if oid not in self.commits:
            raise _HttpError(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        return self.commits[oid]


class _HttpError(Exception):
    """An error answer in the Hub's shape: `X-Error-Code` / `X-Error-Message` headers and `{"error": ...}`."""

    def __init__(self, status: int, code: str | None, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


class HubFake:
    """A running fake Hub: in-memory repos plus the HTTP server that exposes them.

    Attributes:
        endpoint (`str`):
            Base URL to use as `HF_ENDPOINT` / `HfApi(endpoint=...)`, e.g. `"http://127.0.0.1:40123"`.
        token (`str`):
            The only token accepted for write operations.
        unhandled (`list[str]`):
            `"METHOD path"` of every request that matched no route (answered with 404).
    """

    def __init__(self) -> None:
        self.token = FAKE_TOKEN
        self.unhandled: list[str] = []
        self.repos: dict[tuple[str, str], _Repo] = {}
        self.lfs_objects: dict[str, bytes] = {}
        self.lock = threading.Lock()
        self._counter = itertools.count()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.hub = self
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="hubfake", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Shut the server down and wait for its thread."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def repo_url(self, kind: str, repo_id: str) -> str:
        """The web URL of a repo, e.g. `{endpoint}/datasets/org/name`."""
        return f"{self.endpoint}/{_URL_PREFIXES[kind]}{repo_id}"

    def get_repo(self, kind: str, repo_id: str) -> _Repo:
        """The repo `repo_id` of type `kind`; 404 `RepoNotFound` if it does not exist."""
        repo = self.repos.get((kind, repo_id))
        if repo is None:
            raise _HttpError(404, "RepoNotFound", "Repository not found")
        return repo

    def create_repo(self, kind: str, repo_id: str) -> _Repo:
        """Create a repo whose `main` branch holds one initial commit with a `.gitattributes` file."""
        repo = self.repos[(kind, repo_id)] = _Repo(kind, repo_id)
        self.commit(repo, "main", "initial commit", "", {".gitattributes": _File(_GITATTRIBUTES, False)})
        return repo

    def commit(self, repo: _Repo, branch: str, title: str, message: str, files: dict[str, _File]) -> _Commit:
        """Record a commit with the full file snapshot `files` on top of `branch` and move `branch` to it."""
        parent = repo.commits.get(repo.branches.get(branch, ""))
        seed = f"{repo.repo_id}\n{parent.oid if parent else ''}\n{title}\n{next(self._counter)}\n{_now()}"
        oid = hashlib.sha1(seed.encode()).hexdigest()
        repo.commits[oid] = _Commit(oid, title, message, _now(), parent, files)
        repo.branches[branch] = oid
        return repo.commits[oid]


class _Handler(BaseHTTPRequestHandler):
    """Sends each request to a `_<name>` method, which returns `(status, body, headers)` or raises."""

    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def do_GET(self) -> None:
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_GET

    def log_message(self, format: str, *args) -> None:
        """Silence the per-request access log; unknown routes are reported by `_dispatch`."""

    @property
    def hub(self) -> HubFake:
        return self.server.hub

    def _dispatch(self) -> None:
        url = urlsplit(self.path)
        self.query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        self.body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        for methods, pattern, name, needs_token in _ROUTES:
            match = re.fullmatch(pattern, url.path)
            if match and self.command in methods:
                params = {k: unquote(v) for k, v in match.groupdict().items() if v is not None}
                try:
                    if needs_token and self.headers.get("Authorization") != f"Bearer {self.hub.token}":
                        raise _HttpError(401, None, "Invalid credentials in Authorization header")
                    with self.hub.lock:
                        self._send(*getattr(self, name)(**params))
                except _HttpError as e:
                    headers = {"X-Error-Message": e.message, **e.headers}
                    if e.code:
                        headers["X-Error-Code"] = e.code
                    self._send(e.status, {"error": e.message}, headers)
                except Exception as e:  # a bug in the fake: answer 500 rather than drop the connection
                    traceback.print_exc()
                    self._send(500, {"error": f"hubfake crashed: {e!r}"})
                return
        self.hub.unhandled.append(f"{self.command} {self.path}")
        print(f"hubfake: no route for {self.command} {self.path}", file=sys.stderr)
        self._send(404, {"error": f"hubfake: no route for {self.command} {url.path}"})

    def _send(self, status: int, body: object = b"", headers: dict[str, str] | None = None) -> None:
        content_type = "application/octet-stream"
        if not isinstance(body, bytes):
            body, content_type = json.dumps(body).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self) -> dict:
        try:
            return json.loads(self.body or b"{}")
        except json.JSONDecodeError as e:
            raise _HttpError(400, None, f"Invalid JSON body: {e}") from e

    def _flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")

    def _entry(self, commit: _Commit, path: str, expand: bool) -> dict:
        """A `tree` / `paths-info` item for the file or folder `path` of `commit`."""
        file = commit.files.get(path)
        if file is None:
            entry = {"type": "directory", "oid": commit.tree_oid(path), "size": 0, "path": path}
        else:
            entry = {"type": "file", "oid": file.oid, "size": len(file.data), "path": path}
            if file.lfs:
                entry["lfs"] = {"oid": file.sha256, "size": len(file.data), "pointerSize": len(file.pointer)}
        if expand:
            last = commit.last_change(path)
            entry["lastCommit"] = {"id": last.oid, "title": last.title, "date": last.date}
        return entry

    def _whoami(self):
        return 200, {"type": "user", "name": "hubfake", "fullname": "Hub Fake", "orgs": []}, None

    def _agent_harnesses(self):
        return 200, {"standardEnvVars": [], "harnesses": {}}, None

    def _create_repo(self):
        payload = self._json()
        kind = payload.get("type") or "model"
        repo_id = f"{payload['organization'] or 'hubfake'}/{payload['name']}"
        url = self.hub.repo_url(kind, repo_id)
        if (kind, repo_id) in self.hub.repos:
            return 409, {"error": f"You already created this {kind} repo", "url": url}, None
        self.hub.create_repo(kind, repo_id)
        return 200, {"url": url, "name": repo_id}, None

    def _validate_yaml(self):
        return 200, {"errors": [], "warnings": []}, None

    def _repo_info(self, kind, repo_id, rev="main"):
        repo = self.hub.get_repo(kind, repo_id)
        commit = repo.at(rev)
        siblings = []
        for path, file in sorted(commit.files.items()):
            sibling = {"rfilename": path}
            if self._flag("blobs"):  # files_metadata=True
                lfs = {"sha256": file.sha256, "size": len(file.data), "pointerSize": len(file.pointer)}
                sibling.update(size=len(file.data), blobId=file.oid, lfs=lfs if file.lfs else None)
            siblings.append(sibling)
        info = {"id": repo_id, "author": repo_id.split("/")[0], "sha": commit.oid, "private": False}
        info.update(createdAt=repo.created_at, lastModified=commit.date, gated=False, disabled=False)
        return 200, {**info, "siblings": siblings}, None

    def _refs(self, kind, repo_id):
        repo = self.hub.get_repo(kind, repo_id)

        def refs(names: dict[str, str], prefix: str) -> list[dict]:
            return [{"name": n, "ref": f"refs/{prefix}/{n}", "targetCommit": oid} for n, oid in names.items()]

        body = {"branches": refs(repo.branches, "heads"), "tags": refs(repo.tags, "tags"), "converts": []}
        return 200, {**body, "pullRequests": []}, None

    def _tree(self, kind, repo_id, rev, path=""):
        commit = self.hub.get_repo(kind, repo_id).at(rev)
        folder, recursive = path.strip("/"), self._flag("recursive")
        prefix = folder + "/" if folder else ""
        found: set[str] = set()
        for file_path in commit.files:
            if not file_path.startswith(prefix):
                continue
            parts = file_path[len(prefix) :].split("/")
            depth = len(parts) if recursive else 1
            found.update(prefix + "/".join(parts[:i]) for i in range(1, depth + 1))
        if folder and not found:
            raise _HttpError(404, "EntryNotFound", f"{folder} does not exist on {rev}")
        return 200, [self._entry(commit, p, self._flag("expand")) for p in sorted(found)], None

    def _paths_info(self, kind, repo_id, rev):
        commit = self.hub.get_repo(kind, repo_id).at(rev)
        form = parse_qs(self.body.decode())
        expand = form.get("expand", [""])[-1].lower() in ("1", "true")
        paths = [p.strip("/") for p in form.get("paths", [])]
        return 200, [self._entry(commit, p, expand) for p in paths if commit.version(p) is not None], None

    def _commits(self, kind, repo_id, rev):
        commit, history = self.hub.get_repo(kind, repo_id).at(rev), []
        while commit is not None:
            item = {"id": commit.oid, "title": commit.title, "message": commit.message, "date": commit.date}
            history.append({**item, "authors": [{"user": "hubfake"}]})
            commit = commit.parent
        return 200, history, None

    def _preupload(self, kind, repo_id, rev):
        commit = self.hub.get_repo(kind, repo_id).at(rev)
        answers = []
        for item in self._json().get("files", []):
            path, sample = item["path"], base64.b64decode(item.get("sample", ""))
            lfs = path.endswith(_LFS_SUFFIXES) or b"\0" in sample
            answer = {"path": path, "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False}
            if (remote := commit.files.get(path)) is not None:
                answer["oid"] = remote.sha256 if lfs else remote.oid
            answers.append(answer)
        return 200, {"files": answers, "commitOid": commit.oid}, None

    def _commit(self, kind, repo_id, rev):
        repo = self.hub.get_repo(kind, repo_id)
        if self._flag("create_pr"):
            raise _HttpError(400, None, "hubfake does not support pull requests")
        if rev not in repo.branches:
            raise _HttpError(404, "RevisionNotFound", f"Invalid rev id: {rev} is not a branch")
        lines = [json.loads(line) for line in self.body.decode().splitlines() if line.strip()]
        header = next((line["value"] for line in lines if line["key"] == "header"), {})
        files = dict(repo.at(rev).files)
        if header.get("parentCommit") not in (None, repo.branches[rev]):
            raise _HttpError(412, None, f"A commit has happened since {header['parentCommit']}")
        for line in lines:
            key, value = line["key"], line["value"]
            if key == "file":
                files[value["path"]] = _File(base64.b64decode(value["content"]), False)
            elif key == "lfsFile":
                if value["oid"] not in self.hub.lfs_objects:
                    raise _HttpError(422, None, f"LFS object {value['oid']} was never uploaded")
                files[value["path"]] = _File(self.hub.lfs_objects[value["oid"]], True)
            elif key == "deletedFile":
                files.pop(value["path"], None)
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: f for p, f in files.items() if not p.startswith(prefix)}
        commit = self.hub.commit(repo, rev, header.get("summary", ""), header.get("description", ""), files)
        url = f"{self.hub.repo_url(kind, repo_id)}/commit/{commit.oid}"
        return 200, {"success": True, "commitOid": commit.oid, "commitUrl": url, "pullRequestUrl": None}, None

    def _ref(self, kind, repo_id, ref, rev):
        repo = self.hub.get_repo(kind, repo_id)
        refs = repo.tags if ref == "tag" else repo.branches
        if self.command == "DELETE":
            if refs.pop(rev, None) is None:
                raise _HttpError(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return 200, {}, None
        payload = self._json()
        # create_tag POSTs to tag/{revision to tag} with {"tag": name}; create_branch to branch/{name}.
        name, target = (payload["tag"], rev) if ref == "tag" else (rev, payload.get("startingPoint", "main"))
        if name in refs:
            raise _HttpError(409, None, f"{ref.capitalize()} {name} already exists")
        refs[name] = repo.at(target).oid
        return 200, {}, None

    def _lfs_batch(self, repo_id, kind="model"):
        self.hub.get_repo(kind, repo_id)
        payload = self._json()
        if payload.get("operation") != "upload":
            raise _HttpError(400, None, "hubfake only supports LFS uploads")
        objects = []
        for obj in payload.get("objects", []):
            answer = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
            if obj["oid"] not in self.hub.lfs_objects:
                answer["actions"] = {"upload": {"href": f"{self.hub.endpoint}/lfs-upload/{obj['oid']}"}}
            objects.append(answer)
        return 200, {"transfer": "basic", "objects": objects}, None

    def _lfs_upload(self, oid):
        if hashlib.sha256(self.body).hexdigest() != oid:
            raise _HttpError(400, None, "Uploaded content does not match its sha256 oid")
        self.hub.lfs_objects[oid] = self.body
        return 200, b"", {"ETag": f'"{oid}"'}

    def _resolve(self, repo_id, rev, path, kind="model"):
        commit = self.hub.get_repo(kind, repo_id).at(rev)
        file = commit.files.get(path)
        if file is None:
            raise _HttpError(404, "EntryNotFound", f"{path} does not exist", {"X-Repo-Commit": commit.oid})
        size = len(file.data)
        headers = {"X-Repo-Commit": commit.oid, "ETag": f'"{file.sha256 if file.lfs else file.oid}"'}
        headers["Accept-Ranges"] = "bytes"
        if file.lfs:
            headers.update({"X-Linked-Etag": f'"{file.sha256}"', "X-Linked-Size": str(size)})
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if match is None:
            return 200, file.data, headers
        start, end = int(match[1]), min(int(match[2] or size - 1), size - 1)
        if start >= size:
            raise _HttpError(416, None, "Range not satisfiable", {"Content-Range": f"bytes */{size}"})
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        return 206, file.data[start : end + 1], headers


def start_hub_fake() -> HubFake:
    """Start a fake Hub on a free port of 127.0.0.1 and return it; call `.stop()` when done.

    Returns:
        [`HubFake`]: the running fake, with `.endpoint`, `.token`, `.unhandled` and `.stop()`.
    """
    return HubFake()


class SilentServer:
    """A loopback TCP server that accepts every connection and never answers (or never finishes answering).

    Args:
        stall_body (`bool`, *optional*, defaults to `False`):
            Answer each request's head with `200 OK`, `Content-Length: 1000` and 10 bytes of body, then stall
            (a download that stops in the middle) instead of sending nothing at all.
        trickle (`float`, *optional*, defaults to `0`):
            With `stall_body`: after the 10 bytes, send the rest of the body a byte every `trickle` seconds
            (a download that never stops long enough for a read timeout, and never ends in practice).

    Attributes:
        endpoint (`str`):
            Base URL to use as `HF_ENDPOINT`, e.g. `"http://127.0.0.1:40123"`.
        accepted (`int`):
            How many connections were accepted so far (each attempt of a client shows up here).
    """

    def __init__(self, stall_body: bool = False, trickle: float = 0.0) -> None:
        self.stall_body, self.trickle = stall_body, trickle
        self.accepted = 0
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._listener.settimeout(0.05)
        self.endpoint = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, name="silent-server", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed by stop()
                return
            with self._lock:
                self.accepted += 1
                self._connections.append(conn)
            if self.stall_body:
                self._answer_partly(conn)
                if self.trickle > 0:
                    threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()
            # Otherwise the request bytes stay unread in the socket buffer: nothing is ever sent back.

    @staticmethod
    def _answer_partly(conn: socket.socket) -> None:
        conn.settimeout(5)
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                head += chunk
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n"
            )
            conn.sendall(b"0123456789")
        except OSError:
            pass

    def _trickle(self, conn: socket.socket) -> None:
        for _ in range(990):
            if self._stopped.wait(self.trickle):
                return
            try:
                conn.sendall(b"x")
            except OSError:  # the client hung up
                return

    def stop(self) -> None:
        """Close the listener and every accepted connection (a waiting client then sees the connection drop)."""
        self._stopped.set()
        self._thread.join(timeout=5)
        self._listener.close()
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()


def start_silent_server(stall_body: bool = False, trickle: float = 0.0) -> SilentServer:
    """Start a server on a free port of 127.0.0.1 that accepts connections and never answers.

    Args:
        stall_body (`bool`, *optional*, defaults to `False`):
            Send the head of an answer and the start of its body, then stall (see [`SilentServer`]).
        trickle (`float`, *optional*, defaults to `0`):
            With `stall_body`, then send a byte every `trickle` seconds (see [`SilentServer`]).

    Returns:
        [`SilentServer`]: the running server, with `.endpoint`, `.accepted` and `.stop()`.
    """
    return SilentServer(stall_body, trickle)


class RefusingEndpoint:
    """A loopback port that is reserved (bound) but not listening, so every connection to it is refused.

    Holding the bound socket keeps the port from being reused by anything else while a test runs.

    Attributes:
        endpoint (`str`):
            Base URL to use as `HF_ENDPOINT`, e.g. `"http://127.0.0.1:40123"`.
    """

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def stop(self) -> None:
        """Release the port."""
        self._socket.close()


def refusing_endpoint() -> RefusingEndpoint:
    """Reserve a loopback port that refuses every connection (like a Hub that cannot be reached).

    Returns:
        [`RefusingEndpoint`]: with `.endpoint` and `.stop()`.
    """
    return RefusingEndpoint()
