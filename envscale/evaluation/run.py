"""The `eval` stage's library: agents on held-out tasks (`tasks` -> `eval`) or on BFCL, scored, compared and reported.

- `benchmark: tasks`: each agent plays the `test` split of the input tasks (held-out tasks of training
  environments and whole held-out environments) through the rollout stage with the simulated user, into
  `<output>/rollouts/<agent>` (resumable, reused when complete); every trajectory is checked as `filter`
  checks it (`levels`). See `envscale.evaluation.harness`.
- `benchmark: bfcl`: BFCL's single-turn categories (`bfcl_categories`), each question asked with its
  functions as tools and scored by BFCL's own AST checker (`envscale.evaluation.bfcl`); no input needed.

One agent (`agent:`) or several (`agents: {before: {...}, after: {...}}`, a name for each) per run; the
metrics (`envscale.evaluation.metrics`: success, pass^k over `trials`, tool-call validity, per split kind,
task kind, difficulty and environment) are written as an `eval` artifact: config `results` (one row per
episode or question), `summary` (metrics per agent and group) and `bundle` (one row: the reproducibility
bundle, `envscale.evaluation.bundle`, also `stats.bundle` of the manifest), plus `report.md` and `plots/*.png` next
to the data (in the version folder and, for the latest version, at the artifact's root). The side-by-side
table is printed when the run ends, and by `envscale show eval PATH`.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.evaluation.run import EvalConfig, evaluate
>>> tasks = open_artifact("outputs/quickstart/tasks")
>>> config = EvalConfig(agents={"before": {"kind": "transformers", "model": "smollm2-135m-instruct"},
...                             "after": {"kind": "transformers", "model": "outputs/train/stage2"}}, max_tasks=8)
>>> art = evaluate(tasks, config, "outputs/quickstart/eval")
>>> from datasets import load_dataset
>>> load_dataset("outputs/quickstart/eval", "summary", split="train").to_pandas()
```

CLI: `envscale eval --input outputs/quickstart/tasks --output outputs/quickstart/eval --agent
kind=transformers,model=smollm2-135m-instruct,max_tokens=128 --max-tasks 8`; before/after with one
`--agent NAME=SPEC` per agent: `--agent "before={kind: transformers, model: smollm2-135m-instruct}"
--agent "after={kind: transformers, model: outputs/quickstart/model/stage2}"`;
`envscale eval --benchmark bfcl --bfcl-categories simple --output outputs/bfcl --agent "{kind: endpoint,
base_url: http://127.0.0.1:8000/v1, model: M}"` (`kind: openai` is the same as `endpoint`).
"""

from __future__ import annotations

import copy
import logging
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, ArtifactWriter, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..judge import DEFAULT_LEVELS
from ..schemas import CHECKS, EVAL
from .bfcl import BFCL_REQUIREMENT, CATEGORIES
from .harness import RUN_ONLY  # backend settings that say how to reach a server, not what answers

logger = logging.getLogger(__name__)

#: The benchmarks `eval` runs.
BENCHMARKS = ("tasks", "bfcl")
#: The name of the one agent given with `agent:`.
SINGLE = "agent"
#: What an agent may be named (`--agent NAME=SPEC`, `agents: {NAME: ...}`).
AGENT_NAME = re.compile(r"^[A-Za-z0-9][\w.-]{0,63}$")


@dataclass
class EvalConfig:
    """Configuration of `envscale eval`."""

    benchmark: str = option(
        "tasks", f"What to evaluate on: {' | '.join(BENCHMARKS)} (held-out tasks of the input, or BFCL)."
    )
    agent: dict[str, Any] | None = option(
        None,
        "One agent's backend: {kind: scripted|endpoint|transformers, base_url, model, temperature, max_tokens, "
        "noise, ...} (see BackendConfig); named `agent`. Default, without `agents`: the scripted agent.",
    )
    agents: dict[str, dict] | None = option(
        None,
        "Several agents by name, for a before/after comparison: {before: {...}, after: {...}}; the table's "
        'difference column is the last minus the first. Flag: --agents "{before: {...}, after: {...}}".',
    )
    user: dict[str, Any] = option(
        {"kind": "scripted"}, "tasks: the simulated user's backend (as in rollout)."
    )
    trials: int = option(1, "Episodes per task (or answers per BFCL question) for pass^k.", ge=1, le=100)
    max_tasks: int | None = option(
        None,
        "tasks: evaluate at most this many test tasks (a seeded sample, the same for every agent).",
        ge=1,
    )
    max_tool_chars: int | None = option(
        None,
        "tasks: only test tasks whose offered tools take at most this many characters (as in rollout; for agents "
        "with a short context).",
        ge=1,
    )
    levels: list[str] = option(
        list(DEFAULT_LEVELS),
        f"tasks: the checks an episode must pass to succeed ({', '.join(CHECKS)}), as in filter.",
    )
    bfcl_categories: list[str] = option(["simple"], f"bfcl: categories to ask ({', '.join(CATEGORIES)}).")
    max_questions: int | None = option(None, "bfcl: the first N questions of each category; null: all.", ge=1)
    seed: int = option(0, "Seed of the episodes (and of the task sample).", ge=0, le=2**32 - 1)
    max_turns: int = option(10, "tasks: most user messages per episode.", ge=1, le=1000)
    max_steps: int = option(10, "tasks: most tool rounds in one agent turn.", ge=1, le=1000)
    episode_timeout: float = option(300.0, "tasks: wall-clock seconds one episode may take.", gt=0, le=86_400)
    concurrency: int = option(8, "Episodes or questions in flight at once.", ge=1, le=4096)

    def __post_init__(self) -> None:
        from ..rollout.backends import BackendConfig

        check_fields(self)
        owner = type(self).__name__
        if self.benchmark not in BENCHMARKS:
            raise ValueError(
                f"{owner}.benchmark must be one of {', '.join(BENCHMARKS)}, got {self.benchmark!r}"
            )
        if self.agents is not None and self.agent is not None:
            raise ValueError(
                f"{owner}: give either agent (one) or agents (a mapping name -> backend), not both"
            )
        if self.agents is not None:
            if not isinstance(self.agents, dict) or not self.agents:
                raise ValueError(
                    f"{owner}.agents is empty: name at least one agent, e.g. {{before: {{kind: scripted}}}}"
                )
            bad = [n for n in self.agents if not AGENT_NAME.match(str(n))]
            if bad:
                raise ValueError(
                    f"{owner}.agents: names {bad} are not usable as folder names (letters, digits, _ . -; 64 at most)"
                )
        named = self.agents if self.agents is not None else {SINGLE: self.agent or {"kind": "scripted"}}
        # the API keys are never written out (see `public`)
        normalized = {
            str(name): BackendConfig.normalized(value, f"{owner}.agents[{name!r}]")
            for name, value in named.items()
        }
        if self.agents is not None:
            self.agents = normalized
        else:
            self.agent = normalized[SINGLE]
        self.user = BackendConfig.normalized(self.user, f"{owner}.user")
        unknown = sorted(set(self.levels) - set(CHECKS))
        if unknown or not self.levels:
            raise ValueError(f"{owner}.levels must name checks of {', '.join(CHECKS)}; got {self.levels!r}")
        bad = [c for c in self.bfcl_categories if c not in CATEGORIES]
        if bad or not self.bfcl_categories:
            raise ValueError(
                f"{owner}.bfcl_categories: unknown BFCL categories {bad or '[]'}; categories: {', '.join(CATEGORIES)}"
            )

    def agent_configs(self) -> dict[str, dict]:
        """The agents by name, in order (one named `agent` when `agent:` was given)."""
        return dict(self.agents) if self.agents is not None else {SINGLE: dict(self.agent)}

    def public(self) -> dict:
        """The config as written into the manifest: no API keys."""
        data = to_dict(self)
        for key in ("agent", "user"):
            if isinstance(data.get(key), dict):
                data[key] = {k: v for k, v in data[key].items() if k != "api_key"}
        if data.get("agents"):
            data["agents"] = {
                n: {k: v for k, v in b.items() if k != "api_key"} for n, b in data["agents"].items()
            }
        return data

    def fingerprint(self, input_key: str | None) -> str:
        """Server addresses, keys and concurrency do not change what is evaluated (a resumed run may differ)."""
        data = copy.copy(self)
        strip = lambda b: {k: v for k, v in b.items() if k not in RUN_ONLY}  # noqa: E731
        data.agent = strip(self.agent) if self.agent else None
        data.agents = {n: strip(b) for n, b in self.agents.items()} if self.agents else self.agents
        data.user = strip(self.user)
        return fingerprint(data, EVAL, inputs=[input_key] if input_key else [], ignore=("concurrency",))


def evaluate(
    tasks_art: Artifact | None,
    config: EvalConfig,
    output: str | Path,
    *,
    flags: dict[str, Any] | None = None,
) -> Artifact:
    """Evaluate every agent of `config` and write the `eval` artifact (with `report.md`) at `output`.

    Args:
        tasks_art: the `tasks` artifact whose `test` split is evaluated (`benchmark: tasks`); unused (may be
            None) for `bfcl`.
        config: the agents, benchmark and settings.
        output: the artifact folder; agents' rollouts go to `output/rollouts/<agent>`.
        flags: the `envscale eval` flags as given, recorded in the reproducibility bundle (`envscale eval`
            passes them; None from Python).
    """
    output = Path(output)
    inputs: list[dict] = []
    if config.benchmark == "tasks":
        if tasks_art is None:
            raise ValueError("eval with benchmark tasks needs --input (a tasks artifact with a test split)")
        if tasks_art.kind.name != "tasks":
            raise ValueError(f"eval needs a tasks artifact, got {tasks_art.kind.name} ({tasks_art.pinned})")
        if not tasks_art.splits.get("tasks", {}).get("test"):
            raise ValueError(
                f"the tasks artifact {tasks_art.pinned} has no test tasks (its test split is empty); make tasks "
                "with test_env_share or test_task_share above 0"
            )
        inputs = [tasks_art.provenance(), resolve_input(tasks_art, "environments").provenance()]
    key = tasks_art.content_key if config.benchmark == "tasks" else None
    writer = ArtifactWriter(output, EVAL, config.fingerprint(key), config=config.public(), inputs=inputs)
    with writer:
        return _evaluate(tasks_art, config, writer, flags)


def _evaluate(
    tasks_art: Artifact | None, config: EvalConfig, writer: ArtifactWriter, flags: dict[str, Any] | None
) -> Artifact:
    from . import harness
    from .bundle import build_bundle
    from .metrics import comparison, summary_rows
    from .report import write_report

    agents = config.agent_configs()
    rows: list[dict] = []
    rollouts: dict[str, str] = {}
    if config.benchmark == "tasks":
        harness.require_held_out(tasks_art)  # before any rollout: an old artifact fails at once
        for name, agent in agents.items():
            traj = harness.agent_rollout(tasks_art, name, agent, config, writer.root / "rollouts")
            rollouts[name] = traj.pinned
            rows += harness.score_rollout(traj, tasks_art, name, config.levels)
    else:
        for name, agent in agents.items():
            answers = harness.bfcl_checkpoint(writer.root, name, agent, config)
            rows += harness.run_bfcl(name, agent, config, answers)
    summary = summary_rows(rows)
    results = writer.shard_writer("results", batch_size=500)
    results.write_many(rows)
    out = writer.shard_writer("summary", batch_size=500)
    out.write_many(summary)
    bundle = build_bundle(config, tasks_art, rows, eval_schema=EVAL.schema_version, flags=flags)
    one = writer.shard_writer("bundle", batch_size=1)
    one.write(bundle)
    counts = {"results": results.close(), "summary": out.close(), "bundle": one.close()}
    public_agents = {n: {k: v for k, v in b.items() if k != "api_key"} for n, b in agents.items()}
    meta = {
        "benchmark": config.benchmark,
        "agents": public_agents,
        "input": tasks_art.pinned if tasks_art is not None and config.benchmark == "tasks" else None,
        "user": config.user.get("kind"),
        "trials": config.trials,
        "levels": list(config.levels),
        "categories": list(config.bfcl_categories),
        "requirement": BFCL_REQUIREMENT,
        "bundle": bundle,
    }
    report = write_report(writer.staging, summary, meta)
    overall = {
        s["agent"]: {
            k: s[k]
            for k in (
                "episodes",
                "items",
                "success_rate",
                "k",
                "pass_hat",
                "validity",
                "right_tools",
                "right_calls",
            )
        }
        for s in summary
        if s["group_by"] == "overall"
    }
    stats = {
        "benchmark": config.benchmark,
        "agents": list(agents),
        "agent_backends": public_agents,
        "overall": overall,
        "comparison": comparison(summary, list(agents), config.benchmark),
        "rollouts": rollouts,
        "split_kinds": sorted({r["split_kind"] for r in rows}),
        "tasks_ref": meta["input"],
        "bfcl": {"requirement": BFCL_REQUIREMENT, "categories": list(config.bfcl_categories)}
        if config.benchmark == "bfcl"
        else None,
        "report": report.name,
        "bundle": bundle,
    }
    art = writer.commit(counts, stats)
    version_dir = Path(art.location) / "versions" / art.version
    root = Path(art.location)
    shutil.copyfile(version_dir / "report.md", root / "report.md")  # the latest version's, at the root too
    if (version_dir / "plots").is_dir():
        shutil.rmtree(root / "plots", ignore_errors=True)
        shutil.copytree(version_dir / "plots", root / "plots")
    logger.info(
        "eval %s: %d results of %d agents on %s", art.pinned, counts["results"], len(agents), config.benchmark
    )
    return art
