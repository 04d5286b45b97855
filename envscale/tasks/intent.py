"""What the simulated user knows and says: persona, goal, facts, when they are done, the opening message.

`write_instructions` turns a `TaskDraft` into `Instructions` offline, from templates, reading the *meaning*
of every gold call (`envscale.words.semantics.tool_meaning` on the tool's original name, and the operation it
runs: a fixed status, a set column, the filters of a lookup) rather than its name. The user speaks in
entities and values ("cancel my order ord_0007", "change the email address on my account to x@y.com"),
never in tool or column names; a value the agent finds with an earlier call (provenance `call[i].FIELD`)
is described, not said ("my most recent pending order"); a withheld fact (`missing_info`) is left out of
the first message and given only when asked.

`fact_name` is the one naming rule for facts: the chain builder stores `TaskDraft.user_facts` under
`fact_name(argument, tool, spec)` ("order number", "new email address", "customer id"), and the writer
finds the facts of a call by those names (or, when the builder disambiguated a name, by value).

The user's side of a task reads in layers, each module adding to the one before:

- `envscale.tasks.wording`: the vocabulary (how identifiers, values, verbs and prepositions are said);
- `envscale.tasks.naming`: how a spec's entities, keys and facts are named (`fact_name`);
- `envscale.tasks.steps`: `Steps`, the draft read as steps (entity, kind, verb, facts) and who the user is;
- `envscale.tasks.phrases`: `Phrases`, the noun phrases (a row, an entity, a column, a value);
- `envscale.tasks.clauses`: `Clauses`, how one step is said, with the outcome the user expects;
- this module: `Writer`, the whole request (which steps are said, in what order), the persona, the first
  message, `done_when` and `write_instructions`;
- `envscale.tasks.rewrite`: an LLM's rewrite of the request and `check_rewrite`, which keeps it honest.

`fact_name`, `mentions`, `tool_names_in` and the rewrite's public names are importable from here.

Example:

```python
>>> import random
>>> from envscale.env import load_spec
>>> from envscale.tasks.intent import fact_name, write_instructions
>>> from envscale.tasks.model import GoldCall, TaskDraft
>>> spec = load_spec("tests/fixtures/envs/shop.yaml")
>>> tool = next(t for t in spec["tools"] if t["name"] == "cancel_order")
>>> fact_name("order_id", tool, spec)
'order number'
>>> call = GoldCall("cancel_order", {"order_id": "ord_0007"}, {"order_id": "user"}, write=True)
>>> draft = TaskDraft("shop", "write", [call], user_facts={"order number": "ord_0007"})
>>> ins = write_instructions(draft, spec, random.Random(0))
>>> "ord_0007" in ins.first_message, ins.done_when
(True, 'when the assistant confirms that the order is cancelled')
>>> # with an endpoint: `ins, reason = await rewrite_instructions(ins, draft, client, "Qwen/Qwen3-8B")`
```
"""

from __future__ import annotations

import dataclasses
import random
import re

from ..judge import parse_provenance
from ..words.inflect import singular
from ..words.names import tokens
from .clauses import Clauses
from .model import Instructions, TaskDraft
from .naming import entity_name, fact_name, names_by_itself, primary_key_of, spec_tables, table_columns
from .phrases import NP
from .rewrite import REWRITE_PROMPT, check_rewrite, rewrite_instructions, rewrite_prompt
from .steps import Step
from .wording import (
    READS,
    article,
    cap,
    format_value,
    join,
    mentions,
    plural_phrase,
    readable_words,
    said_state,
    same_value,
    same_words,
    tool_names_in,
)

__all__ = [
    "REWRITE_PROMPT",
    "STYLES",
    "check_rewrite",
    "fact_name",
    "mentions",
    "rewrite_instructions",
    "rewrite_prompt",
    "tool_names_in",
    "write_instructions",
]

STYLES = ("plain", "terse", "vague")
"""How the user talks: `plain` (default), `terse` (no pleasantries), `vague` (hesitant, loosely worded)."""
STYLE_WEIGHTS = (0.8, 0.1, 0.1)


# ----------------------------------------------------------------------------- persona

_DOMAIN_TABLE = """
shop     | order product cart catalog catalogue shop store checkout purchase sku inventory coupon shipment walmart basket merchant | an online shop | a customer of {place} | someone who works in the back office of {place}
car      | vehicle car engine brake door headlight tire tyre fuel climate cruise parking ignition trunk seatbelt windshield | a connected car | the driver of {place} | the driver of {place}
tracker  | task project issue board sprint milestone todo epic backlog kanban | a task tracker | a member of a team that uses {place} | the project manager of a team that uses {place}
travel   | flight hotel booking reservation room trip airline passenger itinerary airport rental | a travel booking service | a traveller who uses {place} | an agent who works at {place}
bank     | bank transaction balance transfer card loan deposit withdrawal payee iban statement | a bank | a customer of {place} | a clerk who works at {place}
trading  | stock trade trading portfolio watchlist ticker broker crypto | a trading platform | an investor who uses {place} | an operator of {place}
social   | tweet post follower following comment like feed retweet hashtag | a social network | a user of {place} | a moderator of {place}
messaging| message email mail inbox chat sms conversation contact | a messaging service | a user of {place} | an administrator of {place}
files    | file directory folder disk | a file storage service | someone who keeps their files in {place} | the administrator of {place}
appointments| appointment timeslot slot diary servicegroup appointmenttype | an appointment booking service | a client who books appointments through {place} | a staff member who manages the bookings of {place}
health   | patient doctor clinic prescription medication diagnosis physician | a medical clinic | a patient of {place} | a receptionist at {place}
food     | restaurant menu meal dish food delivery eat | a food ordering app | a customer of {place} | a staff member of {place}
tv       | episode tvmaze series broadcast tvshow | a TV guide | a viewer who uses {place} | an editor of {place}
events   | event concert ticket festival venue show performance | an event ticketing service | a customer of {place} | an organiser who uses {place}
rides    | ride taxi uber pickup | a ride-hailing app | a rider who uses {place} | an operator of {place}
support  | ticket support incident case sla | a help desk | a customer who contacts {place} | a support agent at {place}
music    | song playlist track album artist music podcast | a music streaming app | a listener who uses {place} | a curator at {place}
home     | appliance device thermostat light lamp home sensor camera | a smart home system | a resident who controls {place} | the installer of {place}
hr       | employee payroll leave department salary timesheet | a company's HR system | an employee who uses {place} | an HR officer who uses {place}
school   | student course enrollment grade class teacher lesson exam | a school's course system | a student who uses {place} | a staff member of {place}
library  | book loan library author borrower | a library | a member of {place} | a librarian at {place}
weather  | weather forecast temperature precipitation | a weather service | a user of {place} | an operator of {place}
crm      | lead opportunity deal pipeline crm prospect | a CRM | a salesperson who uses {place} | a sales manager who uses {place}
accounting| invoice tax ledger bill expense partner receipt vat document | an accounting system | a bookkeeper who uses {place} | an accountant who uses {place}
budget   | budget payee category month goal | a budgeting app | someone who keeps their budget in {place} | someone who keeps their budget in {place}
identity | role permission factor credential authenticator usergroup password okta | an identity and access management system | an administrator of {place} | an administrator of {place}
cloud    | server cluster pod deployment instance container namespace vm replica kubernetes docker | a cloud platform | an engineer who uses {place} | an operator of {place}
community| member community | a community platform | a community manager who uses {place} | a community manager who uses {place}
recruiting| job applicant candidate interview offer | a recruiting system | a recruiter who uses {place} | a recruiter who uses {place}
logistics| warehouse dock pickuppoint carrier freight logistics fulfillment geoshape lot dispatch | a logistics platform | a merchant who ships through {place} | an operations manager who uses {place}
learning | learner participant curriculum module learning training lesson course enrollment offering cohort learnifier iqualify | an e-learning platform | a learner on {place} | a course administrator who uses {place}
feedback | feedback feature vote idea request roadmap | a product feedback tool | a customer who sends feedback through {place} | a product manager who uses {place}
workspace| database block page note notebook wiki doc | a notes and documents workspace | someone who keeps their notes in {place} | the admin of a team's workspace on {place}
developer| collection monitor mock repository repo release commit branch git webhook | a developer platform | a developer who uses {place} | a developer who uses {place}
"""  # noqa: E501
"""Kinds of environment: name | words of tables, tool groups and descriptions that point to it | the place |
who the user is when the task is about their own rows (or the domain is a personal one) | who they are
otherwise (staff). `{place}` is filled in."""
_DOMAINS: tuple[tuple[str, frozenset, str, str, str], ...] = tuple(
    (name, frozenset(words.split()), place, user, staff)
    for line in _DOMAIN_TABLE.strip().splitlines()
    for name, words, place, user, staff in [[part.strip() for part in line.split("|")]]
)
_PERSONAL = frozenset(
    "car tracker social messaging files music home weather trading travel events rides food".split()
)
"""Domains a person uses for themselves: without a people table the user is a user, not staff."""
_PERSONA_TEMPLATES = (
    "You are {who}.",
    "You are {who}, writing to its assistant.",
    "You are {who} and you need the assistant's help with something.",
    "You are {who}, getting in touch with its assistant.",
    "You are {who} with a request for its assistant.",
)


def _domain_hits(spec: dict) -> list[tuple[int, tuple[str, frozenset, str, str, str]]]:
    """`_DOMAINS` entries by how many words of the spec's tables, tool groups, description and name point to
    them, the most first (ties in `_DOMAIN_TABLE`'s order)."""
    words: list[str] = []
    for table in spec_tables(spec):
        words += [singular(w) for w in tokens(table)]
    for tool in spec.get("tools") or []:
        meta = (
            tool.get("metadata") if isinstance(tool, dict) and isinstance(tool.get("metadata"), dict) else {}
        )
        if isinstance(meta.get("group"), str):
            words += [singular(w) for w in tokens(meta["group"])]
    words += [singular(w) for w in tokens(str(spec.get("description") or ""))]
    words += [singular(w) for w in tokens(re.sub(r"^domain_\d+_?", "", str(spec.get("name") or "")))]
    hits = [(sum(w in entry[1] for w in words), entry) for entry in _DOMAINS]
    return sorted(hits, key=lambda h: -h[0])


def _domain(spec: dict) -> tuple[str, str, str, str] | None:
    """The best-matching `_DOMAINS` entry for the spec's tables, tool groups and description."""
    hits, best = _domain_hits(spec)[0]
    return (best[0], best[2], best[3], best[4]) if hits else None


def _clear_domain(spec: dict) -> tuple[str, str, str, str] | None:
    """The `_DOMAINS` entry the spec clearly is: two words or more point to it, and at least twice as many as to
    any other. A product of several kinds (Avaza: projects, timesheets, invoices; YNAB: budgets and bank
    transactions) or one word of evidence gives no persona of a kind ("an HR officer" for Avaza)."""
    ranked = _domain_hits(spec)
    (hits, best), (second, _) = ranked[0], ranked[1]
    return (best[0], best[2], best[3], best[4]) if hits >= 2 and hits >= 2 * second else None


_TITLE_NOISE = re.compile(
    r"\b(?:apis?|documentation|docs|endpoints?|reference|spec|specification|openapi|swagger|rest|"
    r"v\d+(?:\.\d+)*|version\s*\d+(?:\.\d+)*)\b|\(\s*\)",
    re.IGNORECASE,
)
_GENERIC_TITLE_WORDS = frozenset(
    "service management system platform business data customer credit product library calendar pos hris "
    "subscription storage tracking hub posting web public open gift financial consumer user partner config "
    "configuration setting core admin integration account accounts file files marketing sales inventory analytics "
    "feedback finance payment payments billing order orders messaging notification notifications search report "
    "reports reporting identity auth authentication media event events fulfillment compliance logistics catalog "
    "metadata translation ats crm erp cms lms itsm".split()
)

_AUDIENCE_WORDS = frozenset("user users management admin core consumer business partner public".split())


def _product_place(spec: dict) -> str | None:
    """The API's own product, from its tools' group (`Avaza API Documentation` -> "Avaza"; a title of common
    words, `Calendar API`, -> "the Calendar service"); `None` without one (function docs)."""
    groups = [
        tool["metadata"]["group"]
        for tool in spec.get("tools") or []
        if isinstance(tool, dict)
        and isinstance(tool.get("metadata"), dict)
        and isinstance(tool["metadata"].get("group"), str)
    ]
    if not groups:
        return None
    title = max(set(groups), key=groups.count)
    if re.fullmatch(r"[a-z0-9_.-]+", title):
        return None  # an MCP server's id (`memory_kv`), not a product's title
    title = _TITLE_NOISE.sub(" ", title)
    words = re.sub(r"\(\s*\)", " ", title).strip(" -:,").split()
    while len(words) > 1 and words[-1].lower() in _AUDIENCE_WORDS:
        words.pop()  # `TVmaze user API`, `OnSched Consumer API`: the product, not who it is for
    title = " ".join(words)
    if not title or len(title) > 40:
        return None
    domain_words = frozenset().union(*(entry[1] for entry in _DOMAINS))
    generic = all(singular(w) in domain_words | _GENERIC_TITLE_WORDS for w in tokens(title))
    return f"the {title} service" if generic else title


def _brand(spec: dict) -> str | None:
    """The API's product name where it is a name of its own (`VictorOps`), never words of a kind of service (`Xero
    Files`, `the Calendar service`): the place a persona of a clear domain is at."""
    product = _product_place(spec)
    if not product or product.startswith("the "):
        return None
    domain_words = frozenset().union(*(entry[1] for entry in _DOMAINS))
    if any(singular(w) in domain_words | _GENERIC_TITLE_WORDS for w in tokens(product)):
        return None
    return product


def persona_role(persona: str) -> str | None:
    """Who a persona makes the user: `"staff"` (works at the place), `"user"` (uses it for themselves), or None
    when the persona is both or neither (a community manager; a persona envscale did not write)."""
    text = persona.lower()
    if "someone who works with" in text:
        return "staff"
    for _, _, _, user_who, staff_who in _DOMAINS:
        if user_who == staff_who:
            continue
        user, staff = (w.split("{place}")[0].strip().lower() for w in (user_who, staff_who))
        if staff and f"you are {staff}" in text:
            return "staff"
        if user and f"you are {user}" in text:
            return "user"
    return None


def _fallback_place(spec: dict) -> str:
    entities = [plural_phrase(entity_name(t, spec)) for t in list(spec_tables(spec))[:3]]
    return f"a system that keeps track of {join(entities)}" if entities else "an online service"


def _asked_when(ask: str) -> str | None:
    """ "when it was cancelled" for the column a state was reached at (`cancelled_at`), else `None`."""
    dated = re.match(r"^([a-z]+ed)_(?:at|on|date|time)$", ask)
    return f"when it was {dated.group(1)}" if dated else None


_OWN_NAMES = frozenset(("name", "title", "displayname", "label", "subject"))


def _renames(step: Step) -> bool:
    """Whether a step changes the name its row is known by (a later clause calls it "that role")."""
    if step.kind != "update":
        return False
    for a in step.args:
        if a.binding is None or a.binding.place != "set":
            continue
        words = [w.lower() for w in tokens(a.binding.column or a.arg)]
        if words and (words[-1] in _OWN_NAMES or "".join(words[-2:]) in _OWN_NAMES):
            return True
    return False


def _condition(clause: str, state: str, ask: str, rng: random.Random, told: bool = False) -> str:
    """A request that depends on the row's state, as people put it: "cancel it, unless it is already
    cancelled: then just tell me when it was cancelled", in one of a few ways; with `told` (the branch asks
    for the state itself), "cancel it, unless it is already cancelled: in that case just let me know"."""
    if told:
        return rng.choice(
            (
                f"{clause}, unless it is already {state}: in that case just let me know",
                f"{clause}; if it's already {state}, just tell me so",
                f"{clause} if it isn't {state} yet, and if it is, let me know",
                f"{clause}, but if it's already {state}, just say so",
            )
        )
    what = _asked_when(ask) or f"its {readable_words(ask)}"
    return rng.choice(
        (
            f"{clause}, unless it is already {state}: in that case just tell me {what}",
            f"{clause}; if it's already {state}, just tell me {what} instead",
            f"{clause} if it isn't {state} yet, and if it is, tell me {what}",
            f"{clause}, but if it's already {state}, all I need is {what}",
        )
    )


class Writer(Clauses):
    """Builds the instructions of one draft; every random choice goes through `rng`, in a fixed order."""

    def __init__(self, draft: TaskDraft, spec: dict, rng: random.Random):
        super().__init__(draft, spec, rng)
        self.explicit: dict[int, bool] = {}  # lookups said as requests of their own (chosen once per task)

    # -- the whole request

    def _consumed(self) -> set[int]:
        """Reads whose results only feed later calls: said as references, not as requests of their own."""
        feeding: set[int] = set()
        for step in self.steps:
            for a in step.args:
                parsed = parse_provenance(a.source)
                if parsed and parsed[0] < step.index:
                    feeding.add(parsed[0])
        consumed = set()
        for i in feeding:
            s = self.steps[i]
            if s.kind not in READS:
                continue
            # a lookup whose row a later read of the same row reads again ("the subject of organizer 12's
            # webinar": list, then get): one request, said once, by the read that states the answer
            if not self._answers_in(s) or self._reread(i):
                consumed.add(i)
        return consumed

    def _reread(self, i: int) -> bool:
        """Whether every later call fed by read `i` is a read of the same table stating the answers too."""
        readers = [
            t
            for t in self.steps[i + 1 :]
            if any((parse_provenance(a.source) or (None,))[0] == i for a in t.args)
        ]
        return bool(readers) and all(
            t.kind in READS and t.table == self.steps[i].table and self._answers_in(t) for t in readers
        )

    def _answers_in(self, step: Step) -> bool:
        rows = step.result if isinstance(step.result, list) else [step.result]
        for ans in self.draft.answer_facts:
            for row in rows:
                values = row.values() if isinstance(row, dict) else [row]
                if any(same_value(v, ans) for v in values):
                    return True
        return False

    def _lookup_np(self, step: Step) -> NP | None:
        """The row a lookup finds for the next call, when that call acts on the row itself (its key)."""
        nxt = self.steps[step.index + 1] if step.index + 1 < len(self.steps) else None
        for a in nxt.args if nxt else []:
            parsed = parse_provenance(a.source)
            if not (a.binding and a.binding.place == "key" and a.binding.main and parsed):
                continue
            if parsed[0] != step.index or nxt.table != step.table or not parsed[1]:
                continue
            if parsed[1][-1] != primary_key_of(self.spec, step.table):
                continue
            np = self.derived_np(a, nxt.table)
            return np if np.row is not None else None
        return None

    def clauses(self, show_hidden: bool) -> tuple[list[str], list[str], list[str]]:
        """(clauses, write outcomes, answers) of the request, in call order."""
        consumed: set[int] = set()
        if self.draft.kind == "policy":
            steps = list(self.request_steps)  # the user asks for the forbidden write, nothing else
        else:
            consumed = self._consumed()
            if self.draft.branch:  # the read is the check the condition states, not a question of its own
                consumed |= {s.index for s in self.steps if s.kind in READS}
            steps = list(self.steps)
        clauses, outcomes, answers = [], [], []
        prev_row = None
        self.asked_attribute = False
        self.show_hidden = show_hidden
        self.renamed = []
        for step in steps:
            if step.index in consumed:
                # a lookup that only finds the row the next call acts on: sometimes said ("look up my
                # pending order and cancel it"), otherwise folded into that call ("cancel my pending order")
                self.prev_row = prev_row  # "... activate it, look up its direct debit"
                found = self._lookup_np(step)
                if found is not None:
                    if step.index not in self.explicit:
                        # a lookup before a read of the same row is never a request of its own
                        self.explicit[step.index] = self.rng.random() < 0.4 and not self._reread(step.index)
                    # "look up a timesheet and delete that timesheet" (seed 94's readers): a row the user holds
                    # back what they know of is never looked up in words; the act says it ("delete a timesheet")
                    if (
                        self.explicit[step.index]
                        and found.det != "a"
                        and (found.pre or found.label or found.post or found.having or found.det == "my")
                        and f"look up {found.render()}" not in clauses
                    ):
                        clauses.append(f"look up {found.render()}")
                        prev_row = found.row
                continue
            self.prev_row = prev_row
            clause, outcome, row = self.clause(step, show_hidden, prev_row)
            if not clause:  # a list read only to find a row: no request of its own
                continue
            branch = self.draft.branch
            if branch and step.call is branch["write"]:
                # the decision, as a person states it: "cancel it, unless it is already cancelled: then ..."
                asked = readable_words(branch["ask"])
                state = said_state(step.verb, branch["value"], str(step.tool.get("description") or ""))
                told = branch["ask"] == branch["column"]
                clause = _condition(clause, state, branch["ask"], self.rng, told=told)
                if branch["taken"] == "tell":
                    clauses.append(clause)
                    answers.append(
                        f"that it is already {state}"
                        if told
                        else _asked_when(branch["ask"]) or f"the {asked}"
                    )
                    prev_row = row
                    continue
            if step.kind in READS and any(same_words(clause, c) for c in clauses):
                continue  # never ask for the same fact twice
            clauses.append(clause)
            (answers if step.kind in READS else outcomes).append(outcome)
            self.asked_attribute = step.kind in READS and clause.split(" ")[0] in ("find", "check")
            if row is not None and _renames(step):
                self.renamed.append(row)
            prev_row = row
        self.prev_row = None
        if not clauses:
            clauses, outcomes = ["get some help with my account"], ["the assistant has helped you"]
        return clauses, outcomes, answers

    def request(self, clauses: list[str]) -> str:
        if len(clauses) == 1:
            return clauses[0]
        if len(clauses) == 2:
            return f"{clauses[0]}{self.rng.choice((' and then ', ', then ', ' and '))}{clauses[1]}"
        return ", ".join(clauses[:-1]) + ", and finally " + clauses[-1]

    def persona(self) -> str:
        domain = _clear_domain(self.spec)
        if domain:
            name, place, user_who, staff_who = domain
            personal = name in _PERSONAL
            # "a user of VictorOps", never "of a messaging service" (seed 88)
            place = _brand(self.spec) or place
        else:
            place = _product_place(self.spec) or _fallback_place(self.spec)
            user_who, staff_who, personal = "a user of {place}", "", False
            if self.person:
                person = entity_name(self.person, self.spec)
                person = "account holder" if person == "account" else person  # never "an account of ..."
                user_who = f"{article(person)} {person} of {{place}}"
            staff_who = "someone who works with {place}"
        mine = personal and not self.for_others and not self.service_rows()
        who = user_who if self.customer or mine else staff_who
        template = self.rng.choice(_PERSONA_TEMPLATES)
        return template.format(who=who.format(place=place))

    def extra_facts(self, text: str, style: str) -> list[str]:
        """Sentences that give the known facts the request does not already state."""
        sentences = []
        for name, value in self.known.items():
            if mentions(text, value) or isinstance(value, bool) or value is None:
                continue
            mine = self._fact_is_mine(name)
            shown = format_value(value)
            if style == "terse":
                sentences.append(f"{cap(name)}: {shown}.")
            elif mine:
                sentences.append(
                    self.rng.choice((f"My {name} is {shown}.", f"For reference, my {name} is {shown}."))
                )
            else:
                sentences.append(f"The {name} is {shown}.")
        return sentences

    def _fact_is_mine(self, name: str) -> bool:
        for step in self.steps + self.request_steps:
            for a in step.args:
                if a.fact == name and self.person and self.customer:
                    b = a.binding
                    ref = b and (table_columns(self.spec, b.table).get(b.column) or {}).get("references")
                    if ref and names_by_itself(self.spec, b.column, ref):
                        continue  # an identity's `username` -> users(user_id): someone's username, not mine
                    table = self.key_table(a)
                    if table == self.person or (b and b.table == self.person):
                        return True
        person = self.person and entity_name(self.person, self.spec)
        return bool(person and self.customer and (name == person or name.startswith(person + " ")))


def _first_message(writer: Writer, request: str, style: str) -> str:
    rng = writer.rng
    if style == "terse":
        body = cap(request) + "."
    elif style == "vague":
        body = rng.choice(
            (
                f"Hi, I'm not sure this is the right place, but I think I need to {request}.",
                f"Um, hello. I was wondering if you could maybe {request}?",
                f"Hey, so... I'd like to {request}, if that's possible.",
            )
        )
    else:
        opening = rng.choice(("Hi!", "Hello,", "Hi there.", "Good morning.", "Hello."))
        frame = rng.choice(
            (
                f"could you {request}?",
                f"I'd like to {request}.",
                f"I need to {request}.",
                f"can you help me {request}?",
                f"please {request}.",
                f"I was hoping you could {request}.",
            )
        )
        body = f"{opening} {cap(frame) if not opening.endswith(',') else frame}"
    extras = writer.extra_facts(body, style)
    closing = "" if style == "terse" else rng.choice(("", "Thanks!", "Thank you.", "Thanks a lot."))
    return " ".join(p for p in [body, *extras, closing] if p)


def _second_person(text: str) -> str:
    text = re.sub(r"\bI have\b", "you have", text)
    return re.sub(r"\bmy\b", "your", text)


def _done_when(writer: Writer, outcomes: list[str], answers: list[str]) -> str:
    return _second_person(_done_text(writer, outcomes, answers))


def _done_text(writer: Writer, outcomes: list[str], answers: list[str]) -> str:
    kind = writer.draft.kind
    if kind == "policy":
        writer.brief = True
        what = writer.clauses(show_hidden=True)[0][0] if writer.request_steps else "do what you asked"
        writer.brief = False
        return f"when the assistant explains that it cannot {what}, or tells you it is done"
    parts = []
    if answers:
        parts.append(f"told you {join(answers)}")
    if outcomes:
        parts.append(f"confirmed that {join(outcomes)}")
    if kind == "missing_info" and writer.hidden:
        names = join(list(writer.hidden))
        return f"when the assistant has asked for your {names} and then {join(parts) or 'done the request'}"
    if answers and not outcomes:
        return f"when the assistant tells you {join(answers)}"
    if outcomes and not answers:
        return f"when the assistant confirms that {join(outcomes)}"
    return f"when the assistant has {join(parts)}"


def write_instructions(draft: TaskDraft, spec: dict, rng: random.Random) -> Instructions:
    """The simulated user's instructions for `draft`, offline and deterministic given `rng`.

    Args:
        draft (`TaskDraft`): The task: its kind, gold calls with argument provenance, the user's facts
            (named by `fact_name`), withheld facts, answer facts, forbidden tools and policy rule.
        spec (`dict`): The environment spec the gold calls ran in.
        rng (`random.Random`): The only source of choices (templates, style).

    Returns:
        `Instructions`: `persona` from the environment's tables and tool groups; `goal` in the user's
        words with every value (withheld ones too, for the simulator); `known_facts` (`user_facts` minus
        `withheld`), `hidden_facts` (the withheld ones); `done_when` per kind; `first_message` carrying
        every known fact and no withheld one, no tool or column name; `style` (`plain`, sometimes `terse`
        or `vague`).

    Raises:
        `ValueError`: For a kind outside `KINDS` or a gold call of a tool the spec lacks.
    """
    if draft.branch and draft.branch["taken"] == "tell":  # the request states the write it did not need
        draft = dataclasses.replace(draft, calls=[*draft.calls, draft.branch["write"]])
    writer = Writer(draft, spec, rng)
    style = rng.choices(STYLES, weights=STYLE_WEIGHTS)[0]
    persona = writer.persona()
    full, outcomes, answers = writer.clauses(show_hidden=True)
    goal = f"I want to {writer.request(full)}."
    said, _, _ = writer.clauses(show_hidden=False) if writer.hidden else (full, None, None)
    first_message = _first_message(writer, writer.request(said), style)
    return Instructions(
        persona=persona,
        goal=goal,
        known_facts=dict(writer.known),
        hidden_facts=dict(writer.hidden),
        done_when=_done_when(writer, outcomes, answers),
        first_message=first_message,
        style=style,
    )
