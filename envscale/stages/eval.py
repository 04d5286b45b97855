"""Stage `eval`: agents on held-out tasks (`tasks` -> `eval`) or on BFCL, scored, compared and reported.

- `benchmark: tasks`: each agent plays the `test` split of the input tasks (held-out tasks of training
  environments and whole held-out environments) through the rollout stage with the simulated user, into
  `<output>/rollouts/<agent>` (resumable, reused when complete); every trajectory is checked as `filter`
  checks it (`levels`). See `envscale.evaluation.harness`.
- `benchmark: bfcl`: BFCL's single-turn categories (`bfcl_categories`), each question asked with its
  functions as tools and scored by BFCL's own AST checker (`envscale.evaluation.bfcl`); no input needed.

One agent (`agent:`) or several (`agents: {before: {...}, after: {...}}`, a name for each) per run; the
metrics (`envscale.evaluation.metrics`: success, pass^k over `trials`, tool-call validity, per split kind,
task kind, difficulty and environment) are written as an `eval` artifact: config `results` (one row per
episode or question) and `summary` (metrics per agent and group), plus `report.md` and `plots/*.png` next
to the data (in the version folder and, for the latest version, at the artifact's root). The side-by-side
table is printed when the run ends, and by `envscale show eval PATH`.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.stages.eval import EvalConfig, evaluate
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

import argparse
import copy
import logging
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, ArtifactWriter, resolve_input
from ..config import check_fields, fingerprint, option, to_dict
from ..evaluation.bfcl import BFCL_REQUIREMENT, CATEGORIES
from ..evaluation.harness import RUN_ONLY  # backend settings that say how to reach a server, not what answers
from ..judge import DEFAULT_LEVELS
from ..schemas import CHECKS, EVAL
from . import Stage, print_report

logger = logging.getLogger(__name__)

#: The benchmarks `eval` runs.
BENCHMARKS = ("tasks", "bfcl")
_AGENT_NAME = re.compile(r"^[A-Za-z0-9][\w.-]{0,63}$")
#: The name of the one agent given with `agent:`.
SINGLE = "agent"


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
            bad = [n for n in self.agents if not _AGENT_NAME.match(str(n))]
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


def evaluate(tasks_art: Artifact | None, config: EvalConfig, output: str | Path) -> Artifact:
    """Evaluate every agent of `config` and write the `eval` artifact (with `report.md`) at `output`.

    Args:
        tasks_art: the `tasks` artifact whose `test` split is evaluated (`benchmark: tasks`); unused (may be
            None) for `bfcl`.
        config: the agents, benchmark and settings.
        output: the artifact folder; agents' rollouts go to `output/rollouts/<agent>`.
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
        return _evaluate(tasks_art, config, writer)


def _evaluate(tasks_art: Artifact | None, config: EvalConfig, writer: ArtifactWriter) -> Artifact:
    from ..evaluation import harness
    from ..evaluation.metrics import comparison, summary_rows
    from ..evaluation.report import write_report

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
    counts = {"results": results.close(), "summary": out.close()}
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
    }
    report = write_report(writer.staging, summary, meta)
    overall = {
        s["agent"]: {k: s[k] for k in ("episodes", "items", "success_rate", "k", "pass_hat", "validity")}
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


class EvalStage(Stage):
    """`envscale eval`: like every stage, except that `--input` is only needed for `benchmark: tasks`,
    `--agent` may be repeated as `--agent NAME=SPEC` (one named agent each, in order: a before/after
    comparison), and the side-by-side table is printed when the run ends."""

    def make_parser(self, subparsers: Any = None) -> argparse.ArgumentParser:
        parser = super().make_parser(subparsers)
        for action in parser._actions:  # `--agent` collects every occurrence (see `agent_flags`)
            if action.dest == "agent":
                action.__class__ = argparse._AppendAction
                action.help = (
                    "One agent's backend, as KEY=VALUE items (kind=transformers,model=PATH) or a YAML mapping "
                    '("{kind: endpoint, base_url: ..., model: M}"); or, repeated, named agents for a '
                    'before/after table: --agent before="{kind: transformers, model: smollm2-135m-instruct}" '
                    '--agent after="{kind: transformers, model: out/stage2}" (the same as `agents:`).'
                )
        return parser

    def main(self, args: argparse.Namespace) -> int:
        from ..stages import RESERVED

        overrides = {k: v for k, v in vars(args).items() if k not in RESERVED}
        if "agent" in overrides:
            overrides.update(agent_flags(overrides.pop("agent")))
        config = self.config(args.config, overrides)
        output = Path(args.output) if args.output else Path("outputs") / self.output
        tasks_art = self.open_input(args.input) if config.benchmark == "tasks" or args.input else None
        art = self.run(config, output, tasks_art)
        print_report(art)
        print_comparison(art)
        return 0


def agent_flags(occurrences: list) -> dict[str, Any]:
    """The config overrides of the `--agent` flags: `{"agent": spec}` for one unnamed agent, or
    `{"agents": {name: spec, ...}}` for `--agent NAME=SPEC` repeated.

    An occurrence is named when its first item is `NAME=SPEC` and NAME is not a backend setting (`kind`,
    `model`, ...): `--agent kind=scripted` is one unnamed agent, `--agent after=...` a named one. SPEC is a
    YAML mapping (`{kind: scripted, noise: {give_up: 1.0}}`), comma-separated KEY=VALUE items
    (`kind=endpoint,base_url=http://h/v1,model=M`; flat values only), a bare kind (`scripted`) or a model
    (`out/stage2`, `smollm2-135m-instruct`: a transformers agent with default generation settings).
    """
    from dataclasses import fields as dc_fields

    from ..config import parse_mapping
    from ..rollout.backends import BACKEND_KINDS, KIND_ALIASES, BackendConfig

    settings = {f.name for f in dc_fields(BackendConfig)}
    occurrences = [occ if isinstance(occ, list | tuple) else [occ] for occ in occurrences]
    named: dict[str, Any] = {}
    unnamed = []
    for occ in occurrences:
        head = str(occ[0]).strip() if occ else ""
        name, eq, spec = head.partition("=")
        if eq and name.strip() not in settings and _AGENT_NAME.match(name.strip()):
            spec = " ".join([spec, *map(str, occ[1:])]).strip()
            if name.strip() in named:
                raise ValueError(f"EvalConfig: --agent names the agent {name.strip()!r} twice")
            if spec.startswith("{") or "=" in spec:
                value: Any = parse_mapping("agents", spec, "EvalConfig")
            elif spec in BACKEND_KINDS or spec in KIND_ALIASES:
                value = {"kind": spec}
            else:  # a model folder, a Hub id or smollm2-135m-instruct
                value = {"kind": "transformers", "model": spec}
            named[name.strip()] = value
        else:
            unnamed.append(occ)
    if named and unnamed:
        raise ValueError(
            "EvalConfig: give either one --agent SPEC or named --agent NAME=SPEC flags, not both"
        )
    if named:
        return {"agents": named}
    if len(unnamed) > 1:
        raise ValueError(
            "EvalConfig: --agent given more than once without names; name them: --agent before=SPEC --agent after=SPEC"
        )
    return {"agent": unnamed[0]}


def print_comparison(art: Artifact) -> None:
    """The side-by-side table of an `eval` artifact, and where its report is."""
    from ..evaluation.metrics import markdown_table

    stats = art.manifest.get("stats", {})
    print()
    print(markdown_table(stats["comparison"]))
    print(f"\n  report: {Path(art.location) / 'versions' / art.version / 'report.md'}")


STAGE = EvalStage(
    name="eval",
    output="eval",
    input="tasks",
    help="evaluate agents on held-out tasks or BFCL: success, pass^k, tool-call validity, before/after",
    config_cls=EvalConfig,
    function=evaluate,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
