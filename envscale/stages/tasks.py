"""Stage `tasks`: verified `environments` -> verifiable `tasks` (gold calls, gold states, user intents, splits).

The library is :mod:`envscale.tasks` (:class:`~envscale.tasks.build.TasksConfig` and
:func:`~envscale.tasks.build.generate_tasks`, the loop over environments; one environment's tasks in
`tasks.generate`).

Example:

```bash
envscale tasks --input outputs/quickstart/environments --output outputs/quickstart/tasks
python -m envscale.stages.tasks --config recipes/quickstart.yaml --input outputs/quickstart/environments
```
"""

from __future__ import annotations

import sys

from ..tasks.build import TasksConfig, generate_tasks
from . import Stage

STAGE = Stage(
    "tasks",
    output="tasks",
    input="environments",
    help="environments -> verifiable tasks (gold calls, gold states, user intents, train/test splits)",
    config_cls=TasksConfig,
    function=generate_tasks,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
