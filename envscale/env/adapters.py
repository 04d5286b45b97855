"""Adapters from `Environment` to the interfaces RL code expects.

- :class:`GymEnvironment`: Gymnasium-style `reset(seed=, options=) -> (obs, info)` and
  `step(action) -> (obs, reward, terminated, truncated, info)`, where an action is a tool call
  `{"tool": name, "arguments": {...}}` (dependency-free: text environments have no Box spaces).
- :func:`trl_environment_class`: a class for TRL's `GRPOTrainer(environment_factory=...)`
  (trl >= 1.x): one public method per tool (signature and docstring built from the tool's JSON
  Schema, so TRL renders the same schema), `reset(**row)` that restores the initial state (or
  the row's `seed`/`initial_state`), and `get_reward()` = 1.0 when the database equals the row's
  `gold_state_hash`: the state-based reward of AgentScaler / tau2-bench.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.env.adapters import trl_environment_class
>>> ShopEnv = trl_environment_class(Environment.from_yaml("tests/fixtures/envs/shop.yaml").spec)
>>> # GRPOTrainer(model, reward_funcs=[], train_dataset=tasks, environment_factory=ShopEnv, ...)
```
"""

from __future__ import annotations

import inspect
import json
import keyword
import logging
import re
from typing import Any

from .arguments import error
from .runtime import Environment

logger = logging.getLogger(__name__)
_PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}
_RESERVED = {"reset", "get_reward", "env", "spec"}


class GymEnvironment:
    """Gymnasium-style wrapper: episodes of tool calls, rewarded by reaching a target state.

    Args:
        env: the environment.
        max_steps: steps before `truncated`.
    """

    def __init__(self, env: Environment, max_steps: int = 50):
        self.env = env
        self.max_steps = max_steps
        self.target: str | None = None
        self.steps = 0

    def _observation(self, last: dict | None) -> dict:
        return {
            "tools": self.env.openai_tools(),
            "policy": self.env.spec.get("policy"),
            "last_observation": last,
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode. `options`: `initial_state` (rows), `gold_state_hash` (the goal)."""
        options = options or {}
        self.env.reset(seed=seed, state=options.get("initial_state"))
        self.target = options.get("gold_state_hash")
        self.steps = 0
        return self._observation(None), {"state_hash": self.env.state_hash()}

    def step(self, action: dict) -> tuple[dict, float, bool, bool, dict]:
        """Apply one tool call; reward 1.0 and `terminated` when the state reaches the goal."""
        if not isinstance(action, dict) or "tool" not in action:
            observation = error("invalid_arguments", "an action is {'tool': name, 'arguments': {...}}")
        else:
            observation = self.env.step(action["tool"], action.get("arguments") or {})
        self.steps += 1
        state = self.env.state_hash()
        reached = self.target is not None and state == self.target
        info = {"state_hash": state, "ok": observation.get("ok", False)}
        return self._observation(observation), float(reached), reached, self.steps >= self.max_steps, info


def python_names(arguments: list[str]) -> dict[str, str]:
    """`{Python parameter name: argument name}` for a tool's arguments: names that are identifiers stay as they are;
    others (`x-trace-id`, `$.xgafv`, `class`) become identifiers (`x_trace_id`, `xgafv`, `class_`), distinct from
    every other name, so a method can carry any tool and map its keyword arguments back."""
    out: dict[str, str] = {}
    valid = [a for a in arguments if a.isidentifier() and not keyword.iskeyword(a) and a != "self"]
    for name in valid:
        out[name] = name
    for name in arguments:
        if name in valid:
            continue
        base = re.sub(r"\W+", "_", name).strip("_") or "arg"
        if base[0].isdigit():
            base = f"arg_{base}"
        if keyword.iskeyword(base) or base == "self":
            base += "_"
        candidate, n = base, 2
        while candidate in out:
            candidate, n = f"{base}_{n}", n + 1
        out[candidate] = name
    return out


def tool_signature(
    tool: dict, reserved: frozenset[str] | set[str] = frozenset()
) -> tuple[str, Any, dict, str, dict[str, str]]:
    """`(method name, inspect.Signature, annotations, docstring, {parameter: argument})` of a method that stands
    for `tool`: required arguments first, keyword-only, typed from the JSON Schema, named by `python_names`, and a
    Google-style docstring from the tool's description and its parameters' descriptions (what TRL's
    `get_json_schema` reads back). A name in `reserved` gets a `_tool` suffix."""
    name = tool["name"]
    props = tool["parameters"].get("properties") or {}
    required = set(tool["parameters"].get("required") or [])
    renamed = python_names(list(props))
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    doc_args = []
    for arg in sorted(renamed, key=lambda a: renamed[a] not in required):  # required first
        schema = props[renamed[arg]] if isinstance(props[renamed[arg]], dict) else {}
        t = schema.get("type")
        py = _PY_TYPES.get(t if isinstance(t, str) else "", str)
        annotations[arg] = py if renamed[arg] in required else py | None
        params.append(
            inspect.Parameter(
                arg,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotations[arg],
                default=inspect.Parameter.empty if renamed[arg] in required else None,
            )
        )
        described = " ".join((schema.get("description") or arg).split())
        doc_args.append(f"    {arg}: {described}")
    annotations["return"] = str
    description = (tool.get("description") or name).strip()
    doc = (
        description
        + ("\n\nArgs:\n" + "\n".join(doc_args) if doc_args else "")
        + "\n\nReturns:\n    The environment's observation as JSON."
    )
    method_name = name if name not in reserved else f"{name}_tool"
    return method_name, inspect.Signature(params, return_annotation=str), annotations, doc, renamed


def _method(tool: dict):
    """A function named after the tool whose signature and docstring describe its JSON Schema."""
    name = tool["name"]

    method_name, signature, annotations, doc, renamed = tool_signature(tool, _RESERVED)

    def call(self, **arguments: Any) -> str:
        arguments = {renamed.get(k, k): v for k, v in arguments.items()}
        return json.dumps(self.env.step(name, arguments), ensure_ascii=False, default=str)

    call.__name__ = call.__qualname__ = method_name
    call.__signature__ = signature
    call.__annotations__ = annotations
    call.__doc__ = doc
    return call


def trl_environment_class(spec: dict, *, max_rows: int = 100) -> type:
    """A class for `GRPOTrainer(environment_factory=...)` over the environment described by `spec`."""

    def __init__(self):
        self.env = Environment(spec, max_rows=max_rows)
        self.env.reset()
        self.gold_state_hash = None

    def reset(self, **row: Any) -> str | None:
        """Restore the initial state (or the row's `seed` / `initial_state`) and remember the row's goal."""
        self.env.reset(seed=row.get("seed"), state=row.get("initial_state"))
        self.gold_state_hash = row.get("gold_state_hash")
        return None

    def get_reward(self) -> float:
        """1.0 when the database equals the task's gold final state, else 0.0."""
        return float(self.gold_state_hash is not None and self.env.state_hash() == self.gold_state_hash)

    members: dict[str, Any] = {
        "__init__": __init__,
        "reset": reset,
        "get_reward": get_reward,
        "__doc__": f"envscale environment {spec['name']!r} for TRL environment_factory.",
    }
    for tool in spec["tools"]:
        method = _method(tool)
        members[method.__name__] = method
    class_name = "".join(part.capitalize() for part in str(spec["name"]).replace("-", "_").split("_")) + "Env"
    return type(class_name, (), members)
