"""bench/env_quality.py: a tool labelled `delete` that an environment implements as an insert does not count."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).parent.parent / "bench" / "env_quality.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("env_quality", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool(name, kind, operation, properties, required):
    return {
        "name": name,
        "description": f"{name}.",
        "kind": kind,
        "parameters": {"type": "object", "properties": properties, "required": required},
        "operation": operation,
        "metadata": {"group": "notes_api", "original_name": name},
    }


SPEC = {
    "name": "notes",
    "description": "Notes.",
    "tables": {
        "notes": {
            "primary_key": "note_id",
            "columns": {
                "note_id": {"type": "string"},
                "title": {"type": "string", "nullable": False},
                "status": {"type": "string", "enum": ["active", "archived"], "nullable": False},
            },
        }
    },
    "data": {"seed": 0, "rows": {"notes": 5}},
    "tools": [
        # labelled delete, implemented as an insert: must not count as matching
        tool(
            "delete_note",
            "write",
            {
                "type": "insert",
                "table": "notes",
                "values": {"title": "title"},
                "generate": {"note_id": "id"},
                "defaults": {"status": "active"},
            },
            {"title": {"type": "string"}},
            ["title"],
        ),
        # labelled read, implemented as a get: matches
        tool(
            "get_note",
            "read",
            {"type": "get", "table": "notes", "key": {"note_id": "note_id"}},
            {"note_id": {"type": "string"}},
            ["note_id"],
        ),
    ],
}
LABELS = {
    ("notes_api", "delete_note"): {"effect": "delete", "entity": "note", "evidence": "test"},
    ("notes_api", "get_note"): {"effect": "read", "entity": "note", "evidence": "test"},
}


def test_a_delete_implemented_as_an_insert_is_counted_as_not_matching():
    bench = load_bench()
    scored = bench.score_labels([SPEC], LABELS, calls=2)
    by = scored["by_effect"]
    assert sum(row["found"] for row in by.values()) == 2
    assert sum(row["match"] for row in by.values()) == 1
    assert by["delete"] == {"found": 1, "match": 0, "lenient": 0}
    assert by["read"]["match"] == 1
    observed = {i["name"]: i["observed"] for i in scored["instances"]}
    assert observed == {"delete_note": "create", "get_note": "read"}


def test_status_set_by_the_tool_is_a_delete_but_chosen_by_the_caller_is_an_update():
    bench = load_bench()
    changed = {
        "notes": {
            "added": [],
            "removed": [],
            "changed": [
                {
                    "key": "not_0001",
                    "before": {"note_id": "not_0001", "status": "active"},
                    "after": {"note_id": "not_0001", "status": "archived"},
                }
            ],
        }
    }
    assert bench.classify_change(changed, {"note_id": "not_0001"}) == "delete"
    assert bench.classify_change(changed, {"note_id": "not_0001", "status": "archived"}) == "update"
    assert bench.classify_change({}) == "read"
