"""`envscale rl`: GRPO on a `tasks` artifact with TRL, the reward being the environment's final state, judged.

Each task of the split passes the admission gates first (the initial state must fail the gold check, the gold
must replay, no offered tool reveals the gold or ends the dialogue; the refused ones are listed in `rl.json` with
their reason). The policy then plays each admitted task `num_generations` times through TRL's tool loop on a
generated environment class per environment (`envscale.rl`): tools as typed methods, the initial state restored
from a snapshot, the simulated user as the tool `send_message_to_user`. A rollout's reward is the judge's verdict
(`reward: outcome`) or the share of the gold effects reached (`reward: dense`); groups that the user simulator
spoiled are masked from the advantage and counted.

Outputs in `--output`: the model (or LoRA adapter), `rl.json` (config, admission, rejected tasks, reward per step,
masked groups) and a model card. `--pass-rates FILTERED` with `--curriculum easy_first|weight` and
`--min-pass-rate/--max-pass-rate` use the filter's per-task pass rates. On a GPU, `--use-vllm --vllm-mode
colocate|server` are TRL's; `--accelerate-config` re-launches through `accelerate launch` as `envscale train` does.
Flags override the recipe's `rl:` section and take TRL's underscore spelling too (`--max_steps`).

Example:

```bash
envscale rl --input outputs/quickstart/tasks --output outputs/quickstart/rl \\
    --model outputs/quickstart/model/stage2 --max-steps 20 --num-generations 4 --use-peft
envscale rl --config recipes/cpu-train.yaml      # the recipe's rl: section
```
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config import add_arguments, command_parser
from ..entry import run_script
from ..rl.run import RLConfig, attach_eval, train_rl
from ..training.launch import launch, resolve_accelerate_config
from .model_command import config_from, input_and_output, relaunch_argv, underscore_aliases

__all__ = ["make_parser", "main", "config_from_args"]

_RESERVED = {"command", "config", "input", "output", "verbose", "func", "accelerate_config", "attach_eval"}


def make_parser(subparsers: Any = None) -> argparse.ArgumentParser:
    """The parser of `envscale rl` (a sub-parser of `envscale`, or stand-alone with `subparsers=None`)."""
    parser = command_parser(
        subparsers,
        "rl",
        help="GRPO with TRL on the environments, rewarded by the final database state",
        description=__doc__.split("\n\nExample:")[0],
    )
    parser.add_argument("--config", help="YAML recipe: its `rl:` section, or the whole file")
    parser.add_argument(
        "--input",
        help="the tasks artifact: PATH[@vN] or hf://org/name[@revision] (default: <output_dir>/tasks)",
    )
    parser.add_argument("--output", help="output folder (default: <recipe output_dir>/rl, else outputs/rl)")
    parser.add_argument(
        "--accelerate-config",
        dest="accelerate_config",
        help="re-launch through `accelerate launch` with this config (single_gpu, multi_gpu, fsdp, "
        "deepspeed_zero3, or a file)",
    )
    parser.add_argument(
        "--attach-eval",
        nargs="+",
        metavar="EVAL",
        help="train nothing: put these eval artifacts' before/after tables into --output's rl.json and model card",
    )
    add_arguments(parser, RLConfig)
    underscore_aliases(parser)
    parser.set_defaults(func=main)
    return parser


def config_from_args(args: argparse.Namespace) -> RLConfig:
    """The config from `--config`'s `rl:` section plus the flags given."""
    return config_from(args, RLConfig, "rl", _RESERVED)


def main(args: argparse.Namespace) -> int:
    """`envscale rl`: train, print what it did and where the model is."""
    if args.attach_eval:
        if not args.output:
            raise ValueError("--attach-eval needs --output: the folder of the envscale rl run")
        record = attach_eval(args.output, args.attach_eval)
        print(
            f"rl: {args.output}: eval results of {', '.join(record['eval_results'])} in rl.json and README.md"
        )
        return 0
    config = config_from_args(args)  # checked before anything is loaded
    ref, output = input_and_output(args, "rl", "tasks", "rl")
    if args.accelerate_config:
        resolve_accelerate_config(args.accelerate_config)
        return launch(
            args.accelerate_config,
            relaunch_argv(args, _RESERVED, ("config", "input", "output")),
            module="envscale.stages.rl",
        )
    record = train_rl(ref, config, output)
    counts = record["admission"]
    history = record["history"]
    print(
        f"rl: {output}  ({counts['admitted']} of {counts['tasks']} tasks admitted, "
        f"{config.max_steps} steps, reward {history[0].get('reward') if history else '-'} -> "
        f"{history[-1].get('reward') if history else '-'}, {record['masked_groups']} of {record['groups']} "
        "groups masked)"
    )
    if counts["rejected"]:
        gates = ", ".join(f"{k} {v}" for k, v in counts["rejected_by_gate"].items())
        print(f"  rejected by the admission gates: {gates} (each listed in {output / 'rl.json'})")
    print(f'  use it: --agent "{{kind: transformers, model: {output}}}"')
    return 0


def run_as_script(argv: list[str] | None = None) -> int:
    """`python -m envscale.stages.rl ...`: the same as `envscale rl ...`."""
    return run_script(make_parser(), "rl", argv, resumable=True)


if __name__ == "__main__":
    sys.exit(run_as_script())
