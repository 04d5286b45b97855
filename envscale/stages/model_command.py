"""What the commands that train a model (`envscale train`, `envscale rl`) share, unlike the dataset stages:

- `config_from`: the config dataclass from the recipe's section plus the flags given (unknown keys are an error);
- `input_and_output`: the input artifact and the output folder, from the flags or under the recipe's `output_dir`;
- `underscore_aliases`: TRL's spelling of every flag (`--max_steps` for `--max-steps`);
- `relaunch_argv`: the flags again, for the processes `accelerate launch` starts (`--accelerate-config` left out).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..config import load_recipe, parse_config, section
from . import SECTIONS, check_recipe_keys


def underscore_aliases(parser: argparse.ArgumentParser) -> None:
    """Accept `--max_steps` for `--max-steps` (TRL's spelling) on every flag of `parser`."""
    for action in list(parser._actions):
        for option in list(action.option_strings):
            if option.startswith("--") and "-" in option[2:]:
                alias = "--" + option[2:].replace("-", "_")
                if alias not in parser._option_string_actions:
                    action.option_strings.append(alias)
                    parser._option_string_actions[alias] = action


def config_from(
    args: argparse.Namespace, config_cls: type, name: str, reserved: set[str], extra: dict | None = None
) -> Any:
    """`config_cls` from `--config`'s `name:` section, then the flags given (keys in `reserved` are not fields),
    then `extra` (flags that stand for fields, such as `--stage`)."""
    data: dict = {}
    if args.config:
        recipe = load_recipe(args.config)
        check_recipe_keys(recipe, args.config)
        data = dict(section(recipe, name, SECTIONS))
    overrides = {k: v for k, v in vars(args).items() if k not in reserved}
    return parse_config(config_cls, data, {**overrides, **(extra or {})})


def input_and_output(
    args: argparse.Namespace, command: str, input_kind: str, output_name: str
) -> tuple[str, Path]:
    """(input reference, output folder): `--input` / `--output`, else `<output_dir>/<input_kind>` and
    `<output_dir>/<output_name>` of the recipe, else `outputs/<output_name>`; no input at all is an error."""
    run_dir = None
    if args.config:
        recipe = load_recipe(args.config)
        if isinstance(recipe.get("output_dir"), str) and recipe["output_dir"].strip():
            run_dir = Path(recipe["output_dir"])
    ref = args.input or (str(run_dir / input_kind) if run_dir else None)
    if not ref:
        raise ValueError(
            f"{command} needs --input: the {input_kind} artifact (PATH[@vN] or hf://org/name[@revision])"
        )
    output = Path(args.output) if args.output else (run_dir or Path("outputs")) / output_name
    return ref, output


def relaunch_argv(args: argparse.Namespace, reserved: set[str], first: tuple[str, ...]) -> list[str]:
    """The flags of parsed arguments for a re-launched process: the `first` keys (`config`, `input`, ...) as given,
    then every config field that was set (`--no-x` for a false switch)."""
    argv: list[str] = []
    for key in first:
        if getattr(args, key, None):
            argv += [f"--{key}", str(getattr(args, key))]
    for key, value in vars(args).items():
        if key in reserved or value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + key.replace("_", "-"))
        elif isinstance(value, list):
            argv += [flag, *map(str, value)]
        else:
            argv += [flag, str(value)]
    return argv
