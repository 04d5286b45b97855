"""RL on envscale environments with TRL's GRPO: the reward is the environment's final state, judged.

- `spec`: `EnvscaleSpec`, a `tasks` artifact as TRL's `train_dataset`, `environment_factory` and `reward_funcs`;
- `environment`: the generated environment classes (one per environment and offered tool set): tools as typed
  methods, `reset` by snapshot, the simulated user as the tool `send_message_to_user`;
- `reward`: `outcome_reward` (the judge's verdict: state, answer, required effects, policy) and `dense_reward`
  (the share of gold effects reached, for curricula);
- `gates`: the admission gates a task passes before it enters RL, each failure listed with its reason;
- `trainer`: `EnvscaleGRPOTrainer`, TRL's trainer masking the groups a user-simulator error spoiled (ERPO);
- `run`: `RLConfig` and `train_rl`, the `envscale rl` stage's library.

**The user in the loop is a tool.** A task that needs a user turn (a value to ask for, a conversation of several
requests) gets the simulated user as `send_message_to_user(message) -> reply`. TRL's tool loop already keeps tool
results out of the loss (its tool mask), so the user's words are never trained on, and it works unchanged with
TRL's transformers and vLLM generation; a `rollout_func` would have to re-implement generation for each. The cost:
the user's reply arrives as a tool result, not a user turn, which the chat template renders inside the agent's
context like any tool result.

**Other trainers.** The classes are plain Python: `reset(**row)`, one method per tool, and a reward read from the
instance after the rollout, so any trainer that takes Python environments can drive them. verl's agent loop and
SkyRL-gym wrap an environment as `reset()` / `step(action) -> observation, reward, done`: call the method the
parsed tool call names in `step`, and at the end `envscale.rl.reward.outcome_reward([completion], [instance])`.
`envscale.env.adapters.GymEnvironment` is the Gymnasium form of the same environment.

Importing this package imports TRL and torch (the trainer); `envscale.rl.spec`, `environment`, `reward` and
`gates` alone do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .run import RLConfig, train_rl
    from .spec import EnvscaleSpec
    from .trainer import EnvscaleGRPOTrainer

__all__ = ["EnvscaleGRPOTrainer", "EnvscaleSpec", "RLConfig", "train_rl"]


def __getattr__(name: str) -> Any:  # lazy: `import envscale.rl.spec` must not load TRL
    if name == "EnvscaleSpec":
        from .spec import EnvscaleSpec

        return EnvscaleSpec
    if name == "EnvscaleGRPOTrainer":
        from .trainer import EnvscaleGRPOTrainer

        return EnvscaleGRPOTrainer
    if name in ("RLConfig", "train_rl"):
        from . import run

        return getattr(run, name)
    raise AttributeError(name)
