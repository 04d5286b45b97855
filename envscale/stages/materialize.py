"""Stage `materialize`: `domains` + `api_pool` -> executable, verified `environments`.

Each domain becomes an environment spec (see `envscale.env.spec`): a SQLite schema inferred
from its tools, every tool as a declarative read or write operation over it, and an initial
state generated from a seed. Nothing generated is executed as code: operations are data, run
by `envscale.env.Environment` with parameterised statements.

Offline inference is deterministic:

- **entities**: a tool's entity comes from its key parameter (`order_id`, `orderId` -> `order`)
  when the tool name mentions it, else from its first key parameter, else from the last noun of
  its name (`get_current_weather` -> `weather`); each entity is a table (`orders`) keyed by
  `<entity>_id`;
- **columns**: the scalar parameters and output fields of the entity's tools (arrays/objects as
  JSON columns); a `<other>_id` column references `<other>`'s table when it exists;
- **operations**: read + key -> `get`; read without key -> `list` with equality filters (a
  `query`-like argument searches the first text column); write named create/add/book/... or
  without key -> `insert`; delete/remove -> `delete`; other writes -> `update` of the given columns.

Every environment is verified (`envscale.env.verify`: reads leave the state alone, writes change
what they declare, results match their schemas, invalid calls change nothing). A tool that fails
is left out and recorded with its reason in the row's `dropped_tools` (`keep_failed_tools`); an
environment with an environment-level problem or fewer than `min_tools` passing tools goes to
`rejected` with every problem and the spec that failed.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.stages.materialize import MaterializeConfig, materialize
>>> art = materialize(open_artifact("outputs/quickstart/graph"), MaterializeConfig(), "outputs/quickstart/environments")
>>> art.manifest["stats"]["verified"], art.manifest["stats"]["rejected"]
```
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, iter_rows, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..schemas import ENVIRONMENTS
from ..sources.normalize import READ_VERBS, WRITE_VERBS, sanitize_name, tokens
from . import Stage

logger = logging.getLogger(__name__)
#: Most rows `materialize` generates per table (a spec may hold up to `envscale.env.spec.MAX_ROWS_PER_TABLE`).
#: An environment is an in-memory database copied for every
#: episode and verified tool by tool; at 10,000 rows per table a small domain takes ~2 s (2 cores),
#: shown on the per-domain progress bar.
GENERATED_ROWS_MAX = 10_000
_IDENT = re.compile(r"[^A-Za-z0-9_]+")
_KEY = re.compile(r"^(?P<entity>[A-Za-z][A-Za-z0-9]*?)(?:_id|Id|ID|_uuid|_key|_code|_number)$")
_INSERT_VERBS = {
    "create",
    "add",
    "insert",
    "register",
    "book",
    "reserve",
    "place",
    "post",
    "submit",
    "upload",
    "open",
    "schedule",
    "invite",
    "save",
    "write",
    "send",
    "buy",
    "purchase",
    "order",
    "apply",
}
_DELETE_VERBS = {"delete", "remove", "drop", "rm", "rmdir", "unlink", "clear", "revoke"}
_QUERY_ARGS = {"query", "q", "search", "keyword", "keywords", "term", "text", "search_term", "pattern"}
_LIMIT_ARGS = {"limit", "max_results", "top_k", "page_size", "count", "n", "num_results", "size", "max"}
_JSON_TO_COLUMN = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}
_NOISE = (
    READ_VERBS
    | WRITE_VERBS
    | {
        "by",
        "of",
        "the",
        "a",
        "an",
        "to",
        "for",
        "and",
        "in",
        "on",
        "with",
        "from",
        "all",
        "new",
        "current",
        "info",
        "details",
        "detail",
        "data",
        "v1",
        "v2",
    }
)


@dataclass
class MaterializeConfig:
    """Configuration of `envscale materialize`."""

    rows_per_table: int = option(
        20,
        "Rows generated per table for the initial state (environments are copied per episode: keep them small).",
        ge=1,
        le=GENERATED_ROWS_MAX,
    )
    seed: int = option(0, "Seed of the initial state.", ge=0, le=2**32 - 1)
    calls_per_tool: int = option(3, "Generated calls per tool during verification.", ge=1, le=1000)
    max_columns: int = option(40, "Columns kept per table (first seen first).", ge=2, le=1000)
    min_tools: int = option(
        2, "Domains with fewer tools are not materialised (recorded in rejected).", ge=1, le=100_000
    )
    keep_failed_tools: bool = option(
        True,
        "Keep an environment whose tools partly fail verification, without those tools (each recorded in "
        "`dropped_tools` with its reason); false rejects the whole environment.",
    )

    def __post_init__(self) -> None:
        check_fields(self)

    def fingerprint(self, input_key: str) -> str:
        return fingerprint(self, ENVIRONMENTS, inputs=[input_key])


# ----------------------------------------------------------------------------- inference


def ident(name: str) -> str:
    """A SQL-safe identifier (`[A-Za-z_][A-Za-z0-9_]*`, at most 63 characters)."""
    out = _IDENT.sub("_", sanitize_name(name) or "x").strip("_").lower() or "x"  # SQLite names ignore case
    return ("c_" + out if out[0].isdigit() else out)[:63]


def plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("x", "ch", "sh")) else "s")


def _key_entity(param: str) -> str | None:
    match = _KEY.match(param)
    return "_".join(tokens(match.group("entity"))) if match else None


def _scalar_type(schema: Any) -> str:
    t = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    return _JSON_TO_COLUMN.get(t, "json")


def tool_entity(name: str, properties: dict) -> tuple[str, str | None]:
    """(entity, key parameter or None) of a tool."""
    name_tokens = tokens(name)
    keys = [(p, e) for p in properties if (e := _key_entity(p))]
    for param, entity in keys:
        if entity.split("_")[-1] in name_tokens:
            return entity, param
    if keys:
        return keys[0][1], keys[0][0]
    nouns = [t for t in name_tokens if t not in _NOISE and not t.isdigit() and len(t) > 1]
    return (nouns[-1] if nouns else "item"), ("id" if "id" in properties else None)


def _output_props(schema: Any) -> dict:
    if not isinstance(schema, dict):
        return {}
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return _output_props(schema["items"])
    props = schema.get("properties")
    if isinstance(props, dict) and len(props) == 1:  # {"orders": [...]} wraps the entity
        (inner,) = props.values()
        nested = (
            _output_props(inner)
            if isinstance(inner, dict) and inner.get("type") in ("array", "object")
            else {}
        )
        if nested:
            return nested
    return props if isinstance(props, dict) else {}


def _unify(observed: list[Any]) -> dict:
    """One column spec for every schema bound to the column: the narrowest type that takes them all."""
    types = {_scalar_type(schema) for schema in observed}
    if types <= {"integer"}:
        col = {"type": "integer"}
    elif types <= {"integer", "number"}:
        col = {"type": "number"}
    elif len(types) == 1:
        col = {"type": types.pop()}
    else:
        col = {"type": "json"}  # string vs number, scalar vs array: a JSON column takes every argument
    enums = [s.get("enum") if isinstance(s, dict) else None for s in observed]
    if col["type"] == "string" and all(
        isinstance(e, list) and all(isinstance(v, str) for v in e) for e in enums
    ):
        col["enum"] = sorted({v for e in enums for v in e})
    return col


def _reaches(refs: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether `goal` is reachable from `start` along references (a new edge goal -> start would cycle)."""
    stack, seen = [start], set()
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(refs.get(node, ()))
    return False


def infer_spec(domain: dict, tools: list[dict], config: MaterializeConfig) -> dict:
    """The environment spec of one domain, from its tools (deterministic)."""
    plan = []
    tables: dict[str, dict] = {}
    observed: dict[tuple[str, str], list] = {}  # (table, column) -> every schema bound to it
    for tool in tools:
        props = (tool["parameters"] or {}).get("properties") or {}
        entity, key = tool_entity(tool["original_name"] or tool["name"], props)
        table = plural(ident(entity))
        spec_table = tables.setdefault(table, {"primary_key": ident(f"{entity}_id"), "columns": {}})
        pk = spec_table["primary_key"]
        spec_table["columns"].setdefault(pk, None)
        columns = spec_table["columns"]
        arg_columns = {}
        fields = [(param, schema, pk if param == key else ident(param)) for param, schema in props.items()]
        fields += [
            (None, schema, pk if _key_entity(f) == entity or f == "id" else ident(f))
            for f, schema in _output_props(tool["output_schema"]).items()
        ]
        for param, schema, column in fields:
            if column not in columns and len(columns) < config.max_columns:
                columns[column] = None
            if column in columns:
                observed.setdefault((table, column), []).append(schema)
                if param is not None:
                    arg_columns[param] = column
        plan.append((tool, table, key, arg_columns))
    for table, spec_table in tables.items():
        for column in spec_table["columns"]:
            seen = observed.get((table, column)) or [{"type": "string"}]
            spec_table["columns"][column] = _unify(seen)
        pk_spec = spec_table["columns"][spec_table["primary_key"]]
        pk_spec.pop("enum", None)
        if pk_spec["type"] not in (
            "string",
            "integer",
        ):  # mixed key types: tools whose keys do not fit are dropped
            pk_spec["type"] = "string"
    refs: dict[str, set[str]] = {t: set() for t in tables}  # foreign keys between the inferred tables,
    for table, spec_table in sorted(tables.items()):  # skipping any that would close a cycle
        for column, col in spec_table["columns"].items():
            target = plural(ident(_key_entity(column) or "")) if _key_entity(column) else None
            if column == spec_table["primary_key"] or target not in tables or target == table:
                continue
            target_pk = tables[target]["columns"][tables[target]["primary_key"]]
            fits = (
                col["type"] == target_pk["type"]
                and col["type"] in ("string", "integer")
                and "enum" not in col
            )
            if fits and not _reaches(refs, target, table):
                col["references"] = target
                refs[table].add(target)
    env_tools = [_operation(tool, table, key, arg_columns, tables) for tool, table, key, arg_columns in plan]
    name = ident(f"domain_{domain['domain_id']}_{domain['name']}")[:60]
    return {
        "name": name,
        "description": f"Environment of domain {domain['domain_id']} ({domain['name']}).",
        "tables": tables,
        "data": {"seed": config.seed, "rows": {t: config.rows_per_table for t in tables}},
        "tools": env_tools,
    }


def _operation(tool: dict, table: str, key: str | None, arg_columns: dict, tables: dict) -> dict:
    """One api_pool tool as a declarative operation over its table."""
    name_tokens = tokens(tool["original_name"] or tool["name"])
    verb = next((t for t in name_tokens if t in READ_VERBS or t in WRITE_VERBS), "")
    params = tool["parameters"] or {"type": "object", "properties": {}}
    props = params.get("properties") or {}
    columns = tables[table]["columns"]
    pk = tables[table]["primary_key"]
    usable = dict(arg_columns)
    required = set(params.get("required") or [])
    op: dict[str, Any] = {"table": table}
    if tool["kind"] == "read":
        if key and key in props and verb not in ("list", "search", "find", "query"):
            op.update(type="get", key={pk: key}, returns="row")
            required.add(key)
        else:
            op.update(type="list", returns="rows", filters=[])
            text_col = next((c for c, spec in columns.items() if spec["type"] == "string" and c != pk), None)
            for param, column in usable.items():
                if param.lower() in _LIMIT_ARGS and _scalar_type(props[param]) == "integer":
                    op["limit_arg"] = param
                elif param.lower() in _QUERY_ARGS and text_col:
                    op["filters"].append({"column": text_col, "arg": param, "op": "contains"})
                else:
                    op["filters"].append({"column": column, "arg": param, "op": "eq"})
    elif verb in _DELETE_VERBS and key and key in props:
        op.update(type="delete", key={pk: key}, returns="none")
        required.add(key)
    elif key and key in props and verb not in _INSERT_VERBS:
        op.update(
            type="update", key={pk: key}, set={c: p for p, c in usable.items() if p != key}, returns="row"
        )
        if not op["set"]:  # an action with nothing to set (play_song): record it, so the write is visible
            columns.setdefault("last_action", {"type": "string"})
            op["fixed"] = {"last_action": verb or tool["name"]}
        required.add(key)
    else:
        values = {c: p for p, c in usable.items() if c != pk}
        op.update(type="insert", values=values, generate={pk: "id"}, returns="row")
        if key and key in props:  # the caller names the new key
            op["values"][pk] = key
            op["generate"] = {}
            required.add(key)
    params = {**params, "properties": props, "required": sorted(required & set(props))}
    return {
        "name": tool["name"],
        "description": tool["description"] or tool["name"],
        "kind": tool["kind"],
        "parameters": params,
        "operation": op,
        "metadata": {"source_tool_id": tool["id"], "original_output_schema": tool["output_schema"]},
    }


# ----------------------------------------------------------------------------- stage


def _verify_dropping(spec: dict, config: MaterializeConfig) -> tuple[list[dict], list[dict]]:
    """Verify `spec`; with `keep_failed_tools`, drop failing tools (recorded) and verify again.

    Returns (problems that reject the environment, dropped tools with their reasons).
    """
    from ..env import verify

    dropped: list[dict] = []
    for _ in range(3):
        problems = verify(spec, seed=config.seed, calls_per_tool=config.calls_per_tool)
        by_tool = {p["tool"]: p["reason"] for p in problems if p.get("tool")}
        if not problems or any(not p.get("tool") for p in problems) or not config.keep_failed_tools:
            return problems, dropped  # passed, or an environment-level problem, or dropping is off
        dropped += [{"tool": t, "reason": r} for t, r in by_tool.items()]
        spec["tools"] = [t for t in spec["tools"] if t["name"] not in by_tool]
        if len(spec["tools"]) < config.min_tools:
            return [
                {
                    "tool": None,
                    "reason": f"only {len(spec['tools'])} tools passed verification "
                    f"(< min_tools {config.min_tools})",
                }
            ], dropped
    return problems, dropped


def materialize(graph_artifact: Artifact, config: MaterializeConfig, output: str | Path) -> Artifact:
    """Materialise and verify one environment per domain of `graph_artifact` at `output`.

    The `api_pool` the graph was made from is found by :func:`~envscale.artifacts.resolve_input`
    (relative to the graph, then by absolute path; same data id), never relative to the working
    directory.
    """
    pool_artifact = resolve_input(graph_artifact, "api_pool")
    writer = ArtifactWriter(
        Path(output),
        ENVIRONMENTS,
        config.fingerprint(graph_artifact.content_key),
        config=to_dict(config),
        inputs=[graph_artifact.provenance(), pool_artifact.provenance()],
    )
    with writer:
        return _materialize(graph_artifact, pool_artifact, config, writer)


def _materialize(
    graph_artifact: Artifact, pool_artifact: Artifact, config: MaterializeConfig, writer: ArtifactWriter
) -> Artifact:
    from ..env import Environment

    pool = {r["id"]: r for r in iter_rows(pool_artifact.load("api_pool"))}
    envs = writer.shard_writer("environments", batch_size=50)
    rejected = writer.shard_writer("rejected", batch_size=50)
    reasons: Counter = Counter()
    dropped_reasons: Counter = Counter()
    for domain in tqdm(graph_artifact.load("domains"), desc="materialize", unit="domain"):
        tools = [pool[t] for t in domain["tool_ids"] if t in pool]
        base = {"domain_id": domain["domain_id"], "domain_name": domain["name"]}
        if len(tools) < config.min_tools:
            reasons["too few tools"] += 1
            rejected.write(
                {
                    **base,
                    "name": None,
                    "reason": f"{len(tools)} tools (< min_tools {config.min_tools})",
                    "problems": [],
                    "spec": None,
                }
            )
            continue
        spec, dropped = None, []
        try:
            spec = infer_spec(domain, tools, config)
            problems, dropped = _verify_dropping(spec, config)
        except Exception as exc:  # noqa: BLE001 - one bad domain never stops the run; kept with its reason
            problems = [{"tool": None, "reason": f"materialisation failed: {type(exc).__name__}: {exc}"}]
        dropped_reasons.update(d["reason"].split(":")[0][:80] for d in dropped)
        if problems:
            reasons[problems[0]["reason"].split(":")[0][:80]] += 1
            rejected.write(
                {
                    **base,
                    "name": spec["name"] if spec else None,
                    "reason": problems[0]["reason"],
                    "problems": problems + dropped,
                    "spec": spec,
                }
            )
            continue
        env = Environment(spec)
        env.reset()
        sizes = {t: len(rows) for t, rows in env.dump().items()}
        envs.write(
            {
                **base,
                "name": spec["name"],
                "spec": spec,
                "n_tables": len(spec["tables"]),
                "n_tools": len(spec["tools"]),
                "n_read": sum(t["kind"] == "read" for t in spec["tools"]),
                "n_write": sum(t["kind"] == "write" for t in spec["tools"]),
                "n_rows": sum(sizes.values()),
                "state_hash": env.state_hash(),
                "tables": sorted(spec["tables"]),
                "dropped_tools": dropped,
            }
        )
        env.close()
    counts = {"environments": envs.close(), "rejected": rejected.close()}
    total = counts["environments"] + counts["rejected"]
    stats = {
        "domains": total,
        "verified": counts["environments"],
        "rejected": counts["rejected"],
        "pass_rate": round(counts["environments"] / total, 4) if total else 0.0,
        "rejection_reasons": dict(reasons.most_common(20)),
        "tools_dropped": sum(dropped_reasons.values()),
        "drop_reasons": dict(dropped_reasons.most_common(20)),
    }
    art = writer.commit(counts, stats)
    logger.info("environments %s: %d of %d domains verified", art.pinned, counts["environments"], total)
    return art


STAGE = Stage(
    "materialize",
    output="environments",
    input="graph",
    help="graph domains -> verified SQLite-backed environments",
    config_cls=MaterializeConfig,
    function=materialize,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
