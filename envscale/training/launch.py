"""`envscale train --accelerate_config NAME`: re-launch the same command through `accelerate launch`.

As TRL's CLI does (`trl sft --accelerate_config zero3`), NAME is a config shipped in
`envscale/training/accelerate_configs/` (`single_gpu`, `multi_gpu`, `fsdp`, `deepspeed_zero3`) or a path to
an accelerate config file. The command becomes

```bash
accelerate launch --config_file .../accelerate_configs/multi_gpu.yaml -m envscale.stages.train <the other flags>
```

and each process runs `python -m envscale.stages.train <the other flags>` (`envscale train` without the
launcher flag), so the flags are parsed the same way in every process.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The flag spellings that name an accelerate config (TRL's, and the house's dashes).
FLAGS = ("--accelerate_config", "--accelerate-config")


def shipped_configs() -> list[str]:
    """The names of the accelerate configs shipped in the package."""
    folder = resources.files("envscale.training") / "accelerate_configs"
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))


def resolve_accelerate_config(name: str) -> Path:
    """The file of an accelerate config: a shipped name (`multi_gpu`) or a path to a YAML file.

    Raises:
        ValueError: neither a shipped config nor a file; the message lists the shipped ones.
    """
    path = Path(name).expanduser()
    if path.is_file():
        return path.resolve()
    candidate = resources.files("envscale.training") / "accelerate_configs" / f"{name}.yaml"
    if candidate.is_file():
        return Path(str(candidate))
    raise ValueError(
        f"unknown accelerate config {name!r}: neither a file nor one shipped with envscale "
        f"({', '.join(shipped_configs())})"
    )


def split_launcher_args(argv: list[str]) -> tuple[str | None, list[str]]:
    """(the accelerate config named in `argv` or None, `argv` without it); `--flag=value` works too."""
    rest, name, i = [], None, 0
    while i < len(argv):
        arg = argv[i]
        flag, eq, value = arg.partition("=")
        if flag in FLAGS:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                    raise ValueError(
                        f"{flag} needs a value: a config name ({', '.join(shipped_configs())}) or a file"
                    )
                value = argv[i + 1]
                i += 1
            name = value
        else:
            rest.append(arg)
        i += 1
    return name, rest


def launch_args(config: str, training_args: list[str], module: str = "envscale.stages.train") -> list[str]:
    """The arguments of `accelerate launch` that run `python -m MODULE` (`envscale.stages.train`, or `.rl`) with
    `training_args`."""
    return [
        "--config_file",
        str(resolve_accelerate_config(config)),
        "-m",
        module,
        *training_args,
    ]


def launch(config: str, training_args: list[str], module: str = "envscale.stages.train") -> int:
    """Run `accelerate launch ... -m MODULE ...` (blocking; `envscale.stages.train` or `envscale.stages.rl`); the
    launched command's exit status.

    Uses accelerate's own launcher in this process, as `trl` does (`accelerate.commands.launch`); it starts
    the training processes and waits for them.
    """
    from accelerate.commands.launch import launch_command, launch_command_parser

    args = launch_command_parser().parse_args(launch_args(config, training_args, module))
    try:
        launch_command(args)
    except SystemExit as exc:  # accelerate exits with the failed process's status
        return int(exc.code or 0)
    return 0
