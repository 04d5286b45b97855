"""The package's English (envscale.words): one singular, the words of names, and words as a bottom layer."""

import ast
from pathlib import Path

import pytest

from envscale.env.data.meaning import KEPT_SINGULARS, singular_word
from envscale.words.inflect import plural, singular
from envscale.words.names import NAME_MAX, flag_state, name_words, sanitize_name, tokens


@pytest.mark.parametrize(
    ("word", "one"),
    [
        # where the three singulars of before differed (semantics', the data generator's, the policy text's),
        # the answer of semantics', which every stage now reads
        ("statuses", "status"),  # the generator said `statuse`
        ("buses", "bus"),  # the generator said `buse`
        ("houses", "house"),  # the policy text said `hous`
        ("people", "person"),  # the other two kept `people`
        ("children", "child"),
        ("sales_people", "sales_person"),
        ("apis", "api"),  # the other two kept `apis`
        ("uris", "uri"),
        ("news", "news"),  # the other two said `new`
        ("series", "series"),  # the other two said `sery`
        ("species", "species"),
        ("movies", "movie"),  # the other two said `movy`
        ("calories", "calorie"),
        ("caches", "cache"),  # the other two said `cach`
        ("gas", "gas"),  # three letters stay; the policy text said `ga`
        ("ids", "ids"),  # the policy text said `id`
        ("men", "man"),  # the other two kept `men`
        ("configs", "config"),  # the two words the quickstart's policy texts read, the same in both
        ("releases", "release"),
        # kept as semantics' rule reads them (its `-zes` rule), though the generator's `size` was right: the
        # quickstart's entities are named with them (a `siz` table in domain_82), see the words/inflect report
        ("sizes", "siz"),
        ("authorizes", "authoriz"),
    ],
)
def test_one_singular_where_the_old_rules_differed(word, one):
    assert singular(word) == one


def test_the_generator_keeps_its_own_reading_of_five_words():
    # the quickstart's data depends on these readings (its state hashes): kept, and only these
    assert KEPT_SINGULARS == {
        "apis": "apis",
        "movies": "movy",
        "sizes": "size",
        "statuses": "statuse",
        "uris": "uris",
    }
    for word, kept in KEPT_SINGULARS.items():
        assert singular_word(word) == kept != singular(word)
    for word in ("buses", "people", "children", "news", "series", "calories", "orders", "boxes"):
        assert singular_word(word) == singular(word)


def test_plural_of_the_singular():
    for word in ("order", "category", "box", "person", "child", "status", "api", "movie", "cache"):
        assert singular(plural(word)) == word


def test_two_splitters_of_names():
    # `tokens` for tool and argument names: digits are words, a run of capitals is one word
    assert tokens("getHTTPStatus2") == ["get", "http", "status", "2"]
    assert tokens("ChaDri.change_drink") == ["cha", "dri", "change", "drink"]
    # `name_words` for columns and tables (the data generator's): digits dropped, capitals run together
    assert name_words("getHTTPStatus2") == ["get", "httpstatus"]
    assert name_words("shipToAddress2") == ["ship", "to", "address"]


def test_sanitize_name():
    assert sanitize_name("café.commander v2!") == "cafe_commander_v2"
    assert sanitize_name("日本語") == ""
    assert len(sanitize_name("x" * 100)) == NAME_MAX


def test_words_is_a_bottom_layer():
    """`envscale.words` imports nothing from the rest of the package (but `envscale.errors`)."""
    root = Path(__file__).parent.parent / "envscale" / "words"
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                targets = [node.module or ""]
            elif isinstance(node, ast.ImportFrom):  # `from .names` stays in words, `from ..env` leaves it
                targets = [] if node.level == 1 else [f"envscale.{node.module or ''}"]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found += [
                f"{path.name}: {t}"
                for t in targets
                if t.startswith("envscale") and not t.startswith(("envscale.words", "envscale.errors"))
            ]
    assert found == []


@pytest.mark.parametrize(
    ("one", "many"),
    [
        ("ad", "ads"),  # Forem's display ads were an `adses` table, "Marketing Adse" in a request
        ("analysis", "analyses"),  # was `analysises`
        ("series", "series"),
        ("news", "news"),
        ("data", "data"),
        ("sms", "sms"),
        ("status", "statuses"),
        ("order", "orders"),
    ],
)
def test_plurals_a_person_writes(one, many):
    assert plural(one) == many and plural(many) == many and singular(many) == one


def test_words_an_api_ran_together_are_split_and_short_words_are_not():
    from envscale.tasks.naming import entity_name
    from envscale.tasks.wording import readable_words
    from envscale.words.names import glued_words

    assert glued_words("conferencecallinfo") == ("conference", "call", "info")
    assert readable_words("conferencecallinfo") == "conference call info"
    assert entity_name("internationaltransfers") == "international transfer"
    # a word, a short token, or a split into letters is kept whole
    for token in ("username", "iban", "sku", "batchuuid", "firstname1"):
        assert glued_words(token) == (token,), token
    # a word with an ending split off as a word of its own is one word: "change its assign ees to ..."
    for token in (
        "assignees",
        "onboarding",
        "facilitator",
        "availabilities",
        "attachable",
        "recalculate",
        "workspaces",
    ):
        assert glued_words(token) == (token,), token
    assert readable_words("assignees") == "assignees"


def test_a_yes_no_field_is_named_after_a_state():
    """One reading of `accepted`, `is_archived`, `isAccepted`, `has_been_paid`: the data, the act that sets it and the
    closing message read the flag the same way."""
    assert [flag_state(c) for c in ("accepted", "is_archived", "isAccepted", "has_been_paid")] == [
        "accepted",
        "archived",
        "accepted",
        "paid",
    ]


def test_a_plural_acronym_is_one_word():
    """Seed 92's readers: "assigned to user idf ks 5 and 8" (Avaza's `AssignedToUserIDFKs` read aloud). An acronym
    with a plural `s` is one word: `UserIDs` is user, ids (never i, ds); `URLs` is urls."""
    from envscale.words.names import tokens

    assert tokens("AssignedToUserIDFKs") == ["assigned", "to", "user", "idfks"]
    assert tokens("UserIDs") == ["user", "ids"] and tokens("getURLsList") == ["get", "urls", "list"]
    assert tokens("HTTPServer") == ["http", "server"] and tokens("APIKeys") == ["api", "keys"]
