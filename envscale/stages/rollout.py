"""Stage `rollout`: `tasks` -> `trajectories`, simulated user/agent episodes in fresh environments.

For every task of the chosen splits and every trial, one episode: the user (`user` backend) asks for the
task, the agent (`agent` backend) works with the task's tools in a fresh copy of the task's environment,
and the whole conversation, every tool call and result, the final state hash and how the episode ended
are kept. Concurrent on one event loop, resumable after Ctrl-C or `kill -9` (none lost, none duplicated),
seeded per (seed, task, trial). The library is :mod:`envscale.rollout` (the loop: :mod:`envscale.rollout.run`;
backends: :mod:`envscale.rollout.backends`).

Example:

```bash
envscale rollout --input outputs/quickstart/tasks --output outputs/quickstart/trajectories \
    --agent kind=endpoint,base_url=http://127.0.0.1:8000/v1,model=Qwen/Qwen3-0.6B --trials 2
python -m envscale.stages.rollout --config recipes/quickstart.yaml --input outputs/quickstart/tasks
```
"""

from __future__ import annotations

import sys

from ..rollout.run import RolloutConfig, rollout
from . import Stage

STAGE = Stage(
    "rollout",
    output="trajectories",
    input="tasks",
    help="tasks -> trajectories: simulated user/agent episodes in fresh environments (resumable)",
    config_cls=RolloutConfig,
    function=rollout,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
