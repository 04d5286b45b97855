"""The one place that defines every dataset envscale writes: configs, features, schema versions.

Each *kind* of artifact (the output of one stage) has a schema version `MAJOR.MINOR` and a set
of named configs (subsets). A reader accepts an artifact whose major version equals the one
below; a minor bump only adds columns. Nested tool schemas, arguments and states are stored
with `datasets.Json()`: a struct column would unify all tools' schemas into one, so every row
would render `null` fields of other tools (platform notes, "TRL SFT").

Example:

```python
>>> from envscale.schemas import KINDS
>>> KINDS["api_pool"].schema_version, sorted(KINDS["api_pool"].configs)
('1.0', ['api_pool', 'duplicates', 'rejected'])
```
"""

from __future__ import annotations

from dataclasses import dataclass, field

from datasets import Features, Json, List, Value

#: The split of a config that declares no others (every config of the first kinds).
DEFAULT_SPLITS = ("train",)


@dataclass(frozen=True)
class ArtifactKind:
    """A kind of artifact: its schema version, its configs, which config is the main one, and their splits.

    A config has the one split `train` unless `splits` names others (`{"tasks": ("train", "test")}`);
    each split is its own set of parquet files (`<config>/<split>-<data_id>-NNNNN.parquet`).
    """

    name: str
    schema_version: str
    configs: dict[str, Features]
    main_config: str
    description: str
    splits: dict[str, tuple[str, ...]] = field(default_factory=dict)
    added: dict[str, str] = field(default_factory=dict)
    """Configs added in a minor version (`{"bundle": "1.2"}`): an older version of the same major lacks them, and
    reads as holding them empty, so an artifact written before keeps opening."""

    @property
    def major(self) -> int:
        return int(self.schema_version.split(".")[0])

    def may_lack(self, config: str, version: str) -> bool:
        """Whether an artifact of schema `version` may lack `config` (it was added in a later minor version)."""
        if config not in self.added:
            return False
        older = tuple(int(x) for x in version.split(".")[:2])
        return older < tuple(int(x) for x in self.added[config].split(".")[:2])

    def splits_of(self, config: str) -> tuple[str, ...]:
        """The splits `config` may hold (`("train",)` unless the kind declares others)."""
        return self.splits.get(config, DEFAULT_SPLITS)


API_POOL_FEATURES = Features(
    {
        "id": Value("string"),  # content hash of (original name, description, parameters, output schema)
        "name": Value("string"),  # unique in the pool, OpenAI name rule
        "original_name": Value("string"),
        "description": Value("string"),
        "parameters": Json(),  # JSON Schema, root type object
        "output_schema": Json(),  # JSON Schema or null
        "kind": Value("string"),  # "read" | "write"
        "kind_evidence": List(Value("string")),
        "group": Value("string"),  # natural grouping in the source (API class, tag, server)
        "annotations": Json(),
        "source": Value("string"),  # the source spec
        "source_kind": Value("string"),
        "source_version": Value("string"),
        "license": Value("string"),
        "position": Value("string"),  # where in the source
        "normalization": List(Value("string")),  # every repair made
    }
)

REJECTED_FEATURES = Features(
    {
        "source": Value("string"),
        "position": Value("string"),
        "name": Value("string"),
        "reason": Value("string"),
        "raw": Value("string"),  # the offending record, JSON, truncated
    }
)

DUPLICATES_FEATURES = Features(
    {
        "duplicate_of": Value("string"),  # id of the kept tool
        "name": Value("string"),
        "source": Value("string"),
        "position": Value("string"),
    }
)

API_POOL = ArtifactKind(
    name="api_pool",
    schema_version="1.0",
    configs={"api_pool": API_POOL_FEATURES, "rejected": REJECTED_FEATURES, "duplicates": DUPLICATES_FEATURES},
    main_config="api_pool",
    description="Normalised tool schemas (JSON Schema) with read/write kind and provenance.",
)

EDGES_FEATURES = Features(
    {
        "source_id": Value("string"),  # for a dependency edge: the tool whose output feeds
        "target_id": Value("string"),  # ... the tool whose input it fills
        "source_name": Value("string"),
        "target_name": Value("string"),
        "kind": Value("string"),  # "dependency" (output -> input), "parameter" (tool-level), "semantic"
        "score": Value("float32"),  # cosine similarity of the best match
        "matches": Json(),  # [{"output": field, "input": param, "score": s}] for dependency edges
        "llm_verdict": Value("string"),  # "confirmed" / "rejected" / null (not checked)
        "domain_id": Value("int32"),  # the domain holding both ends, or -1 (crosses domains)
    }
)

DOMAINS_FEATURES = Features(
    {
        "domain_id": Value("int32"),
        "name": Value("string"),
        "n_tools": Value("int32"),
        "n_read": Value("int32"),
        "n_write": Value("int32"),
        "tool_ids": List(Value("string")),
        "tool_names": List(Value("string")),
        "parent_tool_ids": List(Value("string")),  # reads borrowed from other pieces of a cut API
        "dependency_edges": Value("int32"),  # dependency edges inside the domain
        "internal_edges": Value("int32"),  # all edges inside the domain graph
        "cohesion": Value("float32"),  # internal weight / all weight touching the domain
        "groups": Json(),  # source groups of the members (API class, OpenAPI document, server), counts
        "purity": Value("float32"),  # share from the largest group (a group-less tool is its own group)
        "split_reason": Value("string"),  # why it was cut out of a larger community or group, or null
    }
)

ASSIGNMENTS_FEATURES = Features(
    {
        "tool_id": Value("string"),
        "name": Value("string"),
        "domain_id": Value("int32"),  # -1 when isolated or a duplicate
        "status": Value("string"),  # "assigned" | "isolated" | "duplicate"
        "reason": Value("string"),  # why isolated / which tool it duplicates, or a note (no parameters, ...)
    }
)

GRAPH_DUPLICATES_FEATURES = Features(
    {
        "tool_id": Value("string"),  # the dropped tool
        "name": Value("string"),
        "duplicate_of": Value("string"),  # id of the kept tool
        "duplicate_of_name": Value("string"),
        "reason": Value("string"),
    }
)

GRAPH = ArtifactKind(
    name="graph",
    schema_version="1.1",  # 1.1: the `duplicates` config and the `purity` column of `domains`
    configs={
        "domains": DOMAINS_FEATURES,
        "edges": EDGES_FEATURES,
        "assignments": ASSIGNMENTS_FEATURES,
        "duplicates": GRAPH_DUPLICATES_FEATURES,
    },
    main_config="domains",
    description="Tool dependency edges and domains (one API per domain, Louvain) over an api_pool.",
)

#: What an environment is (`environments.kind`): a world of state, or a set of functions with none to change.
ENVIRONMENT_KINDS = ("world", "function_set")


def environment_kind(row: dict) -> str:
    """An `environments` row's kind: its `kind` column (schema 1.2), or for an older row its `read_only` flag."""
    return row.get("kind") or ("function_set" if row.get("read_only") else "world")


ENVIRONMENTS_FEATURES = Features(
    {
        "domain_id": Value("int32"),
        "domain_name": Value("string"),
        "name": Value("string"),
        "spec": Json(),  # the environment spec (envscale.env.spec): tables, initial data, tools as operations
        "n_tables": Value("int32"),
        "n_tools": Value("int32"),
        "n_read": Value("int32"),
        "n_write": Value("int32"),
        "n_rows": Value("int32"),  # rows of the initial state
        "state_hash": Value("string"),  # of the initial state
        "tables": List(Value("string")),
        "dropped_tools": Json(),  # tools left out because they failed verification: [{"tool", "reason"}]
        "excluded_tools": Json(),  # pure computations left out of the state: [{"tool", "reason"}]
        "semantic_score": Value("float32"),  # share of tools that do what their names say (verify_report)
        "read_only": Value("bool"),  # no write tool: no state-checked task can be posed here
        # "world" (tools that write a state others read) | "function_set" (no write tool, or loose functions
        # that write only the session row: lookups, computations, setters; kept for single-call data, no
        # state-checked task is posed; counted apart)
        "kind": Value("string"),
        "written_and_read": List(Value("string")),  # tables some tool writes and another reads
        "policy": Value("string"),  # rules derived from the tools' descriptions, shown to agents
    }
)

ENV_REJECTED_FEATURES = Features(
    {
        "domain_id": Value("int32"),
        "domain_name": Value("string"),
        "name": Value("string"),
        "reason": Value("string"),  # the first problem
        "problems": Json(),  # every problem: [{"tool": name or null, "reason": ...}]
        "spec": Json(),  # the spec that failed, for debugging (null when none could be inferred)
    }
)

ENVIRONMENTS = ArtifactKind(
    name="environments",
    schema_version="1.2",  # 1.2: `kind` (world | function_set)
    configs={"environments": ENVIRONMENTS_FEATURES, "rejected": ENV_REJECTED_FEATURES},
    main_config="environments",
    description="Executable SQLite-backed tool environments, one per domain, verified.",
)

TASKS_FEATURES = Features(
    {
        "task_id": Value("string"),  # <environment>-<index>-<hash of the gold calls>, stable for a seed
        "environment": Value("string"),  # the environment's name
        "environment_ref": Value("string"),  # the pinned environments artifact version it runs in
        "domain_id": Value("int32"),
        "split": Value("string"),  # "train" | "test" (also the split the row is in)
        # why a test row is held out: "environment" (its environment is held out whole, no train task from
        # it) | "task" (the task alone: a test_task_share draw in an environment that is not held out) | ""
        "held_out": Value("string"),
        "kind": Value("string"),  # "read" | "write" | "mixed" | "policy" | "missing_info"
        "difficulty": Json(),  # {"chain_length", "n_writes", "n_distractors", "shape", "level"}
        "scoring": Json(),  # {"state", "answer_facts", "required_actions", "forbidden_actions"}
        "instructions": Json(),  # for the simulated user: persona, goal, known/hidden facts, done_when, ...
        "first_message": Value("string"),  # the user's opening message
        # a conversation's requests in order, [{"message", "goal", "calls": [start, end), "answer_facts"}];
        # the first message is the first one's; [] for a task of one request
        "requests": Json(),
        "tools": List(Value("string")),  # the tools offered: the ones needed plus distractors
        # [{"tool", "arguments", "provenance": {argument: "user" | "constant" | "schema" | "call[i].FIELD"}}]
        "gold_calls": Json(),
        "gold_results": Json(),  # the result of each gold call, in order
        "gold_state_hash": Value("string"),  # state hash after the gold calls on reset(seed)
        "gold_diff": Json(),  # Environment.diff of the gold run: {table: {"added", "removed", "changed"}}
        "answer_facts": List(Value("string")),  # values the agent's final answer must state
        "policy": Json(),  # {"text": shown to the agent, "rules": [structured rules the scorer checks]}
        "seed": Value("int64"),  # the environment seed of the gold run
        "notes": List(Value("string")),  # how the task was built
    }
)

TASKS_REJECTED_FEATURES = Features(
    {
        "environment": Value("string"),
        "domain_id": Value("int32"),
        "kind": Value("string"),  # the kind the candidate was meant to be, or null (the environment failed)
        "code": Value("string"),  # why it was dropped, short: "filler_value"; the card counts these
        "reason": Value("string"),  # "<code>: <detail>", the detail naming the call, argument or value
        "detail": Json(),  # the candidate or the error, for debugging
    }
)

TASKS = ArtifactKind(
    name="tasks",
    # 1.1: `held_out` in `tasks`, `code` in `rejected`; 1.2: `requests` (conversations; a 1.1 row has one)
    schema_version="1.2",
    configs={"tasks": TASKS_FEATURES, "rejected": TASKS_REJECTED_FEATURES},
    main_config="tasks",
    description="Verifiable tool-use tasks: gold calls with argument provenance, gold states, user intents.",
    splits={"tasks": ("train", "test")},
)

#: What ends an episode: the simulated user's message contains it (tau-bench's marker). `filter` drops that
#: last user message from the SFT data, so each conversation ends with the agent's answer.
STOP = "###STOP###"

TRAJECTORY_FEATURES = Features(
    {
        "trajectory_id": Value("string"),  # <task_id>#<trial>
        "task_id": Value("string"),
        "trial": Value("int32"),  # 0..trials-1
        "seed": Value("int64"),  # the episode's seed (sampling and scripted noise), distinct per trial
        "environment": Value("string"),
        "environment_ref": Value("string"),  # the pinned environments artifact version it ran in
        "domain_id": Value("int32"),
        "kind": Value("string"),  # the task's kind
        "split": Value("string"),  # the task's split
        # OpenAI format: system, user, assistant (with `tool_calls`, arguments as objects) and `tool` messages
        "messages": Json(),
        "tools": Json(),  # the tools offered to the agent, OpenAI format
        # every call the agent made, in order: {"tool", "arguments", "ok", "error", "code", "turn"}
        "calls": Json(),
        "final_answer": Value("string"),  # the agent's last message to the user
        "final_state_hash": Value("string"),  # the environment's state hash when the episode ended
        "status": Value("string"),  # completed | max_turns | timeout | agent_error | user_error
        "failure_cause": Value("string"),  # null (completed) | "agent" | "user"
        "error": Value("string"),  # why the episode did not complete, or null
        "user_style": Value("string"),  # plain | terse | vague | change_mind
        "turns": Value("int32"),  # user turns (messages the user sent)
        "n_calls": Value("int32"),
        "n_errors": Value("int32"),  # calls the environment refused or could not run
        "agent": Json(),  # the agent's backend: kind, model, revision, generation parameters
        "user": Json(),  # the user simulator's backend
        "usage": Json(),  # {"agent": {"prompt_tokens", "completion_tokens", "requests"}, "user": {...}}
        "wall_s": Value("float64"),
    }
)

TRAJECTORIES = ArtifactKind(
    name="trajectories",
    schema_version="1.0",
    configs={"trajectories": TRAJECTORY_FEATURES},
    main_config="trajectories",
    description="Simulated user/agent episodes on tasks: messages, tool calls, final states, backends.",
)

#: The checks `filter` records per trajectory, one column each (`None`: the task is not scored on it).
CHECKS = ("ended", "format", "schema", "state", "answer", "actions", "policy", "exact", "consistent")

FILTERED_FEATURES = Features(
    {
        **TRAJECTORY_FEATURES,
        **{f"check_{name}": Value("bool") for name in CHECKS},
        "passed": Value("bool"),  # every check of the config's `levels` holds (a check that is null holds)
        "failed_checks": List(Value("string")),  # the required checks that did not hold
    }
)

#: Per task, how many of its episodes (trials) the filter kept: the pass rate an RL curriculum buckets or weights by.
PASS_RATES_FEATURES = Features(
    {
        "task_id": Value("string"),
        "environment": Value("string"),
        "kind": Value("string"),
        "episodes": Value("int32"),  # the task's trajectories judged (its trials)
        "passed": Value("int32"),  # ... kept
        "pass_rate": Value("float64"),  # passed / episodes
    }
)

FILTERED = ArtifactKind(
    name="filtered",
    schema_version="1.2",  # 1.1: the `check_consistent` column; 1.2: the `pass_rates` config
    configs={"filtered": FILTERED_FEATURES, "rejected": FILTERED_FEATURES, "pass_rates": PASS_RATES_FEATURES},
    main_config="filtered",
    description="Trajectories that reach the gold outcome (SFT data), and the rejected ones with their failed checks.",
    added={"pass_rates": "1.2"},
)

EVAL_RESULTS_FEATURES = Features(
    {
        "agent": Value("string"),  # the agent's name in the eval config (`agent`, or a key of `agents`)
        "benchmark": Value("string"),  # "tasks" (held-out tasks) | "bfcl"
        "id": Value("string"),  # the task id, or BFCL's question id
        "trial": Value("int32"),  # 0..trials-1
        "kind": Value("string"),  # the task's kind, or the BFCL category (simple, multiple, parallel)
        "environment": Value("string"),  # the task's environment (null for BFCL)
        "split_kind": Value("string"),  # "heldout_tasks" | "heldout_envs" (tasks); "bfcl"
        "difficulty": Value("string"),  # the task's difficulty level (easy | medium | hard), or "calls=N"
        "success": Value("bool"),  # every check of `levels` holds (tasks); BFCL's AST checker says valid
        "failed_checks": List(Value("string")),  # the required checks that failed, or BFCL's error type
        "checks": Json(),  # every check of the trajectory (tasks), or BFCL's whole verdict
        "n_calls": Value("int32"),  # tool calls the agent made
        "n_valid_calls": Value("int32"),  # ... well formed, to an offered tool, with schema-valid arguments
        "right_tools": Value("float64"),  # tasks: Jaccard index of the tools called and the gold calls' tools
        "right_calls": Value("float64"),  # tasks: share of the gold calls matched on tool and key arguments
        "status": Value("string"),  # the episode's status (tasks); "answered" | "error" (BFCL)
        "trajectory_id": Value("string"),  # <task_id>#<trial> in the agent's rollout (tasks)
        "output": Json(),  # BFCL: the calls made and the reply's text; tasks: the final answer
        "agent_backend": Json(),  # the backend: kind, model, revision, generation parameters
        "wall_s": Value("float64"),
    }
)

EVAL_SUMMARY_FEATURES = Features(
    {
        "agent": Value("string"),
        "benchmark": Value("string"),
        "group_by": Value("string"),  # overall | split_kind | kind | difficulty | environment
        "group": Value("string"),  # the group's value ("all" for overall)
        "episodes": Value("int32"),
        "items": Value("int32"),  # tasks or questions
        "successes": Value("int32"),
        "success_rate": Value("float64"),
        "k": Value("int32"),  # the most trials every item of the group has
        "pass_hat": Json(),  # {k: pass^k} for k = 1..k (tau-bench's estimate from n trials per item)
        "pass_k": Value("float64"),  # pass^k at k = `k`
        "calls": Value("int32"),
        "valid_calls": Value("int32"),
        "validity": Value("float64"),  # valid_calls / calls, null without calls
        "right_tools": Value("float64"),  # mean over episodes of the share of gold tools used (tasks)
        "right_calls": Value("float64"),  # mean over episodes of the share of gold calls matched (tasks)
    }
)

#: The one row of an eval's reproducibility bundle (`envscale.evaluation.bundle`; also `stats.bundle` of its manifest).
EVAL_BUNDLE_FEATURES = Features(
    {
        "bundle_version": Value("int32"),
        "benchmark": Value("string"),  # "tasks" | "bfcl"
        "seed": Value("int64"),
        "envscale_version": Value("string"),
        "tasks": Json(),  # the tasks artifact (pinned, version, revision, data id, fingerprint) and split; null for BFCL
        "items": Json(),  # the exact ids evaluated (task or BFCL question ids), their count and sha256
        "agents": Json(),  # per agent: backend, sampling settings, model (base, LoRA adapter), trainer config or null
        "user": Json(),  # the simulated user's backend, sampling and model (tasks); null for BFCL
        "benchmarks": Json(),  # envscale, eval schema, the judge's checks, bfcl-eval and its data files, tau2
        "libraries": Json(),  # torch, transformers, trl, datasets, peft, accelerate, envscale, python versions
        "eval_config": Json(),  # the whole eval config, without API keys
        "command": Json(),  # argv, the `envscale eval` flags given, a command line that makes the same config
    }
)

EVAL = ArtifactKind(
    name="eval",
    # 1.1: right_tools, right_calls (results and summary); 1.2: the `bundle` config (reproducibility)
    schema_version="1.2",
    configs={
        "results": EVAL_RESULTS_FEATURES,
        "summary": EVAL_SUMMARY_FEATURES,
        "bundle": EVAL_BUNDLE_FEATURES,
    },
    main_config="summary",
    description="Agents scored on held-out tasks or BFCL: one row per episode, metrics per agent and group, and "
    "the reproducibility bundle.",
    added={"bundle": "1.2"},
)

KINDS: dict[str, ArtifactKind] = {
    k.name: k for k in (API_POOL, GRAPH, ENVIRONMENTS, TASKS, TRAJECTORIES, FILTERED, EVAL)
}


def get_kind(name: str) -> ArtifactKind:
    """The :class:`ArtifactKind` called `name`, with an error listing the known ones."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown artifact kind {name!r}; known: {', '.join(KINDS)}") from None
