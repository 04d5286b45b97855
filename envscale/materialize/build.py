"""The `materialize` stage's library: `domains` + `api_pool` -> executable, verified `environments`.

Each domain becomes an environment spec (see `envscale.env.spec`): a SQLite schema inferred
from its tools, every tool as a declarative read or write operation over it, and an initial
state generated from a seed. Nothing generated is executed as code: operations are data, run
by `envscale.env.Environment` with parameterised statements.

Inference (`envscale.materialize.infer`) reads what each tool *means* (`envscale.words.semantics`): pure
computations are left out with their reason (`excluded_tools`; a domain that is mostly
computation is not materialised), entities are the objects of verbs or the resources of OpenAPI
routes, other `*_id` arguments become foreign keys, and each verb gets the operation it names
(create inserts, update updates an existing row, delete deletes or retires, status verbs set a
status value with a precondition; rules stated in descriptions become preconditions, guards and
the environment's `policy`).

Every environment is verified (`envscale.materialize.verify`): mechanically (reads leave the state alone,
writes change what they declare, results match their schemas, invalid calls change nothing) and
semantically (each tool does what its *name* says; see `verify_report`). Each row carries its
`semantic_score` and `read_only` (no write tool: later stages pose no state-checked task in it). Tools of one API
operation with one effect (PUT and PATCH of a path, copies `_N`) are folded into one, the others recorded as its
`metadata.aliases` (`envscale.materialize.aliases`). A tool that fails
is left out and recorded with its reason in the row's `dropped_tools` (`keep_failed_tools`); an
environment with an environment-level problem or fewer than `min_tools` passing tools goes to
`rejected` with every problem and the spec that failed.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.materialize.build import MaterializeConfig, materialize
>>> art = materialize(open_artifact("outputs/quickstart/graph"), MaterializeConfig(), "outputs/quickstart/environments")
>>> art.manifest["stats"]["verified"], art.manifest["stats"]["rejected"]
```
"""

from __future__ import annotations

import functools
import json
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from ..artifacts import Artifact, ArtifactWriter, RowLookup, iter_rows, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..env.policy import policy_rules
from ..executor import map_ordered
from ..executor import report as executor_report
from ..schemas import ENVIRONMENTS
from ..words.names import tokens
from .aliases import fold_aliases
from .effects import add_effects
from .infer import infer_spec

logger = logging.getLogger(__name__)
#: Most rows `materialize` generates per table (a spec may hold up to `envscale.env.spec.MAX_ROWS_PER_TABLE`).
#: An environment is an in-memory database copied for every
#: episode and verified tool by tool; at 10,000 rows per table a small domain takes ~2 s (2 cores),
#: shown on the per-domain progress bar.
GENERATED_ROWS_MAX = 10_000


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


# ----------------------------------------------------------------------------- stage


_DROP_ROUNDS = 3
"""Rounds of dropping failing tools; the spec left after the last round is verified once more."""


def verb_writes(spec: dict) -> list[dict]:
    """Leave out, in place, the updates that could only be stored as their own verb (`updateMandateAlias` sets
    `mandate_alias` to "update", `git_reset` sets `git` to "reset", `users_setActive` sets `users_active` to
    "set") and change nothing else: no request means that. Returns them as `excluded_tools` records."""
    out = []
    for tool in spec.get("tools") or []:
        op = tool.get("operation") or {}
        if tool.get("kind") != "write" or op.get("type") != "update" or op.get("set") or op.get("effects"):
            continue
        verbs = [
            (column, value)
            for column, value in (op.get("fixed") or {}).items()
            if isinstance(value, str) and not set(tokens(column)) & {"status", "state", "logged"}
        ]
        if verbs and len(verbs) == len(op.get("fixed") or {}):
            column, value = verbs[0]
            out.append(
                {
                    "tool": tool["name"],
                    "reason": f"an act stored as its own verb: it writes {value!r} into {column} and changes "
                    "nothing else",
                }
            )
    if out:
        gone = {x["tool"] for x in out}
        spec["tools"] = [t for t in spec["tools"] if t["name"] not in gone]
    return out


def _verify_dropping(spec: dict, config: MaterializeConfig) -> tuple[list[dict], list[dict], dict]:
    """Check and verify `spec`; with `keep_failed_tools`, drop failing tools (recorded) and verify again.

    Every spec problem is found in one pass (`spec_problems`), then every tool is exercised
    (`verify_report`: mechanical and semantic checks). Returns (problems that reject the
    environment, dropped tools with their reasons, the last verification report).
    """
    from ..env.spec import spec_problems
    from ..materialize.verify import verify_report

    dropped: list[dict] = []
    report: dict = {}
    first: float | None = None  # the semantic score before any tool is dropped
    for attempt in range(_DROP_ROUNDS + 1):
        problems = spec_problems(spec) if attempt == 0 else []
        if not problems:
            report = verify_report(spec, seed=config.seed, calls_per_tool=config.calls_per_tool)
            # writes that no read shows are a finding on the row (`written_and_read` stays empty),
            # not a reason to throw the environment away: its final state still scores tasks
            problems = [p for p in report["problems"] if p.get("check") != "semantic:written_not_read"]
            first = report["semantic_score"] if first is None else first
            report["semantic_score"] = first
        by_tool: dict[str, str] = {}
        for p in problems:
            if p.get("tool"):
                by_tool.setdefault(p["tool"], p["reason"])
        last = attempt == _DROP_ROUNDS  # the spec left after the last drop is verified, never dropped from
        if not problems or any(not p.get("tool") for p in problems) or not config.keep_failed_tools or last:
            return problems, dropped, report  # passed, an environment-level problem, or no more dropping
        dropped += [{"tool": t, "reason": r} for t, r in by_tool.items()]
        spec["tools"] = [t for t in spec["tools"] if t["name"] not in by_tool]
        if len(spec["tools"]) < config.min_tools:
            return (
                [
                    {
                        "tool": None,
                        "reason": f"only {len(spec['tools'])} tools passed verification "
                        f"(< min_tools {config.min_tools})",
                    }
                ],
                dropped,
                report,
            )
    return problems, dropped, report


def world_or_loose(spec: dict, written_and_read: list[str]) -> str:
    """`world`, or `function_set` for loose functions that write only the session row: tools of no API
    (`metadata.group` empty: single BFCL function docs) whose every table written and read again is the
    logged-in account's row (`setText` sets `accounts.text_start`). They have state, but no rows of their
    own that a person would ask about; they are kept for single-call data like read-only sets. So are loose
    functions whose one table written and read again sits among more tables that are only looked up."""
    grouped = any((t.get("metadata") or {}).get("group") for t in spec["tools"])
    session = (spec.get("session") or {}).get("table")
    own = set(written_and_read) - {session}
    tables = set(spec.get("tables") or {}) - {session}
    # one table written among many that are only looked up (a sculpture catalogue, paint colours, JVM events and an
    # Exasol schema side by side) is a set of lookups with one write: every blind reader scored such a "world" 0
    spans = len(own) >= 2 or 2 * len(own) >= len(tables)
    return "world" if grouped or (own and spans) else "function_set"


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


#: Rows per parquet row group: a row holds a whole spec with its initial data, and a row group waits in memory
#: until it is full (10,000 rows held 2.9 GB at 1,151 environments).
ROW_GROUP_ROWS = 100
#: The checkpoint of finished domains, under the writer's `parts_dir`: one outcome a line, in domain order.
PARTS_FILE = "domains.jsonl"


def materialize_domain(item: tuple[int, dict, list[dict]], config: MaterializeConfig) -> dict:
    """One domain -> its outcome: `{"index", "environment": row}` or `{"index", "rejected": row}`, with the
    counts the stage's statistics sum (`dropped`, `excluded`). A module-level function of one item, so the
    executor (`envscale.executor`) runs it here or on a Ray worker with the same result."""
    from ..env import Environment

    index, domain, tools = item
    base = {"domain_id": domain["domain_id"], "domain_name": domain["name"]}
    if len(tools) < config.min_tools:
        reason = f"{len(tools)} tools (< min_tools {config.min_tools})"
        return {
            "index": index,
            "code": "too few tools",
            "rejected": {**base, "name": None, "reason": reason, "problems": [], "spec": None},
        }
    spec, dropped, excluded, report = None, [], [], {}
    try:
        inferred = infer_spec(
            domain, tools, rows=config.rows_per_table, seed=config.seed, max_columns=config.max_columns
        )
        spec, excluded = (add_effects(inferred.spec) if inferred.spec else None), inferred.excluded
        if spec is not None:
            excluded = excluded + verb_writes(spec)
        if spec is None:
            problems = [{"tool": None, "reason": f"not materialised: {'; '.join(inferred.notes)}"}]
        else:
            problems, dropped, report = _verify_dropping(spec, config)
            fold_aliases(spec)  # one act under several names: one tool, the others its aliases
            if spec.get("policy"):  # a line for every tool a rule refuses, the effects' rules included
                spec["policy"] = policy_rules(spec)["text"]
    except Exception as exc:  # noqa: BLE001 - one bad domain never stops the run; kept with its reason
        problems = [{"tool": None, "reason": f"materialisation failed: {type(exc).__name__}: {exc}"}]
    counts = {"dropped": [d["reason"].split(":")[0][:80] for d in dropped], "excluded": len(excluded)}
    if problems:
        return {
            "index": index,
            "code": problems[0]["reason"].split(":")[0][:80],
            **counts,
            "rejected": {
                **base,
                "name": spec["name"] if spec else None,
                "reason": problems[0]["reason"],
                "problems": problems + dropped + excluded,
                "spec": spec,
            },
        }
    with Environment(spec) as env:
        sizes = env.reset()["tables"]
        state_hash = env.state_hash()
    n_write = sum(t["kind"] == "write" for t in spec["tools"])
    read_only = bool(report.get("read_only", n_write == 0))
    kind = "function_set" if read_only else world_or_loose(spec, report.get("written_and_read") or [])
    row = {
        **base,
        "name": spec["name"],
        "spec": spec,
        "n_tables": len(spec["tables"]),
        "n_tools": len(spec["tools"]),
        "n_read": len(spec["tools"]) - n_write,
        "n_write": n_write,
        "n_rows": sum(sizes.values()),
        "state_hash": state_hash,
        "tables": sorted(spec["tables"]),
        "dropped_tools": dropped,
        "excluded_tools": excluded,
        "semantic_score": report.get("semantic_score"),
        "read_only": read_only,
        "kind": kind,
        "written_and_read": report.get("written_and_read") or [],
        "policy": spec.get("policy"),
    }
    return {"index": index, **counts, "environment": row}


def _finished(path: Path) -> dict[int, dict]:
    """Outcomes checkpointed by an interrupted run of the same fingerprint, by domain index."""
    done: dict[int, dict] = {}
    if path.is_file():
        with path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    outcome = json.loads(line)
                    done[outcome["index"]] = outcome
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by the interruption: that domain is done again
    return done


def _materialize(
    graph_artifact: Artifact, pool_artifact: Artifact, config: MaterializeConfig, writer: ArtifactWriter
) -> Artifact:
    pool = RowLookup(pool_artifact.load("api_pool"), key="id")
    domains = graph_artifact.load("domains")
    parts = writer.parts_dir / PARTS_FILE
    finished = _finished(parts)
    if finished:
        logger.info("resume: %d of %d domains were already done", len(finished), domains.num_rows)
    envs = writer.shard_writer("environments", batch_size=50, row_group_rows=ROW_GROUP_ROWS)
    rejected = writer.shard_writer("rejected", batch_size=50, row_group_rows=ROW_GROUP_ROWS)
    reasons: Counter = Counter()
    dropped_reasons: Counter = Counter()
    scores: list[float] = []
    excluded_count = read_only_count = aliased_count = function_set_count = 0

    def todo() -> Iterator[tuple[int, dict, list[dict]]]:
        for index, domain in enumerate(iter_rows(domains, batch_size=256)):
            if index not in finished:
                yield index, domain, pool.rows([*domain["tool_ids"], *(domain.get("parent_tool_ids") or [])])

    new = map_ordered(functools.partial(materialize_domain, config=config), todo(), shard_size=1)
    with parts.open("a", encoding="utf-8") as checkpoint:
        for index in tqdm(range(domains.num_rows), desc="materialize", unit="domain"):
            outcome = finished.get(index)
            if outcome is None:
                outcome = next(new)
                checkpoint.write(json.dumps(outcome, ensure_ascii=False, default=str) + "\n")
                checkpoint.flush()
            dropped_reasons.update(outcome.get("dropped") or [])
            excluded_count += outcome.get("excluded", 0)
            if "rejected" in outcome:
                reasons[outcome["code"]] += 1
                rejected.write(outcome["rejected"])
                continue
            row = outcome["environment"]
            envs.write(row)
            scores.append(row["semantic_score"] if row["semantic_score"] is not None else 0.0)
            function_set_count += row["kind"] == "function_set"
            read_only_count += row["read_only"]
            aliased_count += sum(
                len((t.get("metadata") or {}).get("aliases") or []) for t in row["spec"]["tools"]
            )
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
        "tools_excluded_as_computations": excluded_count,
        "tools_folded_as_aliases": aliased_count,
        "read_only_environments": read_only_count,
        "function_sets": function_set_count,
        "worlds": counts["environments"] - function_set_count,
        "mean_semantic_score": round(sum(scores) / len(scores), 4) if scores else 0.0,
    }
    stats["executor"] = executor_report()  # how it ran (peak memory per worker), not what it made
    art = writer.commit(counts, stats)
    logger.info("environments %s: %d of %d domains verified", art.pinned, counts["environments"], total)
    return art
