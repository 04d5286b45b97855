"""Evaluation: agents on held-out tasks and on BFCL, scored, summarised, compared, reported.

- `envscale.evaluation.metrics`: success, pass^k (tau-bench), tool-call validity, grouped summaries and
  the before/after comparison table;
- `envscale.evaluation.harness`: held-out tasks through the rollout run loop (`envscale.rollout.run`),
  each trajectory judged as the filter judges it (`envscale.judge`);
- `envscale.evaluation.bfcl`: BFCL's single-turn categories, scored by BFCL's own AST checker;
- `envscale.evaluation.report`: `report.md` and PNG plots;
- `envscale.evaluation.bundle`: the reproducibility bundle (ids evaluated, models, sampling, trainer configs,
  benchmark and library versions, seed, command), the `bundle` config and the "Reproducibility" section.

The stage is `envscale.stages.eval` (`envscale eval`); `eval/README.md` tells how to run evaluations.
"""
