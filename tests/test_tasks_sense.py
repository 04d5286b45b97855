"""Tasks a person would ask: never an API's header ids, a table named after an operation, a new row's own
id, a row found by its coordinates, a column name run together, or a field set to its own value."""

import json
import random

from envscale.env.infer import infer_spec
from envscale.semantics import verb_named
from envscale.stages.tasks import TasksConfig
from envscale.tasks.generate import _asked_by, _read_aloud, env_tasks

_S = {"type": "string"}
_HEADER = {"type": "string", "x-in": "header"}


def _tool(name, method, path, props, required, output=None):
    return {
        "id": name,
        "name": name,
        "original_name": name,
        "description": name,
        "group": "Logistics API",
        "parameters": {"type": "object", "properties": props, "required": required},
        "output_schema": output,
        "annotations": {"method": method, "path": path},
        "kind": "read" if method == "GET" else "write",
    }


def _row():
    """A vtex-like logistics API: auth headers on every call, a PUT that needs the whole carrier, and an
    operation (`/carriers/{id}/adddayofweekblocked`) that a route names like a resource."""
    path = {"type": "string", "x-in": "path"}
    carrier = {
        "type": "object",
        "properties": {"id": _S, "name": _S, "status": {"type": "string", "enum": ["active", "inactive"]},
                       "slug": _S, "latitude": {"type": "number"}},
    }  # fmt: skip
    headers = {"X-VTEX-API-AppKey": _HEADER, "X-VTEX-API-AppToken": _HEADER}
    need = ["X-VTEX-API-AppKey", "X-VTEX-API-AppToken"]
    body = {
        "name": {**_S, "x-in": "body"},
        "slug": {**_S, "x-in": "body"},
        "status": carrier["properties"]["status"],
    }
    tools = [
        _tool("CreateCarrier", "POST", "/carriers", {**headers, **body}, [*need, "name"], carrier),
        _tool("GetCarrier", "GET", "/carriers/{carrierId}", {**headers, "carrierId": path}, ["carrierId", *need], carrier),
        _tool("ListCarriers", "GET", "/carriers", {**headers, "latitude": {"type": "number", "x-in": "query"},
              "slug": {**_S, "x-in": "query"}}, need, carrier),  # fmt: skip
        _tool("UpdateCarrier", "PUT", "/carriers/{carrierId}", {**headers, "carrierId": path, **body},
              ["carrierId", "name", "slug", "status", *need], carrier),  # fmt: skip
        _tool("AddDayOfWeekBlocked", "POST", "/carriers/{carrierId}/adddayofweekblocked",
              {**headers, "carrierId": path, "body": {**_S, "x-in": "body"}}, ["carrierId", "body", *need]),  # fmt: skip
        _tool("DeleteCarrier", "DELETE", "/carriers/{carrierId}", {**headers, "carrierId": path}, ["carrierId", *need]),
    ]  # fmt: skip
    spec = infer_spec(
        {"domain_id": 7, "name": "logistics", "groups": {"Logistics API": 6}}, tools, rows=12, seed=0
    )
    return {"spec": spec.spec, "domain_id": 7, "name": spec.spec["name"], "read_only": False}


def _tasks():
    config = TasksConfig(tasks_per_env=40)
    return env_tasks(_row(), config, None, random.Random(0))


def test_words_a_person_uses_and_does_not():
    assert verb_named("adddayofweekblocked") and verb_named("simulate") and verb_named("exported")
    assert not verb_named("order") and not verb_named("feed") and not verb_named("followed_network")
    assert not _asked_by("latitude", "latitude", 41.866395)
    assert not _asked_by("from", "from", "Denver, CO")
    assert _asked_by("email", "email", "ana@example.com")
    assert not _read_aloud("status_new_status") and _read_aloud("new_status")


def test_tasks_never_state_headers_never_use_operation_tables_and_updates_state_only_changes():
    kept, rejected = _tasks()
    assert kept, rejected
    assert {r["kind"] for r in kept} >= {"read", "write"}
    reasons = " | ".join(r["reason"] for r in rejected)
    assert "table named after an operation" in reasons  # the gate records why
    for row in kept:
        calls = row["gold_calls"] if isinstance(row["gold_calls"], list) else json.loads(row["gold_calls"])
        text = row["first_message"].lower()
        assert "vtex" not in text and "app key" not in text and "token" not in text, text
        assert "adddayofweekblocked" not in text and "latitude" not in text, text
        for call in calls:
            assert not {a for a in call["arguments"] if a.startswith("X-")}, call
            assert call["tool"] != "AddDayOfWeekBlocked"
            if call["tool"] == "UpdateCarrier":
                said = [a for a, p in call["provenance"].items() if a != "carrierId"]
                assert 1 <= len(said) <= 2, call  # only what changes, never the whole body
                assert all(not p.startswith("call[") for a, p in call["provenance"].items() if a in said)
            if call["tool"] == "CreateCarrier":
                assert "carrierId" not in call["arguments"]


def test_a_sort_direction_is_an_option_never_a_filter():
    from envscale.semantics import argument_role

    assert argument_role("order_dir", {"type": "string"}) == "option"
    assert argument_role("sortDirection", {"type": "string"}) == "option"


def test_adjectives_and_sort_keys_are_not_things_a_person_creates():
    assert verb_named("custom") and verb_named("sort")
    assert not verb_named("custom_object")  # apideck's custom objects are things
