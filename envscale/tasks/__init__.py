"""Verifiable tasks over materialised environments (the `tasks` stage's parts).

- `model`: the task record (`TaskDraft`, `GoldCall`, `Instructions`, `KINDS`, `SHAPES`);
- `generate`: `env_tasks(row, config, edges, rng)`, one environment's kept and rejected tasks (chain
  builders, argument tidying and alignment, quality gates on values and data flow);
- `intent`: `write_instructions`, the simulated user's request from a draft, built with `wording` (the
  vocabulary), `naming` (entities, keys and `fact_name`) and `rewrite` (an optional LLM rewrite, checked);
- `gates`: replay, empty trajectory, leaks and duplicates;
- `render`: one task as text a person reads (`envscale show tasks`).

A trajectory is scored against a task by `envscale.judge` (`score_trajectory`). The stage itself is
`envscale.stages.tasks` (`envscale tasks --input ENVIRONMENTS --output TASKS`).
Nothing is imported here: each part loads on its own.
"""
