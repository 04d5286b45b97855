"""Stage `eval`: agents on held-out tasks (`tasks` -> `eval`) or on BFCL, scored, compared and reported.

The library is :mod:`envscale.evaluation` (:class:`~envscale.evaluation.run.EvalConfig` and
:func:`~envscale.evaluation.run.evaluate`; the harness, metrics, BFCL and the report beside them). This
module adds what only the command has: `--agent NAME=SPEC` repeated for a before/after table, the flags as
given recorded in the eval's reproducibility bundle, and the table printed when the run ends.

Example:

```bash
envscale eval --config recipes/quickstart.yaml --input outputs/quickstart/tasks --output outputs/eval \
    --agent before="{kind: transformers, model: smollm2-135m-instruct}" \
    --agent after="{kind: transformers, model: outputs/quickstart/model/stage2}"
envscale show eval outputs/eval
```
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..artifacts import Artifact
from ..evaluation.run import AGENT_NAME, EvalConfig, evaluate
from . import Stage, print_report


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
        given = {k: v for k, v in vars(args).items() if k not in ("command", "func")}  # for the bundle
        art = evaluate(tasks_art, config, output, flags=given)
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
        if eq and name.strip() not in settings and AGENT_NAME.match(name.strip()):
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
