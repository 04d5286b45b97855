"""Generated initial states look like a real database: values fit what their columns mean (envscale.env.data)."""

import copy
import datetime as dt
import json
import random
import re
from pathlib import Path

import pytest

from envscale.env import generate_state, load_spec
from envscale.env.data import (
    ENTITY_MEANINGS,
    EXACT_MEANINGS,
    LEXICONS,
    TOKEN_MEANINGS,
    column_meaning,
    filler_counts,
    filler_share,
    is_filler,
    named_values,
    parse_now,
    schema_value,
    stock_text,
)
from envscale.env.data.vocabulary import (
    PLACES,
)

FIXTURES = sorted(Path("tests/fixtures/envs").glob("*.yaml"))
EMAIL = re.compile(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def table(columns, primary_key=None):
    return {"primary_key": primary_key or next(iter(columns)), "columns": columns}


def world(name, rows, **tables):
    """A spec of `tables` (name -> `table(...)`) without tools, `rows` rows a table."""
    return {
        "name": name,
        "spec_version": "1.1",
        "tables": tables,
        "data": {"rows": dict.fromkeys(tables, rows)},
        "tools": [],
    }


def tool(name, table_name, properties, *, filters=None):
    """A list tool over `table_name` whose arguments filter the columns of the same name."""
    return {
        "name": name,
        "kind": "read",
        "parameters": {"type": "object", "properties": properties},
        "operation": {
            "type": "list",
            "table": table_name,
            "filters": filters or [{"column": c, "arg": c} for c in properties],
        },
    }


S = {"type": "string"}
LEAGUE = {
    "name": "league",
    "data": {"seed": 3, "now": "2025-06-01T12:00:00Z"},
    "tables": {
        "teams": table({"team_id": S, "name": S, "city": S, "founded_year": {"type": "integer"}}),
        "players": table(
            {
                "player_id": S,
                "name": S,
                "email": {"type": "string", "unique": True},
                "team_id": {"type": "string", "references": "teams"},
                "birthday": S,
                "age": {"type": "integer"},
                "rating": {"type": "number"},
                "notes": S,
            }
        ),
        "matches": table(
            {
                "match_id": S,
                "home_team_id": {"type": "string", "references": "teams"},
                "venue": S,
                "start_date": S,
                "end_date": S,
                "status": S,
                "ticket_price": {"type": "number"},
                "attendance": {"type": "integer"},
            }
        ),
        "orders": table(
            {
                "order_id": S,
                "player_id": S,  # names players' key without `references`
                "warehouse_id": S,  # names no table
                "created_at": S,
                "due_date": S,
                "currency": S,
                "country_code": S,
                "website": S,
                "quantity": {"type": "integer"},
            }
        ),
    },
    "tools": [
        tool(
            "find_matches",
            "matches",
            {
                "status": {"type": "string", "enum": ["scheduled", "played", "postponed"]},
                "attendance": {"type": "integer", "minimum": 100, "maximum": 200},
                "start_date": {"type": "string", "format": "date-time"},
                "end_date": {"type": "string", "format": "date-time"},
            },
        ),
        tool(
            "find_players",
            "players",
            {"rating": {"type": "number", "description": "A rating between 1 and 10."}},
        ),
    ],
}


@pytest.fixture(scope="module")
def league():
    return generate_state(LEAGUE, seed=3, rows={t: 40 for t in LEAGUE["tables"]})


def test_the_same_seed_gives_the_same_state_and_another_seed_another():
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    assert generate_state(spec, seed=0) == generate_state(copy.deepcopy(spec), seed=0)
    assert generate_state(spec, seed=1) != generate_state(spec, seed=0)


def test_the_state_does_not_depend_on_the_order_of_tables_or_columns():
    shuffled = copy.deepcopy(LEAGUE)
    shuffled["tables"] = {
        t: {**s, "columns": dict(reversed(s["columns"].items()))}
        for t, s in reversed(LEAGUE["tables"].items())
    }
    a, b = generate_state(LEAGUE, seed=5), generate_state(shuffled, seed=5)
    assert a.keys() == b.keys() and all(a[t] == b[t] for t in a)


def test_people_have_names_and_emails_built_from_their_name(league):
    for row in league["players"]:
        assert not is_filler("players", "name", {"type": "string"}, row["name"])
        first, last = row["name"].split(" ", 1)
        assert EMAIL.match(row["email"]), row
        local = row["email"].split("@")[0]
        assert re.sub(r"[^a-z]", "", last.lower()) in local, row
    assert len({r["email"] for r in league["players"]}) == len(league["players"])  # unique


def test_shop_customers_hold_emails_and_keys_reference_existing_rows():
    state = generate_state(load_spec("tests/fixtures/envs/shop.yaml"), seed=0)
    assert all(EMAIL.match(r["email"]) for r in state["customers"])
    keys = {t: {r[k] for r in state[t]} for t, k in (("customers", "customer_id"), ("orders", "order_id"))}
    assert {r["customer_id"] for r in state["orders"]} <= keys["customers"]
    assert {r["order_id"] for r in state["order_items"]} <= keys["orders"]


def test_id_columns_hold_existing_keys_or_ids_never_words(league):
    players = {r["player_id"] for r in league["players"]}
    assert {r["player_id"] for r in league["orders"]} <= players  # named after players' key: existing keys
    assert {r["team_id"] for r in league["players"]} <= {r["team_id"] for r in league["teams"]}
    for row in league["orders"]:  # no warehouses table: id-like values
        assert re.fullmatch(r"[a-z]+_\d{4}", row["warehouse_id"]), row


def test_dates_lie_where_their_names_say_relative_to_the_clock(league):
    now = parse_now(LEAGUE)
    for row in league["orders"]:
        created = dt.datetime.strptime(row["created_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
        assert now - dt.timedelta(days=3 * 365) <= created <= now
        assert ISO_DATE.match(row["due_date"]) and row["due_date"] > now.date().isoformat()
    for row in league["players"]:
        born = dt.date.fromisoformat(row["birthday"])
        assert 18 <= (now.date() - born).days / 365.25 <= 91
        assert 18 <= row["age"] <= 90
    for row in league["matches"]:  # a bound argument says date-time; the end follows the start
        assert ISO_DATETIME.match(row["start_date"])
        assert row["end_date"] is None or row["start_date"] <= row["end_date"]  # an end date is optional
    assert all(1950 <= r["founded_year"] <= now.year for r in league["teams"])


def test_schema_enums_bounds_and_descriptions_are_respected(league):
    matches = league["matches"]
    assert {r["status"] for r in matches} <= {"scheduled", "played", "postponed"}
    assert all(100 <= r["attendance"] <= 200 for r in matches)
    assert all(1 <= r["rating"] <= 10 for r in league["players"])  # "between 1 and 10"
    assert all(r["ticket_price"] == round(r["ticket_price"], 2) and r["ticket_price"] > 0 for r in matches)
    assert all(0 <= r["quantity"] <= 50 for r in league["orders"])
    assert all(re.fullmatch(r"[A-Z]{3}", r["currency"]) for r in league["orders"])
    assert all(re.fullmatch(r"[A-Z]{2,3}", r["country_code"]) for r in league["orders"])
    assert all(r["website"].startswith("https://") for r in league["orders"] if r["website"] is not None)


def test_optional_columns_are_sometimes_null_required_ones_never():
    state = generate_state(LEAGUE, seed=1, rows={"teams": 5, "players": 400, "matches": 1, "orders": 1})
    notes = [r["notes"] for r in state["players"]]
    assert 0 < notes.count(None) < 0.25 * len(notes)
    assert all(r["name"] for r in state["players"])
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    required = [c for c, s in spec["tables"]["customers"]["columns"].items() if s.get("nullable") is False]
    assert all(r[c] is not None for r in generate_state(spec, seed=2)["customers"] for c in required)


def test_is_filler_judges_a_value_against_its_column_meaning():
    name = {"type": "string"}
    assert is_filler("players", "name", name, "Smart kettle")
    assert is_filler("players", "name", name, "compact-jacket")
    assert not is_filler("players", "name", name, "Maria Lopez")
    assert not is_filler("players", "player_name", name, "Kofi Okafor")
    assert is_filler("orders", "customer_id", name, "compact-jacket")
    assert not is_filler("orders", "customer_id", name, "cus_0007")
    assert is_filler("customers", "email", name, "expect")
    assert is_filler("events", "start_date", name, "tomorrow-ish")
    assert not is_filler("events", "start_date", name, "2025-07-01")
    assert is_filler("hotels", "city", name, "window")
    assert not is_filler("hotels", "location", name, "Berkeley, CA")
    assert is_filler("forecasts", "widget", name, "whatever")  # no known meaning: lorem is filler
    assert not is_filler("forecasts", "widget", name, "whatever", arguments=[{"enum": ["whatever"]}])
    assert is_filler("calculators", "unit", name, "kettle")
    assert not is_filler("calculators", "unit", name, "joules")
    assert not is_filler("players", "name", name, None) and not is_filler(
        "players", "age", {"type": "integer"}, 3
    )


def test_meanings_come_from_names_tables_and_descriptions():
    s = {"type": "string"}
    assert column_meaning("players", "name", s) == "person"
    assert column_meaning("companies", "name", s) == "company"
    assert column_meaning("products", "name", s) == "named:product"
    assert column_meaning("hotels", "location", s) == "location"
    assert (
        column_meaning("rankings", "squad", {"type": "string", "description": "The name of the team."})
        == "named:team"
    )
    assert column_meaning("orders", "customer_id", s, primary_key=False) == "id"
    assert column_meaning("x", "y", s) == "unknown"
    # every vocabulary a meaning names exists
    meanings = {*ENTITY_MEANINGS.values(), *TOKEN_MEANINGS.values(), *EXACT_MEANINGS.values()}
    assert {m.split(":")[1] for m in meanings if m.startswith("lex:")} <= set(LEXICONS)


def test_named_values_read_the_spec_but_not_its_placeholders():
    arg = {
        "type": "string",
        "description": "The unit to report the energy in. Options are 'joules' and 'calories'. "
        "Format 'YYYY-MM-DD' does not apply; e.g. kWh, BTU. Default is 'all' if not specified.",
    }
    values = named_values({"type": "string"}, [arg])
    assert {"joules", "calories", "kWh", "BTU"} <= set(values)
    assert not {"all", "YYYY-MM-DD"} & set(values)
    assert "City, State" not in named_values({"type": "string", "description": "in the format 'City, State'"})


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_specs_are_mostly_free_of_filler(path):
    spec = load_spec(path)
    for seed in (0, 1):
        state = generate_state(spec, seed=seed)
        assert filler_share(spec, state) <= 0.2, {k: v for k, v in filler_counts(spec, state).items() if v[0]}


def test_a_richer_spec_is_mostly_free_of_filler(league):
    assert filler_share(LEAGUE, league) <= 0.05, {
        k: v for k, v in filler_counts(LEAGUE, league).items() if v[0]
    }


def test_building_the_vocabularies_does_not_disturb_a_column_being_generated():
    """The first use of the lazy vocabularies in a process (in the middle of a column) once reseeded the
    shared Faker generator, so the first state built in a process differed from every later build."""
    import subprocess
    import sys

    script = (
        "import sys; from envscale.env.data.vocabulary import word_data, faker_for\n"
        "fake = faker_for('players.name'); fake.pyint()\n"
        "if sys.argv[1] == 'touch': word_data()\n"
        "print(fake.pyint(), fake.name())\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script, how], capture_output=True, text=True, check=True).stdout
        for how in ("touch", "leave")
    ]
    assert runs[0] == runs[1]


def test_rows_dropped_for_a_unique_set_are_never_referenced():
    """A stock level per (warehouse, product) exists once; a table referencing stock levels only points
    at the ones kept."""
    s = {"type": "string"}
    spec = {
        "name": "stock",
        "tables": {
            "warehouses": {"primary_key": "warehouse_id", "columns": {"warehouse_id": s}},
            "products": {"primary_key": "product_id", "columns": {"product_id": s}},
            "levels": {
                "primary_key": "level_id",
                "columns": {
                    "level_id": s,
                    "warehouse_id": {**s, "references": "warehouses"},
                    "product_id": {**s, "references": "products"},
                },
                "unique": [["warehouse_id", "product_id"]],
            },
            "moves": {
                "primary_key": "move_id",
                "columns": {"move_id": s, "level_id": {**s, "references": "levels"}},
            },
        },
        "data": {"seed": 0, "rows": {"warehouses": 2, "products": 2, "levels": 12, "moves": 30}},
        "tools": [],
    }
    from envscale.env import Environment

    env = Environment(spec)
    state = env.dump()
    pairs = [(r["warehouse_id"], r["product_id"]) for r in state["levels"]]
    assert len(pairs) == len(set(pairs)) <= 4
    levels = {r["level_id"] for r in state["levels"]}
    assert state["moves"] and all(m["level_id"] in levels for m in state["moves"] if m["level_id"])


def test_a_date_pattern_is_filled_with_a_date_of_the_calendar():
    """`pattern: ^\\d{4}-\\d{2}-\\d{2}$` made `5339-56-72` digit by digit: a date pattern gets a real date (or
    timestamp, or year-month) that still matches it; other patterns are built from the expression."""
    import datetime as dt
    import random
    import re

    from envscale.env.data.schemas import pattern_value

    rng = random.Random(0)
    for pattern in (
        r"^\d{4}-\d{2}-\d{2}$",
        r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
        r"^\d{4}-\d{2}$",
    ):
        for _ in range(20):
            text = pattern_value(pattern, rng)
            assert re.search(pattern, text)
            dt.date.fromisoformat(text[:10] if len(text) >= 10 else text + "-01")
    assert re.fullmatch(r"[A-Z]{3}\d+", pattern_value(r"^[A-Z]{3}\d+$", rng))


HELPDESK = {
    "name": "helpdesk",
    "data": {"seed": 5, "now": "2025-06-01T12:00:00Z"},
    "tables": {
        "tickets": table(
            {"ticket_id": S, "title": S, "description": S, "notes": S, "status": S, "requester_name": S}
        ),
        "agents": table({"agent_id": S, "name": S, "title": S, "description": S}),
    },
    "tools": [
        {
            "name": "create_ticket",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"title": S, "description": S},
                "required": ["title", "description"],
            },
            "operation": {
                "type": "insert",
                "table": "tickets",
                "values": {"title": "title", "description": "description"},
                "generate": {"ticket_id": "id"},
                "returns": "row",
            },
        },
        tool("list_tickets", "tickets", {"status": S}),
    ],
}


def test_a_rows_free_text_speaks_of_the_rows_subject_in_the_world_and_in_new_calls():
    """A ticket's description is about its title (a blind reader found "a skillet that stopped charging" in a
    ticket titled "Document search filters"); a person's `title` is a job, so an agent's description is left
    alone; a new ticket's call writes a description about the title it gives."""
    import random

    from envscale.env import Environment
    from envscale.materialize.verify import valid_call

    state = generate_state(HELPDESK, seed=5)
    tickets = [t for t in state["tickets"] if t["title"] and t["description"]]
    assert len(tickets) >= 5
    for ticket in tickets:
        assert f'"{ticket["title"]}"' in ticket["description"], ticket
        assert ticket["notes"] is None or f'"{ticket["title"]}"' in ticket["notes"], ticket
    assert not any(a["title"] and f'"{a["title"]}"' in (a["description"] or "") for a in state["agents"])
    with Environment(HELPDESK) as env:
        env.reset(seed=5)
        rows = env.dump()
        create = HELPDESK["tools"][0]
        for seed in range(5):
            args, _ = valid_call(env, create, rows, random.Random(seed))
            assert f'"{args["title"]}"' in args["description"], args
        # an edited ticket's description speaks of the ticket as it is, even beside a new title a request may
        # leave out (a blind reader: the project "Amsterdam Project" got notes about "Website Redesign")
        edit = {
            "name": "update_ticket",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"ticket_id": S, "title": S, "description": S},
                "required": ["ticket_id", "title", "description"],
            },
            "operation": {
                "type": "update",
                "table": "tickets",
                "key": {"ticket_id": "ticket_id"},
                "set": {"title": "title", "description": "description"},
            },
        }
        for seed in range(5):
            args, ticket = valid_call(env, edit, rows, random.Random(seed))
            if ticket["title"]:
                assert f'"{ticket["title"]}"' in args["description"], (args, ticket)


def test_a_new_number_moves_by_more_than_a_rounding():
    """Seed 94's readers: an appointment's travel time changed from 184 to 185 minutes ("nobody would change a value
    by 1 minute this way"). A number a write sets is at least 5% away from the one it replaces."""
    import random

    from envscale.env import Environment
    from envscale.materialize.verify import valid_call

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    reprice = {
        "name": "reprice_product",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"product_id": S, "price": {"type": "number"}},
            "required": ["product_id", "price"],
        },
        "operation": {
            "type": "update",
            "table": "products",
            "key": {"product_id": "product_id"},
            "set": {"price": "price"},
        },
    }
    with Environment(spec) as env:
        env.reset(seed=3)
        rows = env.dump()
        moves = []
        for seed in range(40):
            args, product = valid_call(env, reprice, rows, random.Random(seed))
            moves.append(abs(args["price"] - product["price"]) / product["price"])
        assert min(moves) >= 0.05, sorted(moves)[:3]


def test_a_route_parent_the_tool_leaves_unbound_is_the_parent_of_the_row_it_addresses():
    """Learnifier's `DELETE /orgunits/{orgid}/usergroups/{groupid}/members/{uuid}` binds only the member: its
    `groupid` and `orgid` are the member's `usergroup_id` and `orgunit_id`, never made-up numbers (a blind reader
    found "Group id: 10" stated for a member of group 19)."""
    import random

    from envscale.env import Environment
    from envscale.materialize.verify import valid_call

    integer = {"type": "integer"}
    spec = {
        "name": "learning",
        "data": {"seed": 2, "now": "2025-06-01T12:00:00Z"},
        "tables": {
            "orgunits": table({"orgunit_id": integer, "name": S}),
            "usergroups": table({"usergroup_id": integer, "name": S}),
            "members": table(
                {
                    "member_id": S,
                    "orgunit_id": {"type": "integer", "references": "orgunits"},
                    "usergroup_id": {"type": "integer", "references": "usergroups"},
                    "display_name": S,
                }
            ),
        },
        "tools": [
            {
                "name": "delete_member",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"orgid": integer, "groupid": integer, "uuid": S},
                    "required": ["orgid", "groupid", "uuid"],
                },
                "operation": {"type": "delete", "table": "members", "key": {"member_id": "uuid"}},
                "metadata": {
                    "annotations": {
                        "method": "DELETE",
                        "path": "/orgunits/{orgid}/usergroups/{groupid}/members/{uuid}",
                    }
                },
            }
        ],
    }
    with Environment(spec) as env:
        env.reset(seed=2)
        rows = env.dump()
        for seed in range(6):
            args, member = valid_call(env, spec["tools"][0], rows, random.Random(seed))
            assert args["uuid"] == member["member_id"]
            assert (args["groupid"], args["orgid"]) == (member["usergroup_id"], member["orgunit_id"]), args


def test_stock_prose_reads_as_stored_text_never_as_a_prompt_to_an_assistant():
    """Blind readers found "Summarize the spreadsheet from Maldonado Miller Partners in three bullet points." as a
    message a customer logged: stock sentences are things people store, not requests to a chat assistant."""
    from envscale.env.data.vocabulary import PROSE

    for line in PROSE:
        assert not line.rstrip().endswith("?"), line
        first = line.split()[0].lower()
        assert first not in ("summarize", "translate", "can", "what", "write", "explain", "tell"), line


def test_a_rows_free_text_is_written_for_its_kind_never_drawn_from_a_pool_about_other_things():
    """Blind readers marked down "Escalated to the second-line support team." as a recipe's instructions and "The
    Trailhead Organic Cotton Phone Case arrived on time" as an employee's description: a row's notes and prose are
    written for the kind of row it is; only rows whose text may be about anything (messages) take stock prose."""
    import re as _re

    from envscale.env.data.vocabulary import PROSE

    stock = [_re.compile(_re.sub(r"\\\{\w+\\\}", ".+", _re.escape(line)) + "$") for line in PROSE]

    def texts(table_name, column):
        spec = {"name": "x", "tools": [], "tables": {table_name: table({"id": S, column: S})}}
        return [r[column] for r in generate_state(spec, seed=5)[table_name] if r[column]]

    instructions = texts("recipes", "instructions")
    assert instructions and all(
        _re.search(r"oven|simmer|whisk|grill|serve|shake|bake|roast|stir|boil", v, _re.I)
        for v in instructions
    ), instructions
    for table_name, column in (
        ("employees", "description"),
        ("groups", "description"),
        ("time_off_requests", "notes"),
    ):
        values = texts(table_name, column)
        assert values and not [v for v in values if any(p.match(v) for p in stock)], (table_name, values)
    comments = texts(
        "comments", "body"
    )  # a comment answers what it is on: "Flight to Manchester delayed" on a spot
    assert comments and not [v for v in comments if any(p.match(v) for p in stock)], comments
    bodies = texts("messages", "body")
    assert sum(any(p.match(v) for p in stock) for v in bodies) == len(bodies)  # the pattern finds stock prose


def test_a_text_field_no_rule_reads_is_mostly_left_empty_unless_the_api_names_its_values():
    """Blind readers found `pronouns: "paper"`, `periodicity: "dinner"`: words in fields no rule understands. Such
    a field is mostly empty, as an API leaves optional fields; a field whose values the API names keeps them."""
    spec = {
        "name": "community",
        "data": {"seed": 4, "now": "2025-06-01T12:00:00Z"},
        "tables": {
            "members": table(
                {
                    "member_id": S,
                    "periodicity": {"type": "string", "nullable": True},
                    "cadence": {
                        "type": "string",
                        "nullable": True,
                        "description": "How often, one of 'weekly', 'monthly' or 'yearly'.",
                    },
                }
            )
        },
        "tools": [],
    }
    rows = generate_state(spec, seed=4, rows={"members": 40})["members"]
    assert column_meaning("members", "periodicity", {"type": "string"}) == "unknown"
    assert sum(r["periodicity"] is None for r in rows) >= 20
    assert sum(r["cadence"] in ("weekly", "monthly", "yearly") for r in rows) >= 25


def test_columns_naming_one_role_of_one_table_point_at_one_row():
    """A conversation member's `user_id` and `user_name` both reference users: drawn alone, the member's user
    disagreed with itself (`user_id` adam.walker18, `user_name` donald.coffey14). One role, one row; another
    role (`invited_by_id`) is its own."""
    spec = {
        "name": "chat",
        "spec_version": "1.1",
        "tables": {
            "users": {
                "primary_key": "user_id",
                "columns": {"user_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "members": {
                "primary_key": "member_id",
                "columns": {
                    "member_id": {"type": "string"},
                    "user_id": {"type": "string", "references": "users"},
                    "user_name": {"type": "string", "references": "users"},
                    "invited_by_id": {"type": "string", "references": "users"},
                },
            },
        },
        "data": {"rows": {"users": 10, "members": 30}},
        "tools": [],
    }
    members = generate_state(spec, seed=0)["members"]
    assert all(m["user_name"] == m["user_id"] for m in members)
    assert any(m["invited_by_id"] != m["user_id"] for m in members)


def _named_table_spec(table_name, rows, column="name"):
    return {
        "name": "names",
        "spec_version": "1.1",
        "tables": {
            table_name: {
                "primary_key": "id",
                "columns": {"id": {"type": "string"}, column: {"type": "string"}},
            }
        },
        "data": {"rows": {table_name: rows}},
        "tools": [],
    }


def test_things_of_a_known_kind_are_named_as_their_users_name_them():
    """Outside readers took "Finance Location", "Elizabeth's Apis" and "Summer 2023 Configuration" for filler:
    a ledger account is "Accounts Receivable", a leave type "Sick Leave", a tax rate "VAT 20%". A table's rows
    go through its kind's names before repeating one, so ten leave types are ten different ones."""
    from envscale.env.data.labels import LABELS

    ledger = [
        r["name"] for r in generate_state(_named_table_spec("ledger_accounts", 12), seed=3)["ledger_accounts"]
    ]
    assert set(ledger) <= set(LABELS["ledger account"])
    assert len(set(ledger)) == len(ledger)
    leave = [r["name"] for r in generate_state(_named_table_spec("leave_types", 10), seed=1)["leave_types"]]
    assert len(set(leave)) == 10 and set(leave) <= set(LABELS["leave type"])  # ten of them, none twice
    # a glued table name is read by its words: `servicegroups` are service groups
    groups = generate_state(_named_table_spec("servicegroups", 5), seed=0)["servicegroups"]
    assert {r["name"] for r in groups} <= set(LABELS["service group"])
    # a kind no list knows keeps a label of its own kind, never a codename
    gizmos = generate_state(_named_table_spec("gizmos", 6), seed=0)["gizmos"]
    assert all(r["name"].endswith("Gizmo") for r in gizmos)


def test_a_part_or_variant_of_a_name_is_read_as_such():
    """`learner_first_name` is a first name ("Learner First" was its label), `legal_name` of a company is a
    company and `friendly_name` is the row's own name, not a "Friendly" thing."""
    s = {"type": "string"}
    assert column_meaning("responses", "learner_first_name", s) == "first_name"
    assert column_meaning("assignments", "learner_last_name", s) == "last_name"
    assert column_meaning("companies", "legal_name", s) == "company"
    assert column_meaning("consumers", "name", s) == "person"
    assert column_meaning("locations", "admin_name", s) == "person"
    locations = generate_state(_named_table_spec("locations", 6, "friendly_name"), seed=0)["locations"]
    assert not any("Friendly" in r["friendly_name"] for r in locations)


def test_a_name_beside_a_reference_is_the_referenced_rows_name():
    """A transaction's `payee_name` beside its `payee_id` is its payee's name; drawn alone, readers found a
    record whose `company_id` pointed at one company and whose `company_name` named another. A name of
    another role (`merchant_name`, no `merchant_id`) is left as drawn."""
    spec = {
        "name": "budget",
        "spec_version": "1.1",
        "tables": {
            "payees": {
                "primary_key": "payee_id",
                "columns": {"payee_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "transactions": {
                "primary_key": "transaction_id",
                "columns": {
                    "transaction_id": {"type": "string"},
                    "payee_id": {"type": "string", "references": "payees"},
                    "payee_name": {"type": "string"},
                    "merchant_name": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"payees": 8, "transactions": 20}},
        "tools": [],
    }
    state = generate_state(spec, seed=0)
    names = {p["payee_id"]: p["name"] for p in state["payees"]}
    rows = state["transactions"]
    assert all(t["payee_name"] == names[t["payee_id"]] for t in rows if t["payee_name"] is not None)
    assert sum(t["payee_name"] is not None for t in rows) >= 10
    assert not all(t["merchant_name"] in names.values() for t in rows)


def test_a_title_beside_a_reference_is_the_referenced_rows_title():
    """A timesheet's `project_title` beside its `project_id` is its project's title: a blind reading found
    "the timesheet whose project title is 'Week of September 14'" on a project titled "Annual Audit 2025"."""
    spec = {
        "name": "timesheets",
        "spec_version": "1.1",
        "tables": {
            "projects": {
                "primary_key": "project_id",
                "columns": {"project_id": {"type": "integer"}, "title": {"type": "string"}},
            },
            "timesheets": {
                "primary_key": "timesheet_id",
                "columns": {
                    "timesheet_id": {"type": "integer"},
                    "project_id": {"type": "integer", "references": "projects"},
                    "project_title": {"type": "string"},
                    "task_title": {"type": "string"},
                },
            },
            # a task's `project_title` reads like a task's title; beside `project_id` it is its project's
            "tasks": {
                "primary_key": "task_id",
                "columns": {
                    "task_id": {"type": "integer"},
                    "title": {"type": "string"},
                    "project_id": {"type": "integer", "references": "projects"},
                    "project_title": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"projects": 8, "timesheets": 20, "tasks": 20}},
        "tools": [],
    }
    state = generate_state(spec, seed=0)
    titles = {p["project_id"]: p["title"] for p in state["projects"]}
    for table in ("timesheets", "tasks"):
        rows = state[table]
        assert all(
            t["project_title"] == titles[t["project_id"]] for t in rows if t["project_title"] is not None
        )
        assert sum(t["project_title"] is not None for t in rows) >= 10
    assert not all(
        t["task_title"] in titles.values() for t in state["timesheets"]
    )  # no task reference: as drawn


def test_a_rows_name_made_from_a_place_is_the_rows_own_place():
    """A location named "Copenhagen Downtown" stood in Seoul; a hotel's name and its city, a location's name
    and its address, name one place."""
    spec = {
        "name": "places",
        "spec_version": "1.1",
        "tables": {
            "locations": table(
                {"id": {"type": "string"}, "name": {"type": "string"}, "city": {"type": "string"}}, "id"
            ),
            "hotels": table(
                {"id": {"type": "string"}, "name": {"type": "string"}, "city": {"type": "string"}}, "id"
            ),
        },
        "data": {"rows": {"locations": 30, "hotels": 30}},
        "tools": [],
    }
    state = generate_state(spec, seed=2)
    for rows in (state["locations"], state["hotels"]):
        named_by_city = [r for r in rows if r["city"] and r["city"] in r["name"]]
        cities_in_names = [r for r in rows if any(p.city in r["name"] for p in PLACES)]
        assert len(named_by_city) >= 5 and named_by_city == cities_in_names


def test_an_address_is_one_place_and_its_second_line_a_unit():
    """A blind reader found "address line 1 2340 Walton Road, Montreal, Canada, address line 2 3929 Silva
    Boulevard, Prague, Czech Republic, city Montreal, country South Korea": a row's address parts name one place
    (its city, state, country and time zone agree), the first line is a street and the second a unit."""
    columns = ["address_line_1", "address_line_2", "city", "province", "country", "country_code", "timezone"]
    customer = {"id": {"type": "string"}, **{c: {"type": "string"} for c in columns}}
    spec = world("addresses", 40, customers=table(customer, "id"))
    by_city = {p.city: p for p in PLACES}
    for row in generate_state(spec, seed=3)["customers"]:
        place = by_city[row["city"]]
        assert (row["country"], row["country_code"], row["timezone"]) == (
            place.country,
            place.country_code,
            place.timezone,
        ), row
        assert row["province"] in (place.region, place.region_code), row
        assert row["city"] not in row["address_line_1"] and row["address_line_1"][0].isdigit(), row
        assert row["address_line_2"] in LEXICONS["address_unit"], row


def test_a_row_names_a_row_that_names_it_back():
    """A conversation's `member_id` named mem_0014, a member of another conversation: a lookup of the
    conversation's member answered from the wrong conversation. Where both tables name each other, the
    member a conversation names is one of its own."""
    spec = {
        "name": "chat",
        "spec_version": "1.1",
        "tables": {
            "conversations": table(
                {
                    "conversation_id": {"type": "string"},
                    "member_id": {"type": "string"},  # a reference by its name (declared ones form no cycle)
                }
            ),
            "members": table(
                {
                    "member_id": {"type": "string"},
                    "conversation_id": {"type": "string", "references": "conversations"},
                }
            ),
        },
        "data": {"rows": {"conversations": 10, "members": 30}},
        "tools": [],
    }
    state = generate_state(spec, seed=0)
    home = {m["member_id"]: m["conversation_id"] for m in state["members"]}
    named = [c for c in state["conversations"] if c["member_id"] is not None]
    with_members = {m["conversation_id"] for m in state["members"]}
    assert named and all(
        home[c["member_id"]] == c["conversation_id"] for c in named if c["conversation_id"] in with_members
    )
    assert generate_state(spec, seed=0) == state  # deterministic


def test_a_glued_name_part_names_the_rows_own_person():
    """A receptionist knew `lastname` Owens of the customer "Natasha Kidd": `lastname` was drawn as another
    person's. `lastname`, `firstname` and `emailaddress` are parts of the row's own person."""
    spec = {
        "name": "clinic",
        "spec_version": "1.1",
        "tables": {
            "customers": table(
                {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "lastname": {"type": "string"},
                    "emailaddress": {"type": "string"},
                },
                "id",
            )
        },
        "data": {"rows": {"customers": 12}},
        "tools": [],
    }
    for row in generate_state(spec, seed=0)["customers"]:
        if row["name"] and row["lastname"]:
            assert row["name"].endswith(row["lastname"]), row


def test_every_name_template_fills_from_the_slots_it_is_given():
    """A template with a slot no one fills (`{citty}`) would stop the generation of every world with that kind:
    each template of each kind makes a name without braces, a different one per row where it has slots."""
    import random as _random

    from envscale.env.data.labels import LABELS, kind_label

    slots = {
        "first": lambda: "Ana", "last": lambda: "Ruiz", "city": lambda: "Lyon", "team": lambda: "Sales",
        "company": lambda: "Ruiz Labs", "product": lambda: "Acme Kettle", "year": lambda: "2025",
        "quarter": lambda: "2", "season": lambda: "Spring", "month": lambda: "May", "weekday": lambda: "Monday",
        "codeword": lambda: "atlas", "job": lambda: "Nurse", "ref": lambda: "INV-1001",
    }  # fmt: skip
    for kind, templates in LABELS.items():
        deck: dict = {}
        names = [
            kind_label(kind.split(" "), _random.Random(0), i, deck, slots) for i in range(len(templates))
        ]
        assert all(n and "{" not in n and "}" not in n for n in names), (kind, names)
        assert len(set(names)) == len(names), (kind, names)


def test_a_support_tickets_title_is_a_customers_problem_and_a_tasks_an_engineers():
    """A blind reader found a help desk's customer closing the ticket "Migrate invoice PDF export": a ticket's
    subject is what the customer wrote about, a task's title what the team works on."""
    spec = world(
        "desk",
        20,
        tickets=table({"id": {"type": "string"}, "subject": {"type": "string"}}, "id"),
        tasks=table({"id": {"type": "string"}, "title": {"type": "string"}}, "id"),
    )
    state = generate_state(spec, seed=4)
    engineering = ("Fix ", "Update ", "Review ", "Add ", "Remove ", "Migrate ", "Investigate ", "Document ")
    subjects = [r["subject"] for r in state["tickets"] if r["subject"]]
    titles = [r["title"] for r in state["tasks"] if r["title"]]
    assert len(subjects) >= 10 and not [s for s in subjects if s.startswith(engineering)], subjects
    assert len(titles) >= 10 and all(t.startswith(engineering) for t in titles), titles


def test_a_user_keyed_by_a_handle_is_the_person_the_handle_names():
    """A user `kristen.smith12` was named "Hana Orr": the handle and the name were drawn apart. The row's own name
    and email are the person its handle names."""
    user = {"username": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}}
    spec = world("people", 15, users=table(user, "username"))
    rows = generate_state(spec, seed=5)["users"]
    for row in rows:
        first, last = (
            re.sub(r"[^a-z]", "", w.lower()) for w in row["name"].split()[:1] + row["name"].split()[-1:]
        )
        handle = re.sub(r"[^a-z]", "", row["username"].lower())
        assert handle.startswith(first[:1]) and (first in handle or last in handle), row
        assert first in row["email"] or last in row["email"], row


def test_a_member_that_references_a_user_is_that_user():
    """A conversation's member "Cory Miller" pointed at the user Michele Shaffer: a person in a role is the person
    it references, by name too."""
    member = {
        "member_id": {"type": "string"},
        "name": {"type": "string"},
        "user_name": {"type": "string"},
        "user_id": {"type": "string", "references": "users"},
    }
    spec = world(
        "chat",
        20,
        users=table({"user_id": {"type": "string"}, "name": {"type": "string"}}, "user_id"),
        members=table(member, "member_id"),
    )
    state = generate_state(spec, seed=6)
    names = {u["user_id"]: u["name"] for u in state["users"]}
    linked = [m for m in state["members"] if m["user_id"] and m["name"]]
    assert len(linked) >= 10
    for member in linked:
        assert member["name"] == names[member["user_id"]], member
        assert member["user_name"] in (None, names[member["user_id"]]), member
    # the conversation API's member names its user twice, by key and by handle (`user_name` -> users): one person
    handles = copy.deepcopy(spec)
    handles["tables"]["users"] = table(
        {"username": {"type": "string"}, "name": {"type": "string"}}, "username"
    )
    handles["tables"]["members"]["columns"]["user_id"]["references"] = "users"
    handles["tables"]["members"]["columns"]["user_name"]["references"] = "users"
    state = generate_state(handles, seed=6)
    names = {u["username"]: u["name"] for u in state["users"]}
    linked = [m for m in state["members"] if m["user_id"] and m["name"]]
    assert len(linked) >= 10
    for member in linked:
        assert member["name"] == names[member["user_id"]], member
        assert member["user_name"] is None or member["user_name"] in names, member  # still a handle


def test_a_follower_of_a_user_is_another_person():
    """SoundCloud's `/users/{user_id}/followers`: every follower of user 15 was named as user 15 ("the follower named
    Justin Parker for the user named Justin Parker", seed 94's readers). A follower keyed by its own `follower_id`
    reference is that person."""
    follower = {
        "follower_id": {"type": "integer"},
        "full_name": {"type": "string"},
        "user_id": {"type": "integer", "references": "users"},
    }
    spec = world(
        "music",
        20,
        users=table({"user_id": {"type": "integer"}, "full_name": {"type": "string"}}, "user_id"),
        followers=table(follower, "follower_id"),
    )
    state = generate_state(spec, seed=6)
    names = {u["user_id"]: u["full_name"] for u in state["users"]}
    linked = [f for f in state["followers"] if f["user_id"] and f["full_name"]]
    assert len(linked) >= 10
    assert sum(f["full_name"] == names[f["user_id"]] for f in linked) <= 1  # a chance likeness at most
    # a follow record that names its follower by reference is that follower
    own = copy.deepcopy(spec)
    own["tables"]["followers"] = table(
        {
            "follow_id": {"type": "integer"},
            "full_name": {"type": "string"},
            "follower_id": {"type": "integer", "references": "users"},
        },
        "follow_id",
    )
    state = generate_state(own, seed=6)
    linked = [f for f in state["followers"] if f["follower_id"] and f["full_name"]]
    assert len(linked) >= 10
    assert all(f["full_name"] == names[f["follower_id"]] for f in linked)


def test_an_address_object_names_one_place():
    """A lead's address held "latitude Mrs", "state pending" and Canada beside CA: an object's place fields are
    drawn from one place, each in its declared shape (a code where the field is one, a string coordinate)."""
    address = {
        "type": "object",
        "required": ["city", "state", "country", "latitude"],
        "properties": {
            "city": {"type": ["string", "null"]},
            "state": {"type": ["string", "null"], "description": "Name of state"},
            "country": {
                "type": ["string", "null"],
                "description": "country code according to ISO 3166-1 alpha-2.",
            },
            "latitude": {"type": ["string", "null"], "examples": ["40.759211"]},
        },
    }
    by_city = {p.city: p for p in PLACES}
    for seed in range(12):
        value = schema_value(
            address, random.Random(seed), dt.datetime(2025, 1, 1), name="address", context="leads"
        )
        place = by_city[value["city"]]
        assert value["state"] in (place.region, place.region_code), value
        assert value["country"] == place.country_code, value
        assert abs(float(value["latitude"]) - place.lat) < 0.1, value


def test_an_address_object_with_boolean_property_schemas_is_still_drawn():
    """JSON Schema allows `"city": true` (any value): the place pass keeps what was drawn, and never fails on it."""
    address = {
        "type": "object",
        "required": ["city", "country"],
        "properties": {"city": True, "country": True},
    }
    value = schema_value(address, random.Random(0), dt.datetime(2025, 1, 1), name="address", context="leads")
    assert set(value) == {"city", "country"}


def test_a_row_copies_who_it_is_for_from_the_row_it_references_but_keeps_its_own_state():
    """Blind readers (twice): the cycle of ian.thompson@example.com pointed at a subscription of fmcgee@example.com,
    and the gold answer was another customer's subscription. A field a row shares with the row it references, of
    who the row is for (an email, a name), holds that row's value; its own status stays its own."""
    ref = {"type": "string", "references": "subscriptions"}
    spec = {
        "name": "billing",
        "tools": [],
        "tables": {
            "subscriptions": table(
                {"subscription_id": S, "customer_email": S, "customer_name": S, "status": S}
            ),
            "cycles": table({"cycle_id": S, "subscription_id": ref, "customer_email": S, "status": S}),
        },
    }
    state = generate_state(spec, seed=1)
    subscriptions = {row["subscription_id"]: row for row in state["subscriptions"]}
    cycles = [row for row in state["cycles"] if row["customer_email"] and row["subscription_id"]]
    assert cycles
    for cycle in cycles:
        assert cycle["customer_email"] == subscriptions[cycle["subscription_id"]]["customer_email"], cycle
    statuses = [(c["status"], subscriptions[c["subscription_id"]]["status"]) for c in cycles]
    assert any(a != b for a, b in statuses), statuses  # each cycle's status is its own


def test_a_rows_amounts_add_up_and_its_moments_come_in_order():
    """Blind readers on the shop back office (the world closest to tau2's retail): "subtotal 279.91 + shipping
    441.51 != total 240.75", "refunded_amount 448.11 on a 177.99 payment", "on_hand 61, reserved 86", a delivery
    before its order was created. A row's amounts add up and its moments happen in order, before the clock."""
    N, INT = {"type": "number"}, {"type": "integer"}
    spec = {
        "name": "shop",
        "data": {"seed": 0, "now": "2025-06-01T12:00:00Z"},
        "tools": [],
        "tables": {
            "orders": table(
                {
                    "order_id": S,
                    "subtotal": N,
                    "shipping_cost": N,
                    "tax": N,
                    "discount": N,
                    "total": N,
                    "amount_paid": N,
                }
                | {"created_at": S, "paid_at": S, "shipped_at": S, "delivered_at": S}
            ),
            "payments": table({"payment_id": S, "amount": N, "refunded_amount": N}),
            "inventory": table(
                {"sku": S, "quantity_on_hand": INT, "quantity_reserved": INT, "quantity_available": INT}
            ),
        },
    }
    state = generate_state(spec, seed=0)
    moments = ("created_at", "paid_at", "shipped_at", "delivered_at")
    for order in state["orders"]:
        parts = [order[c] for c in ("subtotal", "shipping_cost", "tax")]
        if None not in parts:
            assert order["total"] == pytest.approx(sum(parts) - (order["discount"] or 0), abs=0.011), order
            assert order["shipping_cost"] <= 0.3 * order["subtotal"] + 15, order
        if order["amount_paid"] is not None and order["total"] is not None:
            assert order["amount_paid"] <= order["total"], order  # "amount_paid 331.78 on a total 198.62"
        said = [order[c] for c in moments if order[c]]
        assert said == sorted(said) and all(m <= "2025-06-01T12:00:00Z" for m in said), order
    assert all(p["refunded_amount"] <= p["amount"] for p in state["payments"] if None not in p.values())
    stock = [r for r in state["inventory"] if None not in r.values()]
    assert stock and all(r["quantity_reserved"] <= r["quantity_on_hand"] for r in stock)
    # "available 94 > on_hand 72" (a blind reader): what is available is what is on hand less what is reserved
    assert all(r["quantity_available"] == r["quantity_on_hand"] - r["quantity_reserved"] for r in stock), (
        stock
    )


def test_a_files_path_ends_in_its_name():
    """Blind readers: the file "notes_2024_78.pdf" at "/srv/app/backups/data_2025_44.log"."""
    spec = {"name": "drive", "tools": [], "tables": {"files": table({"file_id": S, "name": S, "path": S})}}
    files = [f for f in generate_state(spec, seed=3)["files"] if f["name"] and f["path"]]
    assert files and all(f["path"].endswith("/" + f["name"]) for f in files), files


def test_a_rows_address_object_is_in_the_rows_own_place():
    """Blind readers: the location "Austin West" stood at `"city": "Madison", "state": "WI"`; "Copenhagen Downtown"
    was in Seoul. A row's address object, declared by the API or not, names the place the row's name says."""
    address = {"type": "object", "properties": {"addressLine1": S, "city": S, "country": S, "postalCode": S}}
    spec = {
        "name": "bookings",
        "tables": {
            "locations": table({"location_id": S, "name": S, "address": {"type": "json", "nullable": True}})
        },
        "tools": [
            {
                "name": "create_location",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"name": S, "address": address}},
                "operation": {
                    "type": "insert",
                    "table": "locations",
                    "values": {"name": "name", "address": "address"},
                    "generate": {"location_id": "id"},
                },
            }
        ],
    }
    rows = generate_state(spec, seed=4)["locations"]
    placed = [r for r in rows if isinstance(r["address"], dict) and r["address"].get("city") and r["name"]]
    from envscale.env.data.vocabulary import PLACES

    cities = {p.city for p in PLACES}
    named = [r for r in placed if any(r["name"].startswith(city + " ") for city in cities)]
    assert named and all(r["name"].startswith(r["address"]["city"] + " ") for r in named), [
        (r["name"], r["address"]) for r in named
    ]


def test_a_stay_arrives_before_it_departs_and_a_flight_departs_before_it_arrives():
    """Blind readers (hetras hotel bookings): "departure dates fall before arrival dates"."""
    columns = {"id": S, "arrival_date": S, "departure_date": S}
    spec = {
        "name": "x",
        "tools": [],
        "tables": {"reservations": table(columns), "flights": table(dict(columns))},
    }
    state = generate_state(spec, seed=2)
    stays = [r for r in state["reservations"] if r["arrival_date"] and r["departure_date"]]
    flights = [r for r in state["flights"] if r["arrival_date"] and r["departure_date"]]
    assert stays and all(r["arrival_date"] <= r["departure_date"] for r in stays), stays
    assert flights and all(r["departure_date"] <= r["arrival_date"] for r in flights), flights


def test_an_open_row_holds_no_moment_of_its_end():
    """Blind readers: a ticket answered as "open" while it had a `completed_at`."""
    status = {"type": "string", "enum": ["open", "in progress", "completed"]}
    spec = {
        "name": "desk",
        "tools": [],
        "tables": {
            "tickets": table(
                {"id": S, "status": status, "completed_at": {"type": "string", "nullable": True}}
            )
        },
    }
    rows = generate_state(spec, seed=1)["tickets"]
    assert [r for r in rows if r["status"] == "completed" and r["completed_at"]], rows
    assert not [r for r in rows if r["status"] != "completed" and r["completed_at"]], rows


def test_a_task_still_to_do_or_a_confirmed_booking_holds_no_moment_of_its_end():
    """Seed 91's readers: Google Tasks' tasks "needsAction" with a completed date; a reservation "confirmed" with a
    cancellation date."""
    n = {"type": "string", "nullable": True}
    spec = {
        "name": "plans",
        "tools": [],
        "tables": {
            "tasks": table({"id": S, "status": {"type": "string", "enum": ["needsAction", "completed"]}, "completed": n}),
            "reservations": table({"id": S, "status": {"type": "string", "enum": ["confirmed", "cancelled"]}, "cancellation_date": n}),
        },
    }  # fmt: skip
    state = generate_state(spec, seed=1, rows={"tasks": 20, "reservations": 20})
    assert not [r for r in state["tasks"] if r["status"] == "needsAction" and r["completed"]], state["tasks"]
    assert [r for r in state["tasks"] if r["status"] == "completed" and r["completed"]], state["tasks"]
    booked = state["reservations"]
    assert not [r for r in booked if r["status"] == "confirmed" and r["cancellation_date"]], booked


def test_a_flag_named_after_a_status_says_whether_the_row_is_in_it():
    """Blind readers: an invitation with `"accepted": true` accepted again; its status and its flag disagreed."""
    status = {"type": "string", "enum": ["pending", "accepted", "declined"]}
    spec = {
        "name": "invites",
        "tools": [],
        "tables": {
            "invitations": table(
                {
                    "id": S,
                    "status": status,
                    "accepted": {"type": "boolean"},
                    "is_declined": {"type": "boolean"},
                }
            )
        },
    }
    rows = generate_state(spec, seed=3)["invitations"]
    assert {r["status"] for r in rows} >= {"pending", "accepted"}, rows
    assert all(r["accepted"] == (r["status"] == "accepted") for r in rows), rows
    assert all(r["is_declined"] == (r["status"] == "declined") for r in rows), rows


def test_a_number_declared_a_string_inside_an_object_is_a_number():
    """A blind sample's warehouse docks held `"cost": "sure"` and `"quantity": "in"`: a string field named like a
    number (an amount, a weight, a count) holds one, not a word of the dictionary."""
    import datetime as dt

    from envscale.env.data.schemas import schema_value

    names = ("cost", "weight", "quantity", "price")
    dock = {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": list(names)}
    for seed in range(10):
        made = schema_value(dock, random.Random(seed), dt.datetime(2025, 6, 1), name="warehouse_docks")
        for n in names:
            assert re.fullmatch(r"\d+(\.\d+)?", made[n]), made


def test_one_example_of_a_title_does_not_title_every_row():
    """Blind readers: every event of a world was titled "20th anniversary event", the one example of its API's
    schema. Titles and names come from the spec's examples only where it gives several."""
    S = {"type": "string"}
    example = {"type": "string", "examples": ["20th anniversary event"]}
    spec = {
        "name": "maps",
        "tables": {"events": table({"event_id": {"type": "integer"}, "title": S})},
        "tools": [
            {
                "name": "update_event",
                "description": "",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "title": example},
                    "required": ["id"],
                },
                "operation": {
                    "type": "update",
                    "table": "events",
                    "key": {"event_id": "id"},
                    "set": {"title": "title"},
                },
            }
        ],
    }
    titles = [r["title"] for r in generate_state(spec, seed=1)["events"] if r["title"]]
    assert len(set(titles)) >= len(titles) - 2 and titles.count("20th anniversary event") <= 1, titles


def test_an_address_objects_street_line_and_country_code_are_of_its_city():
    """Blind readers: a partner's address `{"address": "9331 Smith Avenue, Minneapolis, MN 11991", "city": "Dubai",
    "country_code": "TJ"}`: the street line is a street of the object's city, and an enum of country codes gives
    the city's own where it has it."""
    codes = ["AE", "TJ", "US", "DE", "FR", "GB", "JP", "IN", "BR", "CA", "AU", "MX", "ES", "IT", "NL", "PL"]
    shape = {
        "type": "object",
        "properties": {
            "address": {"type": "string"},
            "city": {"type": "string"},
            "country_code": {"type": "string", "enum": codes},
        },
        "required": ["address", "city", "country_code"],
    }
    from envscale.env.data.vocabulary import PLACES

    by_city = {p.city: p for p in PLACES}
    for seed in range(20):
        made = schema_value(shape, random.Random(seed), dt.datetime(2025, 6, 1), name="address")
        assert "," not in made["address"], made
        place = by_city[made["city"]]
        if place.country_code in codes:
            assert made["country_code"] == place.country_code, made
    # a city in California, with the US missing from the enum: its state's code does not pick the country (`CA` is
    # Canada's); the code stays as drawn
    la = next(p for p in PLACES if p.city == "Los Angeles")
    shape["properties"]["country_code"]["enum"] = ["CA", "MX", "DE"]
    drawn = [
        schema_value(shape, random.Random(seed), dt.datetime(2025, 6, 1), name="address", place=la)[
            "country_code"
        ]
        for seed in range(12)
    ]
    assert set(drawn) != {"CA"}, drawn


def test_a_gift_card_expires_after_it_is_issued():
    """Blind readers: "gift cards expire before they are issued" (`issue_date` and `expiration_date`, `created_at`
    and `expires_at` drawn apart): a pair out of order is put in order."""
    from envscale.env.data.generate import _order_pairs

    S = {"type": "string"}
    tspec = table({"id": S, "issue_date": S, "expiration_date": S, "created_at": S, "expires_at": S})
    columns = {
        "id": ["g1"],
        "issue_date": ["2025-06-01"],
        "expiration_date": ["2024-01-01"],
        "created_at": ["2025-06-01T10:00:00Z"],
        "expires_at": ["2024-06-01T10:00:00Z"],
    }
    _order_pairs(tspec, columns, 1, "gift_cards")
    assert columns["issue_date"][0] < columns["expiration_date"][0], columns
    assert columns["created_at"][0] < columns["expires_at"][0], columns


def test_a_things_plain_person_fields_are_its_one_persons():
    """Blind readers: a meeting of organizer Zoe Morales with `first_name` Monica and `email` monica.chen@...: a
    meeting has no name of its own, so its plain person fields are its organizer's. A person's own name stays theirs."""
    S = {"type": "string"}
    spec = world(
        "meetings",
        12,
        organizers=table({"organizer_key": {"type": "integer"}, "first_name": S, "email": S}),
        meetings=table(
            {
                "meeting_id": {"type": "integer"},
                "organizer_key": {"type": "integer", "references": "organizers"},
                "first_name": S,
                "email": S,
            }
        ),
        attendees=table(
            {
                "attendee_id": {"type": "integer"},
                "organizer_key": {"type": "integer", "references": "organizers"},
                "first_name": S,
            }
        ),
    )
    state = generate_state(spec, seed=1)
    by_key = {o["organizer_key"]: o for o in state["organizers"]}
    for m in state["meetings"]:
        o = by_key[m["organizer_key"]]
        assert m["first_name"] in (None, o["first_name"]) and m["email"] in (None, o["email"]), (m, o)
    names = [(a["first_name"], by_key[a["organizer_key"]]["first_name"]) for a in state["attendees"]]
    assert any(mine != theirs for mine, theirs in names if mine), names  # an attendee keeps their own name


def test_a_reference_named_after_an_amount_is_never_the_amount():
    """Ecwid's order has a `customer_tax_id` (a reference, to `customer_taxes`) beside its `tax`: making the amounts
    add up set the reference to the tax left over (0), a row no table holds, and the whole API was rejected."""
    N, INT = {"type": "number"}, {"type": "integer"}
    ref = {"type": "integer", "nullable": True, "references": "customer_taxes"}
    spec = {
        "name": "shop",
        "data": {"seed": 0, "now": "2025-06-01T12:00:00Z"},
        "tools": [],
        "tables": {
            "customer_taxes": table({"customer_tax_id": INT, "name": S}),
            "orders": table(
                {
                    "order_id": S,
                    "customer_tax_id": ref,
                    "subtotal": N,
                    "tax": N,
                    "shipping_cost": N,
                    "total": N,
                }
            ),
        },
    }
    state = generate_state(spec, seed=0)  # raises on a reference to no row
    taxes = {row["customer_tax_id"] for row in state["customer_taxes"]}
    assert all(o["customer_tax_id"] in taxes for o in state["orders"] if o["customer_tax_id"] is not None)
    whole = [
        o for o in state["orders"] if None not in (o["subtotal"], o["tax"], o["shipping_cost"], o["total"])
    ]
    assert whole
    for o in whole:
        assert o["total"] == pytest.approx(o["subtotal"] + o["tax"] + o["shipping_cost"], abs=0.011), o


def test_two_states_of_one_row_over_the_same_values_agree():
    """A car's `door_status` "locked" beside its `lock_status` "unlocked" (blind readers): two states of one row
    that share their values say one thing; a status over other values (`engine_state`) keeps its own."""
    locks = {"type": "string", "enum": ["locked", "unlocked"]}
    spec = {
        "name": "car",
        "data": {"seed": 0, "now": "2025-06-01T12:00:00Z"},
        "tools": [],
        "tables": {
            "vehicles": table(
                {
                    "vehicle_id": S,
                    "door_status": locks,
                    "lock_status": {"type": "string", "enum": ["LOCKED", "UNLOCKED", "JAMMED"]},
                    "engine_state": {"type": "string", "enum": ["running", "stopped"]},
                }
            )
        },
    }
    rows = [r for r in generate_state(spec, seed=3)["vehicles"] if r["door_status"] and r["lock_status"]]
    assert rows and all(r["door_status"].upper() == r["lock_status"] for r in rows), rows
    assert {r["engine_state"] for r in rows} - {None} == {"running", "stopped"}


def test_values_a_description_lists_in_html_are_the_values():
    """eBay lists an ad's statuses as `Valid Values: <ul><li><code>PAUSED</code></li>...`: the data said
    "li><li><code>PAUSED<" (blind readers); the values are PAUSED, RUNNING and ENDED."""
    text = "The status. Valid Values: <ul><li><code>PAUSED</code></li><li><code>RUNNING</code></li><li><code>ENDED</code></li></ul>"
    values = named_values({"type": "string", "description": text})
    assert set(values) == {"PAUSED", "RUNNING", "ENDED"}, values


def test_a_services_account_is_named_as_a_business_and_a_banks_as_an_account():
    """Blind readers found a SaaS world's accounts named "Petty Cash" and "Visa Platinum": an `accounts` table
    with no balance, IBAN or account number is a service's customer, named as a business; a bank's keeps its
    account names."""
    from envscale.env.data.labels import LABELS

    bank_names = {t for t in LABELS["account"] if "{" not in t}
    spec = world(
        "mixed",
        16,
        accounts=table(
            {"id": {"type": "string"}, "name": {"type": "string"}, "plan": {"type": "string"}}, "id"
        ),
    )
    saas = [r["name"] for r in generate_state(spec, seed=2)["accounts"] if r["name"]]
    assert len(saas) >= 10 and not bank_names & set(saas), saas
    spec = world(
        "bank",
        16,
        accounts=table(
            {"id": {"type": "string"}, "name": {"type": "string"}, "balance": {"type": "number"}}, "id"
        ),
    )
    banked = [r["name"] for r in generate_state(spec, seed=2)["accounts"] if r["name"]]
    assert len(bank_names & set(banked)) >= 5, banked


def test_a_class_people_take_is_not_a_class_of_a_program():
    """A school's classes were named "TreeNode" and "LinkedList": a class is a programming class only where its
    texts say so."""
    school = world(
        "school",
        12,
        classes=table(
            {"id": {"type": "string"}, "name": {"type": "string"}, "teacher": {"type": "string"}}, "id"
        ),
    )
    names = [r["name"] for r in generate_state(school, seed=1)["classes"] if r["name"]]
    code = {"TreeNode", "LinkedList", "UserService", "HttpClient", "Node"}
    assert len(names) >= 8 and not code & set(names), names
    assert not [n for n in names if re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", n)], names


def test_a_currency_format_is_a_money_pattern():
    """An account's `currency_format` read "xml": a format of money is how an amount is written."""
    spec = world(
        "shop", 10, settings=table({"id": {"type": "string"}, "currency_format": {"type": "string"}}, "id")
    )
    values = [r["currency_format"] for r in generate_state(spec, seed=0)["settings"] if r["currency_format"]]
    assert values and all("0" in v for v in values), values


def test_how_a_value_is_written_is_not_a_value():
    """VictorOps describes an incident's service as "The service involved in the incident (if any) Multiple
    values can be separated with commas.": a blind sample's incidents had the service (and the phase)
    "separated with commas". What "can be" says of writing or using a value is no value; what it lists is."""
    service = {
        "type": "string",
        "description": "The service involved (if any) Multiple values can be separated with commas.",
    }
    assert named_values(service) == ()
    phase = {
        "type": "string",
        "description": 'The current phase "resolved", "triggered" or "acknowledged". Multiple values can be separated with commas.',
    }
    assert set(named_values(phase)) == {"resolved", "triggered", "acknowledged"}
    listed = {"type": "string", "description": "The order's status can be shipped, pending or cancelled."}
    assert set(named_values(listed)) == {"shipped", "pending", "cancelled"}


def test_a_name_of_the_table_a_reference_reaches_is_that_rows_name():
    """AppVeyor's deployment has `deployment_environment_id` (-> environments) and `environment_name`: the
    reference's role (`deployment_environment`) is not the name's (`environment`), but the table it reaches is
    named so. Drawn alone, a blind sample's deployment of the environment "Legal Environment" led to the
    environment named "Local"."""
    spec = {
        "name": "ci",
        "spec_version": "1.1",
        "tables": {
            "environments": {
                "primary_key": "deployment_environment_id",
                "columns": {"deployment_environment_id": {"type": "integer"}, "name": {"type": "string"}},
            },
            "deployments": {
                "primary_key": "deployment_id",
                "columns": {
                    "deployment_id": {"type": "integer"},
                    "deployment_environment_id": {"type": "integer", "references": "environments"},
                    "environment_name": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"environments": 8, "deployments": 20}},
        "tools": [],
    }
    state = generate_state(spec, seed=0)
    names = {e["deployment_environment_id"]: e["name"] for e in state["environments"]}
    rows = [d for d in state["deployments"] if d["environment_name"] is not None]
    assert len(rows) >= 10 and all(
        d["environment_name"] == names[d["deployment_environment_id"]] for d in rows
    )


def test_a_condition_is_the_kind_its_row_is_about():
    """Ecwid's `products.google_item_condition` ("Google Item Condition Status") was "asthma" in a blind sample: a
    product's condition is new or used, the weather's sunny or rain, a patient's a diagnosis."""

    def conditions(table, column):
        spec = _named_table_spec(table, 30, column)
        return {r[column] for r in generate_state(spec, seed=1)[table]} - {None}

    assert conditions("products", "google_item_condition") <= {
        "new",
        "used",
        "refurbished",
        "like new",
        "good",
        "fair",
        "poor",
    }
    assert "asthma" not in conditions("forecasts", "condition") and "used" not in conditions(
        "forecasts", "condition"
    )
    assert not conditions("patients", "condition") & {"sunny", "used", "refurbished"}


def test_a_field_that_takes_a_file_of_a_stated_extension_holds_such_a_file_name():
    """elmah.io's source map upload takes "The minified JavaScript file. Only files with an extension of .js ...":
    a blind sample's minified JavaScript was "Kept up to date by the Finance team." and its source map "web"."""
    spec = _named_table_spec("sourcemaps", 12, "minified_java_script")
    columns = spec["tables"]["sourcemaps"]["columns"]
    columns["minified_java_script"]["description"] = (
        "The minified JavaScript file. Only files with an extension of .js and content type of text/javascript "
        "will be accepted."
    )
    columns["source_map"] = {
        "type": "string",
        "description": "The source map file. Only files with an extension of .map will be accepted.",
    }
    rows = generate_state(spec, seed=2)["sourcemaps"]
    assert all(r["minified_java_script"].endswith(".js") for r in rows if r["minified_java_script"]), rows
    assert all(r["source_map"].endswith(".map") for r in rows if r["source_map"]), rows
    assert sum(bool(r["source_map"]) for r in rows) >= 6


def test_a_rows_grandparent_is_its_parents():
    """A blind sample's comment on spot 11 (on map 20) said map 3: a row that names a parent and the parent's own
    parent names the parent's."""
    spec = {
        "name": "maps",
        "spec_version": "1.1",
        "tables": {
            "maps": {
                "primary_key": "map_id",
                "columns": {"map_id": {"type": "integer"}, "title": {"type": "string"}},
            },
            "spots": {
                "primary_key": "spot_id",
                "columns": {
                    "spot_id": {"type": "integer"},
                    "map_id": {"type": "integer", "references": "maps"},
                    "title": {"type": "string"},
                },
            },
            "comments": {
                "primary_key": "comment_id",
                "columns": {
                    "comment_id": {"type": "integer"},
                    "spot_id": {"type": "integer", "references": "spots"},
                    "map_id": {"type": "integer", "references": "maps"},
                    "body": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"maps": 6, "spots": 12, "comments": 30}},
        "tools": [],
    }
    # in a unique set the value stays: realigned, two comments could name one (spot, map) pair
    unique = copy.deepcopy(spec)
    unique["tables"]["comments"]["unique"] = [["spot_id", "map_id"]]
    rows = generate_state(unique, seed=3)["comments"]
    pairs = [
        (c["spot_id"], c["map_id"]) for c in rows if c["spot_id"] is not None and c["map_id"] is not None
    ]
    assert len(pairs) == len(set(pairs))
    state = generate_state(spec, seed=3)
    map_of = {s["spot_id"]: s["map_id"] for s in state["spots"]}
    both = [c for c in state["comments"] if c["spot_id"] is not None and c["map_id"] is not None]
    assert len(both) >= 10 and all(
        c["map_id"] == map_of[c["spot_id"]] for c in both if map_of[c["spot_id"]] is not None
    )


def test_a_persons_extension_is_dialled_and_a_files_is_a_type():
    """A blind reader found a customer's phone extension "mp3": a person's (or a phone's) extension is a few digits,
    a file's is its type."""
    customers = generate_state(_named_table_spec("customers", 12, "extension"), seed=0)["customers"]
    assert all(
        r["extension"].isdigit() and 3 <= len(r["extension"]) <= 4 for r in customers if r["extension"]
    )
    files = generate_state(_named_table_spec("files", 12, "extension"), seed=0)["files"]
    assert not any(r["extension"].isdigit() for r in files if r["extension"])


def test_a_note_on_one_thing_is_about_that_thing():
    """Orbit's member note read "The Crestline Noise-Cancelling Rain Jacket arrived on time and works as
    described." (a blind reader): a note attached to a member (`member_slug`) is a note about a member."""
    from envscale.env.data.values import row_texts

    spec = {
        "name": "community",
        "spec_version": "1.1",
        "tables": {
            "members": {
                "primary_key": "member_slug",
                "columns": {"member_slug": {"type": "string"}, "name": {"type": "string"}},
            },
            "notes": {
                "primary_key": "note_id",
                "columns": {
                    "note_id": {"type": "string"},
                    "member_slug": {"type": "string", "references": "members"},
                    "workspace_slug": {"type": "string"},
                    "body": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"members": 5, "notes": 12}},
        "tools": [],
    }
    templates = [
        re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(t)) + "$") for t in row_texts("members", "note")
    ]
    bodies = [r["body"] for r in generate_state(spec, seed=4)["notes"] if r["body"]]
    assert bodies and all(any(t.match(b) for t in templates) for b in bodies), bodies


def test_a_tasks_position_is_its_place_in_the_list_and_a_players_a_role():
    """Google Tasks' `position` read "midfielder" ("set its completed to 2024-09-07 and the position to midfielder",
    a blind reader): outside people's rows a position is a place in an order."""
    tasks = generate_state(_named_table_spec("tasks", 12, "position"), seed=0)["tasks"]
    assert all(r["position"].isdigit() for r in tasks if r["position"]), tasks
    players = generate_state(_named_table_spec("players", 12, "position"), seed=0)["players"]
    assert not any(r["position"].isdigit() for r in players if r["position"])


def test_a_currencys_row_is_one_currency():
    """Avaza's currencies read "NZD ... name CHF, symbol MSFT, decimal_places 72" (a blind reader): a currency's
    name, symbol and decimal places are its code's."""
    spec = {
        "name": "money",
        "spec_version": "1.1",
        "tables": {
            "currencies": {
                "primary_key": "currency_id",
                "columns": {
                    "currency_id": {"type": "string"},
                    "currency_code": {"type": "string"},
                    "name": {"type": "string"},
                    "symbol": {"type": "string"},
                    "decimal_places": {"type": "integer"},
                },
            }
        },
        "data": {"rows": {"currencies": 10}},
        "tools": [],
    }
    rows = generate_state(spec, seed=1)["currencies"]
    names = {
        "USD": "US Dollar",
        "EUR": "Euro",
        "GBP": "Pound Sterling",
        "JPY": "Japanese Yen",
        "CHF": "Swiss Franc",
    }
    for row in rows:
        if row["currency_code"] in names and row["name"] is not None:
            assert row["name"] == names[row["currency_code"]], row
        assert row["decimal_places"] is None or row["decimal_places"] in (0, 2, 3), row
        assert row["symbol"] is None or row["symbol"] not in ("MSFT", "AAPL", "GOOG"), row
    assert sum(row["currency_code"] in names and row["name"] is not None for row in rows) >= 2, rows


def test_a_rows_date_is_the_day_it_starts():
    """GoToMeeting's meeting "whose date is 2024-08-20" started on 2025-07-02 (a blind reader): a row's plain
    `date` beside its start is the start's day."""
    spec = {
        "name": "meetings",
        "spec_version": "1.1",
        "tables": {
            "meetings": {
                "primary_key": "meeting_id",
                "columns": {
                    "meeting_id": {"type": "string"},
                    "date": {"type": "string"},
                    "start_time": {"type": "string"},
                    "subject": {"type": "string"},
                },
            }
        },
        "data": {"rows": {"meetings": 15}},
        "tools": [
            {
                "name": "create_meeting",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "starttime": {"type": "string", "format": "date-time"},
                        "subject": {"type": "string"},
                    },
                    "required": ["starttime"],
                },
                "operation": {
                    "type": "insert",
                    "table": "meetings",
                    "values": {"start_time": "starttime", "subject": "subject"},
                    "generate": {"meeting_id": "id"},
                },
            }
        ],
    }
    rows = [r for r in generate_state(spec, seed=2)["meetings"] if r["date"] and r["start_time"]]
    assert len(rows) >= 8 and all(r["start_time"].startswith(r["date"][:10]) for r in rows), rows


def test_a_step_is_a_whole_number():
    """VictorOps' escalation step read 7.33 ("The step is 7.33", a blind reader): a step of a sequence is whole."""
    spec = _named_table_spec("policies", 12, "step")
    spec["tables"]["policies"]["columns"]["step"] = {"type": "number"}
    rows = generate_state(spec, seed=0)["policies"]
    steps = [r["step"] for r in rows if r["step"] is not None]
    assert steps and all(float(s).is_integer() and 1 <= s <= 8 for s in steps), steps


def test_a_tracks_markets_are_countries():
    """Spotify's `available_markets` read ["Uptown Funk"] (a blind reader): a market is a country's code."""
    spec = _named_table_spec("tracks", 8, "available_markets")
    spec["tables"]["tracks"]["columns"]["available_markets"] = {"type": "json"}
    rows = generate_state(spec, seed=0)["tracks"]
    markets = [m for r in rows if isinstance(r["available_markets"], list) for m in r["available_markets"]]
    assert markets and all(isinstance(m, str) and len(m) <= 3 and m.isupper() for m in markets), markets


def test_when_a_thing_was_last_updated_is_a_moment():
    """VictorOps' `password_last_updated` held passwords (a blind reader): a field named after what happened to a
    thing is when it happened."""
    assert column_meaning("users", "password_last_updated", {"type": "string"}).startswith("datetime")
    assert column_meaning("users", "last_updated", {"type": "string"}).startswith("datetime")
    assert column_meaning("users", "password", {"type": "string"}) == "secret:password"


def test_an_id_inside_a_json_value_names_a_row_that_exists():
    """The shop's order lines named products that do not exist ("order lines cite products that don't exist",
    blind readers): a `product_id` inside an order's `lines` is a product's key."""
    line = {
        "type": "object",
        "properties": {"product_id": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
        "required": ["product_id", "quantity"],
    }
    spec = {
        "name": "shop",
        "spec_version": "1.1",
        "tables": {
            "products": {
                "primary_key": "product_id",
                "columns": {"product_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "orders": {
                "primary_key": "order_id",
                "columns": {"order_id": {"type": "string"}, "lines": {"type": "json"}},
            },
        },
        "data": {"rows": {"products": 6, "orders": 12}},
        "tools": [
            {
                "name": "create_order",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"lines": {"type": "array", "items": line, "minItems": 1}},
                    "required": ["lines"],
                },
                "operation": {
                    "type": "insert",
                    "table": "orders",
                    "values": {"lines": "lines"},
                    "generate": {"order_id": "id"},
                },
            }
        ],
    }
    state = generate_state(spec, seed=4)
    products = {p["product_id"] for p in state["products"]}
    named = [
        item["product_id"] for o in state["orders"] if isinstance(o["lines"], list) for item in o["lines"]
    ]
    assert len(named) >= 6 and set(named) <= products, (named, products)


def test_a_machines_model_is_a_product_and_an_ai_calls_a_language_model():
    """An EV charge station's model read "Qwen/Qwen2.5-7B-Instruct" (a blind reader): a vehicle's model is a car's,
    a station's or a device's a product's; a completion's is a language model."""
    s = {"type": "string"}
    assert column_meaning("vehicles", "model", s) == "lex:car_model"
    assert column_meaning("charge_stations", "model", s) == "lex:device_model"
    assert column_meaning("completions", "model", s) == "lex:ml_model"
    assert column_meaning("models", "name", s) == "lex:ml_model"


def test_an_organizations_own_name_is_never_its_accounts():
    """eDRV's organizations were named "Tax Reserve" and "Mortgage" (a blind reader): their `name` was copied from
    the account their `stripe_connected_account_id` references. A row's own company name is its own."""
    spec = {
        "name": "charging",
        "spec_version": "1.1",
        "tables": {
            "accounts": {
                "primary_key": "account_id",
                "columns": {
                    "account_id": {"type": "string"},
                    "name": {"type": "string"},
                    "email": {"type": "string"},
                },
            },
            "organizations": {
                "primary_key": "organization_id",
                "columns": {
                    "organization_id": {"type": "string"},
                    "account_id": {"type": "string", "references": "accounts"},
                    "name": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"accounts": 6, "organizations": 10}},
        "tools": [],
    }
    state = generate_state(spec, seed=0)
    accounts = {a["name"] for a in state["accounts"]}
    names = [o["name"] for o in state["organizations"] if o["name"]]
    assert names and not set(names) & accounts, (names, accounts)


def test_one_persons_name_email_and_username_in_a_row_agree():
    """Blind readers of seed 84: lead Cathy Michael had email wendy.jones@..., and a Billbee address of Larry Powell
    carried his customer's email (copied from the customer, the name drawn alone). In a row, a person's email and
    username are made from their name; an email copied from the referenced row brings that row's name with it."""
    ref = {"type": "string", "references": "customers"}
    spec = {
        "name": "shop",
        "tools": [],
        "tables": {
            "customers": table({"customer_id": S, "name": S, "email": S}),
            "addresses": table(
                {"address_id": S, "customer_id": ref, "first_name": S, "last_name": S, "email": S, "city": S}
            ),
            "leads": table(
                {
                    "lead_id": S,
                    "first_name": S,
                    "last_name": S,
                    "email": S,
                    "username": S,
                    "emails": {"type": "json"},  # CRM's leads: [{"email": ..., "type": "work"}]
                }
            ),
        },
    }
    state = generate_state(spec, seed=3, rows={"customers": 12, "addresses": 20, "leads": 20})

    def mine(handle, first, last):
        local = re.sub(r"[^a-z]", "", handle.split("@")[0].lower())
        return first.lower()[:4] in local or last.lower()[:4] in local

    customers = {row["customer_id"]: row for row in state["customers"]}
    addresses = [
        r
        for r in state["addresses"]
        if r["customer_id"] and r["email"] and r["first_name"] and r["last_name"]
    ]
    assert addresses
    for row in addresses:
        customer = customers[row["customer_id"]]
        assert row["email"] == customer["email"], row
        assert f"{row['first_name']} {row['last_name']}" == customer["name"], (row, customer)
    leads = [r for r in state["leads"] if r["email"] and r["first_name"] and r["last_name"]]
    assert leads
    for row in leads:
        assert mine(row["email"], row["first_name"], row["last_name"]), row
        if row["username"]:
            assert mine(row["username"], row["first_name"], row["last_name"]), row
        listed = re.findall(r"[\w.+-]+@[\w.-]+", json.dumps(row["emails"]))
        assert all(mine(e, row["first_name"], row["last_name"]) for e in listed), row
    assert any(re.findall(r"@", json.dumps(r["emails"])) for r in leads)


def test_a_rows_display_name_is_its_name():
    """Blind readers of seed 84: a conversation named "Billing question from Gina" had the display name "Booking
    change for David"."""
    s = {"type": "string", "nullable": True}
    spec = {
        "name": "chat",
        "tools": [],
        "tables": {"conversations": table({"conversation_id": S, "name": s, "display_name": s})},
    }
    rows = generate_state(spec, seed=2, rows={"conversations": 15})["conversations"]
    both = [r for r in rows if r["name"] and r["display_name"]]
    assert both and all(r["display_name"] == r["name"] for r in both), rows


def test_a_meeting_ends_hours_after_it_starts():
    """Blind readers of seed 84: GoToMeeting's meetings ran from 2025-06-12 to 2025-08-24. A meeting (a session, an
    appointment) ends a half hour to four hours after it starts."""
    s = {"type": "string", "nullable": True}
    spec = {
        "name": "meetings",
        "tools": [],
        "tables": {"meetings": table({"meeting_id": S, "subject": s, "starts_at": s, "ends_at": s})},
    }
    rows = generate_state(spec, seed=4, rows={"meetings": 20})["meetings"]
    pairs = [(r["starts_at"], r["ends_at"]) for r in rows if r["starts_at"] and r["ends_at"]]
    assert pairs
    for start, end in pairs:
        a, b = (dt.datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (start, end))
        assert dt.timedelta(minutes=30) <= b - a <= dt.timedelta(hours=4), (start, end)


def test_prose_about_a_subject_never_opens_with_its_quoted_name():
    """Blind readers of seed 84: a request set a description to '"Monthly Department", set up by Angela Sanford in
    April.', quotes in quotes. The subject stands inside the sentence, never first."""
    from envscale.env.data.values import about_subject

    for table in ("tickets", "messages", "meetings", "projects", "departments"):
        for seed in range(30):
            text = about_subject("Monthly Department", table, random.Random(seed))
            assert '"Monthly Department"' in text and not text.startswith('"'), text


def test_a_person_held_as_an_object_is_one_person_and_in_their_own_row_the_rows():
    """Seed 85: AppVeyor's user Kristopher Schneider had a nested `user` {"name": "Krystal Ramsey", "email":
    "kramsey@example.com"}. A person's object names one person, and in a person's own row it is that row's."""
    s = {"type": "string", "nullable": True}
    spec = {
        "name": "ci",
        "tools": [
            {
                "name": "add_user",
                "description": "Add a user.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {"user": {"type": "object", "properties": {
                    "name": {"type": "string"}, "email": {"type": "string"}}}}},
                "operation": {"type": "insert", "table": "users", "values": {"user": "user"}, "generate": {"user_id": "id"}},
            }
        ],
        "tables": {"users": table({"user_id": S, "full_name": s, "email": s, "user": {"type": "json", "nullable": True}})},
    }  # fmt: skip
    rows = generate_state(spec, seed=5, rows={"users": 12})["users"]
    nested = [r for r in rows if isinstance(r["user"], dict) and r["full_name"] and r["email"]]
    assert nested, rows
    for row in nested:
        assert row["user"].get("email", row["email"]) == row["email"], row
        assert row["user"].get("name", row["full_name"]) == row["full_name"], row
    assert any("name" in r["user"] for r in nested) and any("email" in r["user"] for r in nested)


def test_a_todo_says_what_to_do_and_a_poll_asks():
    """Seeds 85 and 86: a todo's content "Shared with the Finance team; questions to Brian.", poll and survey
    texts "Kept up to date by the ... team". A to-do's text is something to do; a poll's is a question."""
    s = {"type": "string", "nullable": True}
    spec = {
        "name": "t",
        "tools": [],
        "tables": {
            "todos": table({"todo_id": S, "content": s}),
            "polls": table({"poll_id": S, "title": s, "question": s}),
        },
    }
    state = generate_state(spec, seed=1, rows={"todos": 8, "polls": 8})
    contents = [r["content"] for r in state["todos"] if r["content"]]
    assert contents and not any(re.search(r"team|Reviewed by|Set up by", c) for c in contents), contents
    questions = [r["question"] for r in state["polls"] if r["question"]]
    assert questions and all(q.endswith("?") for q in questions), questions


def test_a_clock_time_range_ends_after_it_starts():
    """Seed 86: a timesheet whose end time was earlier than its start time. A start and end of clock times come in
    order, as dates do."""
    s = {"type": "string", "nullable": True}
    spec = {
        "name": "t",
        "tools": [],
        "tables": {"timesheets": table({"timesheet_id": S, "start_time": s, "end_time": s})},
    }
    rows = generate_state(spec, seed=1, rows={"timesheets": 30})["timesheets"]
    pairs = [(r["start_time"], r["end_time"]) for r in rows if r["start_time"] and r["end_time"]]
    assert pairs and all(re.fullmatch(r"\d\d:\d\d", a) for a, _ in pairs), pairs
    assert all(a <= b for a, b in pairs), pairs


def test_keys_of_other_rows_that_no_rule_ties_name_rows_that_exist():
    """Seed 91: Orbit's members sat in `workspace_slug`s no workspace had (every list by workspace came back
    empty), PocketSmith's transactions in a json `category_id` "cat_3401" beside categories keyed 1..20, and
    Vestorly's posts in `group_ids` of no group. A key of another table's rows names rows that exist, in its
    own column's type and shape; an API's own key (`client_key`) is a secret and keeps what it was drawn."""
    s = {"type": "string", "nullable": True}
    spec = world(
        "orbit",
        8,
        workspaces=table({"workspace_id": S, "slug": s, "name": s}),
        categories=table({"category_id": {"type": "integer"}, "title": s}),
        groups=table({"group_id": S, "name": s}),
        clients=table({"client_id": S, "name": s}),
        members=table(
            {
                "member_id": S,
                "workspace_slug": s,
                "category_id": {"type": "json", "nullable": True},
                "group_ids": {"type": "json", "nullable": True},
                "client_key": s,
            }
        ),
    )
    state = generate_state(spec, seed=3)
    slugs = {r["slug"] for r in state["workspaces"]}
    categories = {r["category_id"] for r in state["categories"]}
    groups = {r["group_id"] for r in state["groups"]}
    clients = {r["client_id"] for r in state["clients"]}
    members = state["members"]
    assert all(m["workspace_slug"] in slugs for m in members if m["workspace_slug"] is not None), members
    assert all(m["category_id"] in categories for m in members if m["category_id"] is not None), members
    assert any(m["category_id"] is not None for m in members) and any(m["workspace_slug"] for m in members)
    lists = [m["group_ids"] for m in members if m["group_ids"]]
    assert lists and all(isinstance(g, list) and set(g) <= groups for g in lists), lists
    assert not any(m["client_key"] in clients for m in members), members


def test_a_row_named_by_a_made_up_label_beside_its_title_is_named_by_its_title():
    """Seed 91's readers: iQualify's offering "Finance Offering" had the topic "Introduction to Data Science (Winter
    2025)", so the data did not fit. A label beside the row's own title is that title; a person's name is not."""
    s = {"type": "string", "nullable": True}
    spec = world(
        "iqualify",
        10,
        offerings=table({"offering_id": S, "name": S, "topic": s}),
        contacts=table({"contact_id": S, "name": S, "title": s}),
    )
    state = generate_state(spec, seed=0)
    offerings = state["offerings"]
    assert all(r["name"] == r["topic"] for r in offerings if r["topic"]), offerings
    assert any(r["topic"] for r in offerings)
    assert not any(r["name"] == r["title"] for r in state["contacts"] if r["title"]), state["contacts"]


def test_an_invoices_sub_total_tax_discount_total_and_balance_agree():
    """Seed 91's readers: an invoice's total 254.23 beside a sub total 419.99, a discount 147.99 and a tax 182.83, and
    a balance of 17882.24. A `sub_total` is a subtotal; the total adds up from it and no more is owed than the total."""
    N = {"type": "number"}
    spec = world("books", 15, invoices=table({"invoice_id": S, "sub_total": N, "total_tax": N, "discount": N, "total": N, "balance": N}))  # fmt: skip
    for invoice in generate_state(spec, seed=0)["invoices"]:
        parts = (invoice["sub_total"], invoice["total_tax"], invoice["total"])
        if None in parts:
            continue
        assert invoice["total"] == pytest.approx(
            parts[0] + parts[1] - (invoice["discount"] or 0), abs=0.011
        ), invoice
        assert invoice["balance"] is None or invoice["balance"] <= invoice["total"], invoice


def test_a_team_at_work_is_no_sports_club_and_a_return_policy_is_a_return_policy():
    """Seed 92's readers: VictorOps' on-call teams were sports clubs, and eBay's return policies were named "Parental
    Leave Policy". A team with a league is a club, one without a team at work; a return policy says how returns go."""
    spec = world(
        "oncall",
        6,
        teams=table({"team_id": S, "name": S, "slug": S}),
        clubs=table({"club_id": S, "name": S, "league": S}),
        return_policies=table({"return_policy_id": S, "name": S}),
    )
    state = generate_state(spec, seed=0)
    assert all(re.search(r" (?:Team|On-Call|Squad|Crew)$", r["name"]) for r in state["teams"]), state["teams"]
    assert not any(re.search(r"Leave|Conduct|Password", r["name"]) for r in state["return_policies"])
    assert any(re.search(r"Return|Money Back|Exchange", r["name"]) for r in state["return_policies"])


def test_an_employees_names_status_and_life_are_their_own():
    """Seed 92's readers on an HRIS: display names that were job titles, a preferred name of another person, a
    marital status "inactive" beside the employment status, and death dates on active staff."""
    n = {"type": "string", "nullable": True}
    status = {"type": "string", "enum": ["active", "inactive", "pending"]}
    columns = {"employee_id": S, "first_name": S, "last_name": S, "display_name": n, "title": n}
    columns |= {"preferred_name": n, "marital_status": n, "employment_status": status, "deceased_on": n}
    rows = generate_state(world("hris", 30, employees=table(columns)), seed=0)["employees"]
    for row in rows:
        if row["first_name"] and row["last_name"]:
            assert row["display_name"] in (None, f"{row['first_name']} {row['last_name']}"), row
        assert row["preferred_name"] in (None, row["first_name"]), row
        assert row["marital_status"] in (None, "single", "married", "divorced", "widowed", "separated", "domestic partnership"), row  # fmt: skip
    assert sum(r["deceased_on"] is not None for r in rows) <= 3, [r["deceased_on"] for r in rows]


def test_seed_93s_rows_hold_together_in_money_and_time():
    """Seed 93's readers: invoices whose gross was below their net, a VAT of 79.6% and a restocking fee of 91.8%,
    a feature released in 1997 though made in 2025, a meeting dated after "now" already "completed". A net amount
    is at most its gross, a tax or a fee is a share of 0-25%, a release comes after the making, a row that took
    place started before now and one still ahead starts after it."""
    N, NOW = {"type": "number"}, "2025-06-01T12:00:00Z"
    S_ = {"type": "string"}
    spec = {
        "name": "back_office",
        "data": {
            "seed": 0,
            "now": NOW,
            "rows": {"invoices": 30, "taxes": 30, "features": 30, "meetings": 40},
        },
        "tools": [],
        "tables": {
            "invoices": table({"invoice_id": S_, "total_net": N, "total_gross": N}),
            "taxes": table({"tax_id": S_, "percentage": N, "restocking_fee_percentage": N}),
            "features": table({"feature_id": S_, "created_at": S_, "released_at": S_}),
            "meetings": table(
                {
                    "meeting_id": S_,
                    "status": {"type": "string", "enum": ["scheduled", "completed", "cancelled"]},
                    "start_time": {"type": "string", "generator": "datetime"},
                    "end_time": {"type": "string", "generator": "datetime"},
                }
            ),
        },
    }
    state = generate_state(spec, seed=0)
    pairs = [(r["total_net"], r["total_gross"]) for r in state["invoices"] if None not in r.values()]
    assert pairs and all(net <= gross for net, gross in pairs), pairs
    shares = [v for r in state["taxes"] for c, v in r.items() if c != "tax_id" and v is not None]
    assert shares and all(0 <= v <= 25 for v in shares), shares
    made = [(r["created_at"], r["released_at"]) for r in state["features"] if None not in r.values()]
    assert made and all(a <= b for a, b in made), made
    met = [r for r in state["meetings"] if r["start_time"] and r["status"] in ("scheduled", "completed")]
    assert {r["status"] for r in met} == {"scheduled", "completed"}
    for r in met:
        assert (r["start_time"] <= NOW) == (r["status"] == "completed"), r
        if r["end_time"]:
            assert r["start_time"] <= r["end_time"], r


def test_a_service_is_what_its_world_offers_never_a_streaming_brand_by_default():
    """Seed 93's readers: OnSched's bookable services and an SMS API's messaging services were named "HBO Max",
    "Amazon Prime Video", "auth". A service beside bookings and resources is what an appointment books, a
    messaging service none of those brands; a subscription's service may be one."""
    from envscale.env.data.vocabulary import LEXICONS

    spec = world(
        "scheduling",
        12,
        services=table(
            {
                "service_id": S,
                "name": S,
                "max_booking_limit": {"type": "integer"},
                "duration": {"type": "integer"},
            }
        ),
        messaging_services=table({"messaging_service_id": S, "friendly_name": S}),
        subscriptions=table({"subscription_id": S, "service": S}),
    )
    state = generate_state(spec, seed=0)
    brands = set(LEXICONS["streaming_service"])
    booked = {r["name"] for r in state["services"] if r["name"]}
    assert booked and booked <= set(LEXICONS["appointment_service"]), booked
    messaging = {r["friendly_name"] for r in state["messaging_services"] if r["friendly_name"]}
    assert messaging and not messaging & brands, messaging
    assert {r["service"] for r in state["subscriptions"] if r["service"]} <= brands


def test_a_country_s_code_is_the_iso_code_of_its_name():
    """Seed 93's readers: eBay's and OnSched's countries had codes "UK-1315" and "YE-2344" beside the name Nigeria.
    A country's code is its ISO code, of the country its row names; a currency's code is a currency."""
    from envscale.env.data.vocabulary import PLACES

    codes = {p.country: p.country_code for p in PLACES}
    spec = world(
        "geo",
        15,
        countries=table({"country_id": S, "code": S, "name": S}),
        currencies=table({"currency_id": S, "code": S}),
    )
    state = generate_state(spec, seed=0)
    rows = [r for r in state["countries"] if r["code"] and r["name"]]
    assert rows and all(re.fullmatch(r"[A-Z]{2}", r["code"]) for r in rows), rows
    assert all(codes[r["name"]] == r["code"] for r in rows), rows
    assert all(re.fullmatch(r"[A-Z]{3}", r["code"]) for r in state["currencies"] if r["code"])


def test_a_person_s_primary_or_work_email_is_their_own():
    """Seed 93's readers: "the primary email of Kristopher Evans is zacharyhughes11@example.com". A row's
    `primary_email` and `work_email` are its own person's, as its `email` is."""
    spec = world(
        "hris",
        12,
        employees=table(
            {"employee_id": S, "first_name": S, "last_name": S, "primary_email": S, "work_email": S}
        ),
    )
    rows = [r for r in generate_state(spec, seed=0)["employees"] if r["first_name"] and r["last_name"]]
    checked = 0
    for r in rows:
        for column in ("primary_email", "work_email"):
            if r[column]:
                local = r[column].split("@")[0].lower()
                assert r["first_name"].lower()[:3] in local or r["last_name"].lower()[:3] in local, r
                checked += 1
    assert checked >= 5


def test_an_attendee_leaves_after_joining():
    """Seed 93's readers: GoToMeeting's attendees "leave before they join"."""
    moment = {"type": "string", "generator": "datetime"}
    spec = world(
        "meetings", 20, attendees=table({"attendee_id": S, "join_time": moment, "leave_time": moment})
    )
    rows = [r for r in generate_state(spec, seed=0)["attendees"] if r["join_time"] and r["leave_time"]]
    assert len(rows) >= 5 and all(r["join_time"] <= r["leave_time"] for r in rows), rows


def test_a_flag_named_for_a_status_says_whether_the_row_is_in_it_spelled_apart():
    """Seed 93's readers: a task "In Progress" with `is_complete` true. A flag named after a status is true exactly
    where the status is it, `complete` for `Completed` too."""
    spec = world(
        "tasks",
        20,
        tasks=table(
            {
                "task_id": S,
                "status": {"type": "string", "enum": ["Not Started", "In Progress", "Completed"]},
                "is_complete": {"type": "boolean"},
            }
        ),
    )
    rows = [r for r in generate_state(spec, seed=0)["tasks"] if r["status"]]
    assert {r["status"] for r in rows} >= {"In Progress", "Completed"}
    assert all(r["is_complete"] == (r["status"] == "Completed") for r in rows), rows


def test_a_task_is_completed_or_due_after_it_starts():
    """Seed 93's readers: Avaza's task "completed before its start date"."""
    day = {"type": "string", "generator": "date"}
    spec = world(
        "todo", 20, tasks=table({"task_id": S, "date_start": day, "date_completed": day, "date_due": day})
    )
    rows = generate_state(spec, seed=0)["tasks"]
    for later in ("date_completed", "date_due"):
        pairs = [(r["date_start"], r[later]) for r in rows if r["date_start"] and r[later]]
        assert len(pairs) >= 5 and all(a <= b for a, b in pairs), pairs


def test_a_table_of_policies_keyed_as_return_policies_holds_return_policies():
    """Seed 93's readers, every reading: eBay's `policies` table, keyed by `return_policy_id`, held "Parental Leave
    Policy" and "Password Policy". Its rows are return policies, named as sellers name them."""
    from envscale.env.data.labels import LABELS

    spec = world("sell_account", 10, policies=table({"return_policy_id": S, "name": S, "marketplace_id": S}))
    names = {r["name"] for r in generate_state(spec, seed=0)["policies"] if r["name"]}
    assert len(names & set(LABELS["return policy"])) >= 4, names
    assert not names & set(LABELS["policy"]) and all(
        "Return" in n or n in LABELS["return policy"] for n in names
    ), names


def test_twenty_leave_types_and_marketplaces_are_named_as_such():
    """Seed 93's readers: "Tyler's Leave Type" (half of a table of twenty outran the ten names the kind had) and
    "Lagos Marketplace". Twenty rows of either are named as their users name them."""
    from envscale.env.data.labels import LABELS

    spec = world(
        "hr",
        20,
        leave_types=table({"leave_type_id": S, "name": S}),
        marketplaces=table({"marketplace_id": S, "name": S}),
    )
    state = generate_state(spec, seed=0)
    for t, kind in (("leave_types", "leave type"), ("marketplaces", "marketplace")):
        names = [r["name"] for r in state[t] if r["name"]]
        assert names and set(names) <= set(LABELS[kind]), (t, names)


def test_a_hotel_s_rooms_are_hotel_rooms_and_a_meeting_room_a_meeting_room():
    """Seed 93's readers: Impala's hotel rooms "Conference Room A" for 10 adults. Rooms beside adults and beds are a
    hotel's ("Junior Suite"); meeting rooms stay meeting rooms."""
    spec = world(
        "hotels",
        6,
        rooms=table({"room_id": S, "name": S, "max_adults": {"type": "integer"}}),
        meeting_rooms=table({"meeting_room_id": S, "name": S}),
    )
    state = generate_state(spec, seed=0)
    assert not any("Conference" in r["name"] or "Meeting" in r["name"] for r in state["rooms"] if r["name"])
    assert any("Room" in r["name"] for r in state["meeting_rooms"] if r["name"])
    assert not any("Suite" in r["name"] for r in state["meeting_rooms"] if r["name"])


def test_a_policy_beside_carriers_and_delivery_days_is_a_shipping_policy():
    """Seed 93's final readers: VTEX's shipping policies named "Parental Leave Policy". A policy beside a carrier and
    delivery days is a shipping policy; one with no such columns may still be any policy."""
    from envscale.env.data.labels import LABELS

    spec = world(
        "logistics", 8, policies=table({"policy_id": S, "name": S, "carrier_id": S, "delivery_days": S})
    )
    names = {r["name"] for r in generate_state(spec, seed=0)["policies"] if r["name"]}
    assert names and not names & set(LABELS["policy"]), names
    assert names & set(LABELS["shipping policy"]), names


def test_a_discount_is_a_discount_and_a_name_s_percentage_is_its_value():
    """Seed 93's final readers: a "Loyalty 5%" discount of 66.5%. A discount's percentage is 5-50, and a row named
    with a percentage holds that one."""
    spec = world("pos", 20, discounts=table({"discount_id": S, "name": S, "percentage": {"type": "number"}}))
    rows = [r for r in generate_state(spec, seed=0)["discounts"] if r["percentage"] is not None]
    assert rows and all(5 <= r["percentage"] <= 50 for r in rows if "%" not in (r["name"] or "")), rows
    named = [r for r in rows if r["name"] and re.search(r"\d+%", r["name"])]
    for r in named:
        assert float(re.search(r"(\d+(?:\.\d+)?)%", r["name"]).group(1)) == r["percentage"], r


def test_an_annual_plan_is_billed_yearly():
    """Seed 93's final readers: an "Annual Subscription" whose plan interval was monthly. A row named for a period
    is billed by it, in its column's own words (an enum's value, or `yearly` beside `monthly`)."""
    names = {"type": "string", "enum": ["Annual Subscription", "Monthly Plan", "Weekly Box", "Starter"]}
    spec = world(
        "billing",
        20,
        plans=table(
            {
                "plan_id": S,
                "name": names,
                "interval": {"type": "string", "enum": ["day", "week", "month", "year"]},
            }
        ),
        boxes=table(
            {
                "box_id": S,
                "title": names,
                "billing_frequency": {"type": "string", "enum": ["monthly", "yearly", "weekly"]},
            }
        ),
    )
    state = generate_state(spec, seed=0)
    said = {"Annual Subscription": "year", "Monthly Plan": "month", "Weekly Box": "week"}
    plans = [r for r in state["plans"] if r["name"] in said and r["interval"]]
    assert len(plans) >= 5 and all(r["interval"] == said[r["name"]] for r in plans), plans
    boxes = [r for r in state["boxes"] if r["title"] in said and r["billing_frequency"]]
    assert len(boxes) >= 5 and all(r["billing_frequency"].startswith(said[r["title"]][:4]) for r in boxes), (
        boxes
    )


def test_a_note_of_a_guest_in_a_notes_object_is_a_note():
    """Impala's booking `notes: {fromGuest, fromSeller}` held a person's name ("change the notes of the booking to from
    guest Brian Kelley", seed 93's and 94's readers): a field of a notes object is a note, whoever wrote it."""
    notes = {
        "type": "object",
        "properties": {
            "fromGuest": {
                "type": "string",
                "description": "Notes a guest has entered as they made the booking.",
            },
            "fromSeller": {"type": "string"},
        },
    }
    for seed in range(6):
        made = schema_value(
            notes, random.Random(seed), dt.datetime(2025, 6, 1), name="notes", context="bookings"
        )
        for text in made.values():
            assert len(text.split()) >= 4, made  # a sentence, never a name
    guest = {"type": "object", "properties": {"fromGuest": {"type": "string"}}}
    made = schema_value(guest, random.Random(0), dt.datetime(2025, 6, 1), name="booking", context="bookings")
    assert len(made["fromGuest"].split()) <= 3  # beside no note, the guest is a person


def test_stock_lines_are_told_apart_from_texts_a_person_writes():
    """The lines a row of no known kind holds are filler; a request that dictates one (seed 94's readers: a map's
    description 'Brenda Mooney set up "Wedding venues" in May.') reads as a generator's."""
    assert stock_text("Kept up to date by the IT team.")
    assert stock_text('Brenda Mooney set up "Wedding venues" in May.')
    assert stock_text('Everything about "Monthly Notification", shared with the Human Resources team.')
    assert not stock_text("The printer on the third floor is jammed again.")
    assert not stock_text("Kept up to date")
    assert not stock_text(42)


def test_a_person_is_never_the_one_the_api_gives_as_its_example():
    """Apideck's addresses give `contact_name` the example "Elon Musk": every third address of its customers and
    suppliers named him (seed 94's readers). A person is drawn; an example of another kind of value is still used."""
    address = {
        "type": "object",
        "properties": {
            "contact_name": {
                "type": "string",
                "description": "Name of the contact person",
                "examples": ["Elon Musk"],
            },
            "line1": {"type": "string", "examples": ["Main street 1"]},
        },
        "required": ["contact_name", "line1"],
    }
    made = [
        schema_value(address, random.Random(s), dt.datetime(2025, 6, 1), name="address") for s in range(30)
    ]
    assert not any(m["contact_name"] == "Elon Musk" for m in made)
    assert len({m["contact_name"] for m in made}) >= 20


def test_a_list_of_rates_or_counts_holds_numbers():
    """Seed 93's and 94's readers: a hotel's `rates` ["dog"], a product's `tax_rates` ["daughter", "such"], a payroll's
    `totals` ["sport"]: a list named for numbers holds numbers."""
    from envscale.env.data import column_value

    for table, column in (("room_types", "rates"), ("products", "tax_rates"), ("payrolls", "totals")):
        for seed in range(5):
            value = column_value(
                table, column, {"type": "json"}, random.Random(seed), dt.datetime(2025, 6, 1)
            )
            assert value and all(isinstance(v, int | float) for v in value), (table, column, value)
    tags = column_value("features", "tags", {"type": "json"}, random.Random(0), dt.datetime(2025, 6, 1))
    assert tags and all(isinstance(v, str) for v in tags)


def test_a_folders_name_is_a_name_and_its_path_a_path():
    """Seed 94's readers: "a folder named "/home/steven/backups" in Xero Files". A folder's name is what a file storage
    service shows ("Invoices 2024"); its path is still a path."""
    from envscale.env.data import column_value

    now = dt.datetime(2025, 6, 1)
    names = [column_value("folders", "name", {"type": "string"}, random.Random(s), now) for s in range(10)]
    assert not any("/" in n for n in names) and len(set(names)) >= 5, names
    paths = [column_value("folders", "path", {"type": "string"}, random.Random(s), now) for s in range(5)]
    assert all(p.startswith("/") for p in paths), paths


def test_an_object_under_the_rows_own_name_says_what_the_row_says():
    """Seed 94's readers: a YNAB transaction of 101 whose nested `transaction` was of 99 ("the answer 101 is one
    arbitrary pick"). The fields the row has hold the row's values in the object too."""
    spec = world(
        "budget",
        20,
        transactions=table(
            {
                "transaction_id": {"type": "string"},
                "amount": {"type": "number"},
                "memo": {"type": "string"},
                "transaction": {"type": "json"},
            },
            "transaction_id",
        ),
    )
    spec["tools"].append(
        {
            "name": "create_transaction",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "transaction": {
                        "type": "object",
                        "properties": {"amount": {"type": "number"}, "memo": {"type": "string"}},
                        "required": ["amount", "memo"],
                    }
                },
                "required": ["transaction"],
            },
            "operation": {
                "type": "insert",
                "table": "transactions",
                "values": {"transaction": "transaction"},
                "generate": {"transaction_id": "id"},
            },
        }
    )
    state = generate_state(spec, seed=3)
    compared = 0
    for row in state["transactions"]:
        nested = row["transaction"]
        for field in ("amount", "memo"):
            if isinstance(nested, dict) and field in nested and row[field] is not None:
                assert nested[field] == row[field], row
                compared += 1
    assert compared >= 10


@pytest.mark.parametrize(
    ("table", "column"),
    [
        ("roles", "name"),
        ("recipes", "title"),
        ("errors", "name"),
        ("opportunities", "title"),
        ("shares", "name"),
        ("notifications", "name"),
        ("webinars", "name"),
        ("tickets", "name"),
    ],
)
def test_a_common_kind_of_thing_is_named_as_its_users_name_it(table, column):
    """Seed 94's readers, both: "Lyon Role", "Lisbon Recipe", "Bangkok Error", "Sydney Opportunity", "Q2 2025 Share"
    read as a generator's placeholders. Roles, recipes, errors, deals, shares ... have names of their own kind,
    never a city, a team or a quarter before the kind's word."""
    from envscale.env.data import column_value

    kind = table[:-3] + "y" if table.endswith("ies") else table[:-1]
    names = [
        column_value(table, column, {"type": "string"}, random.Random(s), dt.datetime(2025, 6, 1))
        for s in range(8)
    ]
    assert not any(n.lower().endswith(f" {kind}") for n in names), names
    assert len(set(names)) >= 5, names


def test_two_references_a_write_sets_name_one_another():
    """Paylocity's `Add_local_tax(companyId, employeeId)` drew the company apart from the employee: every call named an
    employee of another company (78 of its tasks dropped as `references_disagree`). The employee's own company."""
    from envscale.env import Environment
    from envscale.materialize.verify import valid_call

    ref = {"type": "string"}
    spec = world(
        "payroll",
        12,
        companies=table({"company_id": ref, "name": {"type": "string"}}, "company_id"),
        employees=table(
            {
                "employee_id": ref,
                "name": {"type": "string"},
                "company_id": {**ref, "references": "companies"},
            },
            "employee_id",
        ),
        local_taxes=table(
            {
                "tax_code": ref,
                "company_id": {**ref, "references": "companies"},
                "employee_id": {**ref, "references": "employees"},
            },
            "tax_code",
        ),
    )
    add = {
        "name": "add_local_tax",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"companyId": ref, "employeeId": ref},
            "required": ["companyId", "employeeId"],
        },
        "operation": {
            "type": "insert",
            "table": "local_taxes",
            "values": {"company_id": "companyId", "employee_id": "employeeId"},
            "generate": {"tax_code": "id"},
        },
    }
    spec["tools"].append(add)
    with Environment(spec) as env:
        env.reset(seed=2)
        rows = env.dump()
        company_of = {e["employee_id"]: e["company_id"] for e in rows["employees"]}
        for seed in range(10):
            args, _ = valid_call(env, add, rows, random.Random(seed))
            assert company_of[args["employeeId"]] in (None, args["companyId"]), args


def test_a_text_a_call_dictates_is_never_a_stock_line():
    """Seed 94's readers: "add a memory with the text "Used for the Stockholm office."". A text a new row needs is
    one a person writes; beside other values an optional stock line stays, for the request to leave out."""
    from envscale.env import Environment
    from envscale.env.data import stock_text
    from envscale.materialize.verify import valid_call

    spec = world(
        "memories",
        10,
        memories=table({"memory_id": {"type": "string"}, "text": {"type": "string"}}, "memory_id"),
    )
    add = {
        "name": "add_memory",
        "kind": "write",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "operation": {
            "type": "insert",
            "table": "memories",
            "values": {"text": "text"},
            "generate": {"memory_id": "id"},
        },
    }
    spec["tools"].append(add)
    with Environment(spec) as env:
        env.reset(seed=1)
        rows = env.dump()
        assert any(stock_text(r["text"]) for r in rows["memories"])  # the world's filler is stock lines
        for seed in range(10):
            args, _ = valid_call(env, add, rows, random.Random(seed))
            assert not stock_text(args["text"]) and len(args["text"].split()) >= 4, args


def test_a_kinds_names_outlast_its_plain_names():
    """Seed 94's readers: OnSched's twenty appointments were eight of their kind ("Eye exam", "Haircut with Donna")
    and then "Engineering Appointment", "Christopher's Appointment". Once its plain names are spent, a kind's names
    with a person or a number in them go on."""
    spec = world(
        "bookings",
        20,
        appointments=table(
            {"appointment_id": {"type": "string"}, "name": {"type": "string"}}, "appointment_id"
        ),
    )
    names = [r["name"] for r in generate_state(spec, seed=4)["appointments"] if r["name"]]
    assert len(names) >= 15 and len(set(names)) == len(names), names
    assert not any(n.endswith("Appointment") for n in names), names


def test_an_events_start_says_when_in_its_own_time_zone():
    """Seed 94's readers: Google Calendar's events started at `{"timeZone": "fra1"}` ("events lack usable start and
    end times"). A `start` object holds its moment, and a time zone is a time zone, never a cloud zone."""
    start = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date"},
            "dateTime": {"type": "string", "format": "date-time"},
            "timeZone": {"type": "string", "description": "The time zone in which the time is specified."},
        },
    }
    for seed in range(10):
        made = schema_value(
            start, random.Random(seed), dt.datetime(2025, 6, 1), name="start", context="events"
        )
        assert "date" in made or "dateTime" in made, made
        assert "timeZone" not in made or "/" in made["timeZone"], made


def test_a_title_of_another_kind_is_a_title_of_that_kind():
    """Seed 94's readers: Vestorly's groups had a `newsletter_subject` "Book Club" (another group's name). A title
    qualified by a kind of thing is that thing's: a newsletter's subject ("Weekly Digest")."""
    from envscale.env.data import column_value
    from envscale.env.data.labels import LABELS

    now = dt.datetime(2025, 6, 1)
    subjects = [
        column_value("groups", "newsletter_subject", {"type": "string"}, random.Random(s), now)
        for s in range(8)
    ]
    groups = {n.split(" {")[0] for n in LABELS["group"]}
    assert not set(subjects) & groups, subjects


def test_a_memory_keeps_a_value_under_a_key_a_person_reads():
    """MemGPT's key-value memories: a task asked to "add a core memory with key 1c0694d1a18a8a6fafb6bee65adf71f4 and
    value Democrat". A memory's key is what it is about ("pet_name") and its value what that key keeps ("Biscuit")."""
    from envscale.env.data import column_meaning, kept_value

    string = {"type": "string"}
    assert column_meaning("memories", "key", string) == "lex:memory_key"
    assert column_meaning("memories", "value", string) == "lex:memory_value"
    assert column_meaning("api_keys", "key", string) == "secret:key"  # an API key is still a secret
    spec = world(
        "memory",
        12,
        memories=table({"memory_id": string, "key": string, "value": string}, "memory_id"),
    )
    rows = [r for r in generate_state(spec, seed=2)["memories"] if r["key"] and r["value"]]
    assert len(rows) >= 5 and all(r["value"] == kept_value(r["key"]) for r in rows), rows
