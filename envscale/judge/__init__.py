"""Judging: how a trajectory is scored against its task, checked, and kept or dropped.

The rules (what the code below does; `checks` has the table of checks):

1. A criterion the task's `scoring` does not name is not scored: its check is `None`, and `None`
   holds at every level. A task scored on nothing, on `state` without a `gold_state_hash`, or on
   answer facts it does not list, or meant for another environment, is malformed (`ValueError`).
2. A trajectory passes when every check named in the levels holds (`DEFAULT_LEVELS`: `ended`,
   `format`, `state`, `answer`, `actions`, `policy`, `consistent`); a failed required check is a reason
   to drop.
3. Replays run only the calls that reached the environment: calls refused as `unknown_tool` or
   `invalid_arguments` are left out; the others run in order through `Environment.step` on a fresh
   reset to the task's `seed` (and `session_key`). Refused calls change nothing and fail no outcome
   check: intermediate errors are allowed wherever the outcome is reached.
4. `state`: the replay's final state hash is the gold one. `answer`: every fact appears in the final
   answer as a whole, case-insensitive, numbers by value (`answers`); in a conversation (a task of
   several `requests`) in the agent's messages to the user, each request being answered when it is done
   (`checks.answer_text`), so a trajectory that stops after the first request lacks the later facts. `actions`: what the required tools'
   gold calls did was done, by any offered tool (`effects`): the task's gold calls are replayed on the
   same reset, and each gold call of a required tool asks for its outcome, not its name. A gold write
   needs a successful call with the same effect (the same rows of the same tables added,
   removed, or changed in the same columns to the same values; `Environment.last_changes`), so a
   near-duplicate tool (`close_project_4` for `close_project`) satisfies it and the same tool on
   another row or with another value does not. A gold read needs a successful read of the same table
   that shows at least the rows it read (by primary key; a count by its value and the arguments it was
   asked with), and a gold write that changed nothing by a successful non-read that changes nothing: a policy task still
   asks that the row the refusal rests on was looked up. Calls may come in any order (a call's effect
   already depends on what ran before it). A required tool that no gold call makes, or a gold call
   that fails on replay, is a malformed task. `policy`: no forbidden tool succeeded (by name; with
   `state` scored, any write that changes the state fails it anyway), when the task is also scored
   on `state`, the state is the gold one too, and the answer is a refusal the judge recognises: it
   declines and names the rule or the reason (`refusal`), since never writing is not refusing.
   `answer` is also scored for precision: an answer that names more than a few rows that were not
   asked, or many fields of the asked row beyond the facts, is a dump and fails (`precision`).
5. `exact` (the strict level, off by default) is the one check on tool names: the episode's own
   successful calls are the gold calls (the same tools and required arguments, values compared by
   `answers.canonical_value`), in an order that keeps the data flow of the gold calls' provenance
   (`provenance`: a call after the calls it reads; independent calls in any order); failed calls are
   ignored.
6. `consistent`: the final answer contradicts no tool result of the episode: no success claimed after a
   last call the environment refused, no value given to a field that the latest result of its row
   shows otherwise (only what the episode's own results decide; `checks.check_consistent`); in a
   conversation, each request's answer, judged on its own turn.
7. An episode that never ran (no messages) fails `state`, `answer`, `actions`, `policy`, `exact` and
   `consistent` whatever the task is scored on; a trajectory whose environment cannot be built fails
   every check.

Modules (their public names are re-exported here):

- `answers`: the one normaliser of answers and values (`normalize_answer`, `answer_matches`,
  `canonical_number`, `canonical_value`);
- `provenance`: the one parser of provenance paths `call[i][j].field` (`parse_provenance`,
  `provenance_call`, `read_calls`, `resolve_provenance`);
- `effects`: what a call did whatever its tool, its effect on the state and the rows it read
  (`effect`, `rows_read`, `READ_OPERATIONS`, `Step`);
- `precision`: `overstatement`, what an answer states beyond the asked facts (a dump of the tables);
- `refusal`: `refusal_problem`, whether an answer declines and names the rule or the reason;
- `score`: `score_trajectory` / `score_row`, a trajectory replayed and scored against a task
  (`reset_env`, `call_parts`, `replay`, `required_effects`, `effects_done`);
- `checks`: the filter's checks per trajectory and the verdict (`check_trajectory`, `verdict`,
  `judge_trajectory`, `environment_error`);
- `cache`: `EnvironmentCache`, each environment built once per process;
- `filter`: `FilterConfig` and `filter_trajectories`, the `filter` stage's library (`envscale filter`):
  every trajectory judged, the passing ones written as SFT data, the others as `rejected` with their checks.

Example:

```python
>>> from envscale.env import Environment
>>> from envscale.judge import score_trajectory
>>> env = Environment.from_yaml("tests/fixtures/envs/shop.yaml")
>>> task = {"seed": None, "gold_state_hash": env.state_hash(), "scoring": {"state": True}}
>>> score_trajectory(task, env, [])["passed"]  # doing nothing leaves the gold (initial) state
True
```
"""

from envscale.judge.answers import answer_matches, canonical_number, canonical_value, normalize_answer
from envscale.judge.cache import EnvironmentCache
from envscale.judge.checks import (
    DEFAULT_LEVELS,
    SCHEMA_ERRORS,
    Judgement,
    check_consistent,
    check_format,
    check_trajectory,
    environment_error,
    exact_match,
    gold_call_recall,
    judge_trajectory,
    required_arguments,
    verdict,
)
from envscale.judge.effects import READ_OPERATIONS, Step, effect, rows_read
from envscale.judge.precision import overstatement
from envscale.judge.provenance import parse_provenance, provenance_call, read_calls, resolve_provenance
from envscale.judge.refusal import refusal_problem
from envscale.judge.score import (
    call_parts,
    effects_done,
    efficiency,
    replay,
    required_effects,
    reset_env,
    score_row,
    score_trajectory,
)

__all__ = [
    "DEFAULT_LEVELS",
    "READ_OPERATIONS",
    "SCHEMA_ERRORS",
    "EnvironmentCache",
    "Judgement",
    "Step",
    "answer_matches",
    "call_parts",
    "canonical_number",
    "canonical_value",
    "check_consistent",
    "check_format",
    "check_trajectory",
    "effect",
    "effects_done",
    "efficiency",
    "environment_error",
    "exact_match",
    "gold_call_recall",
    "judge_trajectory",
    "normalize_answer",
    "overstatement",
    "parse_provenance",
    "provenance_call",
    "read_calls",
    "refusal_problem",
    "replay",
    "required_arguments",
    "required_effects",
    "reset_env",
    "resolve_provenance",
    "rows_read",
    "score_row",
    "score_trajectory",
    "verdict",
]
