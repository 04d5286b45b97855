"""Stage `collect`: sources -> `api_pool`, real API descriptions normalised into one tool pool.

The library is :mod:`envscale.sources.collect` (:class:`CollectConfig`, :func:`collect`), over the source
readers of :mod:`envscale.sources`.

Example:

```bash
envscale collect --sources json:tools.jsonl "mcp:mcp-server-time" --output outputs/pool
python -m envscale.stages.collect --config recipes/quickstart.yaml --output outputs/pool   # the same
```
"""

from __future__ import annotations

import sys

from ..sources import SOURCE_KINDS
from ..sources.collect import CollectConfig, collect
from . import Stage

STAGE = Stage(
    "collect",
    output="api_pool",
    input=None,
    help="real API descriptions -> api_pool",
    description="real API descriptions -> api_pool\n\nsource kinds:\n"
    + "\n".join(f"  {k}:  {v}" for k, v in SOURCE_KINDS.items()),
    config_cls=CollectConfig,
    function=collect,
)
make_parser, main = STAGE.make_parser, STAGE.main

if __name__ == "__main__":
    sys.exit(STAGE.run_as_script())
