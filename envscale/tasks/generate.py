"""Verifiable tasks of one environment: the generation loop.

`env_tasks(row, config, edges, rng)` builds up to `config.tasks_per_env` tasks in the environment of one
`environments` row, by kind (`envscale.tasks.model.KINDS`):

- **read**: a lookup the user asks about, answered from the state: one read, or two along a
  foreign key (`get_order(order number)` -> `get_customer(call[0].customer_id)`: "what is the email
  of the customer who placed order ord_0003?"); scored on answer facts.
- **write**: one write addressed by a fact the user knows; or a lookup then the write, the key
  flowing from the lookup's result (`list_customers(email=...)` -> `update_customer(customer_id=
  call[0][0].customer_id)`); or a small DAG, two independent lookups feeding one write
  (`create_order(customer from an email, product from a name)`); scored on the final state.
- **mixed**: read a row, tell the user a fact of it, then write it; scored on both.
- **policy**: the environment's rules (preconditions) forbid the write on a row the task picks;
  the right outcome is to look the row up, refuse, and leave the state unchanged.
- **missing_info**: a write whose key fact is withheld from the first message; the agent must ask.

On top of them, **conversations** (`envscale.tasks.conversations`, `conversation_share` of `tasks_per_env`):
two or three of the kept read, write and mixed tasks about related rows, asked in a row by one user, run
together for one gold state; the row's `requests` lists them (empty for a task of one request).

Each candidate goes through the task builder's parts in order:

1. `envscale.tasks.chains`: the chain of gold calls along real data flow (`BUILDERS[kind]`);
2. `envscale.tasks.arguments.tidy`: the arguments a person would state, and the checks of
   `envscale.tasks.asks` ("would a person ask this"), with `asks.filler_fact` on the values;
3. `envscale.tasks.gold.execute`: the gold run on the environment's own initial state (`Environment` is
   the only execution path): results, state hash, diff, answer facts;
4. `envscale.tasks.intent.write_instructions`: the simulated user's request (optionally reworded by an LLM);
5. `envscale.tasks.gates`: duplicates, a gold tool named in the request, the empty trajectory passing, and
   a replay on a second, fresh environment.

Every check that drops a candidate returns a `Drop`, a short code and a detail; the candidate becomes a
`rejected` row with its `code` and `reason` (`code: detail`), and the card counts the codes.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.build import TasksConfig
>>> from envscale.tasks.generate import env_tasks
>>> kept, rejected = env_tasks(
...     {"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig(tasks_per_env=4), [], random.Random(0)
... )
>>> len(kept), sorted({r["code"] for r in rejected})
(2, ['cannot_build'])
```
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..env import Environment
from ..env.policy import policy_rules
from .arguments import tidy
from .asks import acts_on_gone_row, filler_fact
from .chains import BUILDERS
from .conversations import compose_conversations
from .gates import (
    Deduper,
    empty_create,
    empty_passes,
    leaks,
    needless_read,
    read_by_act,
    replay_differs,
    rereads_row,
    sanctions_self,
    two_scopes,
    unsourced_user_value,
    walks_back,
)
from .gold import execute
from .intent import write_instructions
from .journeys import ends_then_acts, humanize, read_first
from .model import KINDS, Drop, TaskDraft, to_json
from .prepared import Env
from .rereads import drop_refetch
from .rewrite import rewrite_instructions

_ATTEMPTS_PER_TASK = 16
"""Candidates tried per task wanted (most are dropped by a check, each with its code)."""
_GIVE_UP = 4
"""Builds of a kind that fail, with none succeeding, before an environment stops trying that kind."""


class _Candidates:
    """The candidates of one environment: each built, checked and worded, or dropped with its `Drop`."""

    def __init__(self, e: Env, rng: random.Random, rewrite: Any, replay_env: Environment | None):
        self.e, self.rng, self.rewrite, self.replay_env = e, rng, rewrite, replay_env
        self.policy = policy_rules(e.spec)
        self.dedupe = Deduper()
        self.unbuilt: Counter = Counter()  # (kind, code, detail) -> attempts that built nothing
        self.built: Counter = Counter()
        self.failed: Counter = Counter()

    def live(self, kinds: list[str], weights: list[float]) -> list[tuple[str, float]]:
        """The kinds still worth an attempt: a kind the environment cannot pose (no write with a rule, no
        get ...) stops costing attempts after `_GIVE_UP` failed builds."""
        return [
            (k, w) for k, w in zip(kinds, weights, strict=True) if self.built[k] or self.failed[k] < _GIVE_UP
        ]

    def attempt(self, kind: str) -> tuple[dict | None, Drop | None, list]:
        """One candidate task: `(row, None, calls)` when kept, `(None, drop, calls)` when dropped, `(None, None,
        [])` when nothing was built (counted in `unbuilt`)."""
        e = self.e
        draft = BUILDERS[kind](e, self.rng)
        if isinstance(draft, str):
            self.unbuilt[(kind, "cannot_build", draft)] += 1
            self.failed[kind] += 1
            return None, None, []
        self.built[kind] += 1
        if kind in ("write", "missing_info"):
            read_first(e, draft)
        drop = tidy(e, draft, self.rng) or humanize(e, draft, self.rng)
        if drop is None and len(draft.calls) > e.config.max_chain_length:
            self.unbuilt[(kind, "chain_too_long", "more calls than max_chain_length")] += 1
            return None, None, []
        drop = (
            drop
            or filler_fact(e, draft)
            or acts_on_gone_row(e, draft)
            or execute(e, draft)
            or ends_then_acts(e, draft.calls)
            or rereads_row(draft.calls)
            or walks_back(e, draft.calls)
            or unsourced_user_value(draft)
            or needless_read(draft)
            or read_by_act(e.spec, draft.calls)
            or sanctions_self(e, draft.calls)
            or two_scopes(e, draft.calls)
            or empty_create(e.spec, draft.calls, e.rows)
        )
        calls = [{"tool": c.tool, "arguments": c.arguments} for c in draft.calls]
        if drop is not None:
            return None, drop, calls
        return self._worded(draft, calls)

    def _worded(self, draft: TaskDraft, calls: list[dict]) -> tuple[dict | None, Drop | None, list]:
        """A draft that ran: its instructions, then the gates on the finished task."""
        e = self.e
        # the wording draws from its own seeded source: a change of template never reshuffles the tasks
        instructions = write_instructions(
            draft, e.spec, random.Random(f"{e.spec['name']}:{draft.signature()}")
        )
        drop = self.dedupe.seen(e.spec["name"], calls)  # before the rewrite: a duplicate costs no request
        if drop is not None:
            return None, drop, calls
        if self.rewrite is not None:
            instructions, why = self.rewrite(instructions, draft)
            draft.notes.append(f"kept the template's wording: {why}" if why else "reworded by the LLM")
        drop = leaks(instructions.first_message, to_json(instructions), [c.tool for c in draft.calls])
        if drop is not None:
            return None, drop, calls
        if drop_refetch(e, draft):  # worded with the get ("look up the contact"), run without it
            calls = [{"tool": c.tool, "arguments": c.arguments} for c in draft.calls]
        task_row = _row(e, draft, instructions, self.policy, self.rng)
        drop = empty_passes(task_row, e.env)
        if drop is None and self.replay_env is not None:
            results = [c.result for c in draft.calls]
            drop = replay_differs(calls, self.replay_env, e.seed, draft.gold_state_hash, results)
        return (None, drop, calls) if drop is not None else (task_row, None, calls)


def env_tasks(
    row: dict, config: Any, edges: list[dict] | None, rng: random.Random, *, rewrite: Any = None
) -> tuple[list[dict], list[dict]]:
    """Tasks of one environment row: `(kept rows, rejected {kind, code, reason, detail})`.

    `rewrite(instructions, draft) -> (instructions, reason or None)`, when given, rewrites each
    task's user instructions with an LLM (`Rewriter`); a rewrite that loses a fact is refused by
    `envscale.tasks.rewrite.check_rewrite` and the template's wording is kept, with a note.

    `edges` (the graph's dependency edges of the environment's domain) are accepted for chain
    candidates; the chains built here follow the operations themselves (a result column feeding a
    key of the same or a referenced table), and every link is checked by executing it.
    """
    del edges  # the operations' own links are used; see the docstring
    e = Env(row, config)
    kinds = [k for k in KINDS if config.kind_shares.get(k, 0) > 0]
    if row.get("read_only") or not e.writes:
        kinds = [k for k in kinds if k == "read"] or ["read"]
    weights = [config.kind_shares.get(k, 0) or 1 for k in kinds]
    wanted = config.tasks_per_env
    if not e.grouped:
        wanted = round(config.tasks_per_env * config.loose_env_share)
    replay_env = Environment.from_row(row) if config.replay_check else None  # a second, fresh one
    candidates = _Candidates(e, rng, rewrite, replay_env)
    kept: list[dict] = []
    rejected: list[dict] = []
    singles = twos = 0
    journeys: Counter = Counter()  # tool sequences kept, each held to max_same_tools_share
    try:
        for _ in range(wanted * _ATTEMPTS_PER_TASK):
            if len(kept) >= wanted:
                break
            live = candidates.live(kinds, weights)
            if not live:
                break
            kind = rng.choices([k for k, _ in live], [w for _, w in live])[0]
            try:
                task_row, drop, calls = candidates.attempt(kind)
            except Exception as exc:  # noqa: BLE001 - one bad candidate never costs the others
                task_row, drop, calls = None, ("candidate_failed", f"{type(exc).__name__}: {exc}"), []
            journey = tuple(c["tool"] for c in task_row["gold_calls"]) if task_row is not None else ()
            if task_row is not None and journeys[journey] >= max(
                2, round(wanted * config.max_same_tools_share)
            ):
                task_row, drop = None, ("same_journey", f"enough tasks calling {' -> '.join(journey)}")
            if task_row is not None and task_row["difficulty"]["chain_length"] == 1:
                # a refusal, or a decision on a row found already in its state ("tell me when it was
                # cancelled"), is one look at the row by nature: they count, but are never dropped
                full = singles >= max(1, round(wanted * config.max_single_share))
                if full and not _one_look(task_row):
                    task_row, drop = None, ("single_call_quota", "enough one-call tasks in this environment")
                else:
                    singles += 1
            if task_row is not None and _plain_two(task_row):
                if twos >= max(1, round(wanted * config.max_two_call_share)):
                    task_row, drop = (
                        None,
                        ("two_call_quota", "enough two-call tasks in a line in this environment"),
                    )
                else:
                    twos += 1
            if task_row is not None:
                kept.append(task_row)
                journeys[journey] += 1
            elif drop is not None:
                rejected.append(_rejected(e, kind, drop, {"calls": calls}))
        # conversations: two or three of the kept requests in a row, on top of them
        count = round(config.conversation_share * wanted)
        conversations, drops = compose_conversations(e, kept, count, rng, replay_env)
        # a small world keeps fewer tasks than it was asked for, and the quotas above count against what was
        # asked: at the end each is held against what was kept (each hold shrinks what the other counts against)
        while True:
            kept, twos = _held_to_share(kept, len(conversations), config.max_two_call_share, _plain_two)
            kept, ones = _held_to_share(kept, len(conversations), config.max_single_share)
            rejected.extend(_rejected(e, t["kind"], _SPARE_TWO, {"task": t["first_message"]}) for t in twos)
            rejected.extend(_rejected(e, t["kind"], _SPARE, {"task": t["first_message"]}) for t in ones)
            if not twos and not ones:
                break
        kept.extend(conversations)
        rejected.extend(_rejected(e, "conversation", drop, {}) for drop in drops)
    finally:
        e.env.close()
        if replay_env is not None:
            replay_env.close()
    for (kind, code, detail), n in candidates.unbuilt.items():  # builders that built nothing: one row each
        rejected.append(_rejected(e, kind, (code, detail), {"attempts": n}))
    return kept, rejected


def _one_look(task: dict) -> bool:
    """A task that is one call by nature: a refusal (policy) or a branch whose row is already in its state."""
    return task["kind"] == "policy" or task["difficulty"].get("shape") == "branch"


def _plain_two(task: dict) -> bool:
    """A two-call task in a line (find a row, then read or change it): the most common shape, held to its share."""
    difficulty = task["difficulty"]
    return (
        difficulty["chain_length"] == 2 and difficulty.get("shape") == "linear" and task["kind"] != "policy"
    )


_SPARE: Drop = ("single_call_quota", "one-call tasks beyond max_single_share of the environment's tasks")
_SPARE_TWO: Drop = (
    "two_call_quota",
    "two-call tasks in a line beyond max_two_call_share of the environment's tasks",
)


def _single(task: dict) -> bool:
    """A one-call task that may be held back: one call, and not one look at a row by nature (`_one_look`)."""
    return task["difficulty"]["chain_length"] == 1 and not _one_look(task)


def _held_to_share(
    kept: list[dict], conversations: int, share: float, held: Callable[[dict], bool] | None = None
) -> tuple[list[dict], list[dict]]:
    """`(kept, spare)`: the tasks of one depth held to `share` of the environment's tasks, counted with its
    `conversations` (which may have taken them as parts).

    By default the depth is one call (`held`: `_single`): refusals and decisions on a row already in its state
    are one look at a row by nature (`_one_look`), count as one-call tasks and are always kept; with `held=
    _plain_two`, two-call tasks in a line. An environment keeps one such task at least, and the held tasks of
    each kind (a read, a write, a mixed one ...) are kept in turn, so that every kind stays."""
    if share >= 1:
        return kept, []
    if held is None:
        counted = [t["difficulty"]["chain_length"] == 1 for t in kept]
        droppable = [_single(t) for t in kept]
    else:
        counted = droppable = [held(t) for t in kept]
    longer = len(kept) - sum(counted) + conversations
    allowed = max(1, math.floor(share / (1 - share) * longer)) - (sum(counted) - sum(droppable))
    by_kind: dict[str, list[int]] = {}
    for i, is_droppable in enumerate(droppable):
        if is_droppable:
            by_kind.setdefault(kept[i]["kind"], []).append(i)
    chosen: set[int] = set()
    while allowed > 0 and any(by_kind.values()):  # a read, a write, a mixed one ... in turn: every kind stays
        for queue in by_kind.values():
            if queue and allowed > 0:
                chosen.add(queue.pop(0))
                allowed -= 1
    out = [t for i, t in enumerate(kept) if not droppable[i] or i in chosen]
    spare = [t for i, t in enumerate(kept) if droppable[i] and i not in chosen]
    return out, spare


def _rejected(e: Env, kind: str, drop: Drop, detail: dict) -> dict:
    """A `rejected` row: the candidate's kind, the code of why it was dropped, `code: detail` as its reason."""
    code, why = drop
    return {
        "environment": e.spec["name"],
        "domain_id": e.row.get("domain_id", -1),
        "kind": kind,
        "code": code,
        "reason": f"{code}: {why}",
        "detail": detail,
    }


def _row(e: Env, draft: TaskDraft, instructions: Any, policy: dict, rng: random.Random) -> dict:
    # a branch that only tells still offers its write: seed 94's readers found "approve it unless already
    # approved" offered no update tool ("the tool list gives the answer away")
    undone = [draft.branch["write"].tool] if (draft.branch or {}).get("write") is not None else []
    needed = list(dict.fromkeys([c.tool for c in draft.calls] + draft.forbidden + undone))
    others = [t for t in e.tools if t not in needed]
    distractors = rng.sample(others, min(e.config.distractors, len(others)))
    n = len(draft.calls)
    hard = draft.shape == "dag" or n >= 3 or draft.kind in ("policy", "missing_info")
    level = "hard" if hard else "medium" if n == 2 else "easy"
    return {
        "environment": e.spec["name"],
        "domain_id": e.row.get("domain_id", -1),
        "kind": draft.kind,
        "difficulty": {
            "chain_length": n,
            "n_writes": draft.n_writes,
            "n_distractors": len(distractors),
            "shape": draft.shape,
            "level": level,
        },
        "scoring": draft.scoring(),
        "instructions": to_json(instructions),
        "first_message": instructions.first_message,
        "requests": [],  # one request; a conversation lists each (envscale.tasks.conversations)
        "tools": needed + distractors,
        "gold_calls": [
            {"tool": c.tool, "arguments": c.arguments, "provenance": c.provenance} for c in draft.calls
        ],
        "gold_results": [c.result for c in draft.calls],
        "gold_state_hash": draft.gold_state_hash,
        "gold_diff": draft.gold_diff,
        "answer_facts": draft.answer_facts,
        "policy": {**policy, "task_rule": draft.policy_rule},
        "seed": draft.seed,
        "notes": draft.notes,
    }


class RewriterClosed(BaseException):
    """A rewrite asked of a closed `Rewriter` (the run is stopping: Ctrl-C, an error elsewhere). A
    `BaseException`, as `KeyboardInterrupt` is: it ends the environment's generation at once instead of
    failing each of its candidates in turn."""


class Rewriter:
    """`rewrite` for `env_tasks`: user instructions reworded by an OpenAI-compatible model.

    One event loop (in a thread of its own) and one `LLMClient` for the whole run; each call waits for its
    answer, and calls from several threads (environments worded at once, see `TasksConfig.llm_max_concurrency`)
    are in flight together, up to the client's `max_concurrency`. Close it when done: requests still in flight
    are cancelled, and their callers (and any later ones) get `RewriterClosed`.
    """

    def __init__(self, llm_config: Any):
        import asyncio
        import threading

        from ..llm import LLMClient

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="rewriter", daemon=True)
        self._thread.start()
        self._lock = threading.Lock()
        self._closed = False
        self.client = LLMClient(llm_config)
        self.model = llm_config.model
        self.asked = self.failed = self.kept_template = 0  # see `counts`
        self.first_error: str | None = None

    def __call__(self, instructions: Any, draft: TaskDraft) -> tuple[Any, str | None]:
        import asyncio
        import concurrent.futures

        with self._lock:
            if self._closed:
                raise RewriterClosed("the rewriter is closed")
            coroutine = rewrite_instructions(instructions, draft, self.client, self.model)
            future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            result, why = future.result()
        except concurrent.futures.CancelledError:  # `close` cancelled it
            raise RewriterClosed("the rewriter was closed while this rewrite was in flight") from None
        with self._lock:
            self.asked += 1
            if why and why.startswith("rewrite failed"):
                self.failed += 1
                self.first_error = self.first_error or why[:300]
            elif why:
                self.kept_template += 1
        return result, why

    def counts(self) -> dict[str, int]:
        """Rewrites asked, used, refused by the checks (template kept), and failed as requests."""
        used = self.asked - self.failed - self.kept_template
        return {"asked": self.asked, "used": used, "refused": self.kept_template, "failed": self.failed}

    def close(self) -> None:
        """Cancel the rewrites in flight (their callers get `RewriterClosed`), close the client and the loop."""
        import asyncio

        with self._lock:
            if self._closed:
                return
            self._closed = True  # no rewrite starts any more

        async def shut() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:  # the rewrites in flight: their callers get RewriterClosed
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.client.aclose()

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
