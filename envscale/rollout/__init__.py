"""Simulated interplay: backends (scripted, endpoint, transformers), the user simulator, episodes,
fresh environments for concurrent episodes, and the checks `filter` applies.

Stages: `envscale.stages.rollout` (tasks -> trajectories) and `envscale.stages.filter`
(trajectories -> filtered).
"""
