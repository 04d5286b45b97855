"""Simulated interplay: backends (scripted, endpoint, transformers), the user simulator, episodes,
and fresh environments for concurrent episodes. The checks `filter` applies are `envscale.judge`'s.

Stages: `envscale.stages.rollout` (tasks -> trajectories) and `envscale.stages.filter`
(trajectories -> filtered).
"""
