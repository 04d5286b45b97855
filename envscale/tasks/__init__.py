"""Verifiable tasks over materialised environments (the `tasks` stage's parts).

- `model`: the task record (`TaskDraft`, `GoldCall`, `Instructions`, `KINDS`, `SHAPES`, `Drop`);
- `generate`: `env_tasks(row, config, edges, rng)`, the loop: one environment's kept and rejected tasks,
  each candidate built, tidied, run and worded by the modules below, or dropped with a code;
- `prepared`: `Env`, one environment opened on its initial state, its rows and tools by what they do;
- `chains`: the chain builders of each kind (single, link, fan-in), along real data flow;
- `asks`: "would a person ask this", the checks that drop a candidate with a code and a detail;
- `arguments`: `tidy`, the arguments a person states, at most a few values per write;
- `gold`: `execute`, the gold run (arguments aligned with what the chain read, results, state, answers);
- `intent`: `write_instructions`, the simulated user's request from a draft, built in layers: `wording`
  (the vocabulary), `naming` (entities, keys and `fact_name`), `steps` (the draft read as steps),
  `phrases` (noun phrases: a row, an entity, a value), `clauses` (how one step is said), and `rewrite`
  (an optional LLM rewrite, checked);
- `gates`: replay, empty trajectory, leaks and duplicates;
- one task as text a person reads: `envscale show tasks` (`envscale.show.tasks`).

- `build`: `TasksConfig` and `generate_tasks`, the stage's loop over environments (splits, held-out
  environments, resumable per environment), run by `envscale tasks` (`envscale.stages.tasks`).

A trajectory is scored against a task by `envscale.judge` (`score_trajectory`).
Nothing is imported here: each part loads on its own.
"""
