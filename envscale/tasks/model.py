"""The task record shared by the `tasks` stage's parts (chains, intents, gates, scoring).

A task is built in steps (`envscale.tasks.generate`): `chains` samples calls in one environment,
`arguments` and `asks` keep them to what a person would ask, `gold` executes them (`TaskDraft` with its
`GoldCall`s, results, gold state and answer facts), `intent` writes what the simulated user knows and
says (`Instructions`), and `gates` decides whether it is kept. A check that drops a candidate returns a
`Drop`, a short code and a detail.

Argument provenance says where every argument value of a gold call comes from:

- `"user"`: a fact the user knows (their own id, an order number, a name), listed in
  `TaskDraft.user_facts` under a human-readable name;
- `"call[i].FIELD"`: a field of the result of gold call `i` (0-based), which the agent must read
  there (`"call[0].order_id"`, `"call[1].items[0].id"`);
- `"constant"`: a value fixed by the request itself (a status to set, a quantity to add), also in
  `user_facts`;
- `"schema"`: the one value the argument's schema allows (Azure's `api-version`), which the agent reads
  in the tool's schema and the user never states.

Example:

```python
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> call = GoldCall("cancel_order", {"order_id": "ord_0003"}, {"order_id": "user"})
>>> draft = TaskDraft(env_name="shop", kind="write", calls=[call], user_facts={"order number": "ord_0003"})
>>> draft.n_writes
0
```
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("read", "write", "mixed", "policy", "missing_info")
"""Task kinds: `read` (scored on answer facts), `write` (on the final state), `mixed` (both),
`policy` (the right outcome is a refusal and an unchanged state), `missing_info` (a required value
is withheld from the first message; the right behaviour is to ask for it)."""

SHAPES = ("single", "linear", "dag", "branch")
"""Chain shapes: one call; a linear chain; two independent lookups feeding one write; a branch the
agent must choose from what a read returns."""

Drop = tuple[str, str]
"""Why a candidate task is dropped: a short code the card counts and a detail for the `rejected` row,
`("filler_value", "get_order.order_id = 'compact jacket' does not fit orders.order_id")`."""


@dataclass
class GoldCall:
    """One call of the gold solution.

    Attributes:
        tool (`str`): The tool name.
        arguments (`dict`): Its arguments.
        provenance (`dict`): Argument -> `"user"`, `"constant"`, `"schema"` or `"call[i].FIELD"`.
        result (`Any`): The result of the gold run (filled by execution).
        write (`bool`): Whether the tool is a write tool.
    """

    tool: str
    arguments: dict[str, Any]
    provenance: dict[str, str]
    result: Any = None
    write: bool = False


@dataclass
class TaskDraft:
    """A task before its user instructions are written.

    Attributes:
        env_name (`str`): The environment's name.
        kind (`str`): One of `KINDS`.
        calls (`list[GoldCall]`): The gold calls, in order.
        shape (`str`): One of `SHAPES`.
        user_facts (`dict`): What the user knows, by a readable name (`"order number": "ord_0003"`).
        withheld (`list[str]`): Names of `user_facts` left out of the first message (`missing_info`).
        answer_facts (`list[str]`): Values the agent's final answer must state (reads).
        required (`list[str]`): Tools the agent must call.
        forbidden (`list[str]`): Tools the agent must not call successfully (policy tasks).
        policy_rule (`dict`): For `policy` tasks, the structured rule the task sets up
            (`{"tool", "column", "allowed", "text"}`).
        gold_state_hash (`str`): State hash after the gold calls on `reset(seed)`.
        gold_diff (`dict`): `Environment.diff` of the gold run against the initial state.
        seed (`int`): The environment seed the gold run used.
        distractors (`list[str]`): Extra tools offered that the task does not need.
        notes (`list[str]`): How the task was built (for people reading it).
        branch (`dict`): For a `branch` task, the decision the user states: `{"write": the conditional
            GoldCall, "column", "value" (the write's outcome), "ask" (the column told otherwise), "taken":
            "act" or "tell"}`; the gold calls follow the branch the state takes.
        lookups (`int`): Calls prepended to find the rows the user names by what they know of them
            (`envscale.tasks.journeys.humanize`); the chain as built starts after them.
    """

    env_name: str
    kind: str
    calls: list[GoldCall]
    shape: str = "single"
    user_facts: dict[str, Any] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)
    answer_facts: list[str] = field(default_factory=list)
    required: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    policy_rule: dict[str, Any] | None = None
    gold_state_hash: str = ""
    gold_diff: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    distractors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lookups: int = 0
    branch: dict[str, Any] | None = None

    @property
    def n_writes(self) -> int:
        return sum(c.write for c in self.calls)

    def scoring(self) -> dict[str, Any]:
        """What the task is checked on: state, answer facts, required and forbidden actions, and (policy tasks)
        a recognised refusal."""
        return {
            # a read task too: a write it was not asked for changes the state and fails it
            "state": bool(self.gold_state_hash),
            "answer_facts": bool(self.answer_facts),
            "required_actions": list(self.required),
            "forbidden_actions": list(self.forbidden),
            "refusal": self.kind == "policy",
        }

    def signature(self) -> str:
        """Environment and call sequence (tools and arguments): equal for exact duplicates."""
        calls = [[c.tool, c.arguments] for c in self.calls]
        text = json.dumps([self.env_name, self.kind, calls], sort_keys=True, default=str)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass
class Instructions:
    """What the simulated user is told (never shown to the agent).

    Attributes:
        persona (`str`): Who the user is, in a sentence.
        goal (`str`): What they want, in their own words.
        known_facts (`dict`): Facts they give when the conversation needs them.
        hidden_facts (`dict`): Facts they reveal only when asked (`missing_info`).
        done_when (`str`): When the user considers the task done.
        first_message (`str`): The user's opening message.
        style (`str`): How they talk (`plain`, `terse`, ...).
    """

    persona: str
    goal: str
    known_facts: dict[str, Any]
    hidden_facts: dict[str, Any]
    done_when: str
    first_message: str
    style: str = "plain"


def to_json(value: Any) -> Any:
    """A JSON-ready copy of a dataclass tree."""
    return json.loads(
        json.dumps(asdict(value) if hasattr(value, "__dataclass_fields__") else value, default=str)
    )
