"""Stage `graph`: `api_pool` -> `graph`, dependency edges between tools and Louvain domains.

The library is :mod:`envscale.graph.build` (:class:`GraphConfig`, :func:`build_graph`), with the embeddings,
communities and drawing of :mod:`envscale.graph`.

Example:

```bash
envscale graph --input outputs/quickstart/api_pool --output outputs/graph
python -m envscale.stages.graph --input outputs/quickstart/api_pool --output outputs/graph   # the same
```
"""

from __future__ import annotations

import sys

from ..graph.build import GraphConfig, build_graph
from . import Stage

STAGE = Stage(
    "graph",
    output="graph",
    input="api_pool",
    help="api_pool -> dependency edges and Louvain domains",
    config_cls=GraphConfig,
    function=build_graph,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
