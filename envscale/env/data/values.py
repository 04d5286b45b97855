"""Values by meaning: for each column, the function of a row index that draws its values.

`value_maker(c)` turns a column's context (`Col`: its meaning, seeded generator, clock, the values the
spec names for it, its bounds and the people and places of its rows) into `i -> value`: people
(names, and emails and usernames built from the person of the row), places (city, state, country,
time zone and coordinates of one real place), organisations, named things and titles, text, codes,
secrets, paths, dates and times around the clock, numbers within the meaning's range and the
column's bounds, booleans and json by meaning (`_json_value`: lists of the items a plural name
says, objects of the kind a name says, `_OBJECT_KINDS`: an `address` has a street and a city, an
`amount` an amount and a currency, `credentials` a password or a recovery question; the filler
object `{"tags": [...]}` only when nothing is known). Also here: the format of string keys
(`id_prefix`, `format_id`) and `column_value`, one value for a column outside a state.

Example:

```python
>>> import datetime as dt, random
>>> from envscale.env.data import column_value, format_id, id_prefix
>>> format_id(id_prefix("customers"), 7)
'cus_0007'
>>> now = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)
>>> "@" in column_value("users", "email", {"type": "string"}, random.Random(0), now)
True
```
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
import random
import re
import unicodedata
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from envscale.env.data.labels import LABELS, kind_label
from envscale.env.data.meaning import (
    FILE_EXTENSION,
    NAME_MODIFIERS,
    NUMBER_RANGES,
    PAST_WINDOW,
    column_meaning,
    column_texts,
    described_format,
    item_meaning,
    mapping,
    meaning_from_texts,
    named_values,
    singular_word,
)
from envscale.env.data.vocabulary import (
    AIRPORTS,
    CODEWORDS,
    DOCS,
    ERRORS,
    FREE_TEXT_KINDS,
    HOTEL_BRANDS,
    INTL_FIRST,
    INTL_LAST,
    LEXICONS,
    LOCALES,
    MAJOR_CURRENCIES,
    MAJOR_LANGUAGES,
    MASCOTS,
    NEIGHBORHOODS,
    PLACES,
    PRODUCT_ADJ,
    PRODUCT_BRANDS,
    PRODUCT_NOUN,
    PROSE,
    QUERY_WORDS,
    RECOVERY_QUESTIONS,
    RESTAURANT_KINDS,
    ROW_TEXTS,
    ROW_TEXTS_ANY,
    STATUSES,
    TITLES,
    TOPICS,
    VENUE_KINDS,
    PlaceRow,
    faker_for,
    norm,
    word_data,
)
from envscale.words.names import glued_words, name_words

# ----------------------------------------------------------------------------------------------
# Values by meaning. A maker takes a column's context and returns the function of a row index.


@dataclasses.dataclass
class Col:
    table: str
    column: str
    spec: dict[str, Any]
    meaning: str
    rng: random.Random
    fake: Any
    now: dt.datetime
    named: tuple[str, ...] = ()
    texts: str = ""
    bounds: tuple[float | None, float | None] = (None, None)
    people: list[tuple[str, str]] | None = None
    places: list[PlaceRow] | None = None
    shape: str | None = None  # a json column's declared shape ("object", "array"), when arguments say
    deck: dict[str, tuple[list[str], set[str]]] = dataclasses.field(default_factory=dict)  # `kind_label`'s
    columns: frozenset[str] = frozenset()  # the other columns of the row's table (what kind of thing it is)

    @property
    def kind(self) -> str:
        return self.meaning.split(":", 1)[0]

    @property
    def arg(self) -> str:
        return self.meaning.split(":", 1)[1] if ":" in self.meaning else ""


def pick_first_name(rng: random.Random) -> str:
    d = word_data()
    return rng.choices(d.first, cum_weights=d.first_cum)[0] if rng.random() < 0.9 else rng.choice(INTL_FIRST)


def pick_last_name(rng: random.Random) -> str:
    d = word_data()
    return rng.choices(d.last, cum_weights=d.last_cum)[0] if rng.random() < 0.9 else rng.choice(INTL_LAST)


def _person(c: Col, i: int) -> tuple[str, str]:
    return c.people[i] if c.people is not None else (pick_first_name(c.rng), pick_last_name(c.rng))


def _place(c: Col, i: int) -> PlaceRow:
    return c.places[i] if c.places is not None else c.rng.choice(PLACES)


def ascii_letters(text: str) -> str:
    """The lower-case ASCII letters and digits of a text: `Zoë O'Neil` -> `zoeoneil`."""
    return re.sub(
        r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    )


def email_for(first: str, last: str, rng: random.Random) -> str:
    f, la = ascii_letters(first), ascii_letters(last)
    local = rng.choice(
        (f"{f}.{la}", f"{f}.{la}", f"{f[:1]}{la}", f"{f}{la}{rng.randrange(10, 99)}", f"{f}_{la}")
    )
    return f"{local}@{rng.choice(('example.com', 'example.org', 'example.net'))}"


def username_for(first: str, last: str, rng: random.Random) -> str:
    f, la = ascii_letters(first), ascii_letters(last)
    return rng.choice(
        (f"{f}{la[:1]}{rng.randrange(10, 99)}", f"{f[:1]}{la}", f"{f}.{la}", f"{f}_{la}{rng.randrange(1, 9)}")
    )


def _company(rng: random.Random) -> str:
    d = word_data()
    a, b = pick_last_name(rng), pick_last_name(rng)
    return rng.choice((f"{a} {rng.choice(d.company_suffixes)}", f"{a}-{b}", f"{a}, {b} and {pick_last_name(rng)}", f"{a} {b} {rng.choice(('Group', 'Partners', 'Holdings', 'Labs', 'Industries', 'Solutions'))}"))  # fmt: skip


def slug_of(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", norm(text))).strip("-") or "site"


def _product(rng: random.Random) -> str:
    return f"{rng.choice(PRODUCT_BRANDS)} {rng.choice(PRODUCT_ADJ)} {rng.choice(PRODUCT_NOUN)}"


def _sentence(rng: random.Random, low: int = 6, high: int = 12) -> str:
    words = rng.choices(word_data().words, k=rng.randint(low, high))
    return " ".join(words).capitalize() + "."


def _date_value(c: Col, i: int, kind: str) -> str:
    lo, hi = (int(x) for x in c.arg.split(":")) if c.arg.count(":") == 1 else PAST_WINDOW
    moment = c.now + dt.timedelta(seconds=c.rng.randrange(lo * 86400, max(lo * 86400 + 1, hi * 86400)))
    if lo > 0:  # future dates fall in working hours, whole quarters of an hour
        moment = moment.replace(hour=c.rng.randint(8, 19), minute=c.rng.choice((0, 15, 30, 45)), second=0)
    fmt = described_format(c.texts)
    if fmt and ("%d" in fmt or "%m" in fmt) and (kind == "datetime" or "%H" not in fmt):
        return moment.strftime(fmt)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if kind == "datetime" else moment.date().isoformat()


def _time_value(c: Col, i: int) -> str:
    hour, minute = c.rng.randint(7, 21), c.rng.choice((0, 15, 30, 45))
    fmt = described_format(c.texts)
    moment = c.now.replace(hour=hour, minute=minute, second=0)
    if fmt and "%H" in fmt:
        return moment.strftime(fmt)
    if re.search(r"\b(?:am|pm)\b|12 ?h", c.texts):
        return moment.strftime("%I:%M %p").lstrip("0")
    return moment.strftime("%H:%M")


def _named_entity(c: Col, i: int) -> str:
    r, what = c.rng, c.arg
    if what in TITLES:
        return r.choice(TITLES[what])
    place = _place(c, i)
    templates: dict[str, Callable[[], str]] = {
        # a sports team where the row has a league, a coach or a record; else a team at work (VictorOps' on-call
        # teams were "Denver Falcons": seed 92's readers)
        "team": lambda: (
            f"{place.city} {r.choice(MASCOTS)}"
            if c.columns & _SPORTS_COLUMNS or not c.columns
            else f"{r.choice(_TEAMS)} {r.choice(('Team', 'On-Call', 'Squad', 'Crew'))}"
        ),
        "hotel": lambda: (
            f"{r.choice(HOTEL_BRANDS)} {place.city}" + r.choice(("", "", " Downtown", " Airport"))
        ),
        "restaurant": lambda: r.choice(
            (
                f"{pick_first_name(r)}'s {r.choice(RESTAURANT_KINDS)}",
                f"{pick_last_name(r)} {r.choice(RESTAURANT_KINDS)}",
                f"The {r.choice(CODEWORDS)} {r.choice(RESTAURANT_KINDS)}",
            )  # fmt: skip
        ),
        "venue": lambda: f"{r.choice((pick_last_name(r), place.city))} {r.choice(VENUE_KINDS)}",
        # an album's label is a record label (seed 92's readers: an album's label "enhancement")
        "record_label": lambda: (
            f"{r.choice((pick_last_name(r), r.choice(CODEWORDS), place.city))} "
            + r.choice(("Records", "Music", "Recordings", "Sound"))
        ),
        "building": lambda: r.choice(
            (
                f"{pick_last_name(r)} Tower",
                f"{r.choice(CODEWORDS)} Apartments",
                f"The {pick_last_name(r)} Building",
                f"{r.choice(CODEWORDS)} Heights",
            )  # fmt: skip
        ),
        "event": lambda: r.choice(
            (
                f"{place.city} {r.choice(('Jazz', 'Blues', 'Film', 'Food', 'Wine', 'Book', 'Tech'))} Festival",
                f"{r.choice(CODEWORDS)} Summit {c.now.year}",
                f"{pick_last_name(r)} Charity Gala",
                f"{place.city} Marathon",
            )  # fmt: skip
        ),
        "project": lambda: r.choice(
            (
                f"Project {r.choice(CODEWORDS)}",
                f"{r.choice(CODEWORDS)} {r.choice(('Platform', 'API', 'Dashboard', 'Migration', 'Mobile App'))}",
            )
        ),  # fmt: skip
        "product": lambda: _product(r),
        "school": lambda: r.choice(
            (
                f"University of {place.city}",
                f"{pick_last_name(r)} High School",
                f"{place.city} Community College",
            )
        ),  # fmt: skip
        "hospital": lambda: r.choice(
            (f"{place.city} General Hospital", f"St. {pick_first_name(r)}'s Medical Center")
        ),
        "district": lambda: r.choice(NEIGHBORHOODS),
        "park": lambda: r.choice((f"{pick_last_name(r)} Park", f"{place.city} Botanical Garden")),
        "store": lambda: r.choice(
            (f"{place.city} {r.choice(NEIGHBORHOODS)} Branch", f"{pick_last_name(r)}'s Market")
        ),
        "room": lambda: r.choice(
            _HOTEL_ROOMS
            if {singular_word(w.lower()) for col in c.columns for w in name_words(col)} & _GUESTS
            or {singular_word(w) for w in name_words(c.table)} & {"hotel", "stay", "lodging", "accommodation"}
            else (
                f"Conference Room {r.choice('ABCDEF')}",
                f"{r.choice(CODEWORDS)} Room",
                f"Meeting Room {r.randint(1, 12)}",
            )
        ),  # fmt: skip  (a hotel's rooms, beside adults and beds: never "Conference Room A", seed 93's readers)
        "course": lambda: (
            f"{r.choice(('Introduction to', 'Advanced', 'Applied'))} {r.choice(('Data Science', 'Economics', 'Organic Chemistry', 'Linear Algebra', 'Creative Writing', 'Marketing', 'World History', 'Python Programming', 'Statistics'))}"
        ),  # fmt: skip
        "class": lambda: (
            f"{r.choice(('Biology', 'Algebra', 'English Literature', 'Chemistry', 'World History', 'Spanish', 'Physics', 'Art', 'Computer Science', 'Music', 'Geography', 'French'))} "
            f"{r.choice(('101', '201', 'Year 9', 'Grade 10', 'Period 3', 'Section B', 'Evening Class', 'Spring Cohort', 'Group 2'))}"
        ),  # fmt: skip
        "station": lambda: f"{place.city} {r.choice(('Central Station', 'Union Station', 'North Station'))}",
        "library": lambda: f"{place.city} Public Library",
        "character": lambda: f"{pick_first_name(r)} {pick_last_name(r)}",
        "festival": lambda: f"{place.city} Music Festival",
    }
    if what in templates:
        return templates[what]()
    thing = " ".join(
        w.capitalize()
        for w in name_words(c.column)
        if w not in ("name", "display") and w not in NAME_MODIFIERS
    ) or " ".join(w.capitalize() for w in name_words(singular_word(c.table)))
    return _label(c, i, thing, place)


def _title(c: Col, i: int) -> str:
    r, ctx = c.rng, c.arg
    if ctx == "product":
        return _product(r)
    if ctx in TITLES:
        return r.choice(TITLES[ctx])
    if ctx == "job":
        return r.choice(word_data().jobs)
    if ctx == "task":
        verb = r.choice(("Fix", "Update", "Review", "Add", "Remove", "Migrate", "Investigate", "Document"))
        thing = r.choice(("login timeout on mobile", "invoice PDF export", "search filters", "onboarding emails",
                          "payment retry logic", "dashboard loading time", "API rate limits", "user permissions"))  # fmt: skip
        return f"{verb} {thing}"
    if ctx == "ticket":
        n = r.randint(1000, 9999)
        return r.choice(
            (
                f"Refund not received for order #{n}",
                f"Double charge on invoice INV-{n}",
                "Password reset email never arrives",
                "App crashes when uploading photos",
                f"Wrong item delivered in order #{n}",
                "Cannot change my shipping address",
                "Subscription renewed after cancellation",
                "Two-factor code not accepted",
                f"Package #{n} marked delivered but not received",
                "Card declined at checkout",
                "Locked out after too many login attempts",
                f"Warranty claim for serial SN-{n}",
            )
        )
    if ctx == "event":
        return _named_entity(dataclasses.replace(c, meaning="named:event"), i)
    if ctx == "course":
        return _named_entity(dataclasses.replace(c, meaning="named:course"), i)
    # a title by what it titles ("Cascade Institution"), never a catch phrase ("Upgradable heuristic help-desk")
    thing = " ".join(w.capitalize() for w in name_words(singular_word(c.table))) or "Plan"
    words = [w.lower() for w in name_words(c.column)]
    if len(words) == 2 and words[1] in ("title", "subject", "name") and words[0] in LABELS:
        # a group's `newsletter_subject` is a newsletter's ("Weekly Digest"), never another group's name ("Book Club",
        # seed 94's readers)
        thing = words[0].capitalize()
    return _label(c, i, thing, _place(c, i))


_SPORTS_COLUMNS = frozenset(
    "league coach wins losses draws stadium sport season division conference mascot founded venue arena points".split()
)
_TEAMS = (
    "Marketing", "Sales", "Finance", "Operations", "Support", "Engineering", "Design", "Research", "Product",
    "Legal", "Partnerships", "Customer Success",
)  # fmt: skip
_PURPOSES = (
    "Main", "Primary", "Shared", "Personal", "Family", "Household", "Team", "Backup", "Archive", "General",
    "Travel", "Holiday", "Office", "Weekly", "Monthly", "Annual",
)  # fmt: skip
_SEASONS = ("Spring", "Summer", "Autumn", "Winter")


_BANKING = frozenset(
    "balance current_balance available_balance cleared_balance uncleared_balance iban bic swift sort_code "
    "routing_number account_number bank bank_name bank_code overdraft overdraft_limit credit_limit "
    "interest_rate on_budget closing_balance opening_balance".split()
)
"""Columns of a bank's account: an `accounts` table without any is a service's customer account."""


def _label(c: Col, i: int, thing: str, place: Any) -> str:
    """A name for a thing of kind `thing`: what its users call one where `labels.LABELS` knows the kind
    ("Accounts Receivable" for a ledger account, "Sick Leave" for a leave type); else a label as people
    give their own things (a budget, a pipeline): "Marketing Budget", "Denver Warehouse", "Q3 2025
    Pipeline"; never a codename ("Argon Budget", "Atlas Orgunit"), which readers take for filler."""
    r, now = c.rng, c.now
    entity = thing.lower()
    qualified = [m[1] for col in c.columns if (m := re.fullmatch(rf"([a-z]+)_{entity}_id", col.lower()))]
    if len(qualified) == 1 and " " not in entity and qualified[0] != entity:
        # eBay's `policies` keyed by `return_policy_id`: a return policy ("30-Day Returns"), never "Parental Leave
        # Policy" (seed 93's readers, again)
        thing = f"{qualified[0].capitalize()} {thing}"
    elif entity == "policy":  # VTEX's policies beside a carrier and delivery days: shipping policies
        beside = {w.lower() for col in c.columns for w in name_words(col)}
        kind = next((k for k, words in _POLICY_KINDS if beside & words), None)
        thing = f"{kind} {thing}" if kind else thing
    plain = [singular_word(w) for w in thing.lower().split()]
    glued = [singular_word(w) for token in thing.lower().split() for w in glued_words(token)]
    slots: dict[str, Callable[[], str]] = {
        "first": lambda: pick_first_name(r),
        "last": lambda: pick_last_name(r),
        "city": lambda: place.city,
        "team": lambda: r.choice(_TEAMS),
        "company": lambda: _company(r),
        "product": lambda: _product(r),
        "year": lambda: str(now.year - r.randint(0, 1)),
        "quarter": lambda: str(r.randint(1, 4)),
        "season": lambda: r.choice(_SEASONS),
        "month": lambda: r.choice(LEXICONS["month"][:12]),
        "weekday": lambda: r.choice(LEXICONS["weekday"]),
        "codeword": lambda: r.choice(CODEWORDS).lower(),
        "job": lambda: r.choice(word_data().jobs),
        "ref": lambda: f"INV-{r.randint(1000, 99999)}",
    }
    if plain[-1:] == ["account"] and len(plain) == 1 and not _BANKING & c.columns:
        plain = [
            "customer",
            "account",
        ]  # a service's account (AdMob, Twilio, a CRM's): a business, not "Petty Cash"
    named = kind_label(plain, r, i, c.deck, slots)  # `workspace` whole, `servicegroup` split
    if named is None and glued != plain:
        named = kind_label(glued, r, i, c.deck, slots)
    if named is not None:
        return named
    if not thing:
        return f"{r.choice(_TEAMS)} {r.choice(('Plan', 'List', 'Group'))}"
    pick = r.random()
    if pick < 0.3:
        return f"{r.choice(_TEAMS)} {thing}"
    if pick < 0.5:
        return f"{place.city} {thing}"
    if pick < 0.65:
        return f"{pick_first_name(r)}'s {thing}"
    if pick < 0.85:
        return f"{r.choice(_PURPOSES)} {thing}"
    year = now.year - r.randint(0, 2)
    return f"{r.choice((f'Q{r.randint(1, 4)} {year}', f'{r.choice(_SEASONS)} {year}'))} {thing}"


def _slots(r: random.Random, now: dt.datetime) -> dict[str, Any]:
    place = r.choice(PLACES)
    return {
        "first": pick_first_name(r), "last": pick_last_name(r), "city": place.city, "country": place.country,
        "weekday": r.choice(LEXICONS["weekday"]), "month": r.choice(LEXICONS["month"][:12]),
        "time": f"{r.randint(8, 18)}:{r.choice(('00', '15', '30', '45'))}", "product": _product(r),
        "doc": r.choice(DOCS), "dept": r.choice(LEXICONS["department"]), "n": r.randint(2, 45),
        "event": _named_entity_of("event", r, now, place), "cuisine": r.choice(LEXICONS["cuisine"][:16]).capitalize(),
        "project": f"Project {r.choice(CODEWORDS)}", "language": r.choice(MAJOR_LANGUAGES), "company": _company(r),
        "topic": r.choice(TOPICS), "ref": f"INV-{r.randint(1000, 99999)}", "year": now.year - r.randint(1, 8),
        "job": r.choice(word_data().jobs),
    }  # fmt: skip


def _prose(r: random.Random, now: dt.datetime) -> str:
    return r.choice(PROSE).format(**_slots(r, now))


def prose_line(rng: random.Random, now: dt.datetime) -> str:
    """A line of free text a person writes (a note, a memory, a message): "Please send the updated contract to Ann
    Lee before Friday.", never one of the stock lines a row of no known kind holds (`stock_text`)."""
    return _prose(rng, now)


def row_texts(table: str, kind: str) -> tuple[str, ...] | None:
    """The lines a row of `table` holds in a free-text column of `kind` (`"note"` or `"prose"`), by the kind of
    thing the row is, read from its table's head noun first (`ROW_TEXTS`: a recipe's instructions are cooking
    steps, an employee's description a line about the employee); `None` for rows whose text may be about
    anything (`FREE_TEXT_KINDS`: messages, posts), which `PROSE` fits."""
    words = [w.lower() for w in name_words(table)]
    for j in range(len(words) - 1, -1, -1):
        candidates = {words[j], singular_word(words[j])}
        if j:
            candidates.add(words[j - 1] + words[j])  # `time_off_requests`: "timeoff"
        if candidates & FREE_TEXT_KINDS:
            return None
        for kinds, notes, prose in ROW_TEXTS:
            if candidates & kinds:
                return notes if kind == "note" else prose
    return ROW_TEXTS_ANY[0] if kind == "note" else ROW_TEXTS_ANY[1]


#: Columns that name a person in a table of people.
_PERSON_NAMES = ("name", "full_name", "fullname", "first_name", "firstname", "display_name", "displayname")
#: Columns that say what a row is about, the likeliest first (`tickets.title`, `messages.subject`).
SUBJECT_COLUMNS = ("title", "subject", "summary", "headline", "topic", "name", "display_name")
#: What prose says about its row's subject, by the kind of thing the row is (words of its table's name).
_ABOUT: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (
        frozenset("poll polls survey surveys question questions questionnaire questionnaires quiz".split()),
        (
            "How would you rate {s}?",
            "What did you think of {s}, and what should change before {month}?",
            "Would you recommend {s} to a colleague?",
            "Which part of {s} was the most useful to you?",
        ),
    ),
    (
        frozenset(
            "ticket tickets issue issues incident incidents case cases bug bugs complaint complaints".split()
        ),
        (
            "{first} reports a problem with {s}: it has not worked since {weekday}.",
            "Opened by {first} {last}: {s} needs a look before {weekday}.",
            "Steps to reproduce {s} are attached; {first} can help test the fix.",
            "{first} {last} asked for an update on {s} by {weekday}.",
        ),
    ),
    (
        frozenset(
            "message messages email emails mail comment comments post posts reply replies thread threads chat "
            "chats conversation conversations feedback review reviews note notes".split()
        ),
        (
            "Hi {first}, a quick note about {s}: can we go over it on {weekday}?",
            "About {s}: thanks, {first}, I will follow up by {weekday}.",
            "{first}, could you take a look at {s} before {weekday}?",
            "Following up on {s} with {first} {last}; more on {weekday}.",
        ),
    ),
    (
        frozenset(
            "event events meeting meetings appointment appointments session sessions webinar webinars "
            "instance instances booking bookings class classes".split()
        ),
        (
            "About {s}, with {first} {last} at {time}; please bring the {doc}.",
            "Agenda for {s}: updates from the {dept} team, then questions.",
            "{first} {last} hosts {s} in {city}.",
        ),
    ),
    (
        frozenset(
            "project projects release releases version versions milestone milestones task tasks job jobs "
            "campaign campaigns goal goals plan plans".split()
        ),
        (
            "{first} {last} in the {dept} team owns {s}; next review on {weekday}.",
            "Scope of {s}, agreed with {first} in {month}.",
            "{first} {last} tracks the open items of {s}; status call on {weekday}.",
        ),
    ),
)
_ABOUT_ANY = (
    "{first} {last} of the {dept} team keeps {s} up to date.",
    "Notes on {s} from {first}, last reviewed in {month}.",
    "Everything about {s}, shared with the {dept} team.",
    "{first} {last} set up {s} in {month}.",
)


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{[a-z]+\}", template)
    return re.compile("(?i)" + ".{1,80}?".join(re.escape(p) for p in parts) + "$")


_STOCK_LINES = tuple(_template_pattern(t) for t in (*ROW_TEXTS_ANY[0], *ROW_TEXTS_ANY[1], *_ABOUT_ANY))


def kept_value(key: Any) -> str | None:
    """What a key-value memory keeps under `key` (`lex:memory_key`): "pet_name" -> "Biscuit"; `None` for another
    key."""
    keys, values = LEXICONS["memory_key"], LEXICONS["memory_value"]
    return values[keys.index(key)] if isinstance(key, str) and key in keys else None


def stock_text(value: Any) -> bool:
    """Whether a value is one of the stock lines a row of no known kind holds ("Kept up to date by the IT team.",
    '"Wedding venues" set up by Brenda Mooney in May.'): filler that fills a world, never a text a person dictates
    (seed 93's and 94's readers: "create a password ... with the body 'Kept up to date by the Engineering team.'")."""
    return isinstance(value, str) and any(p.match(value) for p in _STOCK_LINES)


def about_subject(subject: str, table: str, rng: random.Random) -> str:
    """A sentence of prose about its row's subject, as the row's kind would hold it (a ticket's description
    reports a problem with the ticket's title; a message's body follows up on its subject), never a stock
    sentence about something else ("a skillet that stopped charging" in a ticket titled "Document search")."""
    words = set(name_words(table))
    lines = next((lines for kind, lines in _ABOUT if words & kind), _ABOUT_ANY)
    place = rng.choice(PLACES)
    slots = {
        "s": f'"{subject}"', "first": pick_first_name(rng), "last": pick_last_name(rng), "city": place.city,
        "weekday": rng.choice(LEXICONS["weekday"]), "month": rng.choice(LEXICONS["month"][:12]),
        "time": f"{rng.randint(8, 18)}:{rng.choice(('00', '15', '30', '45'))}", "doc": rng.choice(DOCS),
        "dept": rng.choice(LEXICONS["department"]),
    }  # fmt: skip
    # the subject is quoted inside the sentence, never first: a request quoting the value would nest the quotes
    # ('""Monthly Department", set up by ..."', blind readers of seed 84)
    text = rng.choice(lines).format(**slots)
    return text[0].upper() + text[1:]


def subject_and_prose(
    table: str, tspec: dict[str, Any], arguments: Callable[[str], Sequence[Any]] = lambda column: ()
) -> tuple[str | None, list[str]]:
    """The column that says what a row is about (`title`, `subject`; None in a table of people, whose `title`
    is a job) and the free-text columns whose prose `about_subject` writes (`description`, `body`, `notes`; not those
    the API gives example values for, nor unique ones). `arguments(column)`: the argument schemas bound to it."""
    meanings = {
        column: column_meaning(table, column, cspec, arguments(column))
        for column, cspec in tspec["columns"].items()
        if cspec.get("type") == "string" and column != tspec["primary_key"]
    }
    if any(meanings.get(c, "").startswith("person") for c in _PERSON_NAMES if c in tspec["columns"]):
        return None, []  # a table of people: its `title` is a job
    lowered = {column.lower(): column for column in meanings}
    subject = next(
        (
            lowered[name]
            for name in SUBJECT_COLUMNS
            if name in lowered and meanings[lowered[name]].startswith(("title", "named"))
        ),
        None,
    )
    if subject is None:
        return None, []
    prose = [
        column
        for column, meaning in meanings.items()
        if meaning in ("text:prose", "text:note")
        and not tspec["columns"][column].get("unique")
        and not named_values(tspec["columns"][column], arguments(column))
    ]
    return subject, prose


def _named_entity_of(what: str, r: random.Random, now: dt.datetime, place: PlaceRow) -> str:
    return _named_entity(Col("", "", {"type": "string"}, f"named:{what}", r, None, now, places=[place]), 0)


def _text(c: Col, i: int) -> str:
    r = c.rng
    if c.arg == "review" and r.random() < 0.7:
        return r.choice(
            (
                "Great quality, arrived on time.",
                "Works as described, would buy again.",
                "Too small for my needs; returned it.",
                "Excellent service and friendly staff.",
                "Average experience, nothing special.",
                "The battery life is shorter than advertised.",
                "Five stars: fast delivery and well packaged.",
                "Not worth the price.",
            )  # fmt: skip
        )
    if c.arg == "error":  # what went wrong, as a service reports it
        thing = " ".join(name_words(singular_word(c.table))) or "request"
        return r.choice(
            (
                f"The {thing} could not be processed: a required field is missing.",
                f"Timed out after {r.choice((30, 60, 120))} seconds waiting for the upstream service.",
                f"Permission denied: the caller cannot modify this {thing}.",
                f"Validation failed: the value of '{r.choice(('name', 'date', 'amount', 'email'))}' is not allowed.",
                f"Quota exceeded: at most {r.choice((10, 50, 100))} requests per minute.",
                f"The {thing} was not found; it may have been deleted.",
                f"Conflict: the {thing} was changed by another request.",
            )
        )
    if re.search(r"(?:^|_)bio(?:$|_)|biography|about", c.column.lower()):
        hobby = r.sample(LEXICONS["hobby"], 2)
        return f"{r.choice(word_data().jobs)} based in {r.choice(PLACES).city}. Enjoys {hobby[0]} and {hobby[1]}."
    lines = row_texts(c.table, "note" if c.arg == "note" else "prose")
    if lines is None:
        lines = _parents_texts(c)
    if lines is None:
        return _prose(r, c.now)
    return r.choice(lines).format(**_slots(r, c.now))


_PARENT_KEY = re.compile(r"^(?P<parent>[a-z]+?)_?(?:id|slug|key|uuid)$")


def _parents_texts(c: Col) -> tuple[str, ...] | None:
    """The lines a free-text row (a note, a comment) holds about the one thing it is attached to, by its key
    column (`member_slug`, `customer_id`): a note on a community member was a product review (a blind reader)."""
    parents = {
        m.group("parent")
        for column in c.columns
        if (m := _PARENT_KEY.match(column.lower())) and m.group("parent") != singular_word(c.table.lower())
    }
    found = {row_texts(parent, "note") for parent in sorted(parents)} - {None, ROW_TEXTS_ANY[0]}
    return found.pop() if len(found) == 1 else None


def _lexicon_value(c: Col, i: int) -> str:
    name = c.arg
    if c.named and (name == "type" or c.rng.random() < 0.85 or name not in LEXICONS):  # "calendar#event"
        return c.rng.choice(c.named)
    if name == "unit" and re.search(r"\b(?:metric|imperial)\b", c.texts):
        return c.rng.choice(("metric", "imperial"))
    if name == "unit" and re.search(r"\b(?:time|duration|period)\b", f"{c.texts} {c.column}", re.I):
        return c.rng.choice(("day", "business day", "hour", "week"))  # a handling time in "watts" (seed 93)
    if name == "service":  # what a booking service's rows book, not a streaming service
        words = {singular_word(w) for w in (*name_words(c.table), *name_words(c.column))}
        beside = {singular_word(w.lower()) for col in c.columns for w in name_words(col)}
        # OnSched's services, their resources and allocations: what an appointment books (seed 93's "HBO Max")
        if words & _BOOKED_AT_A_TIME or (words | beside) & {
            "resource",
            "allocation",
            "booking",
            "appointment",
        }:
            return c.rng.choice(LEXICONS["appointment_service"])
        if words & _STAYS:
            return c.rng.choice(LEXICONS["stay_service"])
        if words & _SUBSCRIBED:
            return c.rng.choice(LEXICONS["streaming_service"])
    if name == "frequency" and {singular_word(w) for w in name_words(c.table)} & _BILLED:
        # a plan is billed monthly or yearly, never "real-time" (seed 92's readers)
        return c.rng.choice(("monthly", "yearly", "quarterly", "weekly"))
    if name == "condition":  # a product's, the weather's or a patient's, by what the row is
        words = {singular_word(w) for w in (*name_words(c.table), *name_words(c.column))}
        for kind, context in _CONDITIONS:
            if words & context:
                return c.rng.choice(LEXICONS[kind])
    return c.rng.choice(LEXICONS[name])


_BILLED = frozenset("plan subscription billing invoice price membership payment installment".split())
_CONDITIONS = (
    ("item_condition", frozenset("item product listing inventory offer vehicle car book good stock".split())),
    ("weather_condition", frozenset("weather forecast climate sky observation".split())),
    ("medical_condition", frozenset("patient health medical diagnosis clinical symptom".split())),
)
"""What a `condition` is, by the words of its table and column: Ecwid's `products.google_item_condition` was
"asthma" (a blind reader)."""
_BOOKED_AT_A_TIME = frozenset("appointment visit timeslot slot servicegroup session treatment".split())
_STAYS = frozenset("hotel stay room lodging".split())
_SUBSCRIBED = frozenset("subscription membership streaming".split())
_POLICY_KINDS = (
    ("Shipping", frozenset("delivery shipping carrier carriers freight pickup dispatch handling".split())),
    ("Return", frozenset("refund return returns restocking".split())),
    ("Payment", frozenset("payment deposit due installment".split())),
)
"""What a policy is, by the columns beside it (a seller's or a shop's policies, never an employer's)."""
_GUESTS = frozenset("adult child children occupancy bed guest night rate".split())
_HOTEL_ROOMS = (
    "Deluxe Double Room", "Superior King Room", "Standard Twin Room", "Junior Suite", "Family Room",
    "Sea View Suite", "Executive King Room", "Classic Single Room", "Penthouse Suite", "Economy Double Room",
)  # fmt: skip


def _code(c: Col, i: int) -> str:
    r, what, f = c.rng, c.arg, c.fake
    up, digits = "ABCDEFGHJKLMNPQRSTUVWXYZ", "0123456789"

    def pick(chars: str, k: int) -> str:
        return "".join(r.choices(chars, k=k))

    makers = {
        "sku": lambda: f"{pick(up, 3)}-{pick(digits, 5)}",
        "isbn": lambda: f.isbn13(),
        "iban": lambda: f.iban(),
        "ean": lambda: f.ean13(),
        "cik": lambda: f"{r.randrange(10**6, 2 * 10**6):010d}",
        "cpe": lambda: (
            f"cpe:2.3:a:{r.choice(('apache', 'nginx', 'openssl', 'python', 'nodejs'))}:{r.choice(('http_server', 'nginx', 'openssl', 'python', 'node.js'))}:{r.randint(1, 3)}.{r.randint(0, 20)}.{r.randint(0, 9)}:*:*:*:*:*:*:*"
        ),  # fmt: skip
        "purl": lambda: (
            f"pkg:{r.choice(('pypi', 'npm', 'maven', 'gem'))}/{r.choice(('requests', 'lodash', 'express', 'django', 'numpy', 'rails'))}@{r.randint(1, 5)}.{r.randint(0, 30)}.{r.randint(0, 9)}"
        ),  # fmt: skip
        "vin": lambda: f.vin(),
        "plate": lambda: f.license_plate(),
        "ssn": lambda: f.ssn(),
        "ein": lambda: f.ein(),
        "swift": lambda: f.swift(),
        "card": lambda: f.credit_card_number(),
        "routing": lambda: pick(digits, 9),
        "account": lambda: pick(digits, r.choice((10, 12))),
        "tracking": lambda: "1Z" + pick(up + digits, 16),
        "flight": lambda: (
            f"{r.choice(('UA', 'DL', 'AA', 'BA', 'LH', 'AF', 'EK', 'SQ', 'WN', 'B6'))}{r.randint(10, 2999)}"
        ),
        "ref": lambda: pick(up + digits, 6),
        "mac": lambda: ":".join(f"{r.randrange(256):02X}" for _ in range(6)),
        "wallet": lambda: f"0x{r.getrandbits(160):040x}",
        "number": lambda: pick(digits, r.choice((6, 8, 10))),
        "extension": lambda: pick(digits, r.choice((3, 4))),  # a phone extension
        "ordinal": lambda: str(r.randint(1, 30)),  # a place in an order (a task's position in its list)
        "mcc": lambda: r.choice(("5411", "5812", "5999", "4111", "7011", "5732", "5651", "4814")),
        # a Twilio-style string id: two letters of the resource, then 32 hex digits ("US1f3a...")
        "sid": lambda: (
            (name_words(singular_word(c.table)) or ["x"])[0][:2].upper().ljust(2, "X")
            + f"{r.getrandbits(128):032x}"
        ),
        "arn": lambda: (
            f"arn:aws:{r.choice(('s3', 'iam', 'lambda', 'sns', 'sqs', 'ec2', 'rds'))}:"
            f"{r.choice(('us-east-1', 'us-west-2', 'eu-west-1'))}:{pick(digits, 12)}:"
            f"{singular_word(c.table).replace('_', '-')}/{ascii_letters(pick_first_name(r)).lower()}-{r.randint(1, 99)}"
        ),
    }
    if what in makers:
        return makers[what]()
    if re.search(r"promo|coupon|discount|voucher", c.column.lower()):
        return f"{r.choice(('SAVE', 'WELCOME', 'SPRING', 'VIP', 'FREESHIP'))}{r.choice((10, 15, 20, 25))}"
    return f"{pick(up, 2)}-{pick(digits, 4)}"


def _secret(c: Col, i: int) -> str:
    r, what = c.rng, c.arg
    alnum = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    if what == "password":
        return "".join(r.choices(alnum, k=10)) + r.choice("!@#$%&*") + r.choice("23456789")
    if what == "pin":
        return "".join(r.choices("0123456789", k=r.choice((4, 6))))
    if what == "apikey":
        return r.choice(("sk_live_", "pk_test_", "key_", "")) + "".join(r.choices(alnum, k=32))
    if what == "hash":
        return f"{r.getrandbits(256):064x}"
    if what == "bcrypt":
        return "$2b$12$" + "".join(r.choices(alnum + "./", k=53))
    if what == "cursor":
        return "Y3Vyc29y" + "".join(r.choices(alnum, k=16))
    if what == "key":
        return f"{r.getrandbits(128):032x}"
    return "".join(r.choices(alnum, k=40))


def _path(c: Col, i: int, kind: str) -> str:
    r = c.rng
    user = ascii_letters(pick_first_name(r))
    root = r.choice((f"/home/{user}", "/var/data", "/srv/app", "/opt/backups", f"/Users/{user}/Documents", "/mnt/storage"))  # fmt: skip
    folder = r.choice(
        ("reports", "images", "exports", "projects", "logs", "backups", "invoices", "models", "config")
    )
    if kind == "directory" and (name_words(c.column)[-1:] or [""])[0].lower() in ("name", "title"):
        # a folder's name, as a file storage service shows it: "Invoices 2024", never "/home/steven/backups" (seed
        # 94's readers: "a folder named "/home/steven/backups" in Xero Files")
        shown = r.choice(_FOLDER_NAMES)
        return f"{shown} {c.now.year - r.randint(0, 3)}" if r.random() < 0.5 else shown
    if kind == "directory":
        return f"{root}/{folder}"
    return f"{root}/{folder}/{_filename(c)}"


_FOLDER_NAMES = (
    "Invoices", "Contracts", "Receipts", "Reports", "Photos", "Projects", "Marketing", "Tax Documents",
    "Bank Statements", "Payroll", "Presentations", "Meeting Notes", "Archive", "Shared",
)  # fmt: skip

_IMAGE_WORDS = frozenset(
    "icon avatar photo image picture logo thumbnail cover banner headshot artwork poster".split()
)


def _filename(c: Col) -> str:
    r = c.rng
    stem = r.choice(("report", "invoice", "photo", "backup", "data", "notes", "resume", "budget", "presentation",
                     "contract", "export", "screenshot", "summary", "schedule"))  # fmt: skip
    ext = r.choice(("pdf", "csv", "jpg", "png", "txt", "docx", "xlsx", "json", "zip", "pem", "log"))
    shown = [w for w in (*name_words(c.table), *name_words(c.column)) if singular_word(w) in _IMAGE_WORDS]
    if shown:  # a group's icon is an image: "icon_2024_07.png", never "budget_2024_79.docx" (blind readers)
        stem, ext = singular_word(shown[0]), r.choice(("png", "jpg"))
    stated = FILE_EXTENSION.search(c.texts)
    if stated:  # "Only files with an extension of .js": a script, named as builds name them
        ext = stated.group(1).lower()
        stem = r.choice(("app", "main", "bundle", "vendor", "runtime", "index"))
        return f"{stem}.{r.getrandbits(32):08x}.min.{ext}" if ext == "js" else f"{stem}.{ext}"
    return f"{stem}_{c.now.year - r.randint(0, 2)}_{r.randint(1, 99):02d}.{ext}"


def string_value(c: Col, i: int) -> str:
    r, kind, d = c.rng, c.kind, word_data()
    # Values the spec names: always for an unknown meaning; for a vocabulary, unless it names only one
    # or two (then mixed with the vocabulary's); now and then for titles and named things.
    named_first = (
        kind in ("unknown", "word", "query")
        or (kind in ("lex", "status") and (len(c.named) >= 3 or r.random() < 0.6))
        # a title or a name from the spec's own examples only where they are several: one example ("20th anniversary
        # event") titled every other event of a world
        or (kind in ("title", "named") and len(set(c.named)) >= 3 and r.random() < 0.3)
    )
    if c.named and named_first:
        return r.choice(c.named)
    if kind == "person":
        first, last = _person(c, i)
        return f"{first} {last}"
    if kind == "initials":
        first, last = _person(c, i)
        return f"{first[:1]}.{last[:1]}."
    if kind in ("first_name", "last_name", "middle_name"):
        first, last = _person(c, i)
        return last if kind == "last_name" else first if kind == "first_name" else pick_first_name(r)
    if kind == "people":
        return ", ".join(f"{pick_first_name(r)} {pick_last_name(r)}" for _ in range(r.randint(2, 3)))
    if kind == "email":
        return email_for(*_person(c, i), r)
    if kind == "username":
        return username_for(*_person(c, i), r)
    if kind == "phone":
        a, b, e = r.randint(201, 989), r.randint(200, 999), r.randint(0, 9999)
        return r.choice(
            (f"+1-{a}-{b}-{e:04d}", f"({a}) {b}-{e:04d}", f"{a}-{b}-{e:04d}", f"+1 {a} {b} {e:04d}")
        )
    if kind == "company":
        return _company(r)
    if kind == "job":
        return r.choice(d.jobs)
    if kind == "city":
        return _place(c, i).city
    if kind == "state":
        place = _place(c, i)
        if c.places is not None and not place.us:  # the row's own place: Ontario beside Toronto, never Texas
            return place.region_code if re.search(r"abbrev|two[- ]letter|\bcode\b", c.texts) else place.region
        us = place if place.us else r.choice(PLACES[:35])
        abbr = re.search(r"abbrev|two[- ]letter|\bcode\b|e\.g\.,? ?'?[a-z]{2}\b", c.texts)
        return us.region_code if abbr else us.region
    if kind == "country":
        # a row's own place is one place (city Montreal, country Canada; a blind reader found South Korea)
        return _place(c, i).country if c.places is not None or r.random() < 0.7 else r.choice(d.countries)
    if kind == "country_code":
        code = _place(c, i).country_code if c.places is not None or r.random() < 0.7 else r.choice(d.alpha2)
        return (
            r.choice(d.alpha3) if re.search(r"alpha-?3|three[- ]letter|iso 3166-1 alpha-3", c.texts) else code
        )
    if kind == "location":
        place = _place(c, i)
        if not place.us and r.random() < 0.6 and "country" not in c.texts:
            place = r.choice(PLACES[:35])
        return f"{place.city}, {place.region_code}" if place.us else f"{place.city}, {place.country}"
    if kind in ("address", "street"):
        place = _place(c, i)
        street = f"{r.randint(1, 9899)} {pick_last_name(r)} {r.choice(d.street_suffixes)}"
        if kind == "street" or not place.us:
            return street if kind == "street" else f"{street}, {place.city}, {place.country}"
        return f"{street}, {place.city}, {place.region_code} {r.randint(10000, 99950)}"
    if kind == "zip":
        return f"{r.randint(1001, 99950):05d}"
    if kind == "airport":
        return r.choice(AIRPORTS)
    if kind == "timezone":
        return _place(c, i).timezone if c.places is not None or r.random() < 0.8 else r.choice(d.timezones)
    if kind == "coord":
        place = _place(c, i)
        return f"{place.lat + r.uniform(-0.05, 0.05):.4f}, {place.lon + r.uniform(-0.05, 0.05):.4f}"
    if kind == "url":
        site = slug_of(pick_last_name(r)) + r.choice(("", "-co", "-shop", "-labs", "-media"))
        # SoundCloud's `artwork_url` was "https://www.lopez-co.io/about" (seed 91's readers: not an image)
        if re.search(
            r"image|img|photo|avatar|thumb|picture|logo|artwork|poster|icon|banner|cover", c.column.lower()
        ):
            return f"https://cdn.{site}.com/images/{r.getrandbits(40):010x}.jpg"
        return f"https://www.{site}.{r.choice(('com', 'org', 'io', 'net'))}/{r.choice(('', 'about', 'products', 'blog', 'contact', 'docs'))}"
    if kind == "domain":
        if r.random() < 0.25:
            return f"{r.randint(11, 223)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
        return f"{r.choice(('www', 'api', 'db01', 'mail', 'app', 'web02'))}.{slug_of(pick_last_name(r))}.{r.choice(('com', 'io', 'net', 'internal'))}"
    if kind == "ip":
        return f"{r.randint(11, 223)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
    if kind in ("path", "directory"):
        return _path(c, i, kind)
    if kind == "filename":
        return _filename(c)
    if kind == "entity":  # the type of the record: `users.object` -> "user"
        return " ".join(singular_word(w) for w in name_words(c.table)) or "record"
    if kind == "slug":
        return slug_of(r.choice((_company(r), f"{r.choice(CODEWORDS)} {pick_last_name(r)}")))
    if kind == "mime":
        return r.choice(d.mimes)
    if kind == "user_agent":
        return c.fake.user_agent()
    if kind == "currency":
        return r.choice(MAJOR_CURRENCIES) if r.random() < 0.8 else r.choice(d.currencies)
    if kind == "language":
        if re.search(r"\b(?:iso|code|639)\b", c.texts):
            return r.choice(LEXICONS["language_code"][:16])
        return r.choice(MAJOR_LANGUAGES) if r.random() < 0.8 else r.choice(d.languages)
    if kind == "locale":
        return r.choice(LOCALES).replace("_", "-" if "-" in c.texts else "_")
    if kind == "color":
        if "hex" in c.texts:
            return f"#{r.getrandbits(24):06X}"
        return r.choice(d.colors[:29]) if r.random() < 0.6 else r.choice(d.colors[29:])
    if kind in ("date", "datetime"):
        return _date_value(c, i, kind)
    if kind == "time":
        return _time_value(c, i)
    if kind == "year":
        return str(r.randint(1950, c.now.year))
    if kind == "period":
        start = c.now.date() - dt.timedelta(days=r.randint(30, 365))
        return f"{start.isoformat()} to {(start + dt.timedelta(days=r.choice((7, 30, 90)))).isoformat()}"
    if kind == "duration":
        return r.choice((f"{r.randint(1, 3)}h {r.choice((0, 15, 30, 45))}m", f"{r.randint(5, 180)} minutes", f"PT{r.randint(1, 8)}H"))  # fmt: skip
    if kind == "version":
        return f"{r.randint(0, 5)}.{r.randint(0, 20)}.{r.randint(0, 15)}"
    if kind == "code":
        return _code(c, i)
    if kind == "uuid":
        return str(uuid.UUID(int=r.getrandbits(128), version=4))
    if (
        kind == "odata_type"
    ):  # the OData type of the row: `#microsoft.graph.calendarEvent` for `calendar_events`
        head, *rest = name_words(singular_word(c.table)) or ["entity"]
        return "#microsoft.graph." + head + "".join(w.capitalize() for w in rest)
    if kind == "secret":
        return _secret(c, i)
    if kind == "id":
        entity = singular_word(c.column.lower().removesuffix("_id").removesuffix("id").strip("_")) or c.table
        return format_id(id_prefix(entity), r.randint(1, 9999))
    if kind == "text":
        return _text(c, i)
    if kind == "title":
        return _title(c, i)
    if kind == "named":
        if c.arg == "artist" and r.random() < 0.4:
            return f"{pick_first_name(r)} {pick_last_name(r)}"
        return _named_entity(c, i)
    if kind == "query":
        return r.choice(QUERY_WORDS)
    if kind == "lex":
        return _lexicon_value(c, i)
    if kind == "status":
        return r.choice(STATUSES.get(c.arg, STATUSES["generic"]))
    return r.choice(d.words)  # "word", and a column whose meaning is unknown (filler, by definition)


def _number_value(c: Col, i: int) -> int | float:
    r, kind = c.rng, c.arg
    integer = c.spec["type"] == "integer"
    if kind in ("lat", "lon") and c.places is not None:
        place = c.places[i]
        value = (place.lat if kind == "lat" else place.lon) + r.uniform(-0.05, 0.05)
        return round(value) if integer else round(value, 6)
    lo, hi, dec = NUMBER_RANGES.get(kind, NUMBER_RANGES["int" if integer else "float"])
    if kind == "year":
        hi = c.now.year
    if kind == "rating" and integer:
        dec = 0
    blo, bhi = c.bounds
    if blo is not None or bhi is not None:
        nlo = max(lo, blo) if blo is not None else lo
        nhi = min(hi, bhi) if bhi is not None else hi
        if nlo > nhi:  # the bounds leave the meaning's range: trust the bounds
            nlo = blo if blo is not None else bhi - (hi - lo)
            nhi = bhi if bhi is not None else blo + (hi - lo)
        lo, hi = nlo, nhi
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        return r.randint(first, max(first, last))
    if kind in ("money", "salary", "revenue", "budget", "rent", "fare", "balance") and r.random() < 0.4:
        return float(max(lo, min(hi, round(r.uniform(lo, hi)) - 0.01)))  # prices like 19.99
    if (
        dec == 0
    ):  # a count (`quantity`, `adults`, `seats`) is whole even in a `number` column: never 18.67 adults
        return round(r.uniform(lo, hi))
    return round(r.uniform(lo, hi), dec if dec else 2)


def _boolean_value(c: Col, i: int) -> bool:
    words = set(name_words(c.column))
    if words & {
        "deleted",
        "archived",
        "banned",
        "blocked",
        "suspended",
        "cancelled",
        "canceled",
        "fraud",
        "spam",
    }:
        return c.rng.random() < 0.1
    if words & {"active", "enabled", "verified", "available", "valid", "visible", "published", "confirmed"}:
        return c.rng.random() < 0.8
    return c.rng.random() < 0.5


# JSON objects by the words of their column (`_object_kind`): the kind of the last word, or, for a
# weak last word (`details`, `info`, `settings`), of a stronger word before it (`customer_info` is
# a person, `group_details` a description).
_OBJECT_KINDS = mapping(
    """
postal: address addr shipping billing mailing residence
geo: geo geo_shape geoshape geometry polygon coordinates coordinate coords latlng gps position point location
geo: boundary area multi_point
money: amount price money cost total fee balance budget income expense salary payment subtotal tax
money: credit_limit charge refund deposit
credentials: credentials credential password secret auth authentication basic_credentials
person: contact owner organizer creator author user actor member partner client customer guest receiver
person: writer delegate worker sender recipient assignee reporter person employee manager agent profile
person: booking_contact travel_agent last_edited_by created_by
company: organization organisation company institution vendor supplier merchant employer publisher
details: details detail metadata meta data info information properties property attributes attribute extra
details: custom context additional specifics specific record
settings: settings setting preferences preference prefs config configuration options option params
settings: parameters
headers: headers header
errors: errors error warnings warning failures failure issues problems
duration: duration
dimensions: dimensions dimension measurements
image: image icon avatar logo photo cover thumbnail picture banner social_image
recurrence: recurrence repeat recurring
stats: stats statistics metrics totals counts counters analytics usage
pagination: pagination paging
period: period window validity date_range time_range
moment: start end original_start_time start_time end_time
product: product item line_item cart_item
filter: filter filters criteria conditions where
hours: hours business_hours opening_hours availability schedule
card: card card_details payment_card
bank: bank_account bank_accounts
text: body content text message note comment description summary paragraph instructions
link: link href
"""
)
_WEAK_OBJECTS = frozenset(("details", "settings"))


def object_kind(column: str) -> str | None:
    """The kind of JSON object a column holds by its name (`"postal"` for an `address`, `"geo"` for a
    `location`, ...; see `_OBJECT_KINDS`), or `None`."""
    return _object_kind(column)


@functools.lru_cache(maxsize=65536)
def _object_kind(column: str) -> str | None:
    """The kind of JSON object a column holds, read from its name (see `_OBJECT_KINDS`), or `None`."""
    words = name_words(column)
    full = "_".join(words)
    if full in _OBJECT_KINDS:
        return _OBJECT_KINDS[full]
    if not words or words[-1] in ("id", "ids", "uid", "key", "keys", "name", "type", "url", "email"):
        return None  # `user_id`, `rate_plan_name`: a scalar of the column's meaning
    weak = None
    for j in range(len(words) - 1, -1, -1):
        pair = "_".join(words[j : j + 2]) if j + 1 < len(words) else ""
        kind = (
            _OBJECT_KINDS.get(pair)
            or _OBJECT_KINDS.get(words[j])
            or _OBJECT_KINDS.get(singular_word(words[j]))
        )
        if kind is None:
            continue
        if kind not in _WEAK_OBJECTS:
            return kind
        weak = weak or kind
    return weak


def _object_value(c: Col, i: int, kind: str) -> Any:
    """A JSON object of one kind (`_OBJECT_KINDS`), coherent with the column's row (its place)."""
    r, d = c.rng, word_data()
    words = set(name_words(c.column))
    if kind == "postal":
        place = _place(c, i)
        out: dict[str, Any] = {
            "street": f"{r.randint(1, 9899)} {pick_last_name(r)} {r.choice(d.street_suffixes)}"
        }
        out["city"] = place.city
        if place.us:
            out["state"] = place.region_code
        out["postal_code"] = f"{r.randint(1001, 99950):05d}" if place.us else str(r.randint(1000, 99999))
        out["country"] = place.country
        return out
    if kind == "geo":
        place = _place(c, i)
        lat, lng = place.lat + r.uniform(-0.05, 0.05), place.lon + r.uniform(-0.05, 0.05)
        if words & {"shape", "geoshape", "polygon", "geometry", "boundary", "area"}:
            h = round(r.uniform(0.005, 0.02), 4)
            ring = [
                [round(lng + dx, 5), round(lat + dy, 5)]
                for dx, dy in ((0, 0), (h, 0), (h, h), (0, h), (0, 0))
            ]
            return {"type": "Polygon", "coordinates": [ring]}
        return {"lat": round(lat, 6), "lng": round(lng, 6)}
    if kind == "money":
        number = meaning_from_texts(c.table, c.column, "number", None, "", ())
        money = dataclasses.replace(c, meaning=number if number.startswith("num:") else "num:money",
                                    spec={"type": "number"})  # fmt: skip
        if money.arg not in ("money", "salary", "revenue", "budget", "rent", "fare", "balance"):
            money = dataclasses.replace(money, meaning="num:money")
        return {"amount": _number_value(money, i), "currency": r.choice(MAJOR_CURRENCIES[:6])}
    if kind == "credentials":
        if r.random() < 0.5:
            return {"password": {"value": _secret(dataclasses.replace(c, meaning="secret:password"), i)}}
        question, answer = r.choice(RECOVERY_QUESTIONS)
        inner = dataclasses.replace(c, meaning=answer, people=None, places=None)
        return {"recovery_question": {"question": question, "answer": string_value(inner, i)}}
    if kind == "person":
        first, last = pick_first_name(r), pick_last_name(r)
        out = {"name": f"{first} {last}", "email": email_for(first, last, r)}
        if "contact" in words:
            out["phone"] = string_value(dataclasses.replace(c, meaning="phone"), i)
        return out
    if kind == "company":
        name = _company(r)
        return {"name": name, "website": f"https://www.{slug_of(name)}.com"}
    if kind == "details":
        return {"description": _entity_note(c, i), "source": r.choice(LEXICONS["source"][:10])}
    if kind == "settings":
        if words & {"notification", "notifications", "alert", "alerts", "reminder", "reminders"}:
            return {"email": r.random() < 0.7, "sms": r.random() < 0.3, "push": r.random() < 0.5}
        return {"language": r.choice(LEXICONS["language_code"][:12]), "timezone": _place(c, i).timezone,
                "notifications": r.random() < 0.7}  # fmt: skip
    if kind == "headers":
        return {"Content-Type": r.choice(("application/json", "text/csv", "application/xml")),
                "Accept": "application/json"}  # fmt: skip
    if kind == "errors":
        code, message = r.choice(ERRORS)
        return {"code": code, "message": message}
    if kind == "duration":
        return {"value": r.choice((15, 30, 45, 60, 90, 120)), "unit": "minutes"}
    if kind == "dimensions":
        return {"width": round(r.uniform(10, 200), 1), "height": round(r.uniform(10, 200), 1), "unit": "cm"}
    if kind == "image":
        return {"url": f"https://cdn.{slug_of(pick_last_name(r))}.com/images/{r.getrandbits(40):010x}.jpg",
                "width": r.choice((640, 800, 1024, 1280)), "height": r.choice((480, 600, 768, 720))}  # fmt: skip
    if kind == "recurrence":
        return {"frequency": r.choice(("daily", "weekly", "monthly")), "interval": r.randint(1, 3)}
    if kind == "stats":
        return {"count": r.randint(1, 500), "total": round(r.uniform(10, 5000), 2)}
    if kind == "pagination":
        return {"page": r.randint(1, 10), "per_page": r.choice((10, 20, 50))}
    if kind == "period":
        dated = dataclasses.replace(c, meaning="date:-365:120")
        start, end = sorted((_date_value(dated, i, "date"), _date_value(dated, i, "date")))
        return {"start": start, "end": end}
    if kind == "moment":
        moment = _date_value(dataclasses.replace(c, meaning="datetime:1:120"), i, "datetime")
        return {"date_time": moment, "time_zone": _place(c, i).timezone}
    if kind == "product":
        price = _number_value(dataclasses.replace(c, meaning="num:money", spec={"type": "number"}), i)
        return {"name": _product(r), "quantity": r.randint(1, 5), "unit_price": price}
    if kind == "filter":
        return {"status": r.choice(STATUSES["generic"])}
    if kind == "hours":
        days = LEXICONS["weekday"][: r.choice((5, 6, 7))]
        return {
            "days": list(days),
            "open": f"{r.randint(7, 10):02d}:00",
            "close": f"{r.randint(16, 21):02d}:00",
        }
    if kind == "card":
        return {"brand": r.choice(("Visa", "Mastercard", "American Express")), "last4": f"{r.randrange(10_000):04d}",
                "exp_month": r.randint(1, 12), "exp_year": c.now.year + r.randint(1, 5)}  # fmt: skip
    if kind == "bank":
        return {"bank_name": r.choice(LEXICONS["bank"]), "account_number": str(r.randrange(10**9, 10**10)),
                "currency": r.choice(MAJOR_CURRENCIES[:6])}  # fmt: skip
    if kind == "text":
        meaning = meaning_from_texts(c.table, c.column, "string", None, c.texts, ())
        return {
            "text": _text(
                dataclasses.replace(c, meaning=meaning if meaning.startswith("text") else "text:prose"), i
            )
        }
    if kind == "link":
        return {"href": string_value(dataclasses.replace(c, meaning="url"), i)}
    raise ValueError(f"unknown kind of JSON object {kind!r}")


def _entity_note(c: Col, i: int) -> str:
    """A sentence about the row's entity (`Activity reviewed by Maria Lopez on Tuesday.`): what a
    `details`/`metadata` object says, in a product table the product's description."""
    r = c.rng
    if set(name_words(c.table)) & {"products", "product", "items", "item", "listings"}:
        return _text(dataclasses.replace(c, column="description", meaning="text:prose"), i)
    entity = " ".join(singular_word(w) for w in name_words(c.table)).capitalize() or "Record"
    who = f"{pick_first_name(r)} {pick_last_name(r)}"
    return r.choice(
        (
            f"{entity} imported from {r.choice(LEXICONS['source'][:10])}.",
            f"{entity} reviewed by {who} on {r.choice(LEXICONS['weekday'])}.",
            f"{entity} updated by {who} after the {r.choice(LEXICONS['month'][:12])} audit.",
            f"{entity} created by {who} for the {r.choice(LEXICONS['department'])} team.",
            f"{entity} flagged for follow-up by {who}.",
        )
    )


# The last resort of a json column whose name says nothing: `is_filler` recognises it as filler.
FILLER_OBJECT_KEY = "tags"


def _filler_object(r: random.Random) -> dict[str, Any]:
    return {FILLER_OBJECT_KEY: r.sample(LEXICONS["tag"], 2)}


def _json_value(c: Col, i: int) -> Any:
    """A json cell by the column's meaning: a string of it (for string arguments), a list of its items
    (`product_list`, `tags`, `phone_numbers`), an object of its kind (`address`, `credentials`,
    `amount`, `geo_shape`, `details`, ...), a scalar of its name's meaning (`user_id`), attributes in
    a product table, and only when nothing is known the filler object `{"tags": [...]}`. A declared
    shape (`c.shape`, from the bound arguments) wraps what does not fit it."""
    if c.arg:  # a json column that tools bind to string arguments: a string of the column's meaning
        return string_value(dataclasses.replace(c, meaning=c.arg), i)
    value = _json_by_name(c, i)
    if value is None:  # left empty: never `{"errors": null}`
        return None
    if c.shape == "object" and not isinstance(value, dict):
        words = name_words(c.column)
        key = "text" if isinstance(value, str) and " " in value else (words[-1] if words else "value")
        return {key: value}
    if c.shape == "array" and not isinstance(value, list):
        return [value]
    return value


def _json_by_name(c: Col, i: int) -> Any:
    r = c.rng
    kind = _object_kind(c.column)
    if kind == "errors" and c.spec.get("nullable", True) is not False and r.random() < 0.8:
        return None  # a stored record mostly carries no errors or warnings: one that succeeded
    items = None if kind in ("credentials", "headers", "errors") else item_meaning(c.table, c.column)
    if items is not None and c.shape != "object":
        name, meaning = items
        inner = dataclasses.replace(c, column=name, meaning=meaning, people=None, places=None)
        if meaning.startswith("num:"):
            # a hotel's `rates`, a product's `tax_rates`: numbers, never words (seed 93's and 94's readers: ["dog"],
            # ["daughter", "such"])
            inner = dataclasses.replace(inner, spec={"type": "number"})
        values: list[Any] = []
        for _ in range(r.randint(1, 3)):
            value = _number_value(inner, i) if meaning.startswith("num:") else string_value(inner, i)
            if value not in values:
                values.append(value)
        return values
    if kind is not None and (kind != "text" or c.shape == "object"):
        return _object_value(c, i, kind)
    scalar = meaning_from_texts(c.table, c.column, "string", None, c.texts, ())
    if scalar != "unknown":
        return string_value(dataclasses.replace(c, meaning=scalar), i)
    if set(name_words(c.table)) & {"products", "items", "product", "item", "listings"}:
        return {"color": r.choice(word_data().colors[:12]), "size": r.choice(("S", "M", "L", "XL")), "weight_kg": round(r.uniform(0.1, 5), 2)}  # fmt: skip
    if c.spec.get("nullable", True) is not False and r.random() < UNKNOWN_JSON_NULL_SHARE:
        return None
    return _filler_object(r)


UNKNOWN_JSON_NULL_SHARE = 0.7
"""Share of empty cells in a nullable json column whose name says nothing (Vonage's `initiator`, `media`): most are
left empty, as an API leaves optional fields it has no value for, rather than filled with `{"tags": [...]}` (blind
readers of seeds 84-87 named that filler in unrelated fields in most worlds)."""


def value_maker(c: Col) -> Callable[[int], Any]:
    if c.meaning == "enum":
        enum = c.spec["enum"]
        return lambda i: c.rng.choice(enum)
    if c.kind == "num" and c.spec["type"] == "string":  # a number kept as a string: "12", "40.7128"
        # money and rates keep their cents ("129.50"), counts are whole ("12")
        decimals = c.arg in ("lat", "lon") or NUMBER_RANGES.get(c.arg, (0, 0, 0))[2] > 0 and c.arg != "int"
        kept = dataclasses.replace(c, spec={**c.spec, "type": "number" if decimals else "integer"})
        return lambda i: str(_number_value(kept, i))
    if c.kind == "num":
        return lambda i: _number_value(c, i)
    if c.meaning == "id" and c.spec["type"] in ("integer", "number"):  # never a float with decimals
        return lambda i: c.rng.randint(1, 99_999)
    if c.kind == "boolean":
        return lambda i: _boolean_value(c, i)
    if c.kind == "json":
        return lambda i: _json_value(c, i)
    if c.spec["type"] in ("integer", "number"):  # a string meaning on a numeric column (an explicit hint)
        return lambda i: _number_value(dataclasses.replace(c, meaning="num:int"), i)
    return lambda i: string_value(c, i)


# ----------------------------------------------------------------------------------------------
# Keys, and one value for a column outside a state.


def id_prefix(table: str) -> str:
    """The id prefix of a table: `customers` -> `cus`, `order_items` -> `oi`."""
    words = [w for w in table.lower().split("_") if w]
    return "".join(w[0] for w in words) if len(words) > 1 else (words[0][:3] if words else "row")


def format_id(prefix: str, number: int, *, digits: bool = False) -> str:
    """A string id: `format_id("cus", 7)` -> `cus_0007`; with `digits`, the number alone (`"7"`), for a
    string key that tools also declare as an integer (its column's `generator` is `digits`)."""
    return str(number) if digits else f"{prefix}_{number:04d}"


def digit_keys(tspec: dict[str, Any]) -> bool:
    """Whether a table's string primary key holds digits (`"7"`, not `cus_0007`): its `generator` is `digits`."""
    return tspec["columns"][tspec["primary_key"]].get("generator") == "digits"


def column_value(
    table: str, column: str, column_spec: dict[str, Any], rng: random.Random, now: dt.datetime
) -> Any:
    """One realistic value for a column, by its meaning (no uniqueness, reference or bound-argument handling)."""
    meaning = column_meaning(table, column, column_spec)
    fake = faker_for(str(rng.getrandbits(64)))
    c = Col(table, column, column_spec, meaning, fake.random, fake, now, texts=column_texts(column_spec, ()))
    return typed(column_spec, value_maker(c)(0))


_PLACE_PARTS = frozenset(
    ("city", "state", "country", "country_code", "zip", "street", "address", "location", "timezone")
)


def one_place_values(
    table: str, columns: dict[str, dict[str, Any]], rng: random.Random, now: dt.datetime
) -> dict[str, Any]:
    """Values of one place for the place columns among `columns` (`{column: column spec}`): a city, its state, its
    country, a street of it, in each column's shape; columns that say no part of a place are left out, and nothing
    at all where fewer than two do (then `rng` is not drawn from). Drawn apart, an update set a billing city Lyon in
    the state of Tennessee with the street left in Singapore (seed 92's readers)."""
    parts = {
        column: meaning
        for column, cspec in columns.items()
        if cspec.get("type") == "string"
        and (meaning := column_meaning(table, column, cspec)).split(":")[0] in _PLACE_PARTS
    }
    if len(parts) < 2:
        return {}
    place = rng.choice(PLACES)
    fake = faker_for(str(rng.getrandbits(64)))
    out: dict[str, Any] = {}
    for column, meaning in parts.items():
        cspec = columns[column]
        texts = column_texts(cspec, ())
        c = Col(table, column, cspec, meaning, fake.random, fake, now, texts=texts, places=[place])
        out[column] = string_value(c, 0)
    return out


def typed(column_spec: dict[str, Any], value: Any) -> Any:
    if column_spec["type"] == "integer" and isinstance(value, float):
        return int(value)
    if column_spec["type"] == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value
