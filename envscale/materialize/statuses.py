"""Statuses: which states an act on a row is allowed from, read from its description and its verb.

`allowed_statuses(use, enum, target)` is the state rule of a status act or a soft delete (`envscale.materialize.infer`):
"Cancels an order that has not shipped yet" allows the states before `shipped`; "only pending orders" allows
`pending`; "You can only cancel a batch ... while it is in the OPEN state" allows `OPEN` (`allowed_while`); otherwise
a status verb is allowed from every state but its target, the retired ones and those a row ends in
(`finished_status`), where an act that undoes a state (`unarchive`, `enable`, `restore`) starts from it. `antonym`
and `OPPOSITES` spell a state's opposite; `sentences` splits a description.

`use` is an inferred tool use (`infer._Use`): its `meaning` (`entity`, `verb`) and its `tool` (`description`) are read.
"""

from __future__ import annotations

import re
from typing import Any

from ..words.semantics import ROW_QUALIFIERS
from ..words.verbs import RETIRED_STATUSES, STATUS_VERBS

__all__ = ["OPPOSITES", "allowed_statuses", "allowed_while", "antonym", "finished_status", "sentences"]

_NOT_YET = re.compile(r"\b(?:has|have|had|is|are|was)\s+not\s+(?:been\s+|yet\s+)?(\w+)(?:\s+yet)?", re.I)
_ONLY = re.compile(r"\bonly\s+(?:for\s+)?(\w+)\s+(\w+)", re.I)

OPPOSITES = {
    "enabled": "disabled",
    "disabled": "enabled",
    "open": "closed",
    "closed": "open",
    "visible": "hidden",
    "hidden": "visible",
    "archived": "active",
    "suspended": "active",
}
"""States whose opposite `antonym` cannot spell (it knows `active`/`inactive`, `published`/`unpublished`)."""


def antonym(word: str) -> str:
    """`published` <-> `unpublished`, `active` <-> `inactive`: the state word that says the opposite."""
    for neg in ("un", "in", "non"):
        if word.startswith(neg) and word[len(neg) :] in ROW_QUALIFIERS:
            return word[len(neg) :]
    return next((f"{neg}{word}" for neg in ("un", "in") if f"{neg}{word}" in ROW_QUALIFIERS), "")


_WHILE_IN = re.compile(
    r"\bonly\b[^.]*?\bwhile (?:it|the \w+) is (?:in )?(?:the )?(\w+)(?: state| status)?", re.I
)


def allowed_while(use: Any, enum: list) -> tuple[list, str] | None:
    """The one state a tool's description allows it in ("You can only cancel a batch ... while it is in the OPEN
    state"), with the description's words as the reason; `None` where it names none of the enum's values."""
    entity = use.meaning.entity or "row"
    for sentence in sentences(use.tool.get("description")):
        match = _WHILE_IN.search(sentence)
        value = next((v for v in enum if match and str(v).lower() == match.group(1).lower()), None)
        if value is not None:
            return [value], f"refused: the {entity} is not {value} ({sentence.strip().rstrip('.')})"
    return None


def allowed_statuses(use: Any, enum: list, target: str | None) -> tuple[list, str]:
    """The status values a write is allowed from, with the description's words as the reason.

    "Cancels an order that has not shipped yet" allows the values before `shipped` in the enum's
    order (`pending`, `paid`); "only pending orders" allows `pending`; otherwise a status verb is
    allowed from every value but its target and the retired ones.
    """
    entity = use.meaning.entity or "row"
    named = allowed_while(use, enum)
    if named is not None and named[0][0] != target:
        return named
    said = sentences(use.tool.get("description"))
    sentence = next((s for s in said if _NOT_YET.search(s) or _ONLY.search(s)), "")
    match = _NOT_YET.search(sentence)
    if match:
        word = match.group(1).lower()
        hit = next((v for v in enum if v.lower() == word or v.lower().startswith(word[:5])), None)
        if hit is not None:
            allowed = [v for v in enum[: enum.index(hit)] if v != target and v not in RETIRED_STATUSES]
            if allowed:
                return allowed, (
                    f"refused: the {entity} has already {word} (allowed only while it is "
                    f"{' or '.join(allowed)}: {sentence.rstrip('.')})"
                )
    match = _ONLY.search(sentence)
    if match and match.group(1).lower() in [v.lower() for v in enum]:
        value = next(v for v in enum if v.lower() == match.group(1).lower())
        return [value], f"refused: the {entity} is not {value} ({sentence.rstrip('.')})"
    if target is not None:
        reopens = use.meaning.verb in _REOPEN_VERBS or str(target).lower() in ("archived", "archive")
        # an act that undoes a retired state starts from it: enabling a log starts from `disabled` (blind readers:
        # elmah.io's "Logs_Enable works only on an already active log, so a disabled log can never be re-enabled")
        undone = {antonym(str(target).lower()), OPPOSITES.get(str(target).lower(), "")} - {""}
        # and the states of the act it undoes: unarchiving starts from `archived` (seed 87's readers: Flat's
        # `unarchiveClass` was allowed only on an inactive class, so an archived class never came back)
        verb = str(use.meaning.verb or "")
        undoes = _UNDOES.get(verb) or (verb[2:] if verb.startswith("un") else "")
        undone |= set(STATUS_VERBS.get(undoes, ()))
        # a state the act itself sets is where it already is: enabling an `active` log changes nothing (seed 85)
        reached = set(STATUS_VERBS.get(str(use.meaning.verb or ""), ()))
        allowed = [
            v
            for v in enum
            if v != target
            and str(v).lower() not in reached
            and (str(v).lower() not in RETIRED_STATUSES or str(v).lower() in undone)
            and (reopens or not finished_status(v))
        ]
        if allowed and len(allowed) < len(enum):
            return allowed, f"refused: the {entity} is already {target} or retired"
    return [], ""


_FINISHED_WORDS = frozenset(
    "cancel cancelled canceled removed deleted denied rejected declined failed expired voided terminated "
    "succeeded completed complete finished ended revoked refunded abandoned closed archived".split()
)
"""Words of a status a row ends in: no act moves it on (a SUCCEEDED batch is not submitted again, a mandate whose
CANCEL_FILE_SENT is not activated, a Denied reservation not cancelled), except one that reopens it."""
_REOPEN_VERBS = frozenset(
    "reopen restore reactivate unarchive undelete recover retry resubmit revert reinstate".split()
)
"""Verbs that move a row out of a state it ended in. Resuming is none: it undoes a pause, and an ended campaign is
not resumed (seed 93's readers: "a transition a real ads API would refuse")."""


_UNDOES = {
    "reopen": "close",
    "restore": "trash",
    "undelete": "trash",
    "recover": "trash",
    "reactivate": "deactivate",
    "resume": "suspend",
    "reinstate": "suspend",
}
"""The act a reopening verb undoes (`un` verbs undo the verb they are made of: `unarchive` undoes `archive`)."""


def finished_status(value: Any) -> bool:
    """Whether a status value says the row's course has ended (`SUCCEEDED`, `CANCEL_FILE_SENT`, `Denied`)."""
    return bool(set(re.split(r"[^a-z]+", str(value).lower())) & _FINISHED_WORDS)


def sentences(text: str | None) -> list[str]:
    """The sentences of a description (paragraph breaks end a sentence too)."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text or ""):
        out += [s for s in re.split(r"(?<=[.!?])\s+", " ".join(paragraph.split())) if s]
    return out
