"""The library of the `materialize` stage: inferring an environment spec and verifying it.

The stage itself (`envscale.stages.materialize`) reads the graph's domains and writes `environments`
with these, as TRL's `trainer/` serves its `scripts/`; the environments they make are run by the
runtime, `envscale.env`, which imports nothing from here:

- `envscale.materialize.infer`: one domain's tools -> an environment spec, by what each tool means
  (`infer_spec`);
- `envscale.materialize.verify`: every tool of a spec exercised from its initial state, held to the
  operation it declares and to the meaning of its name (`verify`, `verify_report`, `valid_call`);
- `envscale.materialize.build`: `MaterializeConfig` and `materialize`, the stage's loop over domains.

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.materialize.verify import verify
>>> verify(load_spec("tests/fixtures/envs/shop.yaml"))
[]
```
"""
