"""Publishing and reading artifacts through the real huggingface_hub / datasets code paths.

No Hugging Face Hub is reachable here: these tests run against `tests/hubfake.py`, a
protocol-level FAKE of the Hub on loopback (the `hub_fake` fixture), and against broken Hubs:
one that accepts connections and never answers (`hub_silent`) and a port that refuses every
connection (`hub_unreachable`), both with `ENVSCALE_HUB_TIMEOUT=2`. The tests against a silent
Hub carry a `timeout` mark: without a client-side time limit they would wait forever.
"""

import logging
import sys
from pathlib import Path

import pytest
from datasets import Dataset, load_dataset
from huggingface_hub import HfApi

from envscale.artifacts import IncompatibleSchemaError, open_artifact
from envscale.cards import BEGIN, END
from envscale.cli import main
from envscale.publish import TagExistsError, push_artifact
from envscale.sources.collect import CollectConfig, collect

FIX = "tests/fixtures/json"


def test_push_then_read_back_pinned_versions(hub_fake, tmp_path, capsys):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    assert main(["push", str(out), "lab/tools"]) == 0
    assert "tag v1" in capsys.readouterr().out
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json", f"json:{FIX}/xlam_style.jsonl"]), out)
    second = push_artifact(str(out), "lab/tools")
    assert second["tag"] == "v2"

    # The real datasets loader reads each tagged version, and main holds the latest one only.
    assert load_dataset("lab/tools", "api_pool", revision="v1", split="train").num_rows == 2
    assert load_dataset("lab/tools", "api_pool", split="train").num_rows == 4
    assert open_artifact("lab/tools@v2").load("rejected").num_rows == 0  # empty configs load empty
    v1 = open_artifact("lab/tools@v1", expect_kind="api_pool")
    assert v1.is_hub and v1.manifest["version"] == "v1" and len(v1.revision) == 40
    assert v1.pinned == f"hf://lab/tools@{v1.revision}"
    assert sorted(v1.load("api_pool")["name"]) == ["book_flight", "get_weather"]
    refs = HfApi().list_repo_refs("lab/tools", repo_type="dataset")
    assert {t.name for t in refs.tags} == {"v1", "v2"}

    # Pushing a version under an existing tag is refused instead of silently moving it.
    with pytest.raises(TagExistsError, match="--tag"):
        push_artifact(f"{out}@v1", "lab/tools")


def test_push_merges_the_card_people_edited(hub_fake, tmp_path):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    push_artifact(str(out), "lab/cards")
    api = HfApi()
    card = Path(api.hf_hub_download("lab/cards", "README.md", repo_type="dataset")).read_text()
    assert BEGIN in card and 'load_dataset("lab/cards", "api_pool"' in card
    edited = card.replace("---\n", "---\nlicense: apache-2.0\n", 1).replace(
        BEGIN, "Hand-written notes.\n\n" + BEGIN
    )
    api.upload_file(
        path_or_fileobj=edited.encode(), path_in_repo="README.md", repo_id="lab/cards", repo_type="dataset"
    )
    collect(CollectConfig(sources=[f"json:{FIX}/xlam_style.jsonl"]), out)
    push_artifact(str(out), "lab/cards")
    merged = Path(api.hf_hub_download("lab/cards", "README.md", repo_type="dataset")).read_text()
    assert "Hand-written notes." in merged and "license: apache-2.0" in merged
    assert merged.count(BEGIN) == 1 and merged.count(END) == 1
    assert "# envscale api_pool v2" in merged and "# envscale api_pool v1" not in merged


def test_reading_an_incompatible_schema_fails_with_the_way_out(hub_fake, tmp_path):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    manifest_path = out / "versions" / "v1" / "envscale.json"
    manifest_path.write_text(
        manifest_path.read_text().replace('"schema_version": "1.0"', '"schema_version": "2.0"')
    )
    with pytest.raises(IncompatibleSchemaError, match="Re-run the stage"):
        open_artifact(out)


def test_hf_source_reads_a_tools_column_from_the_hub(hub_fake, tmp_path):
    import json

    rows = [
        {
            "query": "weather?",
            "tools": json.dumps(
                [
                    {
                        "name": "get_weather",
                        "description": "Weather by city.",
                        "parameters": {"city": {"type": "str"}},
                    }
                ]
            ),
        },
        {"query": "nothing", "tools": "not json at all"},
    ]
    Dataset.from_list(rows).push_to_hub("lab/xlam-like")
    art = collect(CollectConfig(sources=["hf:lab/xlam-like"]), tmp_path / "pool")
    pool = art.load("api_pool")
    assert pool["name"] == ["get_weather"] and pool[0]["source_version"]  # the dataset commit sha
    rejected = art.load("rejected")
    assert rejected[0]["position"] == "train:1.tools" and "not JSON" in rejected[0]["reason"]


def test_hub_script_converts_an_api_pool_to_openai_tools_and_pushes(hub_fake, tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("convert", "hub_scripts/api_pool_to_openai_tools.py")
    convert = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "convert", convert)  # dataclasses look their module up
    spec.loader.exec_module(convert)
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), tmp_path / "pool")
    push_artifact(str(tmp_path / "pool"), "lab/pool")
    convert.main(convert.ScriptArguments(input="lab/pool@v1", push_to_hub="lab/openai-tools"))
    tools = load_dataset("lab/openai-tools", split="train")["tool"]
    assert {t["function"]["name"] for t in tools} == {"get_weather", "book_flight"}
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in tools)
    card = Path(HfApi().hf_hub_download("lab/openai-tools", "README.md", repo_type="dataset")).read_text()
    assert "lab/pool@" in card


def _pool(tmp_path):
    out = tmp_path / "pool"
    collect(CollectConfig(sources=[f"json:{FIX}/openai_tools.json"]), out)
    return out


def _one_error_line(capsys, command):
    """What `envscale COMMAND` printed to stderr: exactly one line, the error, without a traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"envscale {command}: error: "), err
    return lines[0]


@pytest.mark.timeout(60)  # without client timeouts these wait forever
@pytest.mark.parametrize("command", ["push", "info", "graph"])
def test_commands_against_a_hub_that_never_answers_fail_within_the_timeout(
    command, hub_silent, tmp_path, capsys
):
    argv = {
        "push": ["push", str(_pool(tmp_path)), "lab/tools"],
        "info": ["info", "lab/tools@v1"],
        "graph": ["graph", "--input", "lab/tools", "--output", str(tmp_path / "graph")],
    }[command]
    capsys.readouterr()
    assert main(argv) == 2
    line = _one_error_line(capsys, command)
    assert hub_silent.accepted >= 1  # the request did reach the server, which kept quiet
    assert hub_silent.endpoint in line and "lab/tools" in line and "did not answer within 2s" in line
    assert "HF_ENDPOINT" in line and "ENVSCALE_HUB_TIMEOUT" in line
    doing = {"push": "creating dataset repo lab/tools", "info": "reading hf://lab/tools@v1"}
    assert doing.get(command, "reading hf://lab/tools") in line


@pytest.mark.timeout(120)
@pytest.mark.parametrize("why", ["refused", "offline"])
@pytest.mark.parametrize("command", ["push", "info"])
def test_commands_without_network_fail_as_one_line(
    command, why, hub_unreachable, tmp_path, capsys, monkeypatch
):
    if why == "offline":
        import datasets.config
        from huggingface_hub import constants

        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
        monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    argv = ["push", str(_pool(tmp_path)), "lab/tools"] if command == "push" else ["info", "lab/tools@v1"]
    capsys.readouterr()
    assert main(argv) == 2
    line = _one_error_line(capsys, command)
    assert hub_unreachable.endpoint in line and "lab/tools" in line
    if why == "offline":
        assert "HF_HUB_OFFLINE is set" in line
    else:
        assert "cannot reach the Hub" in line and "HF_ENDPOINT" in line


def test_push_with_a_rejected_token_fails_as_one_line(hub_fake, tmp_path, capsys):
    out = _pool(tmp_path)
    capsys.readouterr()
    assert main(["push", str(out), "lab/tools", "--token", "hf_not_the_right_one"]) == 2
    line = _one_error_line(capsys, "push")
    assert "HTTP 401" in line and "lab/tools" in line and hub_fake.endpoint in line and "token" in line


# Needs "httpcore2" among the noisy loggers that `envscale.cli.main` quiets (httpx2's transport logs every
# request at DEBUG under that name; httpx2 itself logs "HTTP Request: ..." at INFO as "httpx2").
@pytest.mark.parametrize("verbose", [False, True])
def test_push_does_not_log_every_http_request(verbose, hub_fake, tmp_path, capsys, caplog):
    out = _pool(tmp_path)
    caplog.set_level(logging.DEBUG if verbose else logging.INFO)  # what `-v` / the default make visible
    caplog.clear()
    assert main(["-v", "push", str(out), "lab/tools"] if verbose else ["push", str(out), "lab/tools"]) == 0
    http = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.name.startswith(("httpx", "httpcore"))]
    assert http == []
    assert "HTTP Request" not in capsys.readouterr().err


@pytest.mark.timeout(60)  # without client timeouts this waits forever
def test_hf_source_against_a_hub_that_never_answers_fails_that_source_only(hub_silent, tmp_path):
    sources = ["hf:lab/xlam-like", f"json:{FIX}/openai_tools.json"]
    art = collect(CollectConfig(sources=sources), tmp_path / "pool")
    [failed] = art.manifest["stats"]["failed_sources"]
    assert failed["source"] == "hf:lab/xlam-like"
    assert hub_silent.endpoint in failed["error"] and "did not answer within 2s" in failed["error"]
    assert "'lab/xlam-like'" in failed["error"] and "ENVSCALE_HUB_TIMEOUT" in failed["error"]
    assert sorted(art.load("api_pool")["name"]) == ["book_flight", "get_weather"]  # the other source is read


@pytest.mark.timeout(60)
def test_hub_client_gives_up_on_a_body_that_stops_coming_without_retrying():
    from hubfake import start_silent_server

    from envscale.hub import HubClient, HubTimeoutError

    server = start_silent_server(stall_body=True)
    try:
        with HubClient(1) as client, client.stream("GET", server.endpoint + "/some/file") as response:
            assert response.status_code == 200
            with pytest.raises(HubTimeoutError, match=r"did not answer within 1s \(waiting for the answer"):
                response.read()
        # An explicit `timeout=None` (as huggingface_hub passes) does not lift the limit either.
        with HubClient(1) as client, pytest.raises(HubTimeoutError, match="GET /api/x"):
            client.get(server.endpoint + "/api/x", timeout=None)
        assert server.accepted == 2
    finally:
        server.stop()


@pytest.mark.timeout(60)
def test_hub_client_cuts_a_body_trickled_a_byte_at_a_time_streamed_or_not():
    # A byte every 0.2 s never lets the read timeout (1 s) run out; 1000 bytes would take over 3 minutes.
    from hubfake import start_silent_server

    from envscale.hub import HubClient, HubTimeoutError

    server = start_silent_server(stall_body=True, trickle=0.2)
    try:
        with HubClient(1) as client, client.stream("GET", server.endpoint + "/some/file") as response:
            assert response.status_code == 200
            with pytest.raises(
                HubTimeoutError, match=r"within 1s \(its answer came slower than 1024 bytes a"
            ):
                response.read()
        with HubClient(1) as client, pytest.raises(HubTimeoutError, match="slower than .* GET /api/x"):
            client.get(server.endpoint + "/api/x", timeout=None)
        assert server.accepted == 2
    finally:
        server.stop()


def test_ensure_hub_timeouts_leaves_a_client_factory_set_by_the_user_alone(monkeypatch):
    import httpx2
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import _http

    from envscale.hub import HubClientFactory, ensure_hub_timeouts

    def factory():
        return httpx2.Client(timeout=5)

    previous = _http._GLOBAL_CLIENT_FACTORY
    try:
        set_client_factory(_http.default_client_factory)
        monkeypatch.setenv("ENVSCALE_HUB_TIMEOUT", "7")
        assert ensure_hub_timeouts() is True
        installed = _http._GLOBAL_CLIENT_FACTORY
        assert isinstance(installed, HubClientFactory) and installed.seconds == 7
        client = installed()
        assert client.timeout.read == 7 and client.timeout.connect == 7
        default = _http.default_client_factory()
        assert client.event_hooks["request"] == default.event_hooks["request"]  # offline mode, request ids
        client.close()
        default.close()
        monkeypatch.setenv("ENVSCALE_HUB_TIMEOUT", "x")
        with pytest.raises(ValueError, match="ENVSCALE_HUB_TIMEOUT='x'"):
            ensure_hub_timeouts()
        monkeypatch.delenv("ENVSCALE_HUB_TIMEOUT")
        set_client_factory(factory)
        assert ensure_hub_timeouts() is False and _http._GLOBAL_CLIENT_FACTORY is factory
    finally:
        set_client_factory(previous)
