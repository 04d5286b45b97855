"""Executable tool environments: an in-memory SQLite database plus read/write tools stored as data.

Every environment is a spec (a plain dict: tables, tools, policy; see `envscale.env.spec`),
stored as a `datasets.Json()` column and rebuilt from its dataset row on demand. No generated code
is ever executed: a tool is a declarative operation over one table (with, from spec 1.1,
expressions, guards and effects on further tables), run with parameterised SQL, so a task's outcome
is checked by comparing database states (`state_hash`, `diff`).

The runtime reads in three modules: `state` (the database, snapshots, the state hash),
`operations` (tools compiled into plans and run) and `arguments` (argument checks, error
observations); `columns` holds the column type rules, `spec` the format and its checks, and
`runtime.Environment` is the facade over them.

Example:

```python
>>> from envscale.env import Environment, verify
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> env.reset()["tables"]["orders"]
40
>>> env.step("count_orders", {"status": "pending"})["ok"]
True
>>> env.step("cancel_order", {"order_id": "nope"})
{'ok': False, 'error': "cancel_order: no orders row with order_id='nope'", 'code': 'not_found'}
>>> verify(env.spec)
[]
```
"""

from envscale.env.data import generate_state
from envscale.env.runtime import ERROR_CODES, Environment
from envscale.env.spec import SPEC_VERSION, SpecError, load_spec, spec_problems, validate_spec
from envscale.env.verify import verify

__all__ = [
    "ERROR_CODES",
    "SPEC_VERSION",
    "Environment",
    "SpecError",
    "generate_state",
    "load_spec",
    "spec_problems",
    "validate_spec",
    "verify",
]
