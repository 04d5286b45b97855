"""Stage `materialize`: `graph` domains -> executable, verified `environments`.

The library is :mod:`envscale.materialize` (:class:`~envscale.materialize.build.MaterializeConfig` and
:func:`~envscale.materialize.build.materialize`; inference in `materialize.infer`, verification in
`materialize.verify`), over the runtime :mod:`envscale.env`.

Example:

```bash
envscale materialize --input outputs/quickstart/graph --output outputs/quickstart/environments
python -m envscale.stages.materialize --config recipes/quickstart.yaml --input outputs/quickstart/graph
```
"""

from __future__ import annotations

import sys

from ..materialize.build import MaterializeConfig, materialize
from . import Stage

STAGE = Stage(
    "materialize",
    output="environments",
    input="graph",
    help="graph domains -> verified SQLite-backed environments",
    config_cls=MaterializeConfig,
    function=materialize,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
