"""`envscale train`: two-stage SFT of a tool-calling model on a `filtered` artifact, with TRL's `SFTTrainer`.

Stage 1 teaches general tool use on every training environment; stage 2 starts from stage 1's weights and
specialises on a set of environments (`stage2_environments`), graph domains (`stage2_domains`), or by default
the `stage2_largest: 3` environments with the most examples, mixing in a `stage2_replay: 0.1` share of the
other stage-1 examples against forgetting. One command runs both (`stages: [1, 2]`), or one alone (stage 2
alone takes `--init-from OUTPUT/stage1`; `--stage 1|2|both` is a shorthand of `--stages`).

- The data: `filtered` rows (config `filtered`, split `train`) are TRL conversational examples already:
  `messages` with assistant `tool_calls` (arguments as dicts) and `tool` results, and `tools`
  (`envscale.training.data`).
- The loss is on the assistant turns only (`assistant_only_loss=True`) through a tool-aware training template
  with `{% generation %}` markers: the tokenizer's own if it has tools and markers, else TRL's training
  variant of the model family's template, else (ChatML tokenizers such as SmolLM2's) TRL's Qwen2.5 training
  template (`envscale.training.template`); it is saved with each stage's tokenizer. Examples longer than
  `max_length` tokens are dropped and counted (`overlong: drop`), or truncated (`overlong: truncate`).
- LoRA (`use_peft`, `lora_r`, `lora_alpha`, `lora_target_modules`; QLoRA `load_in_4bit` on a CUDA GPU with
  bitsandbytes); `packing` and `padding_free` as in TRL's `SFTConfig`.
- Outputs: `OUTPUT/stage1/` and `OUTPUT/stage2/`, each a model folder (or a LoRA adapter whose base is recorded;
  `envscale.rollout.local.load_model` merges it on load, so `{kind: transformers, model: OUTPUT/stage2}` is an
  agent), with `training.json` (data artifact path, version and data_id, config, counts, losses) and a model card
  `README.md` (also one for the run in `OUTPUT/`). A stage already complete in OUTPUT for the same config and data
  is reused; with `save_steps`, an interrupted stage resumes from its last checkpoint.
- `--accelerate_config NAME` re-launches the command through `accelerate launch` with a config shipped in
  `envscale/training/accelerate_configs/` (`single_gpu`, `multi_gpu`, `fsdp`, `deepspeed_zero3`) or a file,
  as `trl` does; `--push_to_hub ORG/NAME` publishes the last stage with its card.

Flags are the config's fields with dashes (`--max-steps 10`) or, as TRL spells them, underscores
(`--max_steps 10`); they override the recipe's `train:` section.

Example:

```bash
envscale train --config recipes/quickstart.yaml --input outputs/quickstart/filtered \\
    --output outputs/quickstart/model --use_peft --max_steps 10
envscale train --input outputs/quickstart/filtered --output outputs/model --stages 2 \\
    --init_from outputs/model_a/stage1 --stage2_environments domain_10_calendar_api
envscale train --accelerate_config multi_gpu --config recipe.yaml --model Qwen/Qwen2.5-0.5B-Instruct
python -m envscale.stages.train --config recipes/quickstart.yaml   # the same as `envscale train`
```

The library is :mod:`envscale.training` (`from envscale.training import TrainConfig, train`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..artifacts import open_artifact
from ..config import add_arguments, command_parser
from ..entry import run_script
from ..training import TrainConfig, train
from ..training.launch import launch, resolve_accelerate_config
from .model_command import config_from, input_and_output, relaunch_argv, underscore_aliases

__all__ = ["make_parser", "main", "config_from_args", "to_argv"]

#: Parser keys that are not config fields.
_RESERVED = {"command", "config", "input", "output", "verbose", "func", "accelerate_config", "stage"}
#: `--stage`: the stages it runs (a shorthand of `--stages`).
_STAGE_CHOICES = {"1": [1], "2": [2], "both": [1, 2]}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def make_parser(subparsers: Any = None) -> argparse.ArgumentParser:
    """The parser of `envscale train` (a sub-parser of `envscale`, or stand-alone with `subparsers=None`)."""
    parser = command_parser(
        subparsers,
        "train",
        help="two-stage SFT of a tool-calling model with TRL",
        description=__doc__.split("\n\nExample:")[0],
    )
    parser.add_argument("--config", help="YAML recipe: its `train:` section, or the whole file")
    parser.add_argument(
        "--input",
        help="the filtered artifact to train on: PATH[@vN] or hf://org/name[@revision] "
        "(default: <recipe output_dir>/filtered)",
    )
    parser.add_argument(
        "--output", help="output folder (default: <recipe output_dir>/model, else outputs/model)"
    )
    parser.add_argument(
        "--accelerate-config",
        dest="accelerate_config",
        help="re-launch through `accelerate launch` with this config: single_gpu, multi_gpu, fsdp, "
        "deepspeed_zero3 (shipped with envscale), or a file",
    )
    parser.add_argument(
        "--stage",
        choices=sorted(_STAGE_CHOICES),
        help="the stages to run: 1, 2 (with --init-from OUTPUT/stage1) or both (shorthand of --stages)",
    )
    add_arguments(parser, TrainConfig)
    underscore_aliases(parser)
    parser.set_defaults(func=main)
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The config from `--config`'s `train:` section plus the flags given (unknown keys are an error)."""
    extra = {"stages": _STAGE_CHOICES[args.stage]} if getattr(args, "stage", None) else None
    return config_from(args, TrainConfig, "train", _RESERVED, extra)


def to_argv(args: argparse.Namespace) -> list[str]:
    """The flags of parsed `envscale train` arguments, without `--accelerate-config` (for the launched processes)."""
    return relaunch_argv(args, _RESERVED, ("config", "input", "output", "stage"))


def main(args: argparse.Namespace) -> int:
    """`envscale train`: train (or re-launch through accelerate), print where the stages are."""
    config = config_from_args(args)  # checked before anything is launched or loaded
    ref, output = input_and_output(args, "train", "filtered", "model")
    if args.accelerate_config:
        resolve_accelerate_config(args.accelerate_config)  # an unknown name fails here, in one line
        return launch(args.accelerate_config, to_argv(args))
    data = open_artifact(ref, expect_kind="filtered")
    result = train(data, config, output)
    for stage in result.stages:
        r = stage.record
        print(
            f"stage {stage.stage}{' (reused)' if stage.skipped else ''}: {stage.folder}  "
            f"(train loss {r['result']['train_loss']}, {_count(r['result']['global_step'], 'step')}, "
            f"{_count(r['counts']['trained_on'], 'example')}{', adapter' if r['adapter'] else ''})"
        )
    last = result.last.folder
    print(f'  use it: --agent "{{kind: transformers, model: {last}}}"')
    if result.pushed:
        print(f"  pushed {result.pushed['what']} to {result.pushed['url']} ({result.pushed['commit'][:12]})")
    return 0


def run_as_script(argv: list[str] | None = None) -> int:
    """`python -m envscale.stages.train ...`: the same as `envscale train ...`."""
    return run_script(make_parser(), "train", argv, resumable=True)


if __name__ == "__main__":
    sys.exit(run_as_script())
