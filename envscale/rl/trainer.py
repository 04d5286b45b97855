"""`EnvscaleGRPOTrainer`: TRL's `GRPOTrainer` that masks groups spoiled by the user simulator, and counts them.

GRPO learns from the differences between the rollouts of one prompt (a group). When the simulated user spoils a
rollout (an empty reply, a stop before the requests were all made, a leaked answer: `envscale.rl.environment`),
the reward of that rollout says nothing about the policy, and neither does the group's baseline that includes it.
As ERPO does, the whole group is masked: every reward of a group with a spoiled rollout becomes NaN, which TRL
already treats as unscorable (left out of the baseline, advantage 0). The trainer logs `envscale/masked_groups`
and `envscale/masked_share` at each step; `masked_groups_total` counts them over the run.

The reward functions return `None` for a spoiled rollout on their own, so with TRL's plain `GRPOTrainer` the
rollout alone is left out; this class widens the mask to its group, across processes.
"""

from __future__ import annotations

from typing import Any

import torch
from trl import GRPOTrainer


def mask_spoiled_groups(rewards_per_func: torch.Tensor, spoiled: torch.Tensor, num_generations: int) -> int:
    """Set every reward of each group holding a spoiled rollout to NaN, in place; returns how many groups.

    Args:
        rewards_per_func (`torch.Tensor`): `(rollouts, reward functions)`, rollouts in groups of
            `num_generations` consecutive rows (TRL's order).
        spoiled (`torch.Tensor`): `(rollouts,)` booleans.
        num_generations (`int`): Rollouts per group.
    """
    if rewards_per_func.shape[0] % num_generations:
        raise ValueError(f"{rewards_per_func.shape[0]} rollouts are not groups of {num_generations}")
    groups = spoiled.view(-1, num_generations).any(dim=1)
    rows = groups.repeat_interleave(num_generations)
    rewards_per_func[rows] = torch.nan
    return int(groups.sum().item())


class EnvscaleGRPOTrainer(GRPOTrainer):
    """`GRPOTrainer` with ERPO-style masking of groups spoiled by the user simulator (see the module docstring)."""

    def __init__(self, *args: Any, mask_spoiled: bool = True, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.mask_spoiled = mask_spoiled
        self.masked_groups_total = 0
        self.groups_total = 0

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):  # noqa: D401 - TRL's hook
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        mode = "train" if self.model.training else "eval"
        n = self.num_generations if mode == "train" else self.num_generations_eval
        local = torch.tensor(
            [bool(getattr(env, "spoiled", None)) for env in (self.environments or [None] * len(prompts))],
            dtype=torch.bool,
            device=rewards_per_func.device,
        )
        spoiled = self.accelerator.gather(local)  # rewards_per_func is already gathered over processes
        masked = mask_spoiled_groups(rewards_per_func, spoiled, n) if self.mask_spoiled else 0
        groups = rewards_per_func.shape[0] // n
        if mode == "train":
            self.masked_groups_total += masked
            self.groups_total += groups
        self._metrics[mode]["envscale/masked_groups"].append(float(masked))
        self._metrics[mode]["envscale/masked_share"].append(masked / groups if groups else 0.0)
        return rewards_per_func
