"""Journeys: the user names rows by what a person knows, the agent looks them up; chains of several calls,
writes on related rows, and a decision on what a read returns, each executed for its gold state."""

import copy
import json
import random
import re

import pytest

from envscale.env import load_spec
from envscale.env.spec import validate_spec
from envscale.judge.provenance import parse_provenance
from envscale.show.tasks import provenance as show_provenance
from envscale.tasks import branches, finding, gates, journeys, rereads
from envscale.tasks.build import TasksConfig
from envscale.tasks.generate import env_tasks
from envscale.tasks.gold import execute
from envscale.tasks.intent import write_instructions
from envscale.tasks.model import GoldCall, TaskDraft
from envscale.tasks.naming import fact_name
from envscale.tasks.prepared import Env


@pytest.fixture
def shop():
    e = Env({"spec": load_spec("tests/fixtures/envs/shop.yaml")}, TasksConfig())
    yield e
    e.env.close()


@pytest.fixture
def store():
    e = Env({"spec": load_spec("tests/fixtures/envs/store.yaml")}, TasksConfig())
    yield e
    e.env.close()


def _item_draft(e):
    """add_order_item(order number the user holds, product by its internal key)."""
    product = e.rows["products"][4]
    order = e.rows["orders"][0]
    args = {
        "order_id": order["order_id"],
        "product_id": product["product_id"],
        "quantity": 1,
        "unit_price": 3.5,
    }
    prov = {"order_id": "user", "product_id": "constant", "quantity": "constant", "unit_price": "constant"}
    facts = {"order number": order["order_id"], "product id": product["product_id"], "quantity": 1}
    return TaskDraft("shop", "write", [GoldCall("add_order_item", args, prov, write=True)], user_facts=facts)


def test_an_internal_id_is_looked_up_by_a_human_attribute_and_flows_into_the_write(shop):
    draft = _item_draft(shop)
    product = shop.rows["products"][4]
    assert journeys.humanize(shop, draft, random.Random(0)) is None
    assert [c.tool for c in draft.calls] == ["list_products", "add_order_item"]
    assert draft.lookups == 1
    assert draft.calls[1].provenance["product_id"].startswith("call[0][")
    assert product["product_id"] not in draft.user_facts.values()
    assert product["name"] in draft.user_facts.values()
    # the order number is printed on the customer's receipt: the user still states it
    assert draft.calls[1].provenance["order_id"] == "user"
    assert execute(shop, draft) is None
    ins = write_instructions(draft, shop.spec, random.Random(0))
    assert product["product_id"] not in ins.first_message and product["name"] in ins.first_message


def test_printed_numbers_are_the_users_own_and_other_keys_are_internal(shop):
    assert finding.printed_number("orders") and finding.printed_number("support_tickets")
    assert not finding.printed_number("customers") and not finding.printed_number("products")
    assert not finding.internal_key(shop, "orders", shop.rows["orders"][0]["order_id"])
    assert finding.internal_key(shop, "products", shop.rows["products"][0]["product_id"])


def test_a_printed_row_with_its_own_number_is_found_by_that_number_not_its_key():
    """Seed 91's readers: the user called `inv_0015` an "invoice number" while the invoice's number was 4732434410.
    Where a printed row holds its own number beside the key, the user states the number and the key is internal."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["orders"]["columns"]["order_number"] = {"type": "string", "nullable": True}
    spec["tables"]["orders"]["columns"]["phone_number"] = {"type": "string", "nullable": True}
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    e = Env({"spec": spec}, TasksConfig())
    try:
        order = next(r for r in e.rows["orders"] if r["order_number"])
        assert finding.own_number("orders", "order_number") and not finding.own_number(
            "orders", "phone_number"
        )
        assert finding.internal_key(e, "orders", order["order_id"])
        assert finding.knows_row_by(e, "orders", "order_number", order["order_number"])
        assert finding.rank(e, "orders", "order_number") == 0
        found = finding.find_row(e, "orders", order, random.Random(0))
        assert found is not None and order["order_number"] in found.facts.values(), found
        assert order["order_id"] not in found.facts.values()
    finally:
        e.env.close()


def test_a_row_no_person_can_describe_is_not_posed_by_its_id(shop):
    # customers have no list tool in the shop: nothing a person knows finds a customer's key
    cid = shop.rows["customers"][0]["customer_id"]
    call = GoldCall(
        "update_customer_email",
        {"customer_id": cid, "email": "x@example.com"},
        {"customer_id": "user", "email": "constant"},
        write=True,
    )
    draft = TaskDraft("shop", "write", [call], user_facts={"customer id": cid})
    drop = journeys.humanize(shop, draft, random.Random(0))
    assert drop is not None and drop[0] == "internal_id"


def test_the_row_is_read_before_the_write_changes_it(store):
    order = store.rows["orders"][0]["order_id"]
    call = GoldCall("cancel_order", {"order_id": order}, {"order_id": "user"}, write=True)
    draft = TaskDraft("store", "write", [call], user_facts={"order number": order})
    journeys.read_first(store, draft)
    assert [c.tool for c in draft.calls] == ["get_order", "cancel_order"]
    assert draft.calls[0].provenance == {"order_id": "user"}
    assert draft.calls[1].provenance["order_id"] == "call[0].order_id"
    assert draft.shape == "linear"


def _branch_drafts(taken: str) -> tuple[Env, list]:
    """The store with one of the customer's own orders already paid, and the branches built on it that take
    `taken` ("act" or "tell") and run."""
    spec = load_spec("tests/fixtures/envs/store.yaml")  # orders: `status`, `created_at`, `updated_at`
    for row in spec["initial_state"]["orders"]:
        if row["order_id"] == "ord_0005":
            row["status"] = "paid"
    store = Env({"spec": spec}, TasksConfig())
    drafts = []
    for seed in range(200):
        d = branches.branch(store, random.Random(seed))
        # (a row of another customer is refused by the get: such a candidate is dropped, `gold_run_failed`)
        if d is not None and d.branch["taken"] == taken and execute(store, d) is None:
            drafts.append(d)
    return store, drafts


@pytest.mark.parametrize("taken", ["act", "tell"])
def test_a_branch_follows_the_state_and_says_the_condition(taken):
    store, drafts = _branch_drafts(taken)
    assert drafts, f"no {taken} branch built"
    draft = drafts[0]
    assert draft.shape == "branch"
    ins = write_instructions(draft, store.spec, random.Random(0))
    assert "already" in ins.first_message and ("unless" in ins.first_message or " if " in ins.first_message)
    if taken == "act":
        assert [c.write for c in draft.calls] == [False, True] and draft.gold_diff
        assert draft.kind == "write"
    else:
        assert [c.write for c in draft.calls] == [False] and not draft.gold_diff
        assert draft.kind == "mixed" and draft.answer_facts
        assert ins.done_when.count("tells you") == 1 and ins.done_when.count("date") <= 1


def test_two_writes_on_related_rows_run_along_the_foreign_key(shop):
    built = []
    for seed in range(60):
        d = journeys.related_writes(shop, random.Random(seed))
        if d is not None and execute(shop, d) is None:
            built.append(d)
    assert built
    for d in built:
        writes = [c for c in d.calls if c.write]
        assert len(writes) == 2
        assert any(p.startswith("call[") for p in writes[1].provenance.values())


def test_a_new_row_then_a_row_added_to_it(shop):
    for seed in range(60):
        d = journeys.create_then_add(shop, random.Random(seed), "write")
        if d is not None:
            break
    assert d is not None
    assert execute(shop, d) is None
    first, second = d.calls
    assert first.tool == "create_order" and second.tool == "add_order_item"
    assert second.arguments["order_id"] == first.result["order_id"]


def test_one_call_tasks_are_held_to_their_share(store):
    """Every seed holds one-call tasks to the share; the quota is what held them (some seed drew more)."""
    config = TasksConfig(tasks_per_env=10, max_single_share=0.2, replay_check=False)
    held = 0
    for seed in range(4):
        kept, rejected = env_tasks({"spec": store.spec}, config, [], random.Random(seed))
        singles = [t for t in kept if t["difficulty"]["chain_length"] == 1]
        assert len(singles) <= 2
        held += any(r["code"] == "single_call_quota" for r in rejected)
    assert held


def test_two_call_tasks_in_a_line_are_held_to_their_share_and_the_attempts_go_to_longer_ones(shop):
    """Find a row, then read or change it: the commonest shape, held to `max_two_call_share` of a world's tasks
    while sampling; the attempts it frees go to journeys of three calls or more."""

    def plain_two(t):
        d = t["difficulty"]
        return d["chain_length"] == 2 and d["shape"] == "linear" and t["kind"] != "policy"

    wanted, share = 20, 0.2
    longer, bound = {}, 0
    for cap in (1.0, share):
        config = TasksConfig(
            tasks_per_env=wanted, max_two_call_share=cap, conversation_share=0, replay_check=False
        )
        total = 0
        for seed in range(6):
            kept, rejected = env_tasks({"spec": shop.spec}, config, [], random.Random(seed))
            if cap < 1:
                assert sum(plain_two(t) for t in kept) <= round(wanted * share), seed
                bound += any(r["code"] == "two_call_quota" for r in rejected)
            total += sum(t["difficulty"]["chain_length"] >= 3 for t in kept)
        longer[cap] = total
    assert bound  # the quota is what held them (some seed drew more)
    assert longer[share] > longer[1.0], longer


def test_a_small_world_holds_its_two_call_tasks_to_their_share_of_what_it_kept(shop):
    """A world asked for more tasks than it can make keeps fewer; the two-call quota counted against what was
    asked then let two-call tasks make most of what was kept (the openapi-sample's median of 2 calls). At the
    end they are held to `max_two_call_share` of the tasks kept, conversations counted; decisions, two lookups
    feeding a write and refusals of two calls are never held back."""
    from envscale.tasks.generate import _held_to_share, _plain_two

    def task(kind, calls, shape):
        return {
            "kind": kind,
            "first_message": f"{kind} {calls}",
            "difficulty": {"chain_length": calls, "shape": shape},
        }

    kept = [task("write", 2, "linear"), task("read", 2, "linear"), task("mixed", 2, "linear")]
    kept += [task("mixed", 2, "dag"), task("policy", 2, "linear"), task("write", 3, "linear")]
    out, spare = _held_to_share(kept, 2, 0.3, _plain_two)
    # five tasks other than plain twos (three kept, two conversations): 0.3 / 0.7 * 5 -> two of the three
    assert [t["first_message"] for t in spare] == ["mixed 2"]
    assert sum(_plain_two(t) for t in out) == 2 and len(out) == 5

    config = TasksConfig(tasks_per_env=60, max_two_call_share=0.2, conversation_share=0.5, replay_check=False)
    for seed in range(3):
        kept, rejected = env_tasks({"spec": shop.spec}, config, [], random.Random(seed))
        twos = sum(_plain_two(t) for t in kept)
        assert len(kept) < 60 and twos <= max(1, 0.2 * len(kept)), (seed, twos, len(kept))
        assert all(
            r["reason"].startswith("two_call_quota") for r in rejected if r["code"] == "two_call_quota"
        )


def test_the_request_singles_the_row_out_by_what_the_user_knows(shop):
    # the most expensive product, known to the user by its name: the request says the name
    products = shop.env.step("list_products", {})["result"]
    index = max(range(len(products)), key=lambda i: products[i]["price"])
    row = products[index]
    order = shop.rows["orders"][0]["order_id"]
    calls = [
        GoldCall("list_products", {}, {}),
        GoldCall(
            "add_order_item",
            {"order_id": order, "product_id": row["product_id"], "quantity": 1, "unit_price": 2.0},
            {
                "order_id": "user",
                "product_id": f"call[0][{index}].product_id",
                "quantity": "constant",
                "unit_price": "constant",
            },
            write=True,
        ),
    ]
    facts = {"order number": order, "product name": row["name"], "quantity": 1, "unit price": 2.0}
    draft = TaskDraft("shop", "write", calls, user_facts=facts)
    assert execute(shop, draft) is None
    ins = write_instructions(draft, shop.spec, random.Random(0))
    assert f'named "{row["name"]}"' in ins.first_message
    assert "most expensive" not in ins.first_message


def test_two_independent_lookups_feeding_one_call_make_a_dag():
    a = GoldCall("list_files", {}, {})
    b = GoldCall("list_folders", {}, {})
    move = GoldCall("move_file", {}, {"file_id": "call[0][2].file_id", "folder_id": "call[1][0].folder_id"})
    assert journeys.joins([a, b, move])
    read = GoldCall("get_file", {}, {"file_id": "call[0][2].file_id"})
    write = GoldCall("update_file", {}, {"file_id": "call[1].file_id", "name": "constant"})
    assert not journeys.joins([a, read, write])  # a line: each call draws on the one before
    again = GoldCall("update_file", {}, {"file_id": "call[1].file_id", "owner": "call[0][2].owner"})
    assert not journeys.joins([a, read, again])  # call 1 depends on call 0: still one line of data


#: A list of every customer, which the shop fixture lacks: the lookup a person's name is found by.
LIST_CUSTOMERS = {
    "name": "list_customers",
    "description": "List the customers.",
    "kind": "read",
    "parameters": {"type": "object", "properties": {}},
    "operation": {"type": "list", "table": "customers"},
}


def test_a_row_known_by_a_value_a_search_looks_in_is_searched_for():
    """Seed 91's readers: the agent called `get_users_search()` with no query and scanned every user for "Emma
    Romero". Where the list tool searches the column the row is known by, the gold call searches for its value."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    search = copy.deepcopy(LIST_CUSTOMERS)
    search["name"], search["description"] = "search_customers", "Search the customers."
    search["parameters"]["properties"] = {"q": {"type": "string"}}
    search["operation"]["filters"] = [{"column": "name", "arg": "q", "op": "contains"}]
    spec["tools"].append(search)
    e = Env({"spec": spec}, TasksConfig())
    try:
        for row in e.rows["customers"][:5]:
            found = finding.find_row(e, "customers", row, random.Random(0))
            assert found is not None and list(found.facts.values()) == [row["name"]], found
            call = found.calls[-1]
            assert call.tool == "search_customers" and call.arguments == {"q": row["name"]}, call
            assert call.provenance == {"q": "user"}
            result = e.env.step(call.tool, call.arguments)["result"]
            assert result[found.at[1]]["customer_id"] == row["customer_id"]
    finally:
        e.env.close()


def test_a_parent_found_first_feeds_the_list_of_its_children(monkeypatch):
    # orders are listed per customer (list_orders needs customer_id): the customer is found first, by name
    monkeypatch.setattr(finding, "PRINTED", frozenset())  # here the order's key is internal too
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["orders"]["columns"]["title"] = {"type": "string"}  # what the user calls the order
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    e = Env({"spec": spec}, TasksConfig())
    pending = [r for r in e.rows["orders"] if r["status"] == "pending"]
    for order in pending:
        call = GoldCall("cancel_order", {"order_id": order["order_id"]}, {"order_id": "user"}, write=True)
        draft = TaskDraft("shop", "write", [call], user_facts={"order number": order["order_id"]})
        if journeys.humanize(e, draft, random.Random(0)) is None:
            break
    assert [c.tool for c in draft.calls] == ["list_customers", "list_orders", "cancel_order"]
    assert draft.calls[1].provenance["customer_id"].startswith("call[0][")
    assert draft.calls[2].provenance["order_id"].startswith("call[1][")
    assert order["order_id"] not in draft.user_facts.values()
    assert execute(e, draft) is None  # every link flows from the call it names
    e.env.close()


def test_a_row_is_found_by_its_name_before_its_date():
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    e = Env({"spec": spec}, TasksConfig())
    for row in e.rows["customers"][:5]:
        found = finding.find_row(e, "customers", row, random.Random(0))
        assert found is not None and list(found.facts.values()) == [row["name"]], found.facts
    e.env.close()


def test_a_row_is_never_known_by_who_created_it_or_by_its_own_noun(shop):
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    columns = spec["tables"]["customers"]["columns"]
    columns.update(
        {"created_by": {"type": "string"}, "creator": {"type": "string"}, "customer": {"type": "string"}}
    )
    e = Env({"spec": spec}, TasksConfig())
    try:
        row = e.rows["customers"][0]
        assert finding.knows_row_by(e, "customers", "name", row["name"])
        assert finding.knows_row_by(e, "customers", "email", row["email"])
        for column in ("created_by", "creator", "customer"):  # "the customer whose customer is Ann Lee"
            assert not finding.knows_row_by(e, "customers", column, "Ann Lee"), column
        assert not finding.knows_row_by(e, "customers", "customer_id", row["customer_id"])
    finally:
        e.env.close()


def test_a_branch_asks_when_the_row_reached_its_state_before_when_it_was_made():
    """ "Cancel it unless it is already cancelled: in that case just tell me its ..." asks for `cancelled_at`, else
    `updated_at`, else another date; the creation date is the last date asked (a reader found "tell me its creation
    date" a template no person says)."""
    rank = branches.fallback_rank
    assert min(["created_at", "updated_at", "cancelled_at", "name"], key=lambda c: rank(c, "cancelled")) == (
        "cancelled_at"
    )
    assert min(["created_at", "updated_at", "name"], key=lambda c: rank(c, "CANCELLED")) == "updated_at"
    assert min(["created_at", "start_date", "name"], key=lambda c: rank(c, "inactive")) == "start_date"
    assert min(["created_at", "name"], key=lambda c: rank(c, "inactive")) == "created_at"
    assert min(["title", "name"], key=lambda c: rank(c, "paid")) == "name"


def test_a_row_added_to_a_new_row_lives_where_its_parent_does():
    """Orbit's "post a member in workspace horizon-garcia, then add an activity to the new member" named another
    workspace for the activity: a route parameter of both calls (`workspace_slug`) takes the parent call's value."""
    slug = {"type": "string", "x-in": "path"}
    spec = {
        "name": "community",
        "spec_version": "1.1",
        "tables": {
            "members": {
                "primary_key": "member_slug",
                "columns": {
                    "member_slug": {"type": "string"},
                    "workspace_slug": {"type": "string"},
                    "name": {"type": "string"},
                },
            },
            "activities": {
                "primary_key": "activity_id",
                "columns": {
                    "activity_id": {"type": "string"},
                    "member_slug": {"type": "string", "references": "members"},
                    "workspace_slug": {"type": "string"},
                    "title": {"type": "string"},
                },
            },
        },
        "data": {"rows": {"members": 6, "activities": 6}},
        "tools": [
            {
                "name": "post_member",
                "description": "Create a member in a workspace.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"workspace_slug": slug, "name": {"type": "string"}},
                    "required": ["workspace_slug", "name"],
                },
                "operation": {
                    "type": "insert",
                    "table": "members",
                    "values": {"workspace_slug": "workspace_slug", "name": "name"},
                    "generate": {"member_slug": "id"},
                },
            },
            {
                "name": "post_activity",
                "description": "Add an activity to a member of a workspace.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"workspace_slug": slug, "member_slug": slug, "title": {"type": "string"}},
                    "required": ["workspace_slug", "member_slug", "title"],
                },
                "operation": {
                    "type": "insert",
                    "table": "activities",
                    "values": {
                        "workspace_slug": "workspace_slug",
                        "member_slug": "member_slug",
                        "title": "title",
                    },
                    "generate": {"activity_id": "id"},
                },
            },
        ],
    }
    validate_spec(spec)
    env = Env({"spec": spec}, TasksConfig())
    built = [d for seed in range(30) if (d := journeys.create_then_add(env, random.Random(seed), "write"))]
    assert built
    for d in built:
        parent, child = d.calls
        assert child.arguments["workspace_slug"] == parent.arguments["workspace_slug"]
        assert child.provenance["member_slug"] == "call[0].member_slug"
        assert execute(env, d) is None


def test_a_row_the_first_write_points_to_is_changed_along_never_removed():
    """ "Delete the opportunity and delete its owner" read as absurd to an outside reader: the row a first write's row
    holds a reference to (an order's customer) may be changed with it, never deleted because of it."""
    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    spec["tools"].append(
        {
            "name": "delete_customer",
            "description": "Delete a customer.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"customer_id": {"type": "string"}},
                "required": ["customer_id"],
            },
            "operation": {"type": "delete", "table": "customers", "key": {"customer_id": "customer_id"}},
        }
    )
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    holds = [
        (first["name"], second["name"])
        for first in e.writes
        if e.key_arg(first)
        for second, how, _ in journeys._related_pairs(e, first)
        if how == "holds"
    ]
    assert holds, "no write on a held row at all"
    assert not [pair for pair in holds if pair[1] == "delete_customer"], holds


def _refetch_draft(e):
    """list_products -> get_product of a listed row -> add_order_item of that product (the get re-reads it)."""
    listed = e.env.step("list_products", {})["result"]
    j = 2
    product = listed[j]["product_id"]
    order = e.rows["orders"][0]["order_id"]
    calls = [
        GoldCall("list_products", {}, {}),
        GoldCall("get_product", {"product_id": product}, {"product_id": f"call[0][{j}].product_id"}),
        GoldCall(
            "add_order_item",
            {"order_id": order, "product_id": product, "quantity": 1, "unit_price": 3.5},
            {
                "order_id": "user",
                "product_id": "call[1].product_id",
                "quantity": "constant",
                "unit_price": "constant",
            },
            write=True,
        ),
    ]
    facts = {"order number": order, "product name": listed[j]["name"]}
    draft = TaskDraft("shop", "write", calls, user_facts=facts, shape="linear")
    draft.lookups = 1
    return draft, j


def test_a_row_a_list_returned_whole_is_not_fetched_again(shop):
    draft, j = _refetch_draft(shop)
    assert execute(shop, draft) is None
    state = draft.gold_state_hash
    assert rereads.drop_refetch(shop, draft) == 1
    assert [c.tool for c in draft.calls] == ["list_products", "add_order_item"]
    # the write reads the product's key where the list gave it, and reaches the same state
    assert draft.calls[1].provenance["product_id"] == f"call[0][{j}].product_id"
    assert draft.calls[1].provenance["order_id"] == "user"
    assert draft.lookups == 1
    again = TaskDraft(
        "shop", "write", [GoldCall(c.tool, c.arguments, c.provenance, write=c.write) for c in draft.calls]
    )
    assert execute(shop, again) is None and again.gold_state_hash == state


def test_a_row_a_list_returned_is_not_listed_again(shop):
    """Seed 94's readers: Postman's `getAllApIs(name="Product Apis")`, then `getAllApIs()` to find the same API for
    its versions ("the gold calls getAllApIs twice, which is redundant"). The later list goes; its reader reads the
    row where the first list gave it, and the task reaches the same state."""
    name = next(p["name"] for p in shop.rows["products"] if p["name"])
    order = shop.rows["orders"][0]["order_id"]
    first = GoldCall("list_products", {"query": name}, {"query": "user"})
    calls = [first, GoldCall("list_products", {}, {})]
    draft = TaskDraft("shop", "write", calls, shape="dag")
    assert execute(shop, draft) is None
    listed = calls[1].result
    j = next(i for i, p in enumerate(listed) if p["product_id"] == first.result[0]["product_id"])
    item = {"order_id": order, "product_id": listed[j]["product_id"], "quantity": 1, "unit_price": 3.5}
    add = GoldCall(
        "add_order_item",
        item,
        {
            "order_id": "user",
            "product_id": f"call[1][{j}].product_id",
            "quantity": "constant",
            "unit_price": "constant",
        },
        write=True,
    )
    draft = TaskDraft("shop", "write", [*calls, add], shape="dag")
    draft.lookups = 2
    assert execute(shop, draft) is None
    state = draft.gold_state_hash
    assert rereads.drop_refetch(shop, draft) == 1
    assert [c.tool for c in draft.calls] == ["list_products", "add_order_item"]
    assert draft.calls[1].provenance["product_id"] == "call[0][0].product_id" and draft.lookups == 1
    again = TaskDraft(
        "shop", "write", [GoldCall(c.tool, c.arguments, c.provenance, write=c.write) for c in draft.calls]
    )
    assert execute(shop, again) is None and again.gold_state_hash == state
    # a list no later call reads one row of (read as a whole, for how many products there are) stays
    alone = {**add.provenance, "product_id": "call[0][0].product_id"}
    whole = TaskDraft(
        "shop", "write", [*calls, GoldCall("add_order_item", item, alone, write=True)], shape="dag"
    )
    assert execute(shop, whole) is None and rereads.drop_refetch(shop, whole) == 0


def test_a_get_that_returns_more_than_the_list_row_is_kept(shop):
    draft, j = _refetch_draft(shop)
    assert execute(shop, draft) is None
    del draft.calls[0].result[j]["stock"]  # a list of summaries: the get is the only read of the stock
    assert rereads.drop_refetch(shop, draft) == 0
    assert [c.tool for c in draft.calls] == ["list_products", "get_product", "add_order_item"]


def test_no_kept_task_fetches_a_listed_row_again():
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    kept, _ = env_tasks(
        {"spec": spec}, TasksConfig(tasks_per_env=30, max_single_share=1.0), [], random.Random(1)
    )
    for task in kept:
        calls, results = task["gold_calls"], task["gold_results"]
        for call, result in zip(calls, results, strict=True):
            for source in call["provenance"].values():
                parsed = parse_provenance(source)
                if parsed is None or len(parsed[1]) != 2 or not isinstance(parsed[1][0], int):
                    continue
                i, (j, _) = parsed
                assert results[i][j] != result, (task["first_message"], calls)  # the same row, read twice
    dropped = [t for t in kept if any(n.startswith("dropped 1 read") for n in t["notes"])]
    assert dropped, "no task of this seed found a row by a list: the check above checked nothing"
    # the request still says what the user wants of the row; the gold reads it off the list
    task = dropped[0]
    assert [c["tool"] for c in task["gold_calls"]][:1] == ["list_products"]
    assert task["answer_facts"] or task["gold_diff"]


def test_a_row_is_found_by_its_own_name_before_another_entitys_name():
    # a customer row also holds the name of its account manager: "the customer whose account manager name is
    # Jane Roe" picks the row by an arbitrary column; a person names the customer
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["customers"]["columns"]["account_manager_name"] = {"type": "string"}
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    e = Env({"spec": spec}, TasksConfig())
    managers = ["Ada Moss", "Ben Ortiz", "Cy Vance", "Di Park", "Ed Lund"]
    for row, manager in zip(e.rows["customers"], managers * 10, strict=False):
        row["account_manager_name"] = f"{manager} {row['customer_id'][-2:]}"  # unique as well
    for row in e.rows["customers"][:5]:
        found = finding.find_row(e, "customers", row, random.Random(0))
        assert found is not None and list(found.facts.values()) == [row["name"]], found.facts
    assert finding.rank(e, "customers", "account_manager_name") > finding.rank(e, "customers", "name")
    e.env.close()


def test_a_chain_that_comes_back_to_a_row_it_read_is_dropped():
    budgets = [{"budget_id": "bud_1", "name": "Home"}, {"budget_id": "bud_2", "name": "Trip"}]
    payees = [{"payee_id": "pay_1", "budget_id": "bud_1", "name": "Grocer"}]
    calls = [
        GoldCall("list_budgets", {}, {}, result=budgets),
        GoldCall("list_payees", {"budget_id": "bud_1"}, {"budget_id": "call[0][0].budget_id"}, result=payees),
        # "the budget of the payee of the budget named Home": Home again, by a loop
        GoldCall(
            "get_budget", {"budget_id": "bud_1"}, {"budget_id": "call[1][0].budget_id"}, result=budgets[0]
        ),
    ]
    assert gates.rereads_row(calls)[0] == "rereads_row"
    calls[2] = GoldCall(
        "get_budget", {"budget_id": "bud_2"}, {"budget_id": "call[0][1].budget_id"}, result=budgets[1]
    )
    assert gates.rereads_row(calls) is None  # another budget: a step of the journey


def test_a_row_looked_up_twice_in_one_chain_is_looked_up_once():
    calls = [
        GoldCall("list_budgets", {}, {}),
        GoldCall("list_transactions", {"budget_id": "bud_1"}, {"budget_id": "call[0][0].budget_id"}),
        GoldCall("list_budgets", {}, {}),  # the same budget, found again for the write's own budget_id
        GoldCall(
            "delete_transaction",
            {"budget_id": "bud_1", "transaction_id": "tra_1"},
            {"budget_id": "call[2][0].budget_id", "transaction_id": "call[1][0].transaction_id"},
            write=True,
        ),
    ]
    draft = TaskDraft("ynab", "write", calls, shape="linear")
    draft.lookups = 3
    rereads.merge_repeated_lookups(draft)
    assert [c.tool for c in draft.calls] == ["list_budgets", "list_transactions", "delete_transaction"]
    assert draft.calls[2].provenance == {
        "budget_id": "call[0][0].budget_id",
        "transaction_id": "call[1][0].transaction_id",
    }
    assert draft.lookups == 2


def test_one_call_tasks_are_held_to_their_share_of_what_the_environment_keeps():
    # an environment that keeps few journeys keeps fewer one-call tasks too: the share is of its tasks, not of
    # the tasks it was asked for (the quickstart kept 25% one-call tasks under a 20% share)
    for fixture in ("shop", "store"):
        spec = load_spec(f"tests/fixtures/envs/{fixture}.yaml")
        config = TasksConfig(tasks_per_env=30, max_single_share=0.2, replay_check=False)
        kept, rejected = env_tasks({"spec": spec}, config, [], random.Random(0))
        one = [t for t in kept if t["difficulty"]["chain_length"] == 1 and t["kind"] != "policy"]
        longer = [t for t in kept if t["difficulty"]["chain_length"] > 1]
        assert longer and len(one) <= max(1, 0.25 * len(longer)), (fixture, len(one), len(longer))
        spare = [r for r in rejected if r["code"] == "single_call_quota" and "task" in r["detail"]]
        assert all(r["detail"]["task"] for r in spare)  # a dropped task is named in its rejected row


def test_paging_an_api_requires_is_the_agents_first_page_never_a_fact_the_user_states():
    # DiaryController_SearchGuest requires offset and count: a user said "the offset is 6" and "up to 2 guests"
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    tool = next(t for t in spec["tools"] if t["name"] == "list_products")
    tool["parameters"]["properties"]["offset"] = {"type": "integer", "minimum": 0}
    tool["parameters"]["required"] = ["limit", "offset"]
    e = Env({"spec": spec}, TasksConfig())
    for seed in range(5):
        args, _ = e.call(e.tools["list_products"], random.Random(seed))
        assert args["offset"] == 0 and args["limit"] == 10, args
        facts = {}
        e.provenance_user(e.tools["list_products"], args, facts)
        assert len(facts) == len(args) - 2, facts  # the query and price are asked; the paging is not
    e.env.close()


def test_an_environment_does_not_pose_the_same_journey_again_and_again():
    # Orbit kept 14 of its 15 tasks as "post a member ... and add an identity to the new member"
    from collections import Counter

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    config = TasksConfig(tasks_per_env=30, max_same_tools_share=0.15, conversation_share=0)
    kept, rejected = env_tasks({"spec": spec}, config, [], random.Random(0))
    journeys_kept = Counter(tuple(c["tool"] for c in t["gold_calls"]) for t in kept)
    assert max(journeys_kept.values()) <= 4, journeys_kept
    assert any(r["code"] == "same_journey" for r in rejected)


def test_a_tool_named_after_its_route_is_asked_by_what_it_does_not_by_its_method():
    from envscale.tasks.steps import Steps

    tool = {"name": "post_by_workspace_slug_members", "description": ""}
    assert Steps._described_verb(tool, "create", "post", "member") == "add"
    assert Steps._described_verb(tool, "update", "patch", "member") == "update"
    assert Steps._described_verb(tool, "create", "invite", "member") == "invite"


def test_a_branch_never_asks_for_what_the_user_named_the_row_by(monkeypatch):
    # "mark the ad named Marketing Ad as draft, unless it is already draft: then just tell me its name"
    monkeypatch.setattr(branches, "fallback_rank", lambda column, status: (column != "title", column))
    spec = load_spec("tests/fixtures/envs/store.yaml")
    spec["tables"]["orders"]["columns"]["title"] = {"type": "string"}
    for i, row in enumerate(spec["initial_state"]["orders"]):
        row["title"] = f"Order for the {['kitchen', 'garden', 'office', 'garage', 'attic'][i % 5]} {i}"
    store = Env({"spec": spec}, TasksConfig())
    asks = set()
    for seed in range(60):
        d = branches.branch(store, random.Random(seed))
        if d is not None:
            asks.add(d.branch["ask"])
    assert asks and "title" not in asks, asks  # the title, ranked first here, names the row: never asked
    store.env.close()


def test_a_value_holding_a_generated_key_is_never_stated_by_the_user():
    # "change the tags to id row_6597": a person does not hold the keys inside a JSON value
    from envscale.tasks import arguments

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tools"].append(
        {
            "name": "set_product_attributes",
            "description": "Replace a product's attributes.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"product_id": {"type": "string"}, "attributes": {"type": "object"}},
                "required": ["product_id", "attributes"],
            },
            "operation": {
                "type": "update",
                "table": "products",
                "key": {"product_id": "product_id"},
                "set": {"attributes": "attributes"},
            },
        }
    )
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    product = e.rows["products"][0]["product_id"]
    for value, code in (({"tags": [{"id": "row_6597"}]}, "key_in_value"), ({"color": "red"}, None)):
        call = GoldCall(
            "set_product_attributes",
            {"product_id": product, "attributes": value},
            {"product_id": "user", "attributes": "user"},
            write=True,
        )
        draft = TaskDraft("shop", "write", [call], user_facts={"product id": product})
        drop = arguments.tidy(e, draft, random.Random(0))
        assert (drop[0] if drop else None) == code, drop
    e.env.close()


def test_a_thing_is_not_named_by_its_persons_email_nor_a_person_by_their_job_title():
    # "the meeting with email address x@y.com", "the contact whose title is Theatre manager": found by fields
    # no user names them by
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["orders"]["columns"]["email"] = {"type": "string"}
    spec["tables"]["customers"]["columns"]["title"] = {"type": "string"}
    e = Env({"spec": spec}, TasksConfig())
    assert finding.rank(e, "orders", "email") > finding.rank(e, "customers", "email")
    assert finding.rank(e, "customers", "title") > finding.rank(e, "customers", "name")
    assert finding.rank(e, "products", "name") < finding.rank(e, "orders", "email")
    e.env.close()
    # blind readers: "the supplier titled "Airline pilot"" (its contact's job), "the user whose company name is
    # Davis-Jones" (one of the company's people)
    spec["tables"]["suppliers"] = {
        "primary_key": "supplier_id",
        "columns": {
            "supplier_id": {"type": "string"},
            "contact_name": {"type": "string"},
            "title": {"type": "string"},
        },
    }
    spec["tables"]["customers"]["columns"]["company_name"] = {"type": "string"}
    e = Env({"spec": spec}, TasksConfig())
    late = finding.IDENTIFYING.index("date")  # after every name, title, email and company
    assert finding.rank(e, "suppliers", "title") >= late and finding.rank(e, "products", "name") < late
    assert finding.rank(e, "customers", "company_name") >= late
    e.env.close()
    # seed 94's readers: "the supplier named "Materials engineer"", Apideck's supplier with a first and a last name
    # and a `title`: that person's job, never how the supplier is found
    spec["tables"]["suppliers"]["columns"].update(first_name={"type": "string"}, last_name={"type": "string"})
    spec["tables"]["orders"]["columns"]["phone"] = {"type": "string"}
    e = Env({"spec": spec}, TasksConfig())
    assert finding.rank(e, "suppliers", "title") == len(finding.IDENTIFYING)
    # and "the message whose phone number is 851-704-2702": a message's (an order's) number is someone else's
    assert finding.rank(e, "orders", "phone") == len(finding.IDENTIFYING)
    assert finding.rank(e, "customers", "phone") < len(finding.IDENTIFYING)
    e.env.close()


def test_a_refusal_or_a_decision_on_a_row_already_in_its_state_is_never_held_back_as_one_call():
    from envscale.tasks.generate import _held_to_share

    def task(kind, calls, shape):
        return {"kind": kind, "first_message": kind, "difficulty": {"chain_length": calls, "shape": shape}}

    kept = [task("read", 1, "single"), task("mixed", 1, "branch"), task("policy", 1, "single")]
    kept += [task("write", 2, "linear")]
    out, spare = _held_to_share(kept, 0, 0.2)
    assert [t["kind"] for t in spare] == ["read"]
    assert [t["kind"] for t in out] == ["mixed", "policy", "write"]


def test_a_create_under_a_route_that_states_only_the_route_asks_for_nothing():
    # Orbit: "post a member with workspace slug X" made a nameless member in workspace X
    from envscale.tasks.asks import creates_from_nothing
    from envscale.tasks.naming import tool_bindings

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["products"]["columns"]["shop_slug"] = {"type": "string"}
    tool = {
        "name": "post_by_shop_slug_products",
        "description": "",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"shop_slug": {"type": "string", "x-in": "path"}, "name": {"type": "string"}},
            "required": ["shop_slug", "name"],
        },
        "operation": {
            "type": "insert",
            "table": "products",
            "values": {"shop_slug": "shop_slug", "name": "name"},
            "generate": {"product_id": "id"},
            "defaults": {"category": "books", "price": 1.0, "stock": 0},
        },
    }
    spec["tools"].append(tool)
    e = Env({"spec": spec}, TasksConfig())
    binds = tool_bindings(tool)
    bare = GoldCall(tool["name"], {"shop_slug": "acme"}, {"shop_slug": "constant"}, write=True)
    assert creates_from_nothing(e, tool, bare, binds)[0] == "empty_create"
    named = GoldCall(tool["name"], {"shop_slug": "acme", "name": "Desk Lamp"}, {}, write=True)
    assert creates_from_nothing(e, tool, named, binds) is None
    e.env.close()


def test_a_row_is_never_found_by_a_bookkeeping_date():
    """Blind readers: "the direct debit mandate whose latest direct debit date is 2024-09-26", "a section by its
    date utc". A row is found by its own plain date only where things happen on a day (an order, an event)."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    for table, column in (
        ("orders", "latest_direct_debit_date"),
        ("orders", "due_date"),
        ("products", "date"),
        ("orders", "end_date"),
        ("orders", "created_date"),
    ):
        spec["tables"][table]["columns"][column] = {"type": "string", "nullable": True}
    e = Env({"spec": spec}, TasksConfig())
    never = len(finding.IDENTIFYING)
    assert finding.rank(e, "orders", "latest_direct_debit_date") == never
    assert finding.rank(e, "products", "date") == never
    assert finding.rank(e, "orders", "due_date") < never
    # "the time off request whose end date is 2025-09-04" (two blind readers): no one knows a row by when it ends
    assert finding.rank(e, "orders", "end_date") == finding.rank(e, "orders", "created_date") == never
    assert finding.rank(e, "orders", "created_at") <= never  # a timestamp to the second was never a name
    e.env.close()


def test_a_project_is_never_found_by_when_it_starts_but_a_booking_may_be():
    """Seed 91's readers: "the project that starts on 2025-03-01" is not how anyone names a project. A start date
    finds only things held from a day (a booking, a webinar, a course)."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    for table in ("projects", "bookings", "webinars"):
        spec["tables"][table] = {
            "primary_key": "id",
            "columns": {"id": {"type": "string"}, "start_date": {"type": "string", "nullable": True}},
        }
    e = Env({"spec": spec}, TasksConfig())
    never = len(finding.IDENTIFYING)
    assert finding.rank(e, "projects", "start_date") == never
    assert finding.rank(e, "bookings", "start_date") < never
    assert finding.rank(e, "webinars", "start_date") < never
    e.env.close()


def test_a_row_named_like_another_parents_row_is_found_among_its_parents_rows(monkeypatch):
    """Two customers each have an order called "Birthday gifts": the user names the order and whose it is (the
    order "Birthday gifts" of Ann Lee); the agent finds the customer, then the order among the customer's orders."""
    monkeypatch.setattr(finding, "PRINTED", frozenset())  # the order's key is internal
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["orders"]["columns"]["title"] = {"type": "string"}
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    e = Env({"spec": spec}, TasksConfig())
    seen: dict = {}
    titles = [
        "",
        "Birthday gifts",
        "Office chairs",
        "Garden tools",
        "Winter coats",
        "Kitchen knives",
        "Desk lamps",
    ]
    db = e.env._db.conn  # the world as the test wants it: titles repeat across customers, never within one
    for order in e.rows["orders"]:
        seen[order["customer_id"]] = seen.get(order["customer_id"], 0) + 1
        db.execute(
            "UPDATE orders SET title = ? WHERE order_id = ?",
            (titles[seen[order["customer_id"]]], order["order_id"]),
        )
    e.initial, e.rows = e.env.snapshot(), e.env.dump()
    shared = [o for o in e.rows["orders"] if sum(p["title"] == o["title"] for p in e.rows["orders"]) > 1]
    assert shared
    found = None
    for order in shared:
        found = finding.find_row(e, "orders", order, random.Random(0))
        if found is not None and order["title"] in found.facts.values():
            break
    e.env.close()
    assert found is not None and [c.tool for c in found.calls] == ["list_customers", "list_orders"]
    assert order["title"] in found.facts.values()
    customer = next(c for c in e.rows["customers"] if c["customer_id"] == order["customer_id"])
    assert set(found.facts.values()) & {customer["name"], customer["email"]}


def test_nothing_is_added_to_a_row_the_first_write_just_cancelled(shop):
    """fire.com's "cancel the batch, then add an international transfer to it": a row whose life the first write
    ends (cancelled, deleted, closed) takes no new rows; one the first write only changes does."""
    tools = {t["name"]: t for t in shop.writes}

    def adds(first):
        return [how for _, how, _ in journeys._related_pairs(shop, tools[first]) if how.startswith("adds:")]

    assert adds("update_order_status") and not adds("cancel_order")


def test_no_one_comments_on_what_they_just_made():
    """Seed 91's readers: "Looks good to me, thanks!" commented on a spot the user had just added. Parts of a new
    row are added to it (an item to a new order); a comment, a review or a like on one's own new row is not."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["order_comments"] = {
        "primary_key": "comment_id",
        "columns": {
            "comment_id": {"type": "string"},
            "order_id": {"type": "string", "references": "orders"},
            "body": {"type": "string"},
        },
    }
    spec["tools"].append(
        {
            "name": "add_order_comment",
            "description": "Comment on an order.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "body": {"type": "string"}},
                "required": ["order_id", "body"],
            },
            "operation": {
                "type": "insert",
                "table": "order_comments",
                "values": {"order_id": "order_id", "body": "body"},
                "generate": {"comment_id": "id"},
            },
        }
    )
    e = Env({"spec": spec}, TasksConfig())
    tools = {t["name"]: t for t in e.writes}

    def adds(first):
        return {
            s["name"] for s, how, _ in journeys._related_pairs(e, tools[first]) if how.startswith("adds:")
        }

    try:
        assert "add_order_item" in adds("create_order") and "add_order_comment" not in adds("create_order")
        assert "add_order_comment" in adds("update_order_status")
    finally:
        e.env.close()


def test_no_one_asks_to_change_a_row_already_gone(store):
    """ "Delete the transaction" of a transaction marked deleted, "change the end date" of a cancelled booking:
    a reader found gold writes on rows already gone. A refusal and a decision on the row's state are about such
    rows; a write that brings a row back acts on one by nature."""
    from envscale.tasks.asks import acts_on_gone_row, gone_by

    def draft(order, kind="write", shape="single", tool="cancel_order"):
        call = GoldCall(tool, {"order_id": order}, {"order_id": "user"}, write=True)
        return TaskDraft("store", kind, [call], shape=shape)

    cancelled = next(o["order_id"] for o in store.rows["orders"] if o["status"] == "cancelled")
    pending = next(o["order_id"] for o in store.rows["orders"] if o["status"] == "pending")
    code, detail = acts_on_gone_row(store, draft(cancelled))
    assert code == "row_gone" and "status = 'cancelled'" in detail
    assert acts_on_gone_row(store, draft(pending)) is None
    assert acts_on_gone_row(store, draft(cancelled, kind="policy")) is None
    assert acts_on_gone_row(store, draft(cancelled, shape="branch")) is None
    # the store deletes only cancelled orders: deleting one is cleaning up, not acting on a row gone
    assert acts_on_gone_row(store, draft(cancelled, tool="delete_order")) is None
    assert gone_by({"transaction_id": "t1", "deleted": True}, deleted_only=True) == "deleted = true"
    assert gone_by({"order_id": "o1", "status": "cancelled"}, deleted_only=True) is None
    assert gone_by({"booking_id": "b1", "state": "Active", "deleted_at": None}) is None
    assert gone_by({"company_id": 18, "billing_address_state": "inactive", "status": "active"}) is None


def test_a_branch_without_a_date_of_the_state_asks_to_be_told_the_state():
    """ "cancel it, unless it is already cancelled: in that case just tell me when it was updated" (or "its
    latest direct debit date"): readers found those contrived. Where no column says when the row got there
    (`cancelled_at`), the user asks to be told it is so, and the answer states the state."""
    store, told = _branch_drafts("tell")
    assert told
    for d in told:
        assert d.branch["ask"] == d.branch["column"] and d.answer_facts == [str(d.branch["value"])]
        ins = write_instructions(d, store.spec, random.Random(0))
        assert "updated" not in ins.first_message and "already" in ins.first_message
        assert any(p in ins.first_message for p in ("let me know", "tell me so", "say so")), ins.first_message
    store.env.close()


def test_a_refused_attempt_names_the_rows_own_fields():
    """ "Could you cancel the reservation number 19 with confirmation id boo_0002? The confirmation number is
    boo_0001": the attempt drew its confirmation id at random while the lookup took the row's. A field of the
    row the attempt names (here the order's `customer_id`) is the row's own."""
    from envscale.tasks import chains

    spec = load_spec("tests/fixtures/envs/store.yaml")
    cancel = next(t for t in spec["tools"] if t["name"] == "cancel_order")
    cancel["parameters"]["properties"]["customer_id"] = {
        "type": "string"
    }  # named by the API, bound to nothing
    cancel["parameters"]["required"] = ["order_id", "customer_id"]
    store = Env({"spec": spec}, TasksConfig())
    orders = {o["order_id"]: o for o in store.rows["orders"]}
    attempts = []
    for seed in range(80):
        d = chains._policy(store, random.Random(seed))
        if not isinstance(d, str) and d.policy_rule["tool"] == "cancel_order":
            attempts.append(d.policy_rule["attempt"]["arguments"])
    assert attempts
    for args in attempts:
        assert args["customer_id"] == orders[args["order_id"]]["customer_id"], args
    store.env.close()


def _collections_spec() -> dict:
    """Tickets under collections, as apideck's issue-tracking API routes them: `/collections/{collection_id}/
    tickets/{ticket_id}`. The get, update and delete are keyed by the ticket; the collection in their route is a
    path argument the operation leaves unbound."""
    path = {"type": "string", "x-in": "path"}
    route = "/collections/{collection_id}/tickets/{ticket_id}"

    def ticket_tool(name: str, kind: str, op: dict, method: str, extra: dict | None = None) -> dict:
        props = {"collection_id": path, "ticket_id": path, **(extra or {})}
        return {
            "name": name,
            "description": f"{name.replace('_', ' ').capitalize()} in a collection.",
            "kind": kind,
            "parameters": {"type": "object", "properties": props, "required": ["collection_id", "ticket_id"]},
            "operation": op,
            "metadata": {"annotations": {"method": method, "path": route}},
        }

    key = {"ticket_id": "ticket_id"}
    return {
        "name": "issue_tracking",
        "spec_version": "1.1",
        "tables": {
            "collections": {
                "primary_key": "collection_id",
                "columns": {"collection_id": {"type": "string"}, "name": {"type": "string"}},
            },
            "tickets": {
                "primary_key": "ticket_id",
                "columns": {
                    "ticket_id": {"type": "string"},
                    "collection_id": {"type": "string", "references": "collections"},
                    "subject": {"type": "string"},
                    "priority": {"type": "string", "enum": ["low", "normal", "high"]},
                    "status": {"type": "string", "enum": ["open", "closed"]},
                },
            },
        },
        "data": {"rows": {"collections": 6, "tickets": 12}},
        "tools": [
            {
                "name": "list_collections",
                "description": "List the collections.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {}},
                "operation": {"type": "list", "table": "collections", "filters": []},
                "metadata": {"annotations": {"method": "GET", "path": "/collections"}},
            },
            ticket_tool("get_ticket", "read", {"type": "get", "table": "tickets", "key": key}, "GET"),
            ticket_tool(
                "update_ticket",
                "write",
                {"type": "update", "table": "tickets", "key": key, "set": {"priority": "priority"}},
                "PATCH",
                {"priority": {"type": "string", "enum": ["low", "normal", "high"]}},
            ),
            ticket_tool(
                "close_ticket",
                "write",
                {
                    "type": "update",
                    "table": "tickets",
                    "key": key,
                    "fixed": {"status": "closed"},
                    "preconditions": [
                        {"column": "status", "op": "ne", "value": "closed", "error": "the ticket is closed"}
                    ],
                },
                "POST",
            ),
        ],
    }


def test_a_row_under_a_route_parent_is_read_and_changed_in_its_own_parent():
    """A reader found "the ticket read with col_0006 and updated with col_0010": the get's collection was drawn
    from another ticket's call. Every call names the ticket's own collection, and the request says it as where
    the ticket is ("the ticket ... in the collection named ..."), never as a value set ("as its collection")."""
    from envscale.env import Environment

    spec = _collections_spec()
    env = Environment(spec)
    tickets = {r["ticket_id"]: r for r in env.dump()["tickets"]}
    env.close()
    config = TasksConfig(tasks_per_env=10, replay_check=False)
    calls = 0
    said_where = 0
    for seed in range(3):
        kept, _ = env_tasks({"spec": spec}, config, [], random.Random(seed))
        for task in kept:
            assert "as its collection" not in task["first_message"]
            said_where += " in the collection named " in task["first_message"]
            for call in task["gold_calls"]:
                args = call["arguments"]
                if "ticket_id" in args and args["ticket_id"] in tickets:
                    calls += 1
                    assert args["collection_id"] == tickets[args["ticket_id"]]["collection_id"], task
    assert calls >= 10 and said_where >= 1


def _projects_spec() -> dict:
    """Projects and their tasks; `list_tasks` lists every task or, with `project_id`, a project's. Two projects
    each have a task "Standup": only its project tells which one a person means."""
    s = {"type": "string"}
    return {
        "name": "planner",
        "spec_version": "1.1",
        "tables": {
            "projects": {"primary_key": "project_id", "columns": {"project_id": s, "name": s}},
            "tasks": {
                "primary_key": "task_id",
                "columns": {
                    "task_id": s,
                    "project_id": {"type": "string", "references": "projects"},
                    "title": s,
                    "status": {"type": "string", "enum": ["open", "done"]},
                },
            },
        },
        "data": {"rows": {"projects": 3, "tasks": 5}},
        "initial_state": {
            "projects": [
                {"project_id": "pro_0001", "name": "Website Relaunch"},
                {"project_id": "pro_0002", "name": "Payroll Migration"},
                {"project_id": "pro_0003", "name": "Office Move"},
            ],
            "tasks": [
                {"task_id": "tas_0001", "project_id": "pro_0001", "title": "Standup", "status": "open"},
                {"task_id": "tas_0002", "project_id": "pro_0002", "title": "Standup", "status": "open"},
                {
                    "task_id": "tas_0003",
                    "project_id": "pro_0001",
                    "title": "Write release notes",
                    "status": "open",
                },
                {"task_id": "tas_0004", "project_id": "pro_0003", "title": "Book movers", "status": "open"},
                {
                    "task_id": "tas_0005",
                    "project_id": "pro_0002",
                    "title": "Export payslips",
                    "status": "done",
                },
            ],
        },
        "tools": [
            {
                "name": "list_projects",
                "description": "List the projects.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {}},
                "operation": {"type": "list", "table": "projects", "filters": []},
            },
            {
                "name": "list_tasks",
                "description": "List tasks, optionally those of one project.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"project_id": s}},
                "operation": {
                    "type": "list",
                    "table": "tasks",
                    "filters": [{"column": "project_id", "arg": "project_id", "op": "eq"}],
                },
            },
            {
                "name": "get_task",
                "description": "Get a task.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"task_id": s}, "required": ["task_id"]},
                "operation": {"type": "get", "table": "tasks", "key": {"task_id": "task_id"}},
            },
            {
                "name": "rename_project",
                "description": "Rename a project.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"project_id": s, "name": s},
                    "required": ["project_id", "name"],
                },
                "operation": {
                    "type": "update",
                    "table": "projects",
                    "key": {"project_id": "project_id"},
                    "set": {"name": "name"},
                },
            },
        ],
    }


def test_a_row_is_found_among_its_parents_rows_where_a_list_takes_the_parent():
    """ "the task "Standup" in the project "Payroll Migration"": two projects have a "Standup", so the agent finds
    the project by its name, lists its tasks (the list's optional `project_id`), and picks the task by its
    title. A task whose title only it has may be found either way."""
    from envscale.tasks.finding import find_row

    e = Env({"spec": _projects_spec()}, TasksConfig())
    try:
        standup = next(r for r in e.rows["tasks"] if r["task_id"] == "tas_0002")
        found = find_row(e, "tasks", standup, random.Random(0))
        assert [c.tool for c in found.calls] == ["list_projects", "list_tasks"]
        assert found.calls[1].arguments == {"project_id": "pro_0002"}
        assert found.calls[1].provenance["project_id"].startswith("call[0][")
        assert sorted(found.facts.values()) == ["Payroll Migration", "Standup"]
        ways = set()
        notes = next(r for r in e.rows["tasks"] if r["task_id"] == "tas_0003")
        for seed in range(12):
            ways.add(tuple(c.tool for c in find_row(e, "tasks", notes, random.Random(seed)).calls))
        assert ways == {("list_tasks",), ("list_projects", "list_tasks")}
    finally:
        e.env.close()


def test_a_row_known_by_its_email_is_found_directly_never_through_its_parent():
    """Seed 91's readers: a GoToMeeting request went through the organizer's group "even though the email alone would
    do". An email, a username or a phone is one person's alone: the row is found by it in one call."""
    from envscale.tasks.finding import find_row

    s = {"type": "string"}
    groups = [
        {"group_id": f"gro_000{i}", "name": n} for i, n in enumerate(("Sales", "Support", "Finance"), 1)
    ]
    organizers = [
        {"organizer_id": f"org_000{i}", "group_id": f"gro_000{i % 3 + 1}", "email": f"host{i}@example.com"}
        for i in range(1, 6)
    ]
    organizer_columns = {
        "organizer_id": s,
        "group_id": {"type": "string", "references": "groups"},
        "email": s,
    }
    list_organizers = {
        "name": "list_organizers",
        "description": "List the organizers, or a group's.",
        "kind": "read",
        "parameters": {"type": "object", "properties": {"group_id": s}},
        "operation": {
            "type": "list",
            "table": "organizers",
            "filters": [{"column": "group_id", "arg": "group_id"}],
        },
    }
    list_groups = {
        "name": "list_groups",
        "description": "List the groups.",
        "kind": "read",
        "parameters": {"type": "object", "properties": {}},
        "operation": {"type": "list", "table": "groups"},
    }
    spec = {
        "name": "meetings",
        "spec_version": "1.1",
        "tables": {
            "groups": {"primary_key": "group_id", "columns": {"group_id": s, "name": s}},
            "organizers": {"primary_key": "organizer_id", "columns": organizer_columns},
        },
        "data": {"rows": {"groups": 3, "organizers": 5}},
        "initial_state": {"groups": groups, "organizers": organizers},
        "tools": [list_groups, list_organizers],
    }
    e = Env({"spec": spec}, TasksConfig())
    try:
        row = e.rows["organizers"][2]
        ways = {
            tuple(c.tool for c in find_row(e, "organizers", row, random.Random(seed)).calls)
            for seed in range(12)
        }
        assert ways == {("list_organizers",)}, ways
    finally:
        e.env.close()


def test_a_chain_never_walks_back_to_a_row_the_user_named():
    """ "change the picture of the spot of the event titled X in the spot titled Y": the chain found the event
    through its spot, then reached the same spot through the event's reference. `walks_back` drops it, and the
    tasks stage keeps none such (it fails with the gate unwired)."""
    from envscale.judge.provenance import parse_provenance
    from envscale.tasks.gates import walks_back
    from envscale.tasks.gold import execute
    from envscale.tasks.model import GoldCall, TaskDraft

    e = Env({"spec": _projects_spec()}, TasksConfig())
    try:
        calls = [
            GoldCall("list_projects", {}, {}),
            GoldCall("list_tasks", {"project_id": "pro_0002"}, {"project_id": "call[0][1].project_id"}),
            GoldCall(
                "rename_project",
                {"project_id": "pro_0002", "name": "Payroll 2"},
                {"project_id": "call[1][0].project_id", "name": "constant"},
                write=True,
            ),
        ]
        draft = TaskDraft("planner", "write", calls, shape="linear", user_facts={})
        assert execute(e, draft) is None
        assert walks_back(e, draft.calls)[0] == "walks_back"
        draft.calls[2].provenance["project_id"] = "call[0][1].project_id"  # read from the project found
        assert walks_back(e, draft.calls) is None
    finally:
        e.env.close()
    # writes only, and no get of a project: `read_first` would read the project first and `rereads_row` drop it
    config = TasksConfig(tasks_per_env=12, replay_check=False, kind_shares={"write": 1.0})
    walks = 0
    for seed in range(4):
        kept, rejected = env_tasks({"spec": _projects_spec()}, config, [], random.Random(seed))
        walks += sum(r["code"] == "walks_back" for r in rejected)
        for task in kept:
            calls = task["gold_calls"]
            named = {  # projects the agent found by their name, to list their tasks
                c["arguments"]["project_id"]
                for c in calls
                if c["tool"] == "list_tasks" and c["provenance"].get("project_id", "").startswith("call[")
            }
            for call in calls:
                source = parse_provenance(call["provenance"].get("project_id", ""))
                if call["tool"] == "rename_project" and source is not None:
                    back = (
                        calls[source[0]]["tool"] == "list_tasks" and call["arguments"]["project_id"] in named
                    )
                    assert not back, task["first_message"]
    assert walks  # the stage met such chains, and dropped them


def test_a_text_is_found_by_a_word_only_it_has_where_a_list_searches():
    """A tweet has no name or title: a person finds it by what it says ("my tweet about the Boston office"), and
    the agent searches for that word. Never by a function word or a weekday ("with", "Monday")."""
    from envscale.tasks.finding import find_row, search_terms

    s = {"type": "string"}
    texts = [
        "Following up on the security audit, as discussed with Holly on Monday.",
        "Our office in Boston will be closed on Saturday for maintenance.",
        "Following up on the security audit, as discussed with Bruno on Monday.",
    ]
    spec = {
        "name": "posting",
        "spec_version": "1.1",
        "tables": {"tweets": {"primary_key": "tweet_id", "columns": {"tweet_id": s, "content": s}}},
        "data": {"rows": {"tweets": 3}},
        "initial_state": {
            "tweets": [{"tweet_id": f"twe_000{i + 1}", "content": t} for i, t in enumerate(texts)]
        },
        "tools": [
            {
                "name": "search_tweets",
                "description": "Search tweets for a keyword.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"keyword": s}, "required": ["keyword"]},
                "operation": {
                    "type": "list",
                    "table": "tweets",
                    "filters": [{"column": "content", "arg": "keyword", "op": "contains"}],
                },
            }
        ],
    }
    e = Env({"spec": spec}, TasksConfig())
    try:
        for row, word in zip(e.rows["tweets"], ["Holly", "Boston", "Bruno"], strict=True):
            found = find_row(e, "tweets", row, random.Random(0))
            assert [(c.tool, c.arguments) for c in found.calls] == [("search_tweets", {"keyword": word})]
            assert list(found.facts.values()) == [word]
    finally:
        e.env.close()
    assert (
        search_terms(["Meeting", "notes", "Project", "Quartz", "launch", "moves", "June"])[0]
        == "Project Quartz"
    )
    assert "with" not in " ".join(search_terms(["discussed", "with", "Holly", "Monday"]))
    assert "Monday" not in search_terms(["discussed", "with", "Holly", "Monday"])


def _listing(name: str, table: str, parents: list[str]) -> dict:
    """A list tool of `table` that requires its parents' keys (`/projects/{project_id}/sections`)."""
    s = {"type": "string"}
    return {
        "name": name,
        "description": f"List the {table}.",
        "kind": "read",
        "parameters": {"type": "object", "properties": dict.fromkeys(parents, s), "required": parents},
        "operation": {
            "type": "list",
            "table": table,
            "filters": [{"column": p, "arg": p, "op": "eq"} for p in parents],
        },
    }


def test_a_row_is_found_through_two_levels_of_parents_that_agree():
    """ "the task "Standup" in the section "Backlog" of the project "Website Relaunch"": the agent finds the
    project, its sections, then the section's tasks. A row whose two parents were found through two different
    rows of one table ("the transaction of the budget named X of the payee of the budget named Y") is not
    described so: no person names a row by parents that disagree."""
    from envscale.tasks.finding import find_row

    s = {"type": "string"}
    ref = {"type": "string", "references": None}
    spec = {
        "name": "planner",
        "spec_version": "1.1",
        "tables": {
            "projects": {"primary_key": "project_id", "columns": {"project_id": s, "name": s}},
            "sections": {
                "primary_key": "section_id",
                "columns": {"section_id": s, "project_id": {**ref, "references": "projects"}, "title": s},
            },
            "tasks": {
                "primary_key": "task_id",
                "columns": {
                    "task_id": s,
                    "section_id": {**ref, "references": "sections"},
                    "project_id": {**ref, "references": "projects"},
                    "title": s,
                },
            },
        },
        "data": {"rows": {"projects": 2, "sections": 3, "tasks": 3}},
        "initial_state": {
            "projects": [
                {"project_id": "pro_0001", "name": "Website Relaunch"},
                {"project_id": "pro_0002", "name": "Payroll Migration"},
            ],
            "sections": [
                {"section_id": "sec_0001", "project_id": "pro_0001", "title": "Backlog"},
                {"section_id": "sec_0002", "project_id": "pro_0002", "title": "Backlog"},
                {"section_id": "sec_0003", "project_id": "pro_0002", "title": "Done"},
            ],
            "tasks": [
                {
                    "task_id": "tas_0001",
                    "section_id": "sec_0001",
                    "project_id": "pro_0001",
                    "title": "Standup",
                },
                {
                    "task_id": "tas_0002",
                    "section_id": "sec_0002",
                    "project_id": "pro_0002",
                    "title": "Standup",
                },
                # its section is Payroll Migration's, its project Website Relaunch: the parents disagree
                {"task_id": "tas_0003", "section_id": "sec_0003", "project_id": "pro_0001", "title": "Retro"},
            ],
        },
        "tools": [
            _listing("list_projects", "projects", []),
            _listing("list_sections", "sections", ["project_id"]),
            _listing("list_section_tasks", "tasks", ["project_id", "section_id"]),
        ],
    }
    e = Env({"spec": spec}, TasksConfig())
    try:
        standup = next(r for r in e.rows["tasks"] if r["task_id"] == "tas_0002")
        found = find_row(e, "tasks", standup, random.Random(0))
        tools = [c.tool for c in found.calls]
        assert tools[-1] == "list_section_tasks" and "list_sections" in tools
        assert found.calls[-1].arguments == {"project_id": "pro_0002", "section_id": "sec_0002"}
        assert set(found.facts.values()) == {"Payroll Migration", "Backlog", "Standup"}
        retro = next(r for r in e.rows["tasks"] if r["task_id"] == "tas_0003")
        assert find_row(e, "tasks", retro, random.Random(0)) is None
    finally:
        e.env.close()


def test_a_row_the_clause_before_named_is_its_in_the_next_lookup():
    """ "look up the direct debit mandate whose originator name is Lawson Energy, activate it, look up the direct
    debit of the direct debit mandate whose originator name is Lawson Energy": a blind reader quoted it as the
    commonest template wording. The parent the clause before acted on is "its" ("look up its task"), and a
    pronoun goes inside the phrasal verb ("look it up", never "look up it")."""
    e = Env({"spec": _projects_spec()}, TasksConfig())
    try:
        goals = []
        for seed in range(6):
            calls = [
                GoldCall("list_projects", {}, {}),
                GoldCall(
                    "rename_project",
                    {"project_id": "pro_0002", "name": "Payroll 2026"},
                    {"project_id": "call[0][1].project_id", "name": "constant"},
                    write=True,
                ),
                GoldCall("list_tasks", {"project_id": "pro_0002"}, {"project_id": "call[0][1].project_id"}),
                GoldCall("get_task", {"task_id": "tas_0005"}, {"task_id": "call[2][1].task_id"}),
            ]
            draft = TaskDraft("planner", "mixed", calls, user_facts={"project name": "Payroll Migration"})
            execute(e, draft)
            goals.append(write_instructions(draft, e.spec, random.Random(seed)).goal)
        for goal in goals:
            assert goal.count("Payroll Migration") == 1, goal
            assert "its task named" in goal and not re.search(r"look up it\b", goal), goal
    finally:
        e.env.close()


def test_a_row_is_never_found_by_someone_elses_email_company_or_due_date():
    """Blind readers: a folder found "with the email address ...", a class "whose organization is ...", a document
    "due on ...", a deployment "whose user name is ...". An email, a handle or a company names a row only where it is the row's own (a customer's, a vendor's);
    a due date only a thing that falls due (an invoice, a task)."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["classes"] = {
        "primary_key": "class_id",
        "columns": {
            "class_id": {"type": "string"},
            "name": {"type": "string"},
            "email": {"type": "string"},
            "organization": {"type": "string"},
            "due_date": {"type": "string"},
            "user_name": {"type": "string"},
        },
    }
    spec["tables"]["vendors"] = {
        "primary_key": "vendor_id",
        "columns": {"vendor_id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}},
    }
    spec["tables"]["invoices"] = {
        "primary_key": "invoice_id",
        "columns": {"invoice_id": {"type": "string"}, "due_date": {"type": "string"}},
    }
    e = Env({"spec": spec}, TasksConfig())
    never = len(finding.IDENTIFYING)
    assert finding.rank(e, "classes", "email") == never
    assert finding.rank(e, "classes", "organization") == never
    assert finding.rank(e, "classes", "due_date") == never
    assert finding.rank(e, "classes", "name") < never
    # "the deployment whose user name is kara_smith7": a row's handle is who made it, not how it is named
    assert finding.rank(e, "classes", "user_name") == never
    assert finding.rank(e, "vendors", "email") < never
    assert finding.rank(e, "invoices", "due_date") < never
    e.env.close()


def test_a_row_is_never_found_by_a_title_or_an_address_of_something_else():
    """Blind readers: "the setting whose montage title is ...", "the group whose newsletter subject is ...", "the
    user with send email ...". A title, an email or a phone qualified by another thing's word belongs to that
    thing; the row's own (`product_title`, `work_email`, `primary_phone`) still names it."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["settings"] = {
        "primary_key": "setting_id",
        "columns": {
            "setting_id": {"type": "string"},
            "montage_title": {"type": "string"},
            "newsletter_subject": {"type": "string"},
            "setting_title": {"type": "string"},
        },
    }
    spec["tables"]["contacts"] = {
        "primary_key": "contact_id",
        "columns": {
            "contact_id": {"type": "string"},
            "send_email": {"type": "string"},
            "work_email": {"type": "string"},
            "primary_phone": {"type": "string"},
        },
    }
    e = Env({"spec": spec}, TasksConfig())
    never = len(finding.IDENTIFYING)
    try:
        assert finding.rank(e, "settings", "montage_title") == never
        assert finding.rank(e, "settings", "newsletter_subject") == never
        assert finding.rank(e, "contacts", "send_email") == never
        assert finding.rank(e, "settings", "setting_title") < never
        assert finding.rank(e, "contacts", "work_email") < never
        assert finding.rank(e, "contacts", "primary_phone") < never
        assert finding.rank(e, "products", "name") < never
    finally:
        e.env.close()


def test_a_row_found_by_its_name_is_known_by_the_entity_said_once():
    """Blind readers found "campaign campaign name" and "group group name" in what the user knows: a row named in a
    column that says its entity (`customer_name`) is known by "customer name"."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tools"].append(copy.deepcopy(LIST_CUSTOMERS))
    columns = spec["tables"]["customers"]["columns"]
    columns["customer_name"] = columns.pop("name")
    e = Env({"spec": spec}, TasksConfig())
    try:
        names = set()
        for row in e.rows["customers"][:5]:
            found = finding.find_row(e, "customers", row, random.Random(0))
            if found is not None:
                names |= set(found.facts)
        assert names and not any("customer customer" in n for n in names), names
    finally:
        e.env.close()


def _update_customer(columns: dict[str, str]) -> dict:
    """An `update_customer` tool of the shop that sets `columns` (name -> JSON type), each by its own argument."""
    return {
        "name": "update_customer",
        "description": "Update a customer.",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"customer_id": {"type": "string"}, **{c: {"type": t} for c, t in columns.items()}},
            "required": ["customer_id"],
        },
        "operation": {
            "type": "update",
            "table": "customers",
            "key": {"customer_id": "customer_id"},
            "set": {c: c for c in columns},
        },
    }


def test_an_update_never_moves_a_rows_values_around_nor_renames_a_person():
    """Blind readers: "rename the group "New Hires 2025" to Project Managers and set its newsletter subject to New
    Hires 2025" (a value moved from one field to another) and "rename the user Stanley Marshall to Tiffany Smith" (a
    made-up name, no reason given). Neither write is posed; a plain new value is, and so is a reassignment."""
    from envscale.tasks.arguments import tidy

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tools"].append(_update_customer({"name": "string", "city": "string"}))
    spec["tables"]["orders"]["columns"]["assignee"] = {"type": "string"}
    spec["tools"].append(
        {
            "name": "assign_order",
            "description": "Assign an order to a member of staff.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "assignee": {"type": "string"}},
                "required": ["order_id", "assignee"],
            },
            "operation": {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"assignee": "assignee"},
            },
        }
    )
    e = Env({"spec": spec}, TasksConfig())
    try:
        row = next(r for r in e.rows["customers"] if r.get("city") and r.get("name"))
        order = next(r for r in e.rows["orders"] if r.get("assignee"))

        def drop(**values):
            call = GoldCall(
                "update_customer",
                {"customer_id": row["customer_id"], **values},
                {"customer_id": "user", **{k: "constant" for k in values}},
                write=True,
            )
            return tidy(e, TaskDraft("shop", "write", [call]), random.Random(0))

        moved = drop(city=row["name"])
        assert moved is not None and moved[0] == "shuffled_value", moved
        renamed = drop(name="Tiffany Smith")
        assert renamed is not None and renamed[0] == "renamed_person", renamed
        assert drop(city="Lisbon") is None
        # a person named in another row's field is reassigned, not renamed: "assign the order to Tiffany Smith"
        assign = GoldCall(
            "assign_order",
            {"order_id": order["order_id"], "assignee": "Tiffany Smith"},
            {"order_id": "user", "assignee": "constant"},
            write=True,
        )
        assert tidy(e, TaskDraft("shop", "write", [assign]), random.Random(0)) is None
    finally:
        e.env.close()


def test_an_update_states_only_what_it_changes_and_never_a_stock_line_beside_a_change():
    """Seed 93's readers: "change the group to auto assign no" sent to a channel whose group already said so ("half the
    request changes nothing"). Seed 94's: 'change the description to "Brenda Mooney set up "Wedding venues" in
    May." and the title to ...', a stock line of filler dictated beside the change meant. Both are left out of the
    call and of what the user knows; an update that would change nothing is not posed."""
    from envscale.tasks.arguments import tidy

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["customers"]["columns"]["notes"] = {"type": "string"}
    spec["tools"].append(_update_customer({"city": "string", "vip": "boolean", "notes": "string"}))
    e = Env({"spec": spec}, TasksConfig())
    try:
        row = next(r for r in e.rows["customers"] if r.get("city") and r["city"] != "Lisbon")

        def tidied(**values):
            call = GoldCall(
                "update_customer",
                {"customer_id": row["customer_id"], **values},
                {"customer_id": "user", **{k: "constant" for k in values}},
                write=True,
            )
            draft = TaskDraft("shop", "write", [call], user_facts={"new city": values.get("city")})
            return tidy(e, draft, random.Random(0)), call, draft

        drop, call, draft = tidied(city="Lisbon", vip=row["vip"])
        assert drop is None and "vip" not in call.arguments and call.arguments["city"] == "Lisbon"
        drop, call, draft = tidied(city=row["city"])  # the city it already has: nothing to change
        assert drop is not None and drop[0] == "nothing_to_change", drop
        assert "new city" not in draft.user_facts
        drop, call, draft = tidied(city="Lisbon", notes="Kept up to date by the Sales team.")
        assert drop is None and "notes" not in call.arguments and call.arguments["city"] == "Lisbon"
        drop, call, draft = tidied(notes="Kept up to date by the Sales team.")
        assert drop is None and "notes" in call.arguments  # the only change asked stays
        drop, call, draft = tidied(city="Lisbon", notes="Prefers delivery after 6 pm.")
        assert drop is None and call.arguments.get("notes") == "Prefers delivery after 6 pm."
    finally:
        e.env.close()


def _order_act(name, state):
    """A tool that moves an order to `state` (`submit_order` -> submitted)."""
    return {
        "name": name,
        "description": f"{name.split('_')[0].capitalize()} an order.",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
        "operation": {
            "type": "update",
            "table": "orders",
            "key": {"order_id": "order_id"},
            "fixed": {"status": state},
        },
    }


def _with_shipments(spec):
    """The shop with shipments of orders: a shipment's status is set by `update_shipment`, and `submit_order`
    moves an order to submitted."""
    spec["tables"]["orders"]["columns"]["status"]["enum"] += ["submitted", "ended"]
    spec["tables"]["shipments"] = {
        "primary_key": "shipment_id",
        "columns": {
            "shipment_id": {"type": "string"},
            "order_id": {"type": "string", "references": "orders", "nullable": False},
            "status": {"type": "string", "enum": ["label_created", "in_transit", "lost"], "nullable": False},
        },
    }
    spec["data"]["rows"]["shipments"] = 20
    sid = {"type": "object", "properties": {"shipment_id": {"type": "string"}}, "required": ["shipment_id"]}
    spec["tools"] += [
        {
            "name": "get_shipment",
            "description": "Get a shipment.",
            "kind": "read",
            "parameters": sid,
            "operation": {"type": "get", "table": "shipments", "key": {"shipment_id": "shipment_id"}},
        },
        {
            "name": "update_shipment",
            "description": "Update the status of a shipment.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "shipment_id": {"type": "string"},
                    "status": {"type": "string", "enum": ["label_created", "in_transit", "lost"]},
                },
                "required": ["shipment_id", "status"],
            },
            "operation": {
                "type": "update",
                "table": "shipments",
                "key": {"shipment_id": "shipment_id"},
                "set": {"status": "status"},
            },
        },
        _order_act("end_order", "ended"),
        _order_act("submit_order", "submitted"),
    ]
    validate_spec(spec)
    return spec


def test_two_writes_on_related_rows_go_one_way():
    """Seed 87's readers: "mark my shipment in transit, then cancel its order" (a shipment moving on while its
    order is called off), and "submit the batch, then add a transfer to it" (nothing is added to what was just
    submitted). A held row is retired only along a first write that retires its own row ("cancel the order and
    refund its payment"), and a row the first write settles takes no new rows."""
    e = Env(
        {"spec": _with_shipments(copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml")))}, TasksConfig()
    )
    tools = {t["name"]: t for t in e.writes}
    pairs = {
        name: [(s["name"], how) for s, how, _ in journeys._related_pairs(e, tools[name])] for name in tools
    }
    e.env.close()
    assert not [p for p in pairs["update_shipment"] if p[0] == "cancel_order"], pairs["update_shipment"]
    assert not [p for p in pairs["submit_order"] if p[1].startswith("adds:")], pairs["submit_order"]
    assert not [p for p in pairs["end_order"] if p[1].startswith("adds:")], pairs["end_order"]  # seed 88
    # a change that moves the row on still takes new rows, and the held row is still changed along with it
    assert [p for p in pairs["update_order_status"] if p[1].startswith("adds:")], pairs["update_order_status"]


def test_no_one_deletes_a_person_reached_through_what_they_own():
    """Seed 87's readers: "delete the owner of the activity", "look up the appointment's customer and delete the
    customer", "delete the company of the employee": nobody removes a person or an organisation because of one
    row of theirs. Such a delete names its row itself; a change to it may still come through the row ("change the
    email of the customer who placed order ord_0003")."""
    from envscale.tasks import chains

    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    spec["tools"].append(
        {
            "name": "delete_customer",
            "description": "Delete a customer.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"customer_id": {"type": "string"}},
                "required": ["customer_id"],
            },
            "operation": {"type": "delete", "table": "customers", "key": {"customer_id": "customer_id"}},
        }
    )
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    tools = {t["name"]: t for t in e.writes}
    customer = next(
        c for c in e.rows["customers"] if any(o["customer_id"] == c["customer_id"] for o in e.rows["orders"])
    )
    rng = random.Random(0)
    deleted = chains._write_of_related_row(
        e,
        tools["delete_customer"],
        {"customer_id": customer["customer_id"]},
        customer,
        "customer_id",
        "write",
        rng,
    )
    changed = chains._write_of_related_row(
        e,
        tools["update_customer_email"],
        {"customer_id": customer["customer_id"], "email": "a.new@example.com"},
        customer,
        "customer_id",
        "write",
        rng,
    )
    e.env.close()
    assert deleted is None, [c.tool for c in deleted.calls]
    assert changed is not None and [c.tool for c in changed.calls] == ["get_order", "update_customer_email"]


def test_no_row_is_found_by_the_name_of_another_row_it_holds():
    """Seed 87's readers: "the employee whose company name is Cross Patel Industries" (to delete that company),
    "the transaction whose account name is Petty Cash", "the timesheet whose customer name is Anthony Ortiz", "the
    user whose company name is Cruz, Burgess and Sparks": a name of another thing the row holds is shared by that
    thing's many rows, and says which other row is meant, never which of its own. No row is found by it."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["orders"]["columns"]["customer_name"] = {"type": "string"}
    spec["tables"]["customers"]["columns"]["company_name"] = {"type": "string"}
    e = Env({"spec": spec}, TasksConfig())
    never = len(finding.IDENTIFYING)
    assert finding.rank(e, "orders", "customer_name") == never
    assert finding.rank(e, "customers", "company_name") == never
    assert finding.rank(e, "customers", "name") < never  # its own name still finds a customer
    e.env.close()


def test_an_idfk_number_the_user_would_state_is_looked_up_by_its_row_s_name():
    """Avaza's `ProjectCategoryIDFK=16`: seed 87's readers got "a new project for project category 16". An integer
    `...IDFK` key is a key like `..._id`: the user names the category, and the agent looks its number up."""
    spec = copy.deepcopy(load_spec("tests/fixtures/envs/shop.yaml"))
    spec["tables"]["product_categories"] = {
        "primary_key": "category_id",
        "columns": {"category_id": {"type": "integer"}, "name": {"type": "string", "nullable": False}},
    }
    spec["tables"]["orders"]["columns"]["product_category_idfk"] = {
        "type": "integer",
        "nullable": True,
        "references": "product_categories",
    }
    spec["data"]["rows"]["product_categories"] = 6
    spec["tools"] += [
        {
            "name": "list_product_categories",
            "description": "List the product categories.",
            "kind": "read",
            "parameters": {"type": "object", "properties": {}},
            "operation": {"type": "list", "table": "product_categories"},
        },
        {
            "name": "set_order_category",
            "description": "Set the product category of an order.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "ProductCategoryIDFK": {"type": "integer"}},
                "required": ["order_id", "ProductCategoryIDFK"],
            },
            "operation": {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"product_category_idfk": "ProductCategoryIDFK"},
            },
        },
    ]
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    order = e.rows["orders"][0]["order_id"]
    category = e.rows["product_categories"][2]["category_id"]
    args = {"order_id": order, "ProductCategoryIDFK": category}
    call = GoldCall("set_order_category", args, dict.fromkeys(args, "user"), write=True)
    draft = TaskDraft(
        "shop", "write", [call], user_facts={"order number": order, "product category": category}
    )
    drop = journeys.humanize(e, draft, random.Random(0))
    e.env.close()
    assert drop is None, drop
    assert [c.tool for c in draft.calls] == ["list_product_categories", "set_order_category"], draft.calls
    assert category not in draft.user_facts.values(), draft.user_facts


def test_a_number_a_tool_takes_for_a_key_kept_as_digits_is_an_internal_id():
    """iQualify keeps its orgunits' keys as digits (`"14"`) and `get_orgunits_by_orgid` takes `orgid=14`: seed 88's
    readers found "find out the display name of orgunit 14", a raw id no person knows. The number is that key: the
    user names the orgunit, and the agent looks it up."""
    names = ["Legal", "Research", "Finance", "Sales", "Support"]
    spec = {
        "name": "learning",
        "description": "An e-learning platform's organisation units.",
        "tables": {
            "orgunits": {
                "primary_key": "orgunit_id",
                "columns": {"orgunit_id": {"type": "string"}, "name": {"type": "string", "nullable": False}},
            }
        },
        "initial_state": {"orgunits": [{"orgunit_id": str(11 + i), "name": n} for i, n in enumerate(names)]},
        "tools": [
            {
                "name": "get_orgunits",
                "description": "List the orgunits.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {}},
                "operation": {"type": "list", "table": "orgunits"},
            },
            {
                "name": "get_orgunit_by_orgid",
                "description": "Get an orgunit.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"orgid": {"type": "integer"}},
                    "required": ["orgid"],
                },
                "operation": {"type": "get", "table": "orgunits", "key": {"orgunit_id": "orgid"}},
            },
        ],
    }
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    assert finding.internal_key(e, "orgunits", 13)
    call = GoldCall("get_orgunit_by_orgid", {"orgid": 13}, {"orgid": "user"})
    draft = TaskDraft("learning", "read", [call], user_facts={"orgunit id": 13})
    drop = journeys.humanize(e, draft, random.Random(0))
    e.env.close()
    assert drop is None, drop
    assert [c.tool for c in draft.calls] == ["get_orgunits", "get_orgunit_by_orgid"], draft.calls
    assert "Finance" in draft.user_facts.values() and 13 not in draft.user_facts.values(), draft.user_facts


def test_nothing_is_done_to_a_row_the_task_just_ended(shop):
    """Seed 90's readers: "cancel the booking boo_0003 ... Then: change the payment type of booking boo_0003", "end
    the campaign ... Then: rename it and add an ad group to it". A row a call of the task cancels or ends takes no
    later change or new part (deleting it is cleaning up); one the task only changed still does."""
    order = next(o["order_id"] for o in shop.rows["orders"] if o["status"] == "pending")
    item = {
        "order_id": order,
        "product_id": shop.rows["products"][0]["product_id"],
        "quantity": 1,
        "unit_price": 2.0,
    }
    cancel = {"tool": "cancel_order", "arguments": {"order_id": order}}
    then_change = {"tool": "update_order_status", "arguments": {"order_id": order, "status": "shipped"}}
    then_add = GoldCall("add_order_item", item, dict.fromkeys(item, "user"), write=True)
    drop = journeys.ends_then_acts(shop, [cancel, then_change])
    assert drop is not None and drop[0] == "acts_after_ending", drop
    assert journeys.ends_then_acts(
        shop, [GoldCall("cancel_order", {"order_id": order}, {}, write=True), then_add]
    )
    assert journeys.ends_then_acts(shop, [then_change, then_add]) is None
    other = next(o["order_id"] for o in shop.rows["orders"] if o["order_id"] != order)
    assert (
        journeys.ends_then_acts(
            shop, [cancel, {**then_change, "arguments": {"order_id": other, "status": "shipped"}}]
        )
        is None
    )


def test_the_callers_own_account_is_stated_and_its_rows_are_found_in_it():
    """Sakari lists contacts per account (`/v1/accounts/{accountId}/contacts`) and no tool lists accounts: every task
    was dropped because "no lookup finds the account". The account an API scopes its routes by is the caller's own:
    the user states its ID, and the agent finds the contact among the account's contacts by name."""
    key = {"type": "string"}
    spec = {
        "name": "sms",
        "description": "An SMS service's contacts.",
        "tables": {
            "accounts": {
                "primary_key": "account_id",
                "columns": {"account_id": key, "name": {"type": "string"}},
            },
            "contacts": {
                "primary_key": "contact_id",
                "columns": {
                    "contact_id": key,
                    "account_id": {"type": "string", "references": "accounts", "nullable": False},
                    "name": {"type": "string", "nullable": False},
                },
            },
        },
        "initial_state": {
            "accounts": [{"account_id": "acc_0001", "name": "Main"}],
            "contacts": [
                {"contact_id": f"con_000{i}", "account_id": "acc_0001", "name": n}
                for i, n in enumerate(["Maria Lopez", "Kevin Krueger", "Sofia Rossi"], start=1)
            ],
        },
        "tools": [
            {
                "name": "contacts_fetchAll",
                "description": "List an account's contacts.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"accountId": key, "name": key},
                    "required": ["accountId"],
                },
                "operation": {
                    "type": "list",
                    "table": "contacts",
                    "filters": [
                        {"column": "account_id", "arg": "accountId", "op": "eq"},
                        {"column": "name", "arg": "name", "op": "eq"},
                    ],
                },
            },
            {
                "name": "contacts_remove",
                "description": "Remove a contact of an account.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"accountId": key, "contactId": key},
                    "required": ["accountId", "contactId"],
                },
                "operation": {
                    "type": "delete",
                    "table": "contacts",
                    "key": {"contact_id": "contactId"},
                },
            },
        ],
    }
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    assert not finding.internal_key(e, "accounts", "acc_0001") and finding.internal_key(
        e, "contacts", "con_0002"
    )
    args = {"accountId": "acc_0001", "contactId": "con_0002"}
    call = GoldCall("contacts_remove", args, dict.fromkeys(args, "user"), write=True)
    e_tool = next(t for t in spec["tools"] if t["name"] == "contacts_remove")
    draft = TaskDraft("sms", "write", [call], user_facts={fact_name("accountId", e_tool, spec): "acc_0001"})
    drop = journeys.humanize(e, draft, random.Random(0))
    e.env.close()
    assert drop is None, drop
    assert [c.tool for c in draft.calls] == ["contacts_fetchAll", "contacts_remove"], draft.calls
    assert draft.calls[0].provenance["accountId"] == "user" and "acc_0001" in draft.user_facts.values()
    assert list(draft.user_facts.values()).count("acc_0001") == 1, (
        draft.user_facts
    )  # one fact, never two names
    assert "Kevin Krueger" in draft.user_facts.values(), draft.user_facts
    # Azure's `/subscriptions/{subscriptionId}/...` (the openapi-sample lost 4,793 tasks to it): the same scope
    azure = json.loads(json.dumps(spec).replace('"accounts"', '"subscriptions"'))
    e = Env({"spec": azure}, TasksConfig())
    assert not finding.internal_key(e, "subscriptions", "acc_0001") and finding.internal_key(
        e, "contacts", "con_0002"
    )
    e.env.close()


def test_the_callers_own_row_is_read_by_the_tool_that_returns_it():
    """Seed 91: PocketSmith had no task at all, its routes being under the user's id (`/users/{id}/accounts`), "a key
    no person knows". The caller's own row is read by the tool that returns it (`get_me`), and a get of it by its id
    after that reads it again for nothing: it is dropped, its readers reading the first."""
    from envscale.tasks import rereads
    from envscale.tasks.finding import find_row

    spec = load_spec("tests/fixtures/envs/store.yaml")
    spec["tools"].append(
        {
            "name": "get_customer",
            "description": "A customer by id.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "properties": {"customer_id": {"type": "string"}},
                "required": ["customer_id"],
            },
            "operation": {"type": "get", "table": "customers", "key": {"customer_id": "customer_id"}},
        }
    )
    e = Env({"spec": spec}, TasksConfig())
    try:
        me = e.session_row
        found = find_row(e, "customers", me, random.Random(0))
        assert [c.tool for c in found.calls] == ["get_my_profile"] and found.facts == {}, found
        assert found.source(0, "customer_id") == "call[0].customer_id"
        other = next(r for r in e.rows["customers"] if r["customer_id"] != me["customer_id"])
        theirs = find_row(e, "customers", other, random.Random(0))  # another customer is never "me"
        assert theirs is None or theirs.calls[0].tool != "get_my_profile", theirs
        first = GoldCall("get_my_profile", {}, {})
        again = GoldCall(
            "get_customer", {"customer_id": me["customer_id"]}, {"customer_id": "call[0].customer_id"}
        )
        draft = TaskDraft("store", "read", [first, again], shape="linear")
        assert execute(e, draft) is None
        assert rereads.drop_refetch(e, draft) == 1 and [c.tool for c in draft.calls] == ["get_my_profile"]
        # a task whose user held back their own id has nothing left to ask for once a tool reads it (it raised)
        held = GoldCall("get_customer", {"customer_id": me["customer_id"]}, {"customer_id": "user"})
        draft = TaskDraft("store", "missing_info", [held], user_facts={"customer id": me["customer_id"]})
        draft.withheld = ["customer id"]
        assert journeys.humanize(e, draft, random.Random(0))[0] == "nothing_to_ask"
    finally:
        e.env.close()


def test_a_branch_reads_a_row_under_its_parent_and_changes_its_status_alone():
    """Azure's `PUT .../alertRules/{ruleName}` sets a rule's `state` beside its description, and its get needs the
    resource group too: no branch was ever built there (the openapi-sample had 4 of 166 tasks with a decision).
    The branch's get names the row's own collection, and its write sends the status alone, never a subject drawn
    beside it; both ways (done, or told) replay."""
    spec = _collections_spec()
    spec["tools"] = [t for t in spec["tools"] if t["name"] != "close_ticket"]
    update = next(t for t in spec["tools"] if t["name"] == "update_ticket")
    update["operation"]["set"] = {"status": "status", "subject": "subject"}
    update["parameters"]["properties"].pop("priority")
    update["parameters"]["properties"]["status"] = {"type": "string", "enum": ["open", "closed"]}
    update["parameters"]["properties"]["subject"] = {"type": "string"}
    e = Env({"spec": spec}, TasksConfig())
    tickets = {r["ticket_id"]: r for r in e.rows["tickets"]}
    taken = set()
    for seed in range(60):
        d = branches.branch(e, random.Random(seed))
        if d is None or execute(e, d) is not None:
            continue
        taken.add(d.branch["taken"])
        get = d.calls[0]
        assert get.tool == "get_ticket"
        assert get.arguments["collection_id"] == tickets[get.arguments["ticket_id"]]["collection_id"]
        write = d.branch["write"]
        assert "subject" not in write.arguments and "status" in write.arguments
        assert write.arguments["collection_id"] == get.arguments["collection_id"]
    assert taken == {"act", "tell"}
    e.env.close()
    # beside other values, an enum that is no status is no branch ("its service kind to Stateless unless ...")
    update["operation"]["set"] = {"priority": "subject_priority", "subject": "subject"}
    update["parameters"]["properties"]["subject_priority"] = {
        "type": "string",
        "enum": ["low", "normal", "high"],
    }
    spec["tools"] = [
        t for t in spec["tools"] if t["name"] == "update_ticket" or t["operation"]["type"] != "update"
    ]
    update["operation"]["set"].pop("status", None)
    e = Env({"spec": spec}, TasksConfig())
    assert all(branches.branch(e, random.Random(seed)) is None for seed in range(30))
    e.env.close()


def test_a_row_added_to_the_one_the_request_is_about_is_drawn_for_it():
    """Seed 93's readers (three tasks of thirty): "update the expiration hours of user laura.thompson02, then create
    a new email for it with email address wen.lloyd@example.com": the new contact email was drawn for another user,
    then moved to Laura. A row added to the first is drawn for it, so its email is of Laura's name."""
    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    user_arg = {"type": "string", "x-in": "path"}
    spec = {
        "name": "oncall",
        "description": "On-call users and their contact methods.",
        "tables": {
            "users": {
                "primary_key": "username",
                "columns": {
                    "username": S,
                    "first_name": N,
                    "last_name": N,
                    "expiration_hours": {"type": "number", "nullable": True},
                },
            },
            "emails": {
                "primary_key": "email_id",
                "columns": {
                    "email_id": S,
                    "user": {"type": "string", "nullable": True, "references": "users"},
                    "email": N,
                    "label": N,
                },
            },
        },
        "data": {"rows": {"users": 8, "emails": 8}},
        "tools": [
            {
                "name": "get_user",
                "description": "Get a user.",
                "kind": "read",
                "parameters": {"type": "object", "properties": {"user": user_arg}, "required": ["user"]},
                "operation": {"type": "get", "table": "users", "key": {"username": "user"}},
            },
            {
                "name": "update_user",
                "description": "Update a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"user": user_arg, "expirationHours": {"type": "number"}},
                    "required": ["user", "expirationHours"],
                },
                "operation": {
                    "type": "update",
                    "table": "users",
                    "key": {"username": "user"},
                    "set": {"expiration_hours": "expirationHours"},
                    "returns": "row",
                },
            },
            {
                "name": "add_email",
                "description": "Create a contact email for a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "user": user_arg,
                        "email": {"type": "string", "format": "email"},
                        "label": S,
                    },
                    "required": ["user", "email", "label"],
                },
                "operation": {
                    "type": "insert",
                    "table": "emails",
                    "values": {"user": "user", "email": "email", "label": "label"},
                    "generate": {"email_id": "id"},
                    "returns": "row",
                },
            },
        ],
    }
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    users = {u["username"]: u for u in e.rows["users"]}
    checked = 0
    for seed in range(80):
        d = journeys.related_writes(e, random.Random(seed))
        if d is None or d.calls[-1].tool != "add_email" or d.calls[1].tool != "update_user":
            continue
        owner = users[d.calls[-1].arguments["user"]]
        local = d.calls[-1].arguments["email"].split("@")[0]
        assert local.startswith(f"{owner['first_name']}.{owner['last_name']}".lower()), (local, owner)
        checked += 1
    assert checked >= 3
    e.env.close()


def test_a_branch_never_asks_for_a_state_a_service_passes_through():
    """An event hub "marked as Deleting, unless it is already Deleting" (openapi-sample): a state the service
    passes through or reports (`Deleting`, `Renaming`, `Unknown`) is no state a person asks for."""
    spec = _collections_spec()
    update = next(t for t in spec["tools"] if t["name"] == "update_ticket")
    update["operation"]["set"] = {"status": "status"}
    update["parameters"]["properties"].pop("priority")
    states = ["Active", "Disabled", "Deleting", "Renaming", "Unknown"]
    update["parameters"]["properties"]["status"] = {"type": "string", "enum": states}
    spec["tables"]["tickets"]["columns"]["status"]["enum"] = states
    spec["tools"] = [t for t in spec["tools"] if t["name"] != "close_ticket"]
    e = Env({"spec": spec}, TasksConfig())
    values = set()
    for seed in range(80):
        d = branches.branch(e, random.Random(seed))
        if d is not None:
            values.add(d.branch["value"])
    assert values and values <= {"Active", "Disabled"}, values
    e.env.close()


def test_the_api_version_the_client_sends_is_never_said_by_the_user():
    """Azure's every call takes `api-version`, one value its document gives: "The API version is 5.16.7" was in
    every request of the openapi-sample's Azure worlds. It is the client's (`envscale.sources.openapi` makes it a
    one-value default); no request, fact or instruction says it, whether a call sends it or not."""
    spec = _collections_spec()
    version = {"type": "string", "enum": ["2015-10-31"], "default": "2015-10-31", "x-in": "query"}
    for tool in spec["tools"]:
        tool["parameters"]["properties"]["api-version"] = dict(version)
    validate_spec(spec)
    kept, _ = env_tasks(
        {"spec": spec}, TasksConfig(tasks_per_env=10, replay_check=False), [], random.Random(0)
    )
    assert kept
    for task in kept:
        text = json.dumps([task["first_message"], task["instructions"], task["requests"]])
        assert "2015-10-31" not in text and "api version" not in text.lower(), text
    # where a gold call sends it, it comes from the tool's schema, never "from the request" (seed 94's readers:
    # Impala's `paymentType='API'` "marked from the request, although the user never mentions a payment type")
    e = Env({"spec": spec}, TasksConfig())
    tool = next(t for t in e.tools.values() if t["operation"]["type"] in ("update", "insert"))
    facts: dict = {}
    provenance = e.provenance_user(tool, {"api-version": "2015-10-31"}, facts)
    assert provenance == {"api-version": "schema"} and not facts, (provenance, facts)
    assert show_provenance("schema", "2015-10-31", {}) != show_provenance("constant", "2015-10-31", {})
    said = []
    for seed in range(40):  # a call that sends it says nothing of it either
        d = branches.branch(e, random.Random(seed))
        if d is None:
            continue
        for call in d.calls:
            call.arguments["api-version"] = "2015-10-31"
            call.provenance["api-version"] = "user"
        assert execute(e, d) is None
        assert "2015-10-31" not in d.user_facts.values(), d.user_facts  # no fact the user holds
        said.append(write_instructions(d, e.spec, random.Random(seed)).first_message)
    assert said and not any("2015-10-31" in m or "API version" in m for m in said), said
    e.env.close()


def test_no_request_walks_to_a_person_a_row_names_without_a_role():
    """Seed 93's readers, six tasks of 120: "check the email address of the user of the team", "update its level,
    then suspend its user" (an offering's `user_email`): a team or an offering has many users, and one reference
    without a role is the schema's. A reference with a role (a team's `owner_id`) is walked as before."""
    from envscale.tasks import chains
    from envscale.tasks.naming import bare_person_link

    S = {"type": "string"}
    key = {"type": "string", "x-in": "path"}

    def team_spec(column):
        return {
            "name": "oncall",
            "description": "Teams and users.",
            "tables": {
                "users": {
                    "primary_key": "username",
                    "columns": {"username": S, "email": {"type": "string", "nullable": True}},
                },
                "teams": {
                    "primary_key": "team_id",
                    "columns": {
                        "team_id": S,
                        "name": {"type": "string", "nullable": True},
                        column: {"type": "string", "nullable": True, "references": "users"},
                    },
                },
            },
            "data": {"rows": {"users": 6, "teams": 6}},
            "tools": [
                {
                    "name": "get_team",
                    "description": "Get a team.",
                    "kind": "read",
                    "parameters": {"type": "object", "properties": {"team": key}, "required": ["team"]},
                    "operation": {"type": "get", "table": "teams", "key": {"team_id": "team"}},
                },
                {
                    "name": "get_user",
                    "description": "Get a user.",
                    "kind": "read",
                    "parameters": {"type": "object", "properties": {"user": key}, "required": ["user"]},
                    "operation": {"type": "get", "table": "users", "key": {"username": "user"}},
                },
            ],
        }

    walked = {}
    for column in ("user", "owner_id"):
        spec = team_spec(column)
        validate_spec(spec)
        e = Env({"spec": spec}, TasksConfig())
        walked[column] = sum(
            [c.tool for c in d.calls] == ["get_team", "get_user"]
            for seed in range(30)
            if not isinstance(
                d := chains._read_along_reference(e, [e.gets["teams"]], random.Random(seed)), str
            )
        )
        e.env.close()
    assert bare_person_link(team_spec("user"), "teams", "user") and not bare_person_link(
        team_spec("owner_id"), "teams", "owner_id"
    )
    assert walked["user"] == 0 and walked["owner_id"] > 0, walked


def test_a_row_added_to_a_new_person_carries_their_email():
    """Seed 93's readers: a new user Dustin Henderson was enrolled as a participant with hana.parker@example.com,
    another person's email. A row added to a person just made is about them: its email is of their name."""
    S, N = {"type": "string"}, {"type": "string", "nullable": True}
    spec = {
        "name": "courses",
        "description": "Users and their enrolments.",
        "tables": {
            "users": {"primary_key": "user_id", "columns": {"user_id": S, "first_name": N, "last_name": N}},
            "participants": {
                "primary_key": "participant_id",
                "columns": {"participant_id": S, "user_id": {**N, "references": "users"}, "email": N},
            },
        },
        "data": {"rows": {"users": 6, "participants": 6}},
        "tools": [
            {
                "name": "create_user",
                "description": "Create a user.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"first_name": S, "last_name": S},
                    "required": ["first_name", "last_name"],
                },
                "operation": {
                    "type": "insert",
                    "table": "users",
                    "values": {"first_name": "first_name", "last_name": "last_name"},
                    "generate": {"user_id": "id"},
                    "returns": "row",
                },
            },
            {
                "name": "enroll",
                "description": "Enrol a user as a participant.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"user_id": S, "email": {"type": "string", "format": "email"}},
                    "required": ["user_id", "email"],
                },
                "operation": {
                    "type": "insert",
                    "table": "participants",
                    "values": {"user_id": "user_id", "email": "email"},
                    "generate": {"participant_id": "id"},
                    "returns": "row",
                },
            },
        ],
    }
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    made = [
        d
        for seed in range(20)
        if (d := journeys.create_then_add(e, random.Random(seed), "write")) is not None
    ]
    assert made
    for d in made:
        person, enrolled = d.calls[0].arguments, d.calls[1].arguments
        local = enrolled["email"].split("@")[0]
        last = re.sub(r"[^a-z]", "", person["last_name"].lower())
        assert last in local and local[:1] == person["first_name"][:1].lower(), (person, enrolled)
    e.env.close()


def test_a_write_that_changes_nothing_among_others_is_no_request():
    """Seed 94's readers: "look up order ord_0020, start it, and finally add an interaction to it", where the order was
    started already: the start changed nothing ("the state does not show the order as started"), hidden by the
    interaction the next call added. Each write of a task changes its world."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    e = Env({"spec": spec}, TasksConfig())
    try:
        order = next(r for r in e.rows["orders"] if r["status"] == "pending")
        item = {"product_id": "pro_0001", "quantity": 1, "unit_price": 2.5}

        def draft(status):
            key = {"order_id": order["order_id"]}
            return TaskDraft(
                "shop",
                "write",
                [
                    GoldCall(
                        "update_order_status",
                        {**key, "status": status},
                        {"order_id": "user", "status": "user"},
                        write=True,
                    ),
                    GoldCall(
                        "add_order_item",
                        {**key, **item},
                        {"order_id": "user", **dict.fromkeys(item, "user")},
                        write=True,
                    ),
                ],
            )

        drop = execute(e, draft("pending"))
        assert drop is not None and drop[0] == "write_changes_nothing", drop
        assert execute(e, draft("shipped")) is None
    finally:
        e.env.close()


def test_a_branch_that_only_tells_still_offers_its_write():
    """Seed 94's readers: "mark it as approved, but if it's already approved, all I need is its approval date" offered
    no update tool ("the tool list gives the answer away"). The write a branch decides on is offered either way."""
    from envscale.tasks.generate import _row

    spec = _collections_spec()
    e = Env({"spec": spec}, TasksConfig())
    told = 0
    for seed in range(60):
        d = branches.branch(e, random.Random(seed))
        if d is None or d.branch["taken"] != "tell" or execute(e, d) is not None:
            continue
        row = _row(e, d, write_instructions(d, e.spec, random.Random(seed)), {}, random.Random(seed))
        needed = row["tools"][: len(row["tools"]) - row["difficulty"]["n_distractors"]]
        assert d.branch["write"].tool in needed and not any(c.write for c in d.calls), row["tools"]
        told += 1
    assert told, "no branch of these seeds only told: the check above checked nothing"
    e.env.close()


def test_a_user_holds_one_key_of_the_account_their_routes_are_scoped_by():
    """GoToWebinar's "the registrant ... in my organizer 11 in the webinar ... in my organizer 7": once the organizer
    account every route is scoped by is the user's own, a request that names two of them is two people's."""
    spec = {
        "name": "payroll",
        "spec_version": "1.1",
        "tables": {
            "organizers": {"primary_key": "organizer_key", "columns": {"organizer_key": {"type": "integer"}}},
            "webinars": {
                "primary_key": "webinar_key",
                "columns": {
                    "webinar_key": {"type": "integer"},
                    "subject": {"type": "string"},
                    "organizer_key": {"type": "integer", "references": "organizers"},
                },
            },
        },
        "data": {"rows": {"organizers": 3, "webinars": 6}},
        "tools": [
            {
                "name": "getAllWebinars",
                "description": "The webinars of an organizer.",
                "kind": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"organizerKey": {"type": "integer", "x-in": "path"}},
                    "required": ["organizerKey"],
                },
                "operation": {
                    "type": "list",
                    "table": "webinars",
                    "filters": [{"column": "organizer_key", "arg": "organizerKey", "op": "eq"}],
                },
            }
        ],
    }
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    try:
        keys = [r["organizer_key"] for r in e.rows["organizers"]]

        def listed(key):
            return GoldCall("getAllWebinars", {"organizerKey": key}, {"organizerKey": "user"})

        drop = gates.two_scopes(e, [listed(keys[0]), listed(keys[1])])
        assert drop is not None and drop[0] == "two_scopes", drop
        assert gates.two_scopes(e, [listed(keys[0]), listed(keys[0])]) is None
    finally:
        e.env.close()


def test_a_moment_to_the_second_inside_an_object_is_unsayable_too():
    """GoToWebinar's "times to end time 2024-06-14T10:53:33Z, start time ...": the moments of a time range object are
    no more sayable than a bare one."""
    from envscale.tasks.naming import unsayable

    times = [{"startTime": "2023-07-14T08:03:15Z", "endTime": "2023-07-14T09:00:00Z"}]
    assert unsayable(times) == "is a moment to the second no one says"
    assert unsayable([{"startDate": "2023-07-14", "endDate": "2023-07-15"}]) is None


def test_a_sign_in_stored_as_a_row_is_no_request():
    """Seed 94's readers: "add a login to the user with password ..." (Docker Hub's `POST /users/login` made a `logins`
    row): a write to a table named after the act is no request a person makes."""
    from envscale.tasks.arguments import tidy

    spec = load_spec("tests/fixtures/envs/shop.yaml")
    spec["tables"]["logins"] = {
        "primary_key": "login_id",
        "columns": {
            "login_id": {"type": "string"},
            "username": {"type": "string"},
            "password": {"type": "string"},
        },
    }
    spec["tools"].append(
        {
            "name": "post_users_login",
            "description": "Create an authentication token.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                "required": ["username", "password"],
            },
            "operation": {
                "type": "insert",
                "table": "logins",
                "values": {"username": "username", "password": "password"},
                "generate": {"login_id": "id"},
            },
        }
    )
    validate_spec(spec)
    e = Env({"spec": spec}, TasksConfig())
    try:
        args = {"username": "ann.lee", "password": "s3cret-Pass"}
        call = GoldCall("post_users_login", args, dict.fromkeys(args, "user"), write=True)
        drop = tidy(e, TaskDraft("shop", "write", [call]), random.Random(0))
        assert drop is not None and drop[0] == "action_rows", drop
    finally:
        e.env.close()
