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
from pathlib import Path
from typing import Any

from ..artifacts import open_artifact
from ..config import add_arguments, command_parser, load_recipe, parse_config, section
from ..entry import run_script
from ..training import TrainConfig, train
from ..training.launch import launch, resolve_accelerate_config
from . import SECTIONS, check_recipe_keys

__all__ = ["make_parser", "main", "config_from_args", "to_argv"]

#: Parser keys that are not config fields.
_RESERVED = {"command", "config", "input", "output", "verbose", "func", "accelerate_config", "stage"}
#: `--stage`: the stages it runs (a shorthand of `--stages`).
_STAGE_CHOICES = {"1": [1], "2": [2], "both": [1, 2]}


def underscore_aliases(parser: argparse.ArgumentParser) -> None:
    """Accept `--max_steps` for `--max-steps` (TRL's spelling) on every flag of `parser`."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            if option.startswith("--") and "-" in option[2:]:
                alias = "--" + option[2:].replace("-", "_")
                if alias not in parser._option_string_actions:
                    action.option_strings.append(alias)
                    parser._option_string_actions[alias] = action


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
    data: dict = {}
    if args.config:
        recipe = load_recipe(args.config)
        check_recipe_keys(recipe, args.config)
        data = dict(section(recipe, "train", SECTIONS))
    overrides = {k: v for k, v in vars(args).items() if k not in _RESERVED}
    if getattr(args, "stage", None):
        overrides["stages"] = _STAGE_CHOICES[args.stage]
    return parse_config(TrainConfig, data, overrides)


def _paths(args: argparse.Namespace) -> tuple[str, Path]:
    """(input reference, output folder): the flags, else under the recipe's `output_dir`."""
    run_dir = None
    if args.config:
        recipe = load_recipe(args.config)
        if isinstance(recipe.get("output_dir"), str) and recipe["output_dir"].strip():
            run_dir = Path(recipe["output_dir"])
    ref = args.input or (str(run_dir / "filtered") if run_dir else None)
    if not ref:
        raise ValueError("train needs --input: the filtered artifact (PATH[@vN] or hf://org/name[@revision])")
    output = (
        Path(args.output) if args.output else (run_dir / "model" if run_dir else Path("outputs") / "model")
    )
    return ref, output


def to_argv(args: argparse.Namespace) -> list[str]:
    """The flags of parsed `envscale train` arguments, without `--accelerate-config` (for the launched processes)."""
    argv: list[str] = []
    for key in ("config", "input", "output", "stage"):
        if getattr(args, key, None):
            argv += [f"--{key}", str(getattr(args, key))]
    for key, value in vars(args).items():
        if key in _RESERVED:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + key.replace("_", "-"))
        elif isinstance(value, list):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv


def main(args: argparse.Namespace) -> int:
    """`envscale train`: train (or re-launch through accelerate), print where the stages are."""
    config = config_from_args(args)  # checked before anything is launched or loaded
    ref, output = _paths(args)
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
