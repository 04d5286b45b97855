"""Do the materialised environments mean what their tools say? Observed behaviour against hand labels.

The yardstick is `bench/labels/tool_effects.json`: every tool of the 8 BFCL multi-turn API classes,
labelled by reading its real Python implementation (shipped in the `bfcl-eval` wheel), and every
operation of the project's shop OpenAPI document, labelled from its method, path and description.
Each label says what the tool does to the state: `read`, `create`, `update`, `delete` (removes or
retires an item) or `computation` (a pure function of its arguments).

For every environment, every tool is called the way a person would call it: keys and filter values
taken from the environment's own initial state, other arguments filled with values that fit their
JSON Schema (the argument builder of `envscale.materialize.verify`), each call from a fresh `reset()`. The
state diff classifies what the call *did*: `create` (rows added, none removed), `delete` (a row
removed, or a status/flag column set to a retired value such as cancelled/closed/archived), `update`
(existing rows changed), `read` (nothing changed) or `error`. A tool's observed behaviour is the most
common non-error outcome of its calls (3 by default, on different rows).

Besides the match against labels it prints structural figures of the environments (write tools,
tables shared by tools, foreign keys, duplicated tools, filler values, rejections) and a block of
targets with pass/fail. Figures are counts, shares and medians; nothing is timed.

Usage:

```bash
python bench/env_quality.py                                   # outputs/quickstart/environments
python bench/env_quality.py --environments outputs/run/environments --json env_quality.json
python bench/env_quality.py --calls 5 > bench/results/env_quality_after.txt
```
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

EFFECTS = ("read", "create", "update", "delete")
WRITE_OPS = ("insert", "update", "delete")
READ_OPS = ("get", "list", "count")
RETIRED_VALUES = frozenset(
    "deleted removed archived cancelled canceled closed inactive deactivated disabled retired "
    "discontinued void voided revoked trashed terminated".split()
)
"""Status values that take a row out of use: setting one counts as a delete (the bench's own list, so that
the yardstick does not share its vocabulary with the code it measures)."""
RETIRED_FLAGS_TRUE = frozenset(
    f"{p}{w}"
    for p in ("", "is_")
    for w in ("deleted", "archived", "removed", "cancelled", "closed", "trashed")
)
RETIRED_FLAGS_FALSE = frozenset(f"{p}{w}" for p in ("", "is_") for w in ("active", "enabled"))
TYPE_CLASH = re.compile(r"JSON type (\w+) does not fit an? (\w+) column")
HASH_SUFFIX = re.compile(r"_[0-9a-f]{6}$")
DEFAULT_LABELS = Path(__file__).parent / "labels" / "tool_effects.json"
TARGETS = {
    "labelled_as_labelled": 0.90,
    "computation_in_envs": 0,
    "duplicate_tools": 0,
    "key_type_rejections": 0,
    "filler_share": 0.20,
    "npm_envs_writes_read_back": 30,
}


# ----------------------------------------------------------------------------------------------
# Observing one environment


def classify_change(changes: dict[str, dict[str, list]], arguments: dict | None = None) -> str:
    """The effect a state diff (`Environment.diff`) shows: read, create, update or delete.

    A changed row counts as deleted when the call set a status column to a retired value (cancelled,
    closed, archived, ...) or a flag such as `is_deleted`/`active`, unless that value is one of the
    call's `arguments`: a tool that lets its caller pick any status (`update_ticket(status=...)`) is an
    update, one that always retires the row (`cancel_order`) is a delete.
    """
    chosen = {v.lower() for v in (arguments or {}).values() if isinstance(v, str)}
    added = sum(len(c["added"]) for c in changes.values())
    removed = sum(len(c["removed"]) for c in changes.values())
    changed = [c for table in changes.values() for c in table["changed"]]
    if removed and not added:
        return "delete"
    if added and not removed:
        return "create"
    if added and removed:
        return "update"  # a row replaced under another key (a rename or move)
    if not changed:
        return "read"
    for change in changed:
        for column, after in change["after"].items():
            before = change["before"].get(column)
            if after == before:
                continue
            if isinstance(after, str) and after.lower() in RETIRED_VALUES and after.lower() not in chosen:
                return "delete"
            name = column.lower()
            flag_arg = any(k.lower() == name for k in arguments or {})
            if not flag_arg and (
                (after is True and name in RETIRED_FLAGS_TRUE)
                or (after is False and name in RETIRED_FLAGS_FALSE)
            ):
                return "delete"
    return "update"


def observe_tool(env, tool: dict, rows: dict, rng: random.Random, calls: int) -> dict[str, Any]:
    """Call one tool `calls` times, each from a fresh reset; its observed effect and the outcome of each call."""
    from envscale.materialize.verify import valid_call  # verify's own argument builder

    outcomes: list[str] = []
    errors: list[str] = []
    for _ in range(calls):
        env.reset()
        try:
            call = valid_call(env, tool, rows, rng)  # (arguments, addressed row), or None
        except Exception as exc:
            call, reason = None, str(exc)
        else:
            reason = "no valid call can be built from this state"
        if call is None:
            outcomes.append("error")
            errors.append(f"cannot call: {reason}")
            break
        args = call[0]
        before_hash = env.state_hash()
        before = env.snapshot()
        obs = env.step(tool["name"], args)
        if not obs["ok"]:
            outcomes.append("error")
            errors.append(f"[{obs['code']}] {obs['error']}")
            continue
        outcomes.append(
            "read" if env.state_hash() == before_hash else classify_change(env.diff(before), args)
        )
    counts = Counter(o for o in outcomes if o != "error")
    observed = counts.most_common(1)[0][0] if counts else "error"
    return {"observed": observed, "outcomes": outcomes, "errors": errors[:1]}


def observe_environment(spec: dict, calls: int = 3, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Every tool of an environment spec, observed: `{tool name: observe_tool(...)}`."""
    from envscale.env import Environment

    out = {}
    with Environment(spec) as env:
        env.reset()
        rows = env.dump()
        for tool in spec["tools"]:
            rng = random.Random(f"{seed}:{spec['name']}:{tool['name']}")
            try:
                out[tool["name"]] = observe_tool(env, tool, rows, rng, calls)
            except Exception as exc:  # a crash while observing one tool is reported as its outcome
                out[tool["name"]] = {
                    "observed": "error",
                    "outcomes": ["error"],
                    "errors": [f"bench crashed: {type(exc).__name__}: {exc}"],
                }
    return out


# ----------------------------------------------------------------------------------------------
# Labels and tool identity


def load_labels(path: str | Path) -> dict[tuple[str, str], dict]:
    """`{(group, tool name): label}` from the label file (keys starting with `_` are notes)."""
    data = json.loads(Path(path).read_text())
    return {
        (group, name): label
        for group, tools in data.items()
        if not group.startswith("_")
        for name, label in tools.items()
    }


def tool_identity(tool: dict, pool_index: dict[str, dict]) -> tuple[str | None, str | None, str]:
    """(group, original name, source) of an environment tool: from its metadata, else its api_pool row."""
    meta = tool.get("metadata") or {}
    row = pool_index.get(meta.get("source_tool_id"), {})
    group = meta.get("group", row.get("group"))
    name = meta.get("original_name", row.get("original_name"))
    source = meta.get("source", row.get("source")) or ""
    if "envscale_shop" in source:  # grouped by OpenAPI tag in the pool, labelled as one group
        group = "shop"
    return group, name, source


def score_labels(
    specs: list[dict], labels: dict[tuple[str, str], dict], pool_index: dict | None = None, *, calls: int = 3
) -> dict[str, Any]:
    """Observe every tool of `specs` and compare the labelled ones with their labels.

    Returns:
        `dict`: `by_effect` (`{effect: {"found", "match", "lenient"}}` over labelled tool instances),
        `instances` (one row per labelled tool found), `observed` (the observed effect of every tool,
        labelled or not, as `{env: {tool: observation}}`) and `failed` (environments that did not build).
    """
    pool_index = pool_index or {}
    by_effect = {e: {"found": 0, "match": 0, "lenient": 0} for e in (*EFFECTS, "computation")}
    instances, observed, failed = [], {}, {}
    for spec in _progress(specs, "observing tools"):
        try:
            seen = observe_environment(spec, calls)
        except Exception as exc:  # a spec that does not build is a finding, not a crash
            failed[spec.get("name")] = f"{type(exc).__name__}: {exc}"
            continue
        observed[spec["name"]] = seen
        for tool in spec["tools"]:
            group, name, _ = tool_identity(tool, pool_index)
            label = labels.get((group, name))
            if label is None:
                continue
            got = seen[tool["name"]]["observed"]
            accepted = {label["effect"], *label.get("also", [])}
            row = by_effect[label["effect"]]
            row["found"] += 1
            row["match"] += got == label["effect"]
            row["lenient"] += got in accepted
            instances.append(
                {
                    "env": spec["name"],
                    "tool": tool["name"],
                    "group": group,
                    "name": name,
                    "label": label["effect"],
                    "observed": got,
                    "operation": tool["operation"]["type"],
                    "table": tool["operation"]["table"],
                    "error": seen[tool["name"]]["errors"][0] if seen[tool["name"]]["errors"] else None,
                }
            )
    return {"by_effect": by_effect, "instances": instances, "observed": observed, "failed": failed}


# ----------------------------------------------------------------------------------------------
# Structure of the environments


def normalised_name(name: str) -> str:
    """`calculate_heat_07cc68` / `CalculateHeat` -> `calculateheat`: a tool name without case, separators and
    the hash suffix materialize adds to tell namesakes apart."""
    name = HASH_SUFFIX.sub("", name)
    return re.sub(r"[^a-z0-9]", "", name.lower())


def structure(specs: list[dict]) -> dict[str, Any]:
    """Write tools, tables per tool, foreign keys, duplicated tools and writes that a read tool reads back."""
    per_table, fks, dup_tools, dup_envs, write_envs, read_back = [], 0, 0, 0, 0, set()
    fk_envs = 0
    for spec in specs:
        tools = spec["tools"]
        if any(t["operation"]["type"] in WRITE_OPS for t in tools):
            write_envs += 1
        touching = Counter(t["operation"]["table"] for t in tools)
        per_table.extend(touching.get(table, 0) for table in spec["tables"])
        n_fk = sum("references" in c for t in spec["tables"].values() for c in t["columns"].values())
        fks += n_fk
        fk_envs += n_fk > 0
        groups = Counter(
            (normalised_name(t["name"]), tuple(sorted((t.get("parameters") or {}).get("properties", {}))))
            for t in tools
        )
        extra = sum(n - 1 for n in groups.values() if n > 1)
        dup_tools += extra
        dup_envs += extra > 0
        read_tables = {t["operation"]["table"] for t in tools if t["operation"]["type"] in READ_OPS}
        if any(t["operation"]["type"] in WRITE_OPS and t["operation"]["table"] in read_tables for t in tools):
            read_back.add(spec["name"])
    return {
        "environments": len(specs),
        "with_write": write_envs,
        "tables": len(per_table),
        "tables_multi_tool": sum(n > 1 for n in per_table),
        "tables_no_tool": sum(n == 0 for n in per_table),
        "tools_per_table_median": statistics.median(per_table) if per_table else 0,
        "foreign_keys": fks,
        "envs_with_fk": fk_envs,
        "duplicate_tools": dup_tools,
        "envs_with_duplicates": dup_envs,
        "writes_read_back": read_back,
    }


def filler(specs: list[dict]) -> dict[str, Any] | None:
    """Filler share of string cells in the initial states, pooled over environments (None without
    `envscale.env.data.filler_share`)."""
    from envscale.env import Environment, data

    share_of = getattr(data, "filler_share", None)
    if share_of is None:
        return None
    shares, weights = [], []
    for spec in _progress(specs, "filler share"):
        try:
            with Environment(spec) as env:
                env.reset()
                state = env.dump()
        except Exception:
            continue
        value = share_of(spec, state)
        cells = sum(isinstance(v, str) for rows in state.values() for r in rows for v in r.values())
        if isinstance(value, tuple | list) and len(value) == 2:  # (filler cells, string cells)
            value, cells = (value[0] / value[1] if value[1] else 0.0), value[1]
        elif isinstance(value, dict):
            value = value.get("share", value.get("filler_share", 0.0))
        shares.append(float(value))
        weights.append(cells)
    pooled = sum(s * w for s, w in zip(shares, weights, strict=True)) / sum(weights) if sum(weights) else 0.0
    return {
        "pooled": pooled,
        "median": statistics.median(shares) if shares else 0.0,
        "environments": len(shares),
    }


def rejection_reasons(rejected, environments) -> dict[str, Any]:
    """Rejected domains by reason pattern, and which of them (and which dropped tools) are type clashes."""

    def pattern(text: str) -> str:
        text = re.sub(r"'[^']*'", "<name>", text)
        text = re.sub(r"\b\w+\.\w+\b", "<table.column>", text)
        return re.sub(r"\d+", "<n>", text)

    def clash(texts: list[str]) -> tuple[str, str] | None:
        for text in texts:
            m = TYPE_CLASH.search(text)
            if m:
                return m.group(1), m.group(2)
        return None

    reasons, clashes = Counter(), Counter()
    for row in rejected:
        reasons[pattern(row["reason"] or "")] += 1
        found = clash([row["reason"] or ""] + [p["reason"] for p in row["problems"] or []])
        if found:
            clashes[found] += 1
    dropped = Counter()
    for drops in environments["dropped_tools"]:
        for d in drops or []:
            found = clash([d["reason"]])
            dropped["type clash" if found else d["reason"].split(":")[0]] += 1
    int_string = sum(
        n for (a, b), n in clashes.items() if {a, b} in ({"integer", "string"}, {"number", "string"})
    )
    return {
        "rejected": len(rejected),
        "by_reason": reasons.most_common(10),
        "type_clashes": {f"{a} -> {b} column": n for (a, b), n in clashes.items()},
        "key_type_clashes": int_string,
        "dropped_tools": dict(dropped),
    }


# ----------------------------------------------------------------------------------------------
# Report


def _progress(items, desc):
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, leave=False, file=sys.stderr)


def _pct(n: float, d: float) -> str:
    return f"{n / d:6.1%}" if d else "   n/a"


def _input_rows(art, kind: str, config: str) -> list[dict]:
    """Rows of one config of an input artifact of `art`; if the current envscale refuses that artifact's
    manifest (an older schema), its parquet shards are read directly, as the data it was made from."""
    from envscale.artifacts import resolve_input

    try:
        return resolve_input(art, kind).load(config).to_list()
    except Exception as exc:
        import pyarrow.parquet as pq

        for entry in art.manifest.get("inputs") or []:
            if entry.get("kind") != kind:
                continue
            roots = [Path(art.location) / entry["relative"]] if entry.get("relative") else []
            roots += [Path(entry["path"])] if entry.get("path") else []
            for root in roots:
                files = sorted((root / "versions" / entry["version"] / config).glob("*.parquet"))
                if files:
                    print(
                        f"({kind} read from {files[0].parent} without its manifest check: {exc})",
                        file=sys.stderr,
                    )
                    return [r for f in files for r in pq.read_table(f).to_pylist()]
        raise


def run(environments: str, labels_path: str, calls: int, api_pool: str | None = None) -> dict[str, Any]:
    """Everything the report prints, as data."""
    from envscale.artifacts import open_artifact

    art = open_artifact(environments, expect_kind="environments")
    envs = art.load("environments")
    rejected = art.load("rejected")
    if api_pool:
        pool = open_artifact(api_pool, expect_kind="api_pool").load("api_pool").to_list()
    else:
        pool = _input_rows(art, "api_pool", "api_pool")
    pool = [{k: r.get(k) for k in ("id", "group", "original_name", "source")} for r in pool]
    pool_index = {r["id"]: r for r in pool}
    try:  # the graph only says why a labelled tool is missing
        assignments = {r["tool_id"]: r for r in _input_rows(art, "graph", "assignments")}
    except Exception as exc:
        print(f"(graph assignments not readable, missing tools are not explained: {exc})", file=sys.stderr)
        assignments = {}
    labels = load_labels(labels_path)
    specs = [row["spec"] for row in envs]

    scored = score_labels(specs, labels, pool_index, calls=calls)
    found = {(i["group"], i["name"]) for i in scored["instances"]}
    domain_of_env = {row["spec"]["name"]: row["domain_id"] for row in envs}
    rejected_domains = {row["domain_id"]: row["reason"] for row in rejected}
    env_domains = set(domain_of_env.values())
    dropped_in = {row["domain_id"]: row["dropped_tools"] for row in envs}
    ids_of = defaultdict(list)
    for r in pool:
        group = "shop" if "envscale_shop" in (r["source"] or "") else r["group"]
        ids_of[(group, r["original_name"])].append(r["id"])
    missing = []
    for key, label in sorted(labels.items()):
        if key in found:
            continue
        why = "not in the api_pool"
        for tool_id in ids_of.get(key, []):
            a = assignments.get(tool_id)
            if a is None:
                why = "no graph assignment found"
            elif a["domain_id"] is None or a["domain_id"] < 0:
                why = f"no domain ({a['status']}{': ' + a['reason'] if a['reason'] else ''})"
            elif a["domain_id"] in rejected_domains:
                why = f"domain {a['domain_id']} rejected: {rejected_domains[a['domain_id']]}"
            elif a["domain_id"] in env_domains:
                why = f"dropped from the environment of domain {a['domain_id']}"
                for d in dropped_in.get(a["domain_id"]) or []:
                    if normalised_name(d["tool"]) == normalised_name(key[1]):
                        why += f": {d['reason']}"
                        break
            else:
                why = f"domain {a['domain_id']} not materialised"
        missing.append({"group": key[0], "name": key[1], "label": label["effect"], "why": why})

    all_obs = Counter(o["observed"] for tools in scored["observed"].values() for o in tools.values())
    struct = structure(specs)
    npm_envs = set()
    for spec in specs:
        if any(tool_identity(t, pool_index)[2].startswith("npm:") for t in spec["tools"]):
            npm_envs.add(spec["name"])
    return {
        "environments": art.pinned,
        "labels": str(labels_path),
        "calls_per_tool": calls,
        "n_environments": len(specs),
        "n_tools": sum(len(s["tools"]) for s in specs),
        "n_labels": len(labels),
        "labels_by_effect": dict(Counter(lab["effect"] for lab in labels.values())),
        "by_effect": scored["by_effect"],
        "instances": scored["instances"],
        "failed_to_build": scored["failed"],
        "all_tools_observed": dict(all_obs),
        "missing": missing,
        "structure": {k: v for k, v in struct.items() if k != "writes_read_back"},
        "writes_read_back": len(struct["writes_read_back"]),
        "npm_envs": len(npm_envs),
        "npm_envs_writes_read_back": len(npm_envs & struct["writes_read_back"]),
        "filler": filler(specs),
        "rejections": rejection_reasons(rejected, envs),
    }


def print_report(r: dict[str, Any]) -> None:
    be = r["by_effect"]
    print(f"environments: {r['environments']}  ({r['n_environments']} environments, {r['n_tools']} tools)")
    print(f"labels: {r['labels']}  ({r['n_labels']} tools: {r['labels_by_effect']})")
    print(
        f"each tool called {r['calls_per_tool']}x from a fresh reset; observed = most common non-error outcome"
    )
    if r["failed_to_build"]:
        print(f"environments that did not build: {len(r['failed_to_build'])}")

    print("\n== Labelled tools: do they behave as labelled? (tool instances in environments)")
    print(
        f"  {'effect':12s} {'found':>6s} {'as labelled':>12s} {'share':>7s} {'lenient':>8s}   observed instead"
    )
    for effect in EFFECTS:
        rows = [i for i in r["instances"] if i["label"] == effect]
        instead = Counter(i["observed"] for i in rows if i["observed"] != effect)
        print(
            f"  {effect:12s} {be[effect]['found']:6d} {be[effect]['match']:12d} "
            f"{_pct(be[effect]['match'], be[effect]['found'])} {_pct(be[effect]['lenient'], be[effect]['found']):>8s}"
            f"   {', '.join(f'{k} {v}' for k, v in instead.most_common()) or '-'}"
        )
    found = sum(be[e]["found"] for e in EFFECTS)
    match = sum(be[e]["match"] for e in EFFECTS)
    lenient = sum(be[e]["lenient"] for e in EFFECTS)
    print(
        f"  {'overall':12s} {found:6d} {match:12d} {_pct(match, found)} {_pct(lenient, found):>8s}"
        "   (labelled non-computation tools that behave as labelled; lenient also accepts a label's `also`)"
    )
    by_group = defaultdict(lambda: [0, 0])
    for i in r["instances"]:
        if i["label"] != "computation":
            by_group[i["group"]][0] += 1
            by_group[i["group"]][1] += i["observed"] == i["label"]
    print("  by group: " + ", ".join(f"{g} {m}/{n}" for g, (n, m) in sorted(by_group.items())))
    wrong = [i for i in r["instances"] if i["label"] != "computation" and i["observed"] != i["label"]]
    print(f"  not as labelled ({len(wrong)}): labelled -> observed [operation on table]")
    for i in sorted(wrong, key=lambda i: (i["group"], i["name"]))[:40]:
        note = f"  ({i['error'][:90]})" if i["observed"] == "error" and i["error"] else ""
        print(
            f"    {i['group']}/{i['name']}: {i['label']} -> {i['observed']} [{i['operation']} {i['table']}]{note}"
        )
    if len(wrong) > 40:
        print(f"    ... {len(wrong) - 40} more (all in --json)")

    comp = be["computation"]
    n_comp = r["labels_by_effect"].get("computation", 0)
    present = sorted({(i["group"], i["name"]) for i in r["instances"] if i["label"] == "computation"})
    print("\n== Computation tools (a pure function has no place in a database)")
    print(
        f"  labelled computation tools present in environments: {len(present)} of {n_comp} "
        f"({comp['found']} instances; target 0); absent: {n_comp - len(present)}"
    )
    if present:
        rows = [i for i in r["instances"] if i["label"] == "computation"]
        print(f"  present by group: {dict(Counter(i['group'] for i in rows))}")
        print(f"  present as operations: {dict(Counter(i['operation'] for i in rows))}")

    print(f"\n== Labelled tools missing from every environment: {len(r['missing'])}")
    why = Counter(re.sub(r"domain \d+", "domain N", m["why"]).split(":")[0] for m in r["missing"])
    print("  " + ", ".join(f"{k}: {v}" for k, v in why.most_common()))
    for m in r["missing"]:
        print(f"    {m['group']}/{m['name']} ({m['label']}): {m['why'][:120]}")

    s = r["structure"]
    print("\n== Structure")
    print(
        f"  environments with at least one write tool: {s['with_write']} of {s['environments']} {_pct(s['with_write'], s['environments'])}"
    )
    print(
        f"  tables touched by more than one tool: {s['tables_multi_tool']} of {s['tables']} "
        f"{_pct(s['tables_multi_tool'], s['tables'])} (no tool: {s['tables_no_tool']}; median tools per table "
        f"{s['tools_per_table_median']})"
    )
    print(
        f"  foreign keys (columns with `references`): {s['foreign_keys']}, in {s['envs_with_fk']} environments"
    )
    print(
        f"  duplicated tools inside environments (same normalised name and parameter names): "
        f"{s['duplicate_tools']} extra copies, in {s['envs_with_duplicates']} environments"
    )
    print(f"  environments with a write whose table a read tool reads back: {r['writes_read_back']}")
    f = r["filler"]
    print(
        "  filler share of string cells in initial states: "
        + (
            f"{f['pooled']:.1%} pooled, median {f['median']:.1%} over {f['environments']} environments"
            if f
            else "n/a (filler_share not available)"
        )
    )
    print(f"  observed behaviour of all tools: {dict(Counter(r['all_tools_observed']).most_common())}")

    rj = r["rejections"]
    print(f"\n== Rejected domains: {rj['rejected']}")
    for reason, n in rj["by_reason"]:
        print(f"  {n:4d}  {reason[:140]}")
    print(
        f"  mentioning a key-type clash (integer/number vs string): {rj['key_type_clashes']}; all type clashes: {rj['type_clashes']}"
    )
    print(f"  tools dropped from kept environments: {rj['dropped_tools']}")
    print(
        f"\n== npm: OpenAPI environments: {r['npm_envs']}; with a write whose table another tool reads: "
        f"{r['npm_envs_writes_read_back']}"
    )

    strict = match / found if found else 0.0
    checks = [
        (
            "labelled tools behave as labelled",
            f"{strict:.1%}",
            ">= 90%",
            strict >= TARGETS["labelled_as_labelled"],
        ),
        (
            "computation tools in environments",
            str(len(present)),
            "0",
            len(present) == TARGETS["computation_in_envs"],
        ),
        ("duplicated tools inside environments", str(s["duplicate_tools"]), "0", s["duplicate_tools"] == 0),
        (
            "domains rejected for key-type clashes",
            str(rj["key_type_clashes"]),
            "0",
            rj["key_type_clashes"] == 0,
        ),
        (
            "filler share of string cells",
            f"{f['pooled']:.1%}" if f else "n/a",
            "<= 20%",
            (f["pooled"] <= TARGETS["filler_share"]) if f else None,
        ),
        (
            "npm: resource-API environments with writes read back",
            str(r["npm_envs_writes_read_back"]),
            ">= 30",
            r["npm_envs_writes_read_back"] >= TARGETS["npm_envs_writes_read_back"],
        ),
    ]
    print("\n== Targets")
    for name, value, target, ok in checks:
        print(
            f"  {'PASS' if ok else ('n/a ' if ok is None else 'FAIL')}  {name:55s} {value:>8s}  (target {target})"
        )
    print(
        f"\nre-run: python bench/env_quality.py --environments {r['environments'].rpartition('@')[0]} --calls {r['calls_per_tool']}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--environments", default="outputs/quickstart/environments", help="environments artifact"
    )
    parser.add_argument("--labels", default=str(DEFAULT_LABELS), help="hand-made tool effect labels (JSON)")
    parser.add_argument(
        "--api-pool", default=None, help="api_pool artifact (default: the environments' input)"
    )
    parser.add_argument("--calls", type=int, default=3, help="calls per tool, each from a fresh reset")
    parser.add_argument("--json", default=None, help="also write every figure (and each tool instance) here")
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    logging.disable(logging.INFO)
    report = run(args.environments, args.labels, args.calls, args.api_pool)
    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
