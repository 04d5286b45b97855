"""Stage `filter`: `trajectories` -> `filtered`, the SFT data: episodes that reach the gold outcome.

The library is :mod:`envscale.judge` (:class:`~envscale.judge.filter.FilterConfig` and
:func:`~envscale.judge.filter.filter_trajectories`; the checks and the verdict in `judge.checks`).

Example:

```bash
envscale filter --input outputs/quickstart/trajectories --output outputs/quickstart/filtered \
    --levels ended,format,state,answer,exact
```
"""

from __future__ import annotations

import sys

from ..judge.filter import FilterConfig, filter_trajectories
from . import Stage

STAGE = Stage(
    "filter",
    output="filtered",
    input="trajectories",
    help="trajectories -> filtered: keep the episodes that reach the gold outcome (SFT data)",
    config_cls=FilterConfig,
    function=filter_trajectories,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
