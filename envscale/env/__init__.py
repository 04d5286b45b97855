"""Executable tool environments: an in-memory SQLite database plus read/write tools stored as data.

Every environment is a spec (a plain dict: tables, tools, policy; see `envscale.env.spec`),
stored as a `datasets.Json()` column and rebuilt from its dataset row on demand. No generated code
is ever executed: a tool is a declarative operation over one table (with, from spec 1.1,
expressions, guards and effects on further tables), run with parameterised SQL, so a task's outcome
is checked by comparing database states (`state_hash`, `diff`).

The runtime reads in three modules: `state` (the database, snapshots, the state hash),
`operations` (tools compiled into plans and run) and `arguments` (argument checks, error
observations); `columns` holds the column type rules, `spec` the format and its checks, and
`runtime.Environment` is the facade over them; `data` generates the initial state, `adapters` and
`mcp_server` serve an environment to agent frameworks. This package is the runtime and nothing else:
it imports no other envscale package but `errors`, `safe_yaml`, `config` and `artifacts` (the last two
only in `mcp_server`'s command line). Inferring a spec and verifying it live in `envscale.materialize`,
reading one as text in `envscale.show.environment`.

Example:

```python
>>> from envscale.env import Environment
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> env.reset()["tables"]["orders"]
40
>>> env.step("count_orders", {"status": "pending"})["ok"]
True
>>> env.step("cancel_order", {"order_id": "nope"})
{'ok': False, 'error': "cancel_order: no orders row with order_id='nope'", 'code': 'not_found'}
```
"""

from envscale.env.arguments import ERROR_CODES
from envscale.env.data import generate_state
from envscale.env.runtime import Environment
from envscale.env.spec import SPEC_VERSION, SpecError, load_spec, spec_problems, validate_spec

__all__ = [
    "ERROR_CODES",
    "SPEC_VERSION",
    "Environment",
    "SpecError",
    "generate_state",
    "load_spec",
    "spec_problems",
    "validate_spec",
]
