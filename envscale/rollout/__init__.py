"""Simulated interplay: the run loop (`run`), backends (`backends` the contract and the endpoint client,
`local` a transformers model, `scripted` the offline agent and user, `factory`), the user simulator
(`user`), episodes (`episode`), and fresh environments for concurrent episodes (`envs`).

Stage: `envscale.stages.rollout` (tasks -> trajectories); the evaluation harness runs the same loop.
"""
