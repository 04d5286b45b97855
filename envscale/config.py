"""Configs are dataclasses: loaded from a YAML recipe, overridden by CLI flags, checked loudly.

Every field carries a `help` (shown by `--help`); unknown keys in a recipe are an error, never
ignored; a recipe may hold several stages, one section each (`collect:`, `graph:`, ...), plus
top-level run settings. Configs round-trip to YAML and are stored next to what they made.

Example:

```python
>>> from dataclasses import dataclass
>>> from envscale.config import option, parse_config
>>> @dataclass
... class Demo:
...     size: int = option(3, "How many.")
>>> parse_config(Demo, {"size": 5}).size
5
>>> parse_config(Demo, {"sise": 5})
Traceback (most recent call last):
ValueError: unknown key 'sise' for Demo; known keys: size
```
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml

from .safe_yaml import load_yaml

T = TypeVar("T")


def option(
    default: Any = dataclasses.MISSING,
    help: str = "",
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    **kwargs: Any,
) -> Any:
    """A dataclass field with a `help` text and, for numbers, bounds checked by :func:`check_fields`.

    Args:
        default: the default (list and dict defaults are copied per instance).
        help: shown by `--help` and in the docs.
        ge, gt, le: the value must be >= `ge`, > `gt`, <= `le` (every number field should have a sane
            upper bound: a typo such as `rows_per_table: 100000000` fails at once instead of running
            for hours).
    """
    metadata = {"help": help, "ge": ge, "gt": gt, "le": le}
    if isinstance(default, list | dict):
        value = default
        return dataclasses.field(default_factory=lambda: type(value)(value), metadata=metadata, **kwargs)
    return dataclasses.field(default=default, metadata=metadata, **kwargs)


def check_fields(config: Any) -> None:
    """Check every number field of a config dataclass: its type, finiteness and bounds.

    An `int` field takes integers only (`seed: 1.5` is an error, not 1); a `float` field takes any
    finite number (`.inf` and `.nan` are errors); bounds come from :func:`option`. Called first in
    every config's `__post_init__`, so configs built in Python are checked like parsed ones.

    Raises:
        ValueError: naming the config, the field, the rule and the value.
    """
    owner = type(config).__name__
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        base, _ = _base_type(hints[f.name])
        value = getattr(config, f.name)
        if base not in (int, float) or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{owner}.{f.name} must be a number, got {value!r}")
        if base is int and not isinstance(value, int):
            raise ValueError(f"{owner}.{f.name} must be an integer, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{owner}.{f.name} must be a finite number, got {value!r}")
        meta = f.metadata
        for key, ok, word in (
            ("ge", lambda v, b: v >= b, ">="),
            ("gt", lambda v, b: v > b, ">"),
            ("le", lambda v, b: v <= b, "<="),
        ):
            bound = meta.get(key)
            if bound is not None and not ok(value, bound):
                raise ValueError(f"{owner}.{f.name} must be {word} {bound:g}, got {value!r}")


def _base_type(tp: Any) -> tuple[Any, bool]:
    """(underlying type, optional?) of `X | None`."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], len(args) < len(typing.get_args(tp))
    return tp, False


def _coerce(name: str, tp: Any, value: Any, owner: str) -> Any:
    base, optional = _base_type(tp)
    if value is None:
        if optional:
            return None
        raise ValueError(f"{owner}.{name} may not be null")
    origin = typing.get_origin(base)
    if origin is list:
        (item,) = typing.get_args(base) or (str,)
        if isinstance(value, str | int | float | bool | dict):
            value = [value]
        return [_coerce(name, item, v, owner) if item is not typing.Any else v for v in value]
    if origin is dict or base is dict:
        if isinstance(value, str | list | tuple):  # from a flag: `--shares read=1 write=2` or YAML text
            value = parse_mapping(name, value, owner)
        if not isinstance(value, dict):
            raise ValueError(f"{owner}.{name} must be a mapping, got {value!r}")
        key_t, val_t = typing.get_args(base) or (typing.Any, typing.Any)
        return {
            (str(k) if key_t is str else k): (
                v if val_t is typing.Any else _coerce(f"{name}[{k!r}]", val_t, v, owner)
            )
            for k, v in value.items()
        }
    if base is typing.Any:
        return value
    if base is bool:
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("true", "1", "yes", "on"):
            return True
        if str(value).lower() in ("false", "0", "no", "off"):
            return False
        raise ValueError(f"{owner}.{name} must be true or false, got {value!r}")
    if base in (int, float):
        if isinstance(value, bool):
            raise ValueError(f"{owner}.{name} must be a number, got {value!r}")
        try:
            number = float(value) if isinstance(value, str) else value
            if not isinstance(number, int | float):
                raise TypeError
        except (TypeError, ValueError):
            raise ValueError(f"{owner}.{name} must be {base.__name__}, got {value!r}") from None
        if base is int:
            if isinstance(number, float) and not (math.isfinite(number) and number.is_integer()):
                raise ValueError(f"{owner}.{name} must be an integer, got {value!r}")
            return int(number)
        return float(number)
    if base is str:
        if isinstance(value, dict | list):
            raise ValueError(f"{owner}.{name} must be a string, got {value!r}")
        return str(value)
    return value


def parse_mapping(name: str, value: str | list | tuple, owner: str) -> Any:
    """A mapping from command-line text: `KEY=VALUE` items (words or comma-separated), or YAML `{...}`."""
    if isinstance(value, list | tuple) and value and str(value[0]).strip().startswith("{"):
        value = " ".join(map(str, value))  # `--agent "{kind: endpoint, noise: {give_up: 0.1}}"`, split or not
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return load_yaml(value, where=f"{owner}.{name}")
        except yaml.YAMLError as exc:
            raise ValueError(f"{owner}.{name} is not a valid YAML mapping: {exc}") from None
    items = [value] if isinstance(value, str) else list(value)
    parsed = {}
    for item in (part.strip() for text in items for part in str(text).split(",")):
        if not item:
            continue
        key, eq, val = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"{owner}.{name} takes KEY=VALUE items, got {item!r}")
        parsed[key.strip()] = val.strip()
    return parsed


def parse_config(cls: type[T], data: dict | None, overrides: dict | None = None) -> T:
    """Build `cls` from a mapping plus overrides; unknown keys and bad values raise ValueError."""
    data = dict(data or {})
    data.update({k: v for k, v in (overrides or {}).items()})
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(
            f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} for {cls.__name__}; "
            f"known keys: {', '.join(fields)}"
        )
    kwargs = {name: _coerce(name, hints[name], value, cls.__name__) for name, value in data.items()}
    return cls(**kwargs)


def load_recipe(path: str | Path) -> dict:
    """Read a YAML recipe (a mapping) with a clear error for anything else."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(
            f"recipe {path} is a folder; give the recipe's YAML file (e.g. {path}/quickstart.yaml)"
        )
    try:
        data = load_yaml(path.read_text(encoding="utf-8"), where=f"recipe {path}")
    except FileNotFoundError:
        raise FileNotFoundError(f"recipe {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"recipe {path} cannot be read: {exc}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"recipe {path} is not valid YAML: {exc}") from None
    # UnsafeYAMLError (an alias bomb, nesting too deep) is a ValueError that names the recipe already
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"recipe {path} must be a mapping, got {type(data).__name__}")
    return data


def section(recipe: dict, name: str, known_sections: typing.Iterable[str]) -> dict:
    """The part of a recipe for stage `name`: its section in a multi-stage recipe, else all of it."""
    known = set(known_sections)
    if any(k in known for k in recipe):
        value = recipe.get(name) or {}
        if not isinstance(value, dict):
            raise ValueError(f"recipe section {name!r} must be a mapping")
        return value
    return recipe


def to_dict(config: Any) -> dict:
    """A config as plain data (for YAML and manifests)."""
    return dataclasses.asdict(config)


def fingerprint(
    config: Any, kind: Any, *, inputs: typing.Sequence[str] = (), ignore: typing.Iterable[str] = ()
) -> str:
    """What makes a stage's output what it is: its kind and schema, pinned inputs, and config.

    Fields in `ignore` (cache folders, batch sizes, concurrency) change how a stage runs, not what it
    makes, so they do not count. Two runs with the same fingerprint make the same artifact, which
    is how `envscale run` skips complete stages and how an interrupted stage finds its work again.
    """
    import hashlib
    import json

    payload = {"kind": kind.name, "schema": kind.schema_version, "inputs": list(inputs), **to_dict(config)}
    for key in ignore:
        payload.pop(key)
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def command_parser(
    subparsers: Any, name: str, *, help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """The parser of `envscale <name>`: a sub-parser of `envscale`, or a stand-alone one (`subparsers=None`).

    Every command module's `make_parser(subparsers=None)` starts here, so the command runs the same as
    `envscale <name>` and as a script of its own.
    """
    kwargs = {"description": description or help, "formatter_class": argparse.RawDescriptionHelpFormatter}
    if subparsers is None:
        return argparse.ArgumentParser(prog=f"envscale {name}", **kwargs)
    return subparsers.add_parser(name, help=help, **kwargs)


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """Add one `--flag` per field of `cls`; flags not given stay absent (so the recipe wins)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        base, _ = _base_type(hints[f.name])
        flag = "--" + f.name.replace("_", "-")
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else (f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        )
        help_text = f"{f.metadata.get('help', '')} (default: {default!r})"
        if typing.get_origin(base) is list:
            parser.add_argument(flag, dest=f.name, nargs="+", default=argparse.SUPPRESS, help=help_text)
        elif typing.get_origin(base) is dict or base is dict:
            parser.add_argument(
                flag, dest=f.name, nargs="+", default=argparse.SUPPRESS, help=help_text, metavar="KEY=VALUE"
            )
        elif base is bool:
            parser.add_argument(
                flag,
                dest=f.name,
                action=argparse.BooleanOptionalAction,
                default=argparse.SUPPRESS,
                help=help_text,
            )
        else:
            parser.add_argument(
                flag, dest=f.name, default=argparse.SUPPRESS, help=help_text, metavar=f.name.upper()
            )
