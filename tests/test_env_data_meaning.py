"""Values mean what their column's name says, for compound names, JSON objects, lists and tree keys
(envscale.env.data): what a person reading a task built on the data would check."""

import datetime as dt
import random
import re

import pytest

from envscale.env import generate_state
from envscale.env.data import column_meaning, column_value, filler_share, is_filler, schema_value

EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[a-z]{2,}$")
IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
ISO_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
MAC = re.compile(r"^[0-9A-F]{2}(?::[0-9A-F]{2}){5}$")
NOW = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)
S = {"type": "string"}
J = {"type": "json", "nullable": True}


def table(columns, primary_key=None):
    return {"primary_key": primary_key or next(iter(columns)), "columns": columns}


def update_tool(name, table_name, key, properties):
    """An update of `table_name` by `key` that sets the columns named like its other arguments."""
    return {
        "name": name,
        "kind": "write",
        "parameters": {"type": "object", "properties": {key: S, **properties}, "required": [key]},
        "operation": {
            "type": "update",
            "table": table_name,
            "key": {key: key},
            "set": {p: p for p in properties},
        },
    }


GROUP_DETAILS = {
    "type": "object",
    "description": "The details of the group.",
    "properties": {
        "name": {"type": "string", "description": "The new name of the group."},
        "description": {"type": "string", "description": "A brief summary of the purpose of the group."},
        "active": {"type": "boolean"},
    },
}
SPEC = {
    "name": "meanings",
    "data": {"seed": 0, "rows": {"contacts": 30, "users": 30, "notes": 30, "orgunits": 12, "categories": 12}},
    "tools": [
        update_tool("update_group", "groups", "group_id", {"group_details": GROUP_DETAILS}),
        update_tool("set_body", "notes", "note_id", {"body": {"type": "object"}}),
        update_tool(
            "buy", "carts", "cart_id", {"product_list": {"type": "array", "items": {"type": "string"}}}
        ),
    ],
    "tables": {
        "contacts": table(
            {
                "contact_id": S,
                "person_name": S,
                "email_address": S,
                "emailAddress": S,
                "admin_email": S,
                "contact_email": S,
                "phone_number": S,
                "ip_address": S,
                "mac_address": S,
                "web_address": S,
                "home_address": S,
                "zip_code": S,
            }
        ),
        "users": table({"user_id": S, "credentials": J, "address": J, "settings": J, "group_details": J}),
        "groups": table({"group_id": S, "group_details": J}),
        "notes": table({"note_id": S, "body": J, "content": J}),
        "geoshapes": table({"polygon_name": S, "geo_shape": J, "amount": J}),
        "carts": table({"cart_id": S, "product_list": J, "items": J}),
        "recipes": table({"recipe_id": S, "ingredients": J, "tags": J, "emails": J, "cities": J}),
        "orgunits": table({"orgunit_id": S, "name": S, "parent": {"type": "string", "nullable": True}}),
        "categories": table(
            {
                "category_id": {"type": "integer"},
                "parent_id": {"type": "integer"},
                "parent": {"type": "number"},
            }
        ),
    },
}


@pytest.fixture(scope="module")
def state():
    return generate_state(SPEC, seed=0)


def cells(state, table_name, column):
    return [row[column] for row in state[table_name] if row[column] is not None]


@pytest.mark.parametrize(
    ("column", "meaning"),
    [
        ("email_address", "email"),
        ("emailAddress", "email"),
        ("e_mail_address", "email"),
        ("admin_email", "email"),
        ("contact_email", "email"),
        ("ip_address", "ip"),
        ("ipAddress", "ip"),
        ("mac_address", "code:mac"),
        ("web_address", "url"),
        ("home_address", "address"),
        ("billing_address", "address"),
        ("phone_number", "phone"),
        ("mobileNumber", "phone"),
        ("zip_code", "zip"),
        ("base_currency_code", "currency"),
        ("cell_type", "lex:type"),  # a cell of biology, not a phone: a plain kind
    ],
)
def test_the_most_specific_meaning_of_a_compound_name_wins(column, meaning):
    assert column_meaning("contacts", column, S) == meaning


def test_addresses_of_a_mail_are_emails_and_of_a_shipment_postal():
    assert column_meaning("mails", "to_address", S) == "email"
    assert column_meaning("shipments", "to_address", S) == "address"


def test_compound_columns_hold_what_their_names_say(state):
    for column in ("email_address", "emailAddress", "admin_email", "contact_email"):
        assert all(EMAIL.match(v) for v in cells(state, "contacts", column)), column
    assert all(sum(ch.isdigit() for ch in v) >= 10 for v in cells(state, "contacts", "phone_number"))
    assert all(IPV4.match(v) for v in cells(state, "contacts", "ip_address"))
    assert all(MAC.match(v) for v in cells(state, "contacts", "mac_address"))
    assert all(v.startswith("https://") for v in cells(state, "contacts", "web_address"))
    assert all(
        "@" not in v and any(ch.isdigit() for ch in v) for v in cells(state, "contacts", "home_address")
    )


def test_json_objects_are_made_by_the_meaning_of_their_column(state):
    for address in cells(state, "users", "address"):
        assert {"street", "city", "postal_code", "country"} <= set(address)
        assert re.match(r"^\d+ \w", address["street"])
    for credentials in cells(state, "users", "credentials"):
        assert set(credentials) in ({"password"}, {"recovery_question"})
        inner = next(iter(credentials.values()))
        assert set(inner) in ({"value"}, {"question", "answer"})
    for shape in cells(state, "geoshapes", "geo_shape"):
        assert shape["type"] == "Polygon" and len(shape["coordinates"][0]) == 5
    for amount in cells(state, "geoshapes", "amount"):
        assert isinstance(amount["amount"], float) and len(amount["currency"]) == 3
    for settings in cells(state, "users", "settings"):
        assert {"language", "timezone"} <= set(settings)
    for details in cells(state, "users", "group_details"):  # no declared fields: a sentence about it
        assert len(details["description"].split()) >= 4


def test_declared_fields_are_filled_by_their_names(state):
    for details in cells(state, "groups", "group_details"):
        assert details and set(details) <= {"name", "description", "active"}
        if "description" in details:
            assert len(details["description"].split()) >= 3, details
        if "name" in details:
            assert details["name"][:1].isupper(), details


def test_the_text_of_a_note_is_a_sentence_or_an_object_holding_one(state):
    for body in cells(state, "notes", "body"):  # a tool sets it to an object
        assert set(body) == {"text"} and len(body["text"].split()) >= 3
    for content in cells(state, "notes", "content"):  # nothing declares a shape: the sentence itself
        assert isinstance(content, str) and len(content.split()) >= 3


def test_lists_hold_items_of_the_meaning_their_name_says(state):
    for products in cells(state, "carts", "product_list") + cells(state, "carts", "items"):
        assert products and all(len(p.split()) >= 2 and p[0].isupper() for p in products), products
    ingredients = {i for row in cells(state, "recipes", "ingredients") for i in row}
    assert ingredients <= {"flour", "sugar", "eggs", "butter", "milk", "salt", "black pepper", "olive oil",
                           "garlic", "onion", "tomatoes", "basil", "chicken breast", "rice", "pasta", "parmesan",
                           "mozzarella", "lemon juice", "honey", "baking powder", "vanilla extract", "ground beef",
                           "carrots", "potatoes", "spinach", "cilantro", "lime", "soy sauce", "ginger", "cumin",
                           "paprika", "heavy cream", "yeast", "chickpeas", "coconut milk", "avocado", "bell pepper",
                           "mushrooms"}  # fmt: skip
    assert all(EMAIL.match(e) for row in cells(state, "recipes", "emails") for e in row)
    for table_name, column in (("carts", "product_list"), ("recipes", "tags"), ("recipes", "cities")):
        for value in cells(state, table_name, column):
            assert not is_filler(table_name, column, J, value), (column, value)


def test_a_parent_holds_a_key_of_its_own_table(state):
    keys = {row["orgunit_id"] for row in state["orgunits"]}
    parents = cells(state, "orgunits", "parent")
    assert parents and set(parents) <= keys
    ids = {row["category_id"] for row in state["categories"]}
    assert set(cells(state, "categories", "parent_id")) <= ids
    # a number column cannot hold a string key: an id-like whole number, never 22.83
    assert all(float(v).is_integer() for v in cells(state, "categories", "parent"))


def test_the_last_resort_object_is_filler_and_meaningful_json_is_not():
    fallback = {"tags": ["bug", "backend"]}
    assert is_filler("users", "credentials", J, fallback)
    assert is_filler("groups", "group_details", J, [fallback])
    assert not is_filler("tickets", "tags", J, fallback)  # a tags column may hold tags
    assert is_filler("walmarts", "product_list", J, ["would"])
    assert not is_filler("walmarts", "product_list", J, ["Lumina Wireless Headphones"])
    assert not is_filler("users", "credentials", J, {"password": {"value": "s3cret!Pass"}})


def test_column_value_gives_a_meaningful_object_without_the_spec():
    rng = random.Random(0)
    for column in ("credentials", "group_details", "address", "geo_shape", "amount", "customer_info"):
        value = column_value("things", column, J, rng, NOW)
        assert isinstance(value, dict) and not is_filler("things", column, J, value), (column, value)
    # nothing known: mostly left empty (blind readers named `{"tags": [...]}` in unrelated fields in most worlds),
    # else the filler object, which `is_filler` knows; a column that may not be empty always holds it
    nameless = [column_value("things", "frobnication", J, rng, NOW) for _ in range(40)]
    assert 0.5 <= nameless.count(None) / len(nameless) < 1, nameless
    assert all(is_filler("things", "frobnication", J, v) for v in nameless if v is not None), nameless
    required = {**J, "nullable": False}
    assert all(
        is_filler("things", "frobnication", J, column_value("things", "frobnication", required, rng, NOW))
        for _ in range(5)
    )


def test_schema_values_of_named_fields_fit_their_names():
    rng = random.Random(1)
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "product_id": S,
                "quantity": {"type": "integer"},
                "unit_price": {"type": "number"},
            },
            "required": ["product_id", "quantity", "unit_price"],
        },
    }
    for _ in range(5):
        for line in schema_value(schema, rng, NOW, name="line_items", context="orders"):
            assert re.match(r"^[a-z]+_\d{4}$", line["product_id"]), line
            assert 1 <= line["quantity"] <= 20 and 1 <= line["unit_price"] <= 500, line
    # without a name, the description says what a string is
    app_id = schema_value({"type": "string", "description": "The ID of your application"}, rng, NOW)
    assert re.match(r"^[0-9a-f-]{36}$", app_id)


def test_meaningful_json_is_deterministic_and_keeps_string_filler_low(state):
    assert generate_state(SPEC, seed=0) == state
    assert generate_state(SPEC, seed=1) != state
    assert filler_share(SPEC, state) <= 0.05


def test_api_bookkeeping_columns_hold_values_of_their_kind_not_words():
    """Microsoft Graph's `@odata.type` names the row's type (`#microsoft.graph.calendarEvent`), a `sha` or
    `fingerprint` is a hash, a `marker` or `continue` a paging token: never a dictionary word."""
    rng = random.Random(0)
    odata = column_value("calendar_events", "odata_type", S, rng, NOW)
    assert odata == "#microsoft.graph.calendarEvent"
    assert not is_filler("calendar_events", "odata_type", S, odata)
    assert is_filler("calendar_events", "odata_type", S, "become")
    for column in ("commit_sha", "fingerprint", "marker", "continue"):
        value = column_value("things", column, S, rng, NOW)
        assert column_meaning("things", column, S).startswith("secret:"), column
        assert " " not in value and any(ch.isdigit() for ch in value), (column, value)
        assert not is_filler("things", column, S, value), (column, value)


@pytest.mark.parametrize(
    ("column", "meaning"),
    [
        ("sid", "code:sid"),
        ("resource_arn", "code:arn"),
        ("rel", "lex:link_rel"),
        ("conclusion", "lex:outcome"),
        ("visibility", "lex:visibility"),
        ("target_commitish", "lex:branch"),
        ("operating_system", "lex:os"),
        ("logo", "url"),
        ("mail", "email"),
        ("zone", "lex:zone"),
        ("error", "text:error"),
        ("changed", "datetime:-730:0"),
        ("ethnicity", "lex:ethnicity"),
        ("dietary_preference", "lex:diet"),
        ("initials", "initials"),
        ("annual_revenue", "num:revenue"),
        ("purchasing_time_frame", "period"),
    ],
)
def test_api_fields_met_at_scale_hold_values_of_their_meaning(column, meaning):
    """Field names the scale run filled with dictionary words (`sid: 'parent'`, `rel: 'billion'`,
    `conclusion: 'science'`): each now has a meaning, and the values made for it fit it."""
    assert column_meaning("runs", column, S) == meaning
    rng = random.Random(3)
    for _ in range(5):
        value = column_value("runs", column, S, rng, NOW)
        assert not is_filler("runs", column, S, value), (column, value)
    assert is_filler("runs", column, S, "billion")


def test_a_paging_cursor_or_http_method_is_read_from_the_description():
    cursor = {"type": "string", "description": "Cursor value that represents the next page of results"}
    assert column_meaning("videos", "next", cursor) == "secret:cursor"
    method = {"type": "string", "description": "Specifies the redirect method (GET or POST) when redirecting"}
    assert column_meaning("sessions", "redirect_from_issuer_method", method) == "lex:http_method"


def test_the_to_of_a_message_is_a_phone_or_an_address_and_of_a_trip_a_place():
    """An SMS's `to` ("The phone number that received the message") held "Denver, CO": it is a phone; an email's
    `to` an address; a trip's `to` stays a place."""
    sms = {"type": "string", "description": "The phone number that received the message."}
    assert column_meaning("messages", "to", sms) == "phone"
    assert column_meaning("emails", "to", S) == "email"
    assert column_meaning("trips", "to", S) == "location" and column_meaning("trips", "from", S) == "location"


def test_counts_are_whole_and_a_record_mostly_carries_no_errors():
    """A reader found "adults 18.67" (a count in a `number` column) and successful bookings carrying `rate_limited`
    warnings: counts are whole numbers whatever the column's type, and a stored record's errors and warnings are null
    in most rows (some rows keep one, so a tool that reports them has something to report)."""
    rng = random.Random(5)
    adults = [column_value("bookings", "adults", {"type": "number"}, rng, NOW) for _ in range(40)]
    assert all(float(a).is_integer() for a in adults), adults
    warnings = [column_value("bookings", "warnings", {"type": "json"}, rng, NOW) for _ in range(200)]
    assert 0.6 < sum(w is None for w in warnings) / len(warnings) < 0.95
    assert all(w is None or (isinstance(w, dict) and {"code", "message"} <= set(w)) for w in warnings)


def test_a_number_kept_as_a_string_is_a_number_of_what_its_last_word_says():
    """Blind readers found `daily_interest_rate` = "painting" and `postponement_days` = "woman" (string columns
    whose names say they hold numbers), and a `tax_rate` is a rate, not an amount of money."""
    string = {"type": "string"}
    assert column_meaning("configs", "creditcontrol_storeconfig_daily_interest_rate", string) == "num:rate"
    assert column_meaning("configs", "postponement_days", string).startswith("num:")
    assert column_meaning("rooms", "adults", string) == "num:party"  # 1 to 4, never "20 adults" (seed 94)
    assert column_meaning("orders", "tax_rate", {"type": "number"}) == "num:rate"
    assert column_meaning("orders", "total_price", {"type": "number"}) == "num:money"
    for seed in range(5):
        value = column_value(
            "configs", "daily_interest_rate", string, random.Random(seed), dt.datetime(2025, 6, 1)
        )
        assert isinstance(value, str) and float(value) > 0, value


def test_a_name_from_the_curated_labels_is_a_name_though_its_words_are_common():
    """At scale a third of the filler cells were names the generator's own label lists made ("Customer Success
    Team" naming a group, "Head Office" a site): their words are common English words, which the check read as
    lorem filler. A label of the lists is a name; lorem words, or a template's slot filled with them, are not."""
    for value in ("Customer Success Team", "Head Office", "Study Group 11", "Trip to Lisbon"):
        assert not is_filler("groups", "name", {"type": "string"}, value), value
    for value in ("grow probably", "Probably", "Trip to grow"):
        assert is_filler("groups", "name", {"type": "string"}, value), value


def test_a_display_name_names_the_row_a_person_only_in_a_table_of_people():
    """Microsoft Graph's `displayName` of a group or a location is the group's or the location's name, not a
    person's ("Sandra Werner" as a company, a group or a location read as nonsense to every reader)."""
    names = {"groups": "Legal", "companies": "Acme Corporation", "locations": "Head Office"}
    for table_name, fitting in names.items():
        meaning = column_meaning(table_name, "displayName", S)
        assert meaning != "person", table_name
        state = generate_state(
            {"name": "x", "tools": [], "tables": {table_name: table({"id": S, "display_name": S})}}, seed=3
        )
        values = [row["display_name"] for row in state[table_name]]
        assert not any(is_filler(table_name, "display_name", S, v) for v in values), values
        assert not any("Display" in v for v in values), (
            values
        )  # named by the row's kind, not the column's words
        assert not is_filler(table_name, "display_name", S, fitting)
    for table_name in ("users", "members", "contacts", "accounts", "extusers"):
        assert column_meaning(table_name, "display_name", S) == "person", table_name


def test_a_thing_s_type_is_a_kind_of_the_thing_never_the_thing():
    """Blind readers: "address type 820 Mann Drive, Minneapolis", a phone type "+1-415-260-6684", a card type "Ace
    of Spades": `<thing>_type` holds a kind of the thing (billing, mobile, debit), never a value of the thing."""
    spec = {
        "name": "x",
        "tools": [],
        "tables": {
            "contacts": table(
                {"id": S, "addressType": S, "phone_type": S, "card_type": S, "budget_type_code": S}
            )
        },
    }
    rows = generate_state(spec, seed=2)["contacts"]
    for column in ("addressType", "phone_type", "card_type", "budget_type_code"):
        values = {row[column] for row in rows if row[column]}
        assert values and all(len(v.split()) <= 2 and not any(ch.isdigit() for ch in v) for v in values), (
            values
        )
    assert {row["addressType"] for row in rows} <= {"home", "work", "billing", "shipping", "mailing", None}
    assert column_meaning("files", "content_type", S) == "mime"  # the exact names keep their meaning


def test_a_credit_limit_is_money_not_a_count():
    """Blind readers: "change its credit limit to 2", beside a starting `credit_limit: 'ten'`."""
    for ctype in ("integer", "number", "string"):
        assert column_meaning("accounts", "credit_limit", {"type": ctype}).startswith("num:budget"), ctype
    assert (
        column_meaning("accounts", "limit", {"type": "integer"}) == "num:capacity"
    )  # a page's limit stays a count


def test_a_bookings_service_is_what_is_booked_never_a_streaming_service():
    """Blind readers: a "Massage (60 min)" appointment with `service_name "Gmail"`, a hotel reservation with
    `addon_services ["AWS S3", "Disney+"]`: the service of a booking at a time is a haircut, of a stay a breakfast."""
    for table_name, kinds in (
        ("appointments", ("Haircut", "Massage")),
        ("hotel_stays", ("Breakfast", "Parking")),
    ):
        state = generate_state(
            {"name": "x", "tools": [], "tables": {table_name: table({"id": S, "service_name": S})}}, seed=1
        )
        values = [row["service_name"] for row in state[table_name] if row["service_name"]]
        assert values and not {"Gmail", "Disney+", "AWS S3", "Netflix"} & set(values), values
        assert not any(is_filler(table_name, "service_name", S, v) for v in values), values
        assert any(v.startswith(kinds) for v in values), values


def test_a_number_named_after_its_unit_counts_that_unit():
    """Blind readers: "set the budget hours to 404590.03" (`budget_hours` read as a budget of money)."""
    assert column_meaning("projects", "budget_hours", {"type": "number"}).startswith("num:hours")
    assert column_meaning("tasks", "estimated_minutes", {"type": "integer"}).startswith("num:minutes")
    assert column_meaning("trips", "budget", {"type": "number"}).startswith("num:budget")
    assert column_meaning("products", "price_total", {"type": "number"}).startswith("num:money")


def test_a_word_of_many_meanings_is_read_as_its_table_reads_it():
    """Blind readers: a ticket resolved "1920x1080", an order with sequence "TTAGGGTTAGGG" and source "github", a job
    at branch "feature/login-page". The same names keep their meaning where they have it (a video's resolution, a
    gene's sequence, a repository's branch)."""
    S = {"type": "string"}
    assert column_meaning("tickets", "resolution", S) == "lex:ticket_resolution"
    assert column_meaning("videos", "resolution", S) == "lex:resolution"
    assert (
        column_meaning("orders", "sequence", S) != "lex:dna"
        and column_meaning("genes", "sequence", S) == "lex:dna"
    )
    assert column_meaning("jobs", "branch", S) != "lex:branch"
    assert (
        column_meaning("repositories", "branch", S) == column_meaning("builds", "branch", S) == "lex:branch"
    )
    assert column_meaning("orders", "source", S) == "lex:order_source"
    assert column_meaning("articles", "source", S) == "lex:source"
    # a product's unit is how it is sold (the answer to "the unit of the product" was "usd"); a conversion's stays
    assert column_meaning("products", "unit", S) == "lex:product_unit"
    assert column_meaning("conversions", "unit", S) == "lex:unit"
    # a person's pronouns and salutation are words of their own, never a person's name ("pronouns Darrell Ingram")
    assert column_meaning("employees", "pronouns", S) == "lex:pronouns"
    assert column_meaning("contacts", "salutation", S) == "lex:salutation"
    # a field that says something happened to an email holds when, never an address ("welcome_email_sent" held one)
    for column in ("welcome_email_sent", "email_verified", "last_email_opened"):
        assert column_meaning("customers", column, S).startswith("datetime"), column
    assert column_meaning("customers", "recipient_email", S) == "email"


def test_a_twelve_hour_clock_template_gives_one_marker():
    """Blind readers: a trading bot's current time "16:45 PM/PM" (the template "HH:MM AM/PM" read as two markers)."""
    import datetime as dt

    from envscale.env.data.meaning import described_format

    fmt = described_format("the current time in the format hh:mm am/pm")
    assert dt.datetime(2025, 1, 1, 16, 45).strftime(fmt) == "04:45 PM"
    assert described_format("a date as 'mm/dd/yyyy'") == "%m/%d/%Y"


def test_a_pet_is_aged_and_bred_as_a_pet():
    """Blind readers: "a reptile of breed 'elephant', aged 68" (a pet's age read as a person's, its breed as any
    animal)."""
    S = {"type": "string"}
    assert column_meaning("pet_profiles", "age", {"type": "integer"}) == "num:pet_age"
    assert column_meaning("users", "age", {"type": "integer"}) == "num:age"
    assert (
        column_meaning("pets", "breed", S) == "lex:breed"
        and column_meaning("pets", "species", S) == "lex:pet_species"
    )
    assert column_meaning("observations", "species", S) == "lex:species"
    from envscale.env import generate_state

    spec = {
        "name": "vet",
        "tools": [],
        "tables": {
            "pets": {
                "primary_key": "id",
                "columns": {"id": S, "species": S, "breed": S, "age": {"type": "integer"}},
            }
        },
    }
    pets = generate_state(spec, seed=1)["pets"]
    dogs = {"Labrador Retriever", "German Shepherd", "Golden Retriever", "French Bulldog", "Beagle", "Poodle"}
    assert all(p["breed"] in dogs for p in pets if p["species"] == "dog")
    assert all(p["breed"] is None for p in pets if p["species"] not in ("dog", "cat")), pets
    assert all(1 <= p["age"] <= 15 for p in pets if p["age"] is not None), pets


@pytest.mark.parametrize(
    ("table", "column", "decimals"),
    [
        ("transactions", "value", True),
        ("refunds", "value", True),
        ("payments", "installments", False),
        ("scores", "likes", False),
        ("promotion_reports", "average_order_size", False),
        ("attachments", "size", False),
    ],
)
def test_a_string_column_named_for_a_count_or_an_amount_holds_a_number(table, column, decimals):
    """Blind readers: a transaction's value "every", installments "politics", an order's average size and an
    attachment's size "king", likes "1.5.11". A string column whose last word counts or measures holds a number
    kept as a string: money with its cents, a count whole."""
    rng = random.Random(5)
    for _ in range(6):
        value = column_value(table, column, S, rng, NOW)
        assert isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?", value), (table, column, value)
        if not decimals:
            assert "." not in value, (table, column, value)


def test_a_value_or_a_size_outside_money_and_files_is_not_made_a_number():
    """A setting's `value`, a row's own noun (`scores.score` of a music app) and a product's `size` are no amounts:
    a product's size stays a size, and the others keep their own meaning."""
    assert column_meaning("configurations", "value", S) == "unknown"
    assert column_meaning("scores", "score", S) == "unknown"
    assert column_meaning("products", "size", S) == "lex:size"


def test_a_type_no_lexicon_names_is_a_plain_kind_not_a_dictionary_word():
    """42 `*_type` columns of the quickstart (a playlist's, a tax's, an account's sub type) fell to dictionary words
    ("every", "such"): a type no lexicon names is a plain kind ("standard", "custom")."""
    rng = random.Random(2)
    for table, column in (("playlists", "playlist_type"), ("entries", "tax_type"), ("accounts", "sub_type")):
        assert column_meaning(table, column, S) == "lex:type", column
        for _ in range(4):
            value = column_value(table, column, S, rng, NOW)
            assert not is_filler(table, column, S, value), (column, value)


def test_a_broken_date_template_is_no_format_of_its_own():
    """OnSched's `dayAvailabilityStartDate` says "Format YYYY-DD-YY": followed, it made "2025-16-25" (blind readers
    of seed 84). A template with a day but no month, or two years, is not followed: the date is ISO."""
    from envscale.env.data.meaning import described_format

    assert described_format("Format YYYY-DD-YY: Start date for day availability") is None
    assert described_format("Format YYYY-MM-DD: Start date") == "%Y-%m-%d"
    assert described_format("the time as HH:MM") == "%H:%M"


def test_a_field_named_for_a_moment_holds_a_moment():
    """Blind readers of seed 84: VictorOps' log `start` and `end` held "these" and "prevent", an incident's
    `started` held "manager". A string field whose last word says when something happens holds a date and time."""
    from envscale.env.data import column_meaning

    s = {"type": "string"}
    for table, column in (("logs", "start"), ("logs", "end"), ("incidents", "started"), ("builds", "finished"),
                          ("timesheets", "timer_started_at_utc"), ("pulses", "run_start")):  # fmt: skip
        assert column_meaning(table, column, s, []).startswith("datetime:"), column
    assert column_meaning("docks", "wms_end_point", s, []) == "url"
    assert not column_meaning("info", "fiscal_year_start_month", s, []).startswith("datetime")


def test_a_status_kept_as_a_number_is_a_code():
    """Blind readers of seed 84: ExaVault's share `status` (an integer: "You can set an active share to inactive by
    setting the status to 0") read 98. A numeric status or state is a code, 0 or 1."""
    from envscale.env import generate_state

    spec = {
        "name": "files",
        "tools": [],
        "tables": {"shares": {"primary_key": "share_id", "columns": {
            "share_id": {"type": "string"}, "status": {"type": "integer"}, "download_count": {"type": "integer"}}}},
    }  # fmt: skip
    rows = generate_state(spec, seed=0, rows={"shares": 20})["shares"]
    assert {r["status"] for r in rows} <= {0, 1} and len({r["status"] for r in rows}) == 2, rows
    assert max(r["download_count"] for r in rows) > 1  # a count stays a count


def test_a_name_run_together_is_read_in_its_words_first():
    """A credit API's `creditlimit` ("If the user don't set a credit limit, the system will define 100") was read as
    a person from its description. A name run together is read in its words first: a credit limit is money."""
    from envscale.env.data.meaning import string_meaning

    texts = "If the user don't set a credit limit, the system will define 100 for default"
    assert string_meaning("accounts", "creditlimit", texts, ()) == string_meaning(
        "accounts", "credit_limit", "", ()
    )
    assert string_meaning("users", "firstname", "", ()) == "first_name"
    assert string_meaning("users", "phonenumber", "", ()) == "phone"


def test_a_webhooks_method_is_an_http_method():
    """Seed 85: "set its event method to Harper Charity Gala" (Vonage's `event_method`, the HTTP method of the
    event webhook, filled with an event's name)."""
    from envscale.env.data.meaning import string_meaning

    for column in ("event_method", "eventMethod", "status_callback_method", "answer_method"):
        assert string_meaning("conversations", column, "", ()) == "lex:http_method", column


def test_a_keyword_s_text_is_a_few_search_words():
    """Seed 88's readers: an eBay negative keyword read "Set up by Robert Howell of the IT team in April.". A keyword's
    text is a search phrase, never prose."""
    for table, column in (
        ("negative_keywords", "negative_keyword_text"),
        ("keywords", "text"),
        ("ads", "keyword_text"),
    ):
        assert column_meaning(table, column, S) == "query", (table, column)
        value = column_value(table, column, S, random.Random(0), NOW)
        assert len(value.split()) <= 5 and not value.endswith("."), value
    assert column_meaning("notes", "text", S) != "query"


def test_an_address_s_state_is_a_place():
    """Seed 88's readers: a company's "billing address state" was "pending". The state of an address is a place."""
    for column in (
        "billing_address_state",
        "billing_state",
        "shipping_address_state",
        "address_state",
        "home_state",
    ):
        assert column_meaning("companies", column, S) == "state", column
    assert column_meaning("orders", "state", S).startswith("status:")
    assert column_meaning("orders", "order_state", S).startswith("status:")


def test_records_by_invented_artists_have_invented_titles():
    """Seed 88's and 89's readers: "Rumours" by Lawrence Dubois, "Thriller" holding "Yesterday" read as wrong answers.
    The artists are invented, so the songs and albums are too."""
    famous = {"Rumours", "Thriller", "Abbey Road", "Yesterday", "Despacito", "Bohemian Rhapsody", "Respect"}
    rng = random.Random(0)
    titles = {
        column_value(t, c, S, rng, NOW)
        for t, c in (("albums", "name"), ("tracks", "name"))
        for _ in range(40)
    }
    assert titles and not titles & famous, titles & famous


def test_fields_the_readers_found_holding_stray_words_mean_what_their_names_say():
    """Seed 91's readers: a score's lyricist and arranger "improve", "them"; Postman's `is_public` "major"; a monitor's
    environment "brother"; an escalation sound "power". Each name says what it holds."""
    rng = random.Random(0)
    for column in ("lyricist", "arranger", "moderator", "last_edited_by"):
        assert column_meaning("scores", column, S) == "person", column
        assert len(column_value("scores", column, S, rng, NOW).split()) >= 2, column
    for column in ("is_public", "needs_sanitize", "has_access", "allow_comments"):
        assert column_meaning("apis", column, S) == "lex:flag", column
        assert column_value("apis", column, S, rng, NOW) in ("true", "false"), column
    assert column_meaning("orders", "is_cancelation_for", S) != "lex:flag"
    assert column_value("monitors", "environment", S, rng, NOW) in ("production", "staging", "development", "testing", "sandbox")  # fmt: skip
    assert column_meaning("apps", "environment_variables", S) != "lex:environment"
    assert column_meaning("devices", "escalation_notification_sound", S) == "lex:sound"
    assert column_meaning("sessions", "protocol", S) == "lex:protocol"


def test_a_field_no_rule_reads_and_no_argument_sets_is_left_empty():
    """Seed 91's readers: a member's home market value "attorney", a t-shirt "why", an account's sort code "stop". A
    nullable text field whose meaning no rule reads is left empty where no tool argument sets or filters it; one a
    tool takes keeps some values, so that a task can set or find it."""
    n = {"type": "string", "nullable": True}
    spec = {
        "name": "vestorly",
        "data": {"seed": 0, "rows": {"members": 40}},
        "tools": [update_tool("set_tshirt", "members", "member_id", {"tshirt": n})],
        "tables": {"members": table({"member_id": S, "home_market_value": n, "frobnicator": n, "tshirt": n})},
    }
    rows = generate_state(spec, seed=0)["members"]
    assert all(r["frobnicator"] is None for r in rows), [r["frobnicator"] for r in rows]
    assert any(r["tshirt"] is not None for r in rows)


def test_an_artworks_address_is_an_image():
    """Seed 91's readers: SoundCloud's `artwork_url` was "https://www.lopez-co.io/about", not an image."""
    rng = random.Random(0)
    for column in ("artwork_url", "poster_url", "icon_url", "avatar_url"):
        value = column_value("tracks", column, S, rng, NOW)
        assert re.search(r"\.(?:jpg|png|webp)$", value), (column, value)


def test_a_cars_readings_are_readings_a_car_gives():
    """Seed 91's readers: a car on a slope of 83.77 with 80 unlocked doors, a 61 V battery, a 411 L tank and tyres at
    108. Each reading is in the range a car shows."""
    rng, number = random.Random(0), {"type": "number"}
    ranges = {
        "slope": (0, 15),
        "unlocked_doors": (2, 5),
        "battery_voltage": (11.5, 14.5),
        "fuel_tank": (0, 100),
    }
    ranges |= {"front_left_tire_pressure": (28, 36), "engine_rpm": (700, 4000)}
    for column, (lo, hi) in ranges.items():
        for _ in range(20):
            assert lo <= column_value("vehicles", column, number, rng, NOW) <= hi, column


def test_who_a_call_or_a_conversations_event_is_from_is_a_person():
    """Seed 91's readers: Vonage's conversation events went "from" Boston "to" Denver. Who a call, a leg or an event of
    a conversation is from is a person; a flight's or a ride's from is a place, and an event's from date a date."""
    for table in ("events", "calls", "legs"):
        assert column_meaning(table, "from", S) == column_meaning(table, "to", S) == "person", table
    assert column_meaning("flights", "from", S) == "location"
    assert (
        column_meaning("events", "from", {"type": "string", "description": "Start date of the range."})
        != "person"
    )


def test_an_objects_start_comes_before_its_end():
    """Seed 92's readers: GoToTraining's training `times` ended before they began. A start and an end of one object,
    drawn apart, are put in order."""
    moment = {"type": "string", "format": "date-time"}
    schema = {"type": "object", "properties": {"startDate": moment, "endDate": moment}, "required": ["startDate", "endDate"]}  # fmt: skip
    for seed in range(40):
        value = schema_value(schema, random.Random(seed), NOW)
        assert value["startDate"] <= value["endDate"], value


def test_an_albums_label_is_a_record_label():
    """Seed 92's readers: an album's label was "enhancement", a tag. The label of a track, an album or a release is a
    record label; a ticket's label is still a tag."""
    rng = random.Random(0)
    for table, column in (("albums", "label"), ("tracks", "label_name"), ("releases", "label")):
        assert column_meaning(table, column, S) == "named:record_label", (table, column)
        value = column_value(table, column, S, rng, NOW)
        assert re.search(r" (?:Records|Music|Recordings|Sound)$", value), value
    assert column_meaning("tickets", "label", S) == "lex:tag"
    # "refund methods that are colours" (the same readers): a refund goes back the way money does
    assert column_meaning("policies", "refund_method", S) == "lex:payment_method"


def test_when_something_happened_is_a_moment_never_a_time_of_day():
    """Seed 92's readers: Notion's and VictorOps' times were bare "11:45" where a moment belongs (`last_edited_time`,
    `ack_time`). When a thing was edited, acknowledged or resolved is a date and time; an alarm's time is a time."""
    for table, column in (
        ("pages", "last_edited_time"),
        ("incidents", "ack_time"),
        ("incidents", "resolve_time"),
    ):
        assert column_meaning(table, column, S).startswith("datetime:"), (table, column)
        assert ISO_MOMENT.match(column_value(table, column, S, random.Random(0), NOW)), column
    assert (
        column_meaning("alarms", "wake_time", S) == "time"
        and column_meaning("classes", "start_time", S) == "time"
    )


def test_a_plan_is_billed_monthly_or_yearly():
    """Seed 92's readers: subscription plans with "hourly" and "real-time" frequencies."""
    values = {column_value("plans", "billing_frequency", S, random.Random(i), NOW) for i in range(30)}
    assert values <= {"monthly", "yearly", "quarterly", "weekly"}, values


def test_a_projects_made_up_title_names_no_company():
    """Seed 92's readers: a project created for Bailey PLC was titled "Collins Kelly Industries Onboarding"."""
    from envscale.env.data.labels import LABELS

    assert not any("{company}" in template for template in LABELS["project"])


def test_a_cabin_is_set_to_a_temperature_people_live_at():
    """Seed 92's readers: "set the cabin to 2.70 degrees in heat mode". A car's, a room's or a thermostat's
    temperature is one people set (16-28 degrees); the weather's may be anything."""
    number = {"type": "number"}
    for table, column in (
        ("vehicles", "temperature"),
        ("climate_controls", "target_temperature"),
        ("rooms", "temp"),
    ):
        assert column_meaning(table, column, number) == "num:setpoint", (table, column)
        assert all(16 <= column_value(table, column, number, random.Random(i), NOW) <= 28 for i in range(20))
    assert column_meaning("weather", "temperature", number) != "num:setpoint"


def test_seed_93s_misfits_read_their_table():
    """Seed 93's readers: a recipe review's "make again" was "Jeep", a feedback hook fired on the event "Simmons
    Charity Gala", an error log's severity was "expert" and its category "entertainment"."""
    string = {"type": "string"}
    assert column_meaning("reviews", "make_again", string) == "lex:flag"
    assert column_meaning("cars", "make", string) == "lex:car_make"
    assert column_meaning("hooks", "event", string) == "lex:webhook_event"
    assert column_meaning("webhooks", "event_type", string) == "lex:webhook_event"
    assert column_meaning("errors", "category", string) == "lex:log_category"
    assert column_meaning("logs", "severity", string) == "lex:log_severity"
    assert column_meaning("tickets", "severity", string) == "lex:severity"
    assert column_meaning("products", "category", string) == "lex:category"
    for seed in range(5):
        rng = random.Random(seed)
        assert column_value("hooks", "event", string, rng, dt.datetime(2025, 6, 1)).count(".") == 1
        assert column_value("tickets", "severity", string, rng, dt.datetime(2025, 6, 1)) in (
            "low",
            "medium",
            "high",
            "critical",
        )


def test_a_contact_method_s_label_is_a_contact_label():
    """Seed 93's readers: VictorOps' phones labelled "premium" and "enhancement". A phone's or an email's label is
    "mobile" or "work", an address's "home" or "billing"; a product's label is still a tag."""
    string = {"type": "string"}
    assert column_meaning("phones", "label", string) == "lex:contact_label"
    assert column_meaning("emails", "label", string) == "lex:contact_label"
    assert column_meaning("customer_addresses", "type", string) == "lex:address_label"
    assert column_meaning("products", "label", string) == "lex:tag"
    for seed in range(5):
        value = column_value("phones", "label", string, random.Random(seed), dt.datetime(2025, 6, 1))
        assert value in ("mobile", "work", "home", "personal", "office", "main"), value


def test_a_unit_of_time_is_a_unit_of_time():
    """Seed 93's readers: eBay's handling time in "watts". A unit its description says measures time is a day, an
    hour or a week."""
    spec = {
        "type": "string",
        "description": "A time-measurement unit that specifies a singular period of time.",
    }
    for seed in range(6):
        value = column_value(
            "fulfillment_policies", "unit", spec, random.Random(seed), dt.datetime(2025, 6, 1)
        )
        assert value in ("day", "business day", "hour", "week"), value


def test_when_a_thing_last_happened_is_a_moment_and_a_party_is_a_few_people():
    """Seed 94's readers: Docker Hub's image `last_pulled` "12:00" and tag `tag_last_pulled` "performance"; a hotel
    booking of 20 adults (and "adults is 10.29"). `last_<verb>ed` is when it last happened; adults are 1 to 4."""
    string = {"type": "string"}
    assert column_meaning("images", "last_pulled", string).startswith("datetime:")
    assert column_meaning("tags", "tag_last_pulled", string).startswith("datetime:")
    assert column_meaning("users", "last_name", string) == "last_name"
    for seed in range(10):
        adults = column_value(
            "bookings", "adults", {"type": "number"}, random.Random(seed), dt.datetime(2025, 6, 1)
        )
        kids = column_value(
            "bookings", "children", {"type": "integer"}, random.Random(seed), dt.datetime(2025, 6, 1)
        )
        assert 1 <= adults <= 4 and float(adults).is_integer() and 0 <= kids <= 3, (adults, kids)
