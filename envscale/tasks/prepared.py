"""One environment prepared for building tasks: its initial state, its rows, its tools by what they do.

`Env(row, config)` opens the environment of an `environments` row on its own initial state (the spec's
`initial_state`, or its data seed) and keeps what every part of the task builder reads: the rows of each
table, the read and write tools, the `get` tool of each table (keyed by its primary key), and the session
row. The chain builders (`envscale.tasks.chains`), the checks (`envscale.tasks.asks`), the argument
tidying (`envscale.tasks.arguments`) and the gold run (`envscale.tasks.gold`) all take one.

Example:

```python
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.prepared import Env
>>> e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
>>> sorted(e.gets), e.key_arg(e.tools["cancel_order"])
(['customers', 'orders', 'products'], 'order_id')
>>> e.env.close()
```
"""

from __future__ import annotations

import functools
import random
from typing import Any

from ..env import Environment
from ..materialize.verify import valid_call
from ..words.names import tokens
from ..words.semantics import argument_role
from .naming import fact_name, one_value


class Env:
    """One environment prepared for task building: state, tools by meaning, lookups."""

    def __init__(self, row: dict, config: Any):
        self.row = row
        self.spec = row["spec"]
        self.env = Environment.from_row(row)
        self.seed = None if "initial_state" in self.spec else (self.spec.get("data") or {}).get("seed", 0)
        self.env.reset(seed=self.seed)
        self.initial = self.env.snapshot()
        self.initial_hash = self.env.state_hash()
        self.session_row = self.env.session()
        self.rows = self.env.dump()
        self.config = config
        self.tools = {t["name"]: t for t in self.spec["tools"]}
        self.key_format = self.env.key_formats  # per table: numbers, `cus_0007`, or names (`rg-data-dev-02`)
        self.reads = [t for t in self.spec["tools"] if t["kind"] == "read"]
        self.grouped = any((t.get("metadata") or {}).get("group") for t in self.spec["tools"])
        self.writes = [t for t in self.spec["tools"] if t["kind"] == "write"]
        self.gets = {}  # table -> get tool keyed by the primary key (an argument)
        for t in self.reads:
            op = t["operation"]
            pk = self.spec["tables"][op["table"]]["primary_key"]
            if op["type"] == "get" and isinstance(op["key"].get(pk), str) and len(op["key"]) == 1:
                self.gets.setdefault(op["table"], t)

    def pk(self, table: str) -> str:
        return self.spec["tables"][table]["primary_key"]

    @functools.cached_property
    def own_reader(self) -> str | None:
        """The read that returns the caller's own row and takes no argument (`get_me`: a get keyed by the session),
        where it answers; read once per environment, `tasks.finding` asks it for every lookup of that row."""
        table = (self.spec.get("session") or {}).get("table")
        if not self.session_row or table not in self.spec["tables"]:
            return None
        pk = self.pk(table)
        for tool in self.reads:
            op, params = tool["operation"], tool.get("parameters") or {}
            key = (op.get("key") or {}).get(pk)
            if op["type"] != "get" or op["table"] != table or params.get("required"):
                continue
            if isinstance(key, dict) and "session" in key:
                self.env.restore(self.initial)
                obs = self.env.step(tool["name"], {})
                if obs.get("ok") and isinstance(obs.get("result"), dict):
                    return tool["name"]
        return None

    @functools.cached_property
    def name_keys(self) -> frozenset[str]:
        """The keys of the world's rows that are names (`rg-billing-main-11`, `vault-data-07`: a key format `name`):
        what their owners call them."""
        return frozenset(
            r[self.pk(t)]
            for t, rows in self.rows.items()
            if self.key_format[t].kind == "name"
            for r in rows
            if isinstance(r.get(self.pk(t)), str)
        )

    @functools.cached_property
    def text_values(self) -> frozenset[str]:
        """Every text value of the initial state (a key the world holds, or one made up for an argument)."""
        return frozenset(
            v for rows in self.rows.values() for row in rows for v in row.values() if isinstance(v, str)
        )

    def key_arg(self, tool: dict) -> str | None:
        """The argument that addresses the tool's row by primary key, if any."""
        op = tool["operation"]
        binding = (op.get("key") or {}).get(self.pk(op["table"]))
        return binding if isinstance(binding, str) and len(op.get("key") or {}) == 1 else None

    def call(
        self, tool: dict, rng: random.Random, row: dict | None = None, among: dict[str, list] | None = None
    ) -> tuple[dict, dict | None] | None:
        """A valid call of `tool` on the initial rows: `(arguments, row)`, `None` when there is none. Paging
        arguments take what an agent sends (`offset=0`, `count=10`), never a drawn value ("the offset is 6").

        With `row`, the call addresses that row of the tool's table: its other arguments are that row's (the
        collection in `GET /collections/{collection_id}/tickets/{ticket_id}` is the ticket's own, never the
        collection of another ticket drawn for the call). With `among`, the rows it references are drawn from those
        (a new contact email of the user the request is about, made of that user's name)."""
        rows = {**self.rows, **(among or {})}
        rows = rows if row is None else {**rows, tool["operation"]["table"]: [row]}
        built = valid_call(self.env, tool, rows, rng)
        if built is None:
            return None
        params = tool.get("parameters") or {}
        props, required = params.get("properties") or {}, set(params.get("required") or [])
        for arg in list(built[0]):
            if argument_role(arg, props.get(arg)) == "pagination":
                value = page_default(arg, props.get(arg))
                if value is None:
                    if arg not in required:
                        del built[0][arg]
                else:
                    built[0][arg] = value
        return built

    def provenance_user(
        self, tool: dict, args: dict, draft_facts: dict, *, keys_from_user: bool = True
    ) -> dict:
        """Provenance of a standalone call: keys and filters are user facts; new values constants."""
        op = tool["operation"]
        addressing = {b for b in (op.get("key") or {}).values() if isinstance(b, str)}
        addressing |= {f.get("arg") for f in op.get("filters", []) if f.get("arg")}
        props = (tool.get("parameters") or {}).get("properties") or {}
        out = {}
        for arg, value in args.items():
            source = "user" if arg in addressing and keys_from_user else "constant"
            out[arg] = source
            if source == "constant" and argument_role(arg, props.get(arg)) == "pagination":
                continue  # the agent pages as it likes: no fact the user states
            if source == "constant" and one_value(props.get(arg)):
                # Azure's `api-version`, Impala's `paymentType` (enum ["API"]): the one value the schema allows,
                # which the agent reads there; never a value "from the request" (seed 93's and 94's readers)
                out[arg] = "schema"
                continue
            draft_facts[fact_name(arg, tool, self.spec)] = value
        return out


_FIRST_PAGE = {"page": 1, "page_number": 1, "pageno": 1, "page_no": 1, "pagenumber": 1, "pagenum": 1}


def page_default(arg: str, schema: Any) -> Any:
    """What an agent sends for a paging argument the API requires: the first page (`offset=0`, `page=1`) and a
    page of 10 rows within the schema's bounds; `None` for a cursor (the first page sends none)."""
    name = "_".join(tokens(arg))
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind not in ("integer", "number") and not (kind is None and name in _FIRST_PAGE):
        return None
    if name in _FIRST_PAGE:
        return 1
    if any(w in name for w in ("offset", "skip", "start", "from", "index")):
        return 0
    low = schema.get("minimum", 1) if isinstance(schema, dict) else 1
    high = schema.get("maximum", 10) if isinstance(schema, dict) else 10
    return int(max(low, min(10, high)))
