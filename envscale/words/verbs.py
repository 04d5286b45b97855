"""The verb lists more than one module reads: what a verb does to the state, and how a person asks for it.

- `READ_VERBS` and `WRITE_VERBS`: the verbs by which `envscale.sources.normalize.infer_kind` tags a tool
  `read` or `write`, and on which `envscale.words.semantics` builds its reading of a name;
- `STATUS_VERBS` and `RETIRED_STATUSES`: the status values a verb (`cancel`, `ship`) moves a row to, and
  those that mean a row is gone (read by `semantics`, by `materialize`'s inference and verification, and
  by the tasks' requests);
- `CREATE_NATURAL`, `UPDATE_NATURAL`, `DELETE_NATURAL`, `ACTION_VERBS`, `UNDO_VERBS`, `SIGN_VERBS`,
  `GENERIC_UPDATES` and `ACTION_SYNONYMS`: the verbs a simulated user says a request with, and the words
  that may stand for them in a rewritten request (`envscale.tasks`).

A module's own list stays with it (`semantics`' `CREATE_VERBS`, the amount verbs of `materialize`).

Example:

```python
>>> from envscale.words.verbs import READ_VERBS, STATUS_VERBS, WRITE_VERBS
>>> "search" in READ_VERBS, "cancel" in WRITE_VERBS, STATUS_VERBS["cancel"][0]
(True, True, 'cancelled')
```
"""

from __future__ import annotations

import re

# ----------------------------------------------------------------------------- what a verb does

READ_VERBS = frozenset(
    "get list search find fetch query read retrieve lookup look show view check count calculate compute "
    "convert estimate describe display is has can validate verify predict recommend translate analyze "
    "analyse summarize summarise detect identify classify extract parse format compare match explain "
    "ls cat grep diff wc du tail head pwd stat info status inspect browse filter sort rank score "
    "locate track monitor evaluate test download export preview resolve measure solve".split()
)
"""Verbs of a name or description that read: `infer_kind` tags such a tool `read`."""
WRITE_VERBS = frozenset(
    "create add insert post put update set modify change edit delete remove cancel book reserve order "
    "purchase buy sell pay send transfer submit upload register assign approve reject move copy write "
    "save rename enable disable start stop reset schedule publish like follow unfollow block unblock "
    "close open mkdir touch rm rmdir mv cp echo cd archive restore refund return charge invite share "
    "apply accept decline mark lock unlock activate deactivate subscribe unsubscribe comment play pause "
    "reply retweet mute unmute link unlink attach detach deposit withdraw fill place execute commit "
    "merge push checkout stage unstage tag init clear drop grant revoke login logout authenticate "
    "increase decrease adjust toggle turn release allocate void".split()
)
"""Verbs of a name or description that change something: `infer_kind` tags such a tool `write`."""
STATUS_VERBS: dict[str, tuple[str, ...]] = {
    # verb -> status values it moves an entity to, most specific first (matched against the enum)
    "cancel": ("cancelled", "canceled", "cancel"),
    "close": ("closed", "close", "resolved", "done"),
    "resolve": ("resolved", "closed", "done"),
    "reopen": ("open", "reopened", "active"),
    "approve": ("approved", "accepted", "active"),
    "reject": ("rejected", "declined", "denied"),
    "decline": ("declined", "rejected"),
    "accept": ("accepted", "approved", "confirmed"),
    "confirm": ("confirmed", "approved", "accepted"),
    "complete": ("completed", "done", "closed", "finished"),
    "finish": ("finished", "completed", "done"),
    "ship": ("shipped", "in_transit", "sent"),
    "deliver": ("delivered", "completed"),
    "refund": ("refunded",),
    "archive": ("archived", "inactive"),
    "unarchive": ("active", "open"),
    "trash": ("trashed", "deleted", "inactive"),
    "untrash": ("active", "restored"),  # Flat's `untrashCollection` inserted an `untrashes` row
    "enable": ("enabled", "active", "on"),
    "disable": ("disabled", "inactive", "off"),
    "activate": ("active", "activated", "enabled", "on"),
    "deactivate": ("inactive", "deactivated", "disabled", "off"),
    "suspend": ("suspended", "inactive", "paused"),
    "lock": ("locked",),
    "unlock": ("unlocked", "active"),
    "block": ("blocked",),
    "unblock": ("active", "unblocked"),
    "publish": ("published", "live", "active"),
    "unpublish": ("draft", "unpublished"),
    "start": ("started", "running", "in_progress", "active", "on"),
    "stop": ("stopped", "inactive", "off"),
    "pause": ("paused",),
    "resume": ("active", "running", "in_progress"),
    "void": ("voided", "void", "cancelled"),
    "capture": ("captured", "paid"),
    "expire": ("expired",),
    # eBay's `endCampaign` inserted an `ends` row (seed 87)
    "end": ("ended", "completed", "finished", "closed"),
    "hide": ("hidden",),  # elmah.io's `Messages_Hide` inserted a `hides` row (blind readers)
    "unhide": ("visible",),
    "fix": ("fixed", "resolved"),  # elmah.io's `Messages_Fix`: the message is marked fixed
}
"""Verbs that move a row to another status, with the status values each one sets, preferred first."""
RETIRED_STATUSES = frozenset(
    "deleted removed archived cancelled canceled closed inactive deactivated disabled retired "
    "discontinued void voided revoked trashed".split()
)
"""Status values that mean a row is gone for its users: a delete verb may set one instead of deleting."""

SETTLED_STATUSES = frozenset(
    "submitted sent finalized finalised locked shipped delivered completed complete processed posted filed ended "
    "expired terminated finished".split()
)
"""Status values after which a row takes no new parts: nothing is added to a submitted batch, a sent invoice or a
shipped order (a blind reader: "submit the batch, then add a transfer to it" is backwards), nor a keyword to a campaign
just ended (seed 88). A paid or an approved row still takes a note."""


def act_said(state: str, description: str, exclude: frozenset[str] = frozenset()) -> str | None:
    """The status verb a tool's description says it moves a row to `state` by, in any of its forms ("Deactivates
    the company" -> `deactivate` for `inactive`), never one of `exclude`; `None` where it says none. Inference
    keeps a deleted row in the state its delete says, and the request asks for that act (seed 84's readers found
    "deactivate" done by a plain `companiesDelete`).

    ```python
    >>> act_said("inactive", "Deactivates the company; it can no longer be used.")
    'deactivate'
    >>> act_said("inactive", "Delete a company.") is None
    True
    ```
    """
    said = set(re.findall(r"[a-z]+", description.lower()))
    forms = lambda v: {v, v + "s", v + "d", v + "ed", v + v[-1:] + "ed"}  # noqa: E731 (stop -> stopped)
    return next(
        (v for v, states in STATUS_VERBS.items() if state in states and v not in exclude and said & forms(v)),
        None,
    )


# ----------------------------------------------------------------------------- how a person asks

CREATE_NATURAL = frozenset(
    "create add place book reserve register schedule send resend submit open buy purchase rent hire invite "
    "follow like subscribe enroll enrol post upload apply request file report issue raise".split()
)
"""Verbs a request to make a row is said with ("book a table", "file a report")."""
UPDATE_NATURAL = frozenset(
    "update change edit modify set rename move transfer assign reassign reset restore rate tag label "
    "pin unpin mute unmute star upgrade downgrade extend reschedule renew fund deposit withdraw charge "
    "pay refund release lock unlock mark toggle adjust increase decrease".split()
)
"""Verbs a request to change a row is said with ("rename the board", "fund my account")."""
ACTION_VERBS = frozenset(
    "play start stop run launch call order rate review track log restart pause resume retweet share "
    "like star watch mute unmute archive publish unpublish activate deactivate enable disable check "
    "approve reject confirm accept decline sign verify lock unlock open close fill empty clean".split()
)
"""Verbs that read naturally with their object ("play media", "retweet tweet 7")."""
DELETE_NATURAL = frozenset(
    "delete remove erase discard cancel unsubscribe unfollow revoke detach uninstall".split()
)
"""Verbs a request to remove a row is said with ("cancel my booking")."""
SIGN_VERBS = {"logout": "log out of", "login": "log in to", "signout": "sign out of", "signin": "sign in to"}
"""Verbs run together in tool names, as a person says them with their object."""
UNDO_VERBS = frozenset("unpublish archive deactivate disable unassign unlink unregister unshare".split())
"""Verbs that take a row away without deleting its idea: said as themselves ("unpublish the mock")."""
GENERIC_UPDATES = frozenset("update change edit modify set put patch".split())
"""Verbs that only say "change it": the request names what changes instead."""
ACTION_SYNONYMS = {
    "create": "create add place book reserve register schedule send submit open buy purchase order rent hire "
    "new make set up sign up start put".split(),
    "update": "update change edit modify set switch make correct replace move transfer adjust increase "
    "decrease raise lower rename mark turn".split(),
    "delete": "delete remove erase discard get rid drop cancel close take off".split(),
}
"""Words that may stand for each kind of write in a rewritten request ("get rid of" for a delete)."""
