"""Spec format 1.1 (envscale.env.spec / operations): expressions, guards, effects and the session, as tool calls."""

import copy
import pickle
import random

import pytest

from envscale.env import Environment, SpecError, load_spec, validate_spec
from envscale.env.spec import SPEC_VERSION, has_extensions, plain_operation, spec_problems
from envscale.materialize.verify import verify

STORE = "tests/fixtures/envs/store.yaml"
SHOP = "tests/fixtures/envs/shop.yaml"


@pytest.fixture
def spec():
    return load_spec(STORE)


@pytest.fixture
def env(spec):
    with Environment(spec) as environment:
        yield environment


def row(env, table, key):
    """The row of `table` whose primary key is `key`, read back from the state."""
    pk = env.spec["tables"][table]["primary_key"]
    return next((r for r in env.dump()[table] if r[pk] == key), None)


def unchanged(env, call, code, message=None):
    """Call a tool that must fail with `code`; assert that nothing changed; return the observation."""
    before_hash, before = env.state_hash(), env.dump()
    obs = env.step(*call)
    assert obs["ok"] is False and obs["code"] == code, obs
    if message is not None:
        assert obs["error"] == f"{call[0]}: {message}"
    assert env.state_hash() == before_hash == env.state_hash(recompute=True)
    assert env.dump() == before
    return obs


# ----------------------------------------------------------------------------------------------
# Expressions, as the calls that use them


def test_the_session_row_addresses_my_profile_and_filters_my_orders(env):
    assert env.step("get_my_profile")["result"]["email"] == "ann@example.com"  # {session: customer_id} key
    mine = env.step("list_my_orders")["result"]
    assert [o["order_id"] for o in mine] == ["ord_0001", "ord_0002", "ord_0005"]
    assert [o["order_id"] for o in env.step("list_my_orders", {"status": "pending"})["result"]] == [
        "ord_0001",
        "ord_0005",
    ]
    assert env.step("count_my_open_orders") == {"ok": True, "result": 2}  # {value: [pending, paid]} with in


def test_place_order_computes_its_total_takes_stock_and_logs_the_new_id(env):
    obs = env.step("place_order", {"product_id": "pro_0001", "quantity": 2, "unit_price": 12.5})
    order = obs["result"]
    # {session}, {arg}, {mul}; generated id and clock as in 1.0
    assert order == {
        "order_id": "ord_0006",
        "customer_id": "cus_0001",
        "product_id": "pro_0001",
        "quantity": 2,
        "total": 25.0,
        "status": "pending",
        "cancel_reason": None,
        "created_at": "2025-06-01T12:00:00Z",
        "updated_at": None,
    }
    assert row(env, "products", "pro_0001")["stock"] == 3  # {sub: [{target: stock}, {result: quantity}]}
    # {result: order_id}, {now: datetime}, a generated integer id in another table
    assert env.dump()["audit_log"] == [
        {"log_id": 1, "action": "order placed", "order_id": "ord_0006", "at": "2025-06-01T12:00:00Z"}
    ]
    assert env.state_hash() == env.state_hash(recompute=True)


def test_cancel_puts_the_quantity_back_in_stock(env):
    before = row(env, "products", "pro_0001")["stock"]
    obs = env.step("cancel_order", {"order_id": "ord_0001", "reason": "ordered twice"})
    assert obs["ok"], obs
    order = env.step("get_order", {"order_id": "ord_0001"})["result"]
    assert order["status"] == "cancelled" and order["cancel_reason"] == "ordered twice"
    assert order["updated_at"] == "2025-06-01T12:00:00Z"
    # `{column: stock}` in the effect is the product's stock (orders has no stock column);
    # `{column: quantity}` and `{column: product_id}` are the order's.
    assert row(env, "products", "pro_0001")["stock"] == before + 2
    unchanged(
        env,
        ("cancel_order", {"order_id": "ord_0002"}),
        "invalid_state",
        "only orders that have not shipped can be cancelled",
    )


def test_an_optional_argument_left_out_is_null_in_an_expression_and_left_alone_as_a_name(env):
    env.step("cancel_order", {"order_id": "ord_0001", "reason": "first"})
    assert env.step("cancel_order", {"order_id": "ord_0005"})["ok"]  # `reason` (a name) not given
    assert row(env, "orders", "ord_0005")["cancel_reason"] is None
    assert row(env, "orders", "ord_0001")["cancel_reason"] == "first"


def test_arithmetic_on_the_addressed_row_and_a_guard_on_its_result(env):
    # on hand 10, reserved 4: -6 leaves 4 (allowed), -7 would leave 3 < 4
    unchanged(
        env,
        ("adjust_stock", {"sku": "inv_0001", "delta": -7}),
        "invalid_state",
        "refused: the quantity on hand would drop below the quantity reserved for open orders",
    )
    assert env.step("adjust_stock", {"sku": "inv_0001", "delta": -6})["result"]["quantity_on_hand"] == 4
    assert env.step("adjust_stock", {"sku": "inv_0001", "delta": 5})["result"]["quantity_on_hand"] == 9
    unchanged(
        env,
        ("adjust_stock", {"sku": "inv_0404", "delta": 1}),
        "not_found",
        "no inventory row with sku='inv_0404'",
    )


def test_a_count_expression_in_a_guard(env):
    assert env.step("place_order", {"product_id": "pro_0001", "quantity": 1, "unit_price": 25})["ok"]
    # three pending orders now (ord_0001, ord_0005 and the new one): a fourth is refused
    unchanged(
        env,
        ("place_order", {"product_id": "pro_0001", "quantity": 1, "unit_price": 25}),
        "invalid_state",
        "a customer may have at most 3 pending orders",
    )
    env.reset(session_key="cus_0003")  # Chloe has none
    assert env.step("place_order", {"product_id": "pro_0001", "quantity": 1, "unit_price": 25})["ok"]


def test_delete_effects_read_the_deleted_row_and_the_date(env):
    obs = env.step("delete_order", {"order_id": "ord_0004"})
    assert obs["ok"] and obs["result"]["order_id"] == "ord_0004" and row(env, "orders", "ord_0004") is None
    assert env.dump()["audit_log"] == [
        {"log_id": 1, "action": "order deleted", "order_id": "ord_0004", "at": "2025-06-01"}
    ]
    unchanged(
        env,
        ("delete_order", {"order_id": "ord_0001"}),
        "invalid_state",
        "only cancelled orders can be deleted",
    )


# ----------------------------------------------------------------------------------------------
# Guards


def test_guards_compare_the_addressed_row_with_the_session(env):
    unchanged(
        env,
        ("get_order", {"order_id": "ord_0003"}),
        "invalid_state",
        "this order belongs to another customer",
    )
    unchanged(
        env, ("pay_order", {"order_id": "ord_0003"}), "invalid_state", "you can only pay your own orders"
    )
    unchanged(
        env, ("pay_order", {"order_id": "ord_0002"}), "invalid_state", "only pending orders can be paid"
    )
    assert env.step("get_order", {"order_id": "ord_0001"})["ok"]


def test_pay_order_moves_money_and_a_guard_on_the_effect_row_refuses_an_overdraft(env):
    assert env.step("pay_order", {"order_id": "ord_0005"})["result"]["status"] == "paid"
    assert env.session()["balance"] == 60.0  # 100 - 40, {sub: [{target: balance}, {column: total}]}
    env.reset(session_key="cus_0002")
    assert env.step("place_order", {"product_id": "pro_0003", "quantity": 1, "unit_price": 120})["ok"]
    unchanged(
        env,
        ("pay_order", {"order_id": "ord_0006"}),
        "invalid_state",
        "the balance does not cover the order total",
    )


# ----------------------------------------------------------------------------------------------
# Effects: all or nothing, exact state hash, serials


def test_an_effect_guard_rolls_back_the_main_write_and_its_id(env):
    # the kettle is out of stock: the order is not kept, and its id is not used up
    unchanged(
        env,
        ("place_order", {"product_id": "pro_0002", "quantity": 1, "unit_price": 40}),
        "invalid_state",
        "not enough stock",
    )
    obs = env.step("place_order", {"product_id": "pro_0001", "quantity": 1, "unit_price": 25})
    assert obs["result"]["order_id"] == "ord_0006"
    assert [r["log_id"] for r in env.dump()["audit_log"]] == [1]


def test_an_effect_on_a_missing_row_is_not_found_and_changes_nothing(env):
    unchanged(
        env,
        ("move_stock", {"from_sku": "inv_0001", "to_sku": "inv_0404", "quantity": 2}),
        "not_found",
        "no inventory row with sku='inv_0404'",
    )
    assert env.step("move_stock", {"from_sku": "inv_0001", "to_sku": "inv_0002", "quantity": 2})["ok"]
    assert row(env, "inventory", "inv_0001")["quantity_on_hand"] == 8
    assert row(env, "inventory", "inv_0002")["quantity_on_hand"] == 5


def test_a_constraint_broken_by_an_effect_is_a_conflict_and_changes_nothing(env):
    obs = unchanged(env, ("add_coupon", {"order_id": "ord_0001", "code": "WELCOME"}), "conflict")
    assert "coupons.code" in obs["error"]
    assert row(env, "orders", "ord_0001")["updated_at"] is None
    assert env.step("add_coupon", {"order_id": "ord_0001", "code": "SPRING"})["ok"]
    assert row(env, "coupons", "cou_0002") == {
        "coupon_id": "cou_0002",
        "code": "SPRING",
        "order_id": "ord_0001",
    }
    assert row(env, "orders", "ord_0001")["updated_at"] == "2025-06-01T12:00:00Z"


def test_two_inserts_into_one_table_in_one_call_get_distinct_ids(env):
    obs = env.step("place_order_with_gift", {"product_id": "pro_0003", "quantity": 1})
    assert obs["result"]["order_id"] == "ord_0006"
    gift = row(env, "orders", "ord_0007")
    assert gift["product_id"] == "pro_0001" and gift["status"] == "paid" and gift["customer_id"] == "cus_0001"
    again = env.step("place_order_with_gift", {"product_id": "pro_0003", "quantity": 2})["result"]
    assert again["order_id"] == "ord_0008" and row(env, "orders", "ord_0009")["status"] == "paid"
    assert env.state_hash() == env.state_hash(recompute=True)


def test_after_any_calls_the_running_hash_is_the_recomputed_one_and_failures_change_nothing(spec):
    calls = [
        ("place_order", {"product_id": "pro_0001", "quantity": 1, "unit_price": 25}),
        ("place_order", {"product_id": "pro_0002", "quantity": 1, "unit_price": 40}),
        ("place_order_with_gift", {"product_id": "pro_0003", "quantity": 1}),
        ("cancel_order", {"order_id": "ord_0001"}),
        ("cancel_order", {"order_id": "ord_0006", "reason": "no"}),
        ("pay_order", {"order_id": "ord_0005"}),
        ("adjust_stock", {"sku": "inv_0002", "delta": -1}),
        ("move_stock", {"from_sku": "inv_0001", "to_sku": "inv_0002", "quantity": 1}),
        ("move_stock", {"from_sku": "inv_0002", "to_sku": "inv_0001", "quantity": 1}),
        ("add_coupon", {"order_id": "ord_0003", "code": "SUMMER"}),
        ("delete_order", {"order_id": "ord_0004"}),
        ("update_my_email", {"email": "someone@example.com"}),
        ("get_order", {"order_id": "ord_0003"}),
    ]
    rng = random.Random(0)
    with Environment(spec) as env:
        for round_ in range(40):
            if round_ % 10 == 0:
                env.reset(session_key=rng.choice(["cus_0001", "cus_0002", "cus_0003"]))
            for _ in range(8):
                tool, args = rng.choice(calls)
                before = env.state_hash()
                obs = env.step(tool, args)
                if not obs["ok"]:
                    assert obs["code"] != "internal" and env.state_hash() == before, obs
                assert env.state_hash() == env.state_hash(recompute=True), (tool, args)
            # the same rows loaded from scratch give the same hash
            with Environment(spec) as fresh:
                fresh.reset(state=env.dump())
                assert fresh.state_hash() == env.state_hash()


# ----------------------------------------------------------------------------------------------
# The session


def test_the_session_is_the_first_row_after_each_reset_unless_another_is_chosen(env, spec):
    assert env.session()["customer_id"] == "cus_0001"
    env.reset(session_key="cus_0002")
    assert env.step("get_my_profile")["result"]["name"] == "Ben Okafor"
    assert [o["order_id"] for o in env.step("list_my_orders")["result"]] == ["ord_0003", "ord_0004"]
    current = env.state_hash()
    with pytest.raises(ValueError, match="customers has no row with customer_id='cus_0404'"):
        env.reset(session_key="cus_0404")
    assert env.session()["customer_id"] == "cus_0002" and env.state_hash() == current
    env.reset()
    assert env.session()["customer_id"] == "cus_0001"
    spec["session"]["key"] = "cus_0003"
    with Environment(spec) as other:
        assert other.step("get_my_profile")["result"]["customer_id"] == "cus_0003"
    with Environment(load_spec(SHOP)) as shop:
        assert shop.session() is None
        with pytest.raises(ValueError, match="declares no session"):
            shop.reset(session_key="cus_0001")


def test_a_write_to_the_session_row_is_what_the_session_reads_next(env):
    assert (
        env.step("update_my_email", {"email": "ann@new.example.com"})["result"]["email"]
        == "ann@new.example.com"
    )
    assert env.session()["email"] == "ann@new.example.com"
    assert env.step("get_my_profile")["result"]["email"] == "ann@new.example.com"


def test_the_session_travels_with_snapshots_pickles_and_copies(env, spec):
    env.reset(session_key="cus_0002")
    saved = env.snapshot()
    env.reset(session_key="cus_0003")
    env.restore(saved)
    assert env.session()["customer_id"] == "cus_0002"
    assert pickle.loads(pickle.dumps(env)).session()["customer_id"] == "cus_0002"
    with Environment(spec, snapshot=saved) as copy_:
        assert copy_.step("get_my_profile")["result"]["customer_id"] == "cus_0002"


def test_without_a_session_row_a_session_expression_is_invalid_state(env):
    env.reset(
        state={"customers": [], "products": [{"product_id": "p", "name": "Lamp", "price": 1, "stock": 1}]}
    )
    assert env.session() is None
    unchanged(
        env,
        ("get_my_profile", {}),
        "invalid_state",
        "there is no current session: no customers row is the session",
    )
    assert env.step("get_order", {"order_id": "ord_0001"})["code"] == "not_found"  # the key is read first


# ----------------------------------------------------------------------------------------------
# Run-time types: arguments are invalid_arguments, computed values invalid_state

COUNTERS = {
    "name": "counters",
    "spec_version": "1.1",
    "tables": {
        "counters": {
            "primary_key": "name",
            "columns": {
                "name": {"type": "string"},
                "value": {"type": "integer", "nullable": False},
                "step": {"type": "integer"},
                "label": {"type": "string"},
                "meta": {"type": "json"},
            },
        }
    },
    "initial_state": {"counters": [{"name": "a", "value": 1, "step": None, "meta": {"x": "text"}}]},
    "tools": [
        {
            "name": "bump",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "by": {}},
                "required": ["name"],
            },
            "operation": {
                "type": "update",
                "table": "counters",
                "key": {"name": "name"},
                "set": {"value": {"add": [{"column": "value"}, {"arg": "by"}]}},
            },
        },
        {
            "name": "bump_by_step",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
            "operation": {
                "type": "update",
                "table": "counters",
                "key": {"name": "name"},
                "set": {"value": {"add": [{"column": "value"}, {"column": "step"}]}},
            },
        },
        {
            "name": "bump_by_meta",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
            "operation": {
                "type": "update",
                "table": "counters",
                "key": {"name": "name"},
                "set": {"value": {"mul": [{"column": "value"}, {"column": "meta"}]}},
            },
        },
        {
            "name": "relabel",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "label": {}},
                "required": ["name"],
            },
            "operation": {
                "type": "update",
                "table": "counters",
                "key": {"name": "name"},
                "set": {"label": {"arg": "label"}},
            },
        },
    ],
}


def test_values_that_do_not_fit_fail_with_the_code_of_their_source():
    with Environment(copy.deepcopy(COUNTERS)) as env:
        assert env.step("bump", {"name": "a", "by": 2})["result"]["value"] == 3
        assert env.step("bump", {"name": "a", "by": 2.0})["result"]["value"] == 5
        unchanged(env, ("bump", {"name": "a", "by": "x"}), "invalid_arguments", "add needs numbers, got 'x'")
        unchanged(env, ("bump", {"name": "a", "by": True}), "invalid_arguments")
        unchanged(env, ("bump", {"name": "a"}), "invalid_state", "add: cannot compute with null")
        unchanged(env, ("bump", {"name": "a", "by": 0.5}), "invalid_state")  # 5.5 in an integer column
        unchanged(env, ("bump", {"name": "a", "by": 2**70}), "invalid_state")  # beyond SQLite's integers
        unchanged(env, ("bump_by_step", {"name": "a"}), "invalid_state", "add: cannot compute with null")
        unchanged(
            env, ("bump_by_meta", {"name": "a"}), "invalid_state", "mul needs numbers, got {'x': 'text'}"
        )
        obs = unchanged(env, ("relabel", {"name": "a", "label": 7}), "invalid_arguments")
        assert "argument 'label' for column 'label'" in obs["error"]
        assert env.step("relabel", {"name": "a", "label": "seven"})["result"]["label"] == "seven"
        assert env.step("relabel", {"name": "a"})["result"]["label"] is None  # {arg} left out: null


# ----------------------------------------------------------------------------------------------
# Validation: every problem named, with the tool and the place


def _tool(name, operation, properties=None, required=(), kind="write"):
    return {
        "name": name,
        "kind": kind,
        "parameters": {"type": "object", "properties": properties or {}, "required": list(required)},
        "operation": operation,
    }


ORDER_KEY = {"order_id": {"type": "string"}}


@pytest.mark.parametrize(
    ("operation", "properties", "message"),
    [
        (  # an argument nobody declared
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"note": {"arg": "memo"}},
            },
            ORDER_KEY,
            "tool 'bad': set.note: argument 'memo' is not declared in parameters.properties",
        ),
        (  # a column of another table
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"total": {"column": "price"}},
            },
            ORDER_KEY,
            "tool 'bad': set.total: orders has no column 'price'",
        ),
        (  # string + number
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"total": {"add": [{"column": "status"}, {"value": 1}]}},
            },
            ORDER_KEY,
            'tool \'bad\': set.total: add needs numbers, and {"column": "status"} is a string',
        ),
        (  # result outside effects
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"note": {"result": "order_id"}},
            },
            ORDER_KEY,
            "tool 'bad': set.note: {result: order_id} is only allowed in effects of an insert or update",
        ),
        (  # a number for a string column
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"note": {"column": "total"}},
            },
            ORDER_KEY,
            'tool \'bad\': set.note: {"column": "total"} cannot be written to orders.note: JSON type number does not fit a string column',
        ),
        (  # the row is not addressed yet in a key
            {"type": "get", "table": "orders", "key": {"order_id": {"column": "order_id"}}},
            {},
            "tool 'bad': key.order_id: {column: order_id} cannot be used in a key: the row is not addressed yet",
        ),
        (  # an insert addresses no row
            {
                "type": "insert",
                "table": "customers",
                "values": {
                    "name": {"column": "name"},
                    "email": {"value": "x@example.com"},
                    "vip": {"value": False},
                },
                "generate": {"customer_id": "id"},
            },
            {},
            "tool 'bad': values.name: {column: name} cannot be used in a insert: it addresses no row",
        ),
        (  # a bare argument name inside an effect
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "fixed": {"status": "cancelled"},
                "effects": [
                    {
                        "type": "update",
                        "table": "products",
                        "key": {"product_id": "product_id"},
                        "set": {"stock": {"value": 1}},
                    }
                ],
            },
            ORDER_KEY,
            "tool 'bad': effects[0].key.product_id: in effects every value is an expression such as {arg: product_id}",
        ),
        (  # target outside an effect
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"note": {"target": "note"}},
            },
            ORDER_KEY,
            "tool 'bad': set.note: {target: note} is only allowed in the guards and set of an update or delete effect",
        ),
        (  # no session declared
            {"type": "get", "table": "customers", "key": {"customer_id": {"session": "customer_id"}}},
            {},
            "tool 'bad': key.customer_id: {session: customer_id} needs a session: the spec declares none",
        ),
        (  # a guard comparing a string with a number
            {
                "type": "get",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "guards": [{"check": {"eq": [{"column": "status"}, {"value": 3}]}, "error": "x"}],
            },
            ORDER_KEY,
            'tool \'bad\': guards[0].check.eq: compares a string with a number: {"column": "status"} and {"value": 3}',
        ),
        (  # in needs a list
            {
                "type": "get",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "guards": [{"check": {"in": [{"column": "status"}, {"value": "pending"}]}}],
            },
            ORDER_KEY,
            "tool 'bad': guards[0].check.in: the right side must be a list",
        ),
        (  # not an expression
            {
                "type": "update",
                "table": "orders",
                "key": {"order_id": "order_id"},
                "set": {"note": {"argument": "x"}},
            },
            ORDER_KEY,
            "tool 'bad': set.note: an expression is a mapping with one key, one of arg, value, column, target",
        ),
        (  # an effect row that does not exist in the effect's table
            {
                "type": "delete",
                "table": "order_items",
                "key": {"item_id": "order_id"},
                "effects": [
                    {
                        "type": "update",
                        "table": "products",
                        "key": {"product_id": {"column": "product_id"}},
                        "set": {"stock": {"add": [{"column": "stock"}, {"column": "amount"}]}},
                    }
                ],
            },
            ORDER_KEY,
            "tool 'bad': effects[0].set.stock.add[1]: neither order_items (the main row) nor products (this effect's row) has a column 'amount'",
        ),
        (  # result after a delete
            {
                "type": "delete",
                "table": "order_items",
                "key": {"item_id": "order_id"},
                "effects": [
                    {"type": "delete", "table": "orders", "key": {"order_id": {"result": "order_id"}}}
                ],
            },
            ORDER_KEY,
            "tool 'bad': effects[0].key.order_id: {result: order_id} reads the main row after the write, and a delete leaves none",
        ),
    ],
)
def test_validate_spec_names_the_tool_the_place_and_the_problem(operation, properties, message):
    spec = load_spec(SHOP)
    required = [p for p in properties if p in str(operation)]
    spec["tools"].append(
        _tool("bad", operation, properties, required, "read" if operation["type"] == "get" else "write")
    )
    with pytest.raises(SpecError) as info:
        validate_spec(spec)
    assert str(info.value).startswith(message), str(info.value)
    assert info.value.tool == "bad"


def test_spec_problems_lists_every_problem_at_once_spec_level_first():
    spec = load_spec(SHOP)
    spec["data"]["now"] = "yesterday"
    spec["tools"][0]["operation"]["key"] = {"customer_id": {"arg": "nope"}}
    spec["tools"][3]["operation"]["filters"].append(
        {"column": "price", "op": "le", "value": {"value": "cheap"}}
    )
    spec["tools"][7]["operation"]["guards"] = [{"check": {"gt": [{"arg": "total"}, {"value": 0}]}}]  # valid
    spec["tools"][9]["operation"]["effects"] = [{"type": "delete", "table": "nowhere", "key": {}}]
    spec["tools"].append(copy.deepcopy(spec["tools"][1]))
    problems = spec_problems(spec)
    assert [p["tool"] for p in problems] == [
        None,
        "get_customer",
        "list_products",
        "update_order_status",
        "update_customer_email",
    ]
    assert problems[0]["reason"].startswith("data.now must be an ISO datetime")
    assert "argument 'nope' is not declared" in problems[1]["reason"]
    assert "filters[3].value: column products.price: expected a number, got 'cheap'" in problems[2]["reason"]
    assert "effects[0]: table 'nowhere' is not a table" in problems[3]["reason"]
    assert problems[4]["reason"] == "tool 'update_customer_email': duplicate tool name"
    with pytest.raises(SpecError, match="data.now must be an ISO datetime"):
        validate_spec(spec)
    # each tool is judged on its own: dropping the bad ones leaves a valid spec
    spec["data"]["now"] = "2025-06-01T12:00:00Z"
    bad = {p["tool"] for p in problems}
    spec["tools"] = [t for t in spec["tools"] if t["name"] not in bad]
    assert spec_problems(spec) == []


@pytest.mark.parametrize(
    ("session", "message"),
    [
        ({"table": "clients"}, "session: table 'clients' is not a table"),
        (
            {"table": "customers", "key": 7},
            "session: key 7 does not fit customers's primary key customer_id: expected a string, got 7",
        ),
        ({"table": "customers", "user": "x"}, "session: unknown key(s) user"),
    ],
)
def test_a_bad_session_is_a_spec_problem(session, message):
    spec = load_spec(SHOP)
    spec["session"] = session
    problems = spec_problems(spec)
    assert problems and problems[0]["tool"] is None and problems[0]["reason"].startswith(message), problems


def test_every_1_0_spec_is_valid_and_unchanged_by_1_1():
    spec = load_spec(SHOP)
    assert spec["spec_version"] == "1.0" and SPEC_VERSION == "1.1"
    assert spec_problems(spec) == []
    assert not any(has_extensions(t["operation"]) for t in spec["tools"])
    assert all(plain_operation(t["operation"]) == t["operation"] for t in spec["tools"])
    store = load_spec(STORE)
    assert plain_operation(next(t for t in store["tools"] if t["name"] == "list_my_orders")["operation"])[
        "filters"
    ] == [{"column": "status", "arg": "status"}]


def test_a_1_1_spec_generates_states_from_seeds_and_verify_exercises_it(spec):
    with Environment(spec) as env:
        first = env.reset(seed=1)
        assert first["tables"]["orders"] == 10 and env.reset(seed=1) == first
        assert env.session()["customer_id"] == "cus_0001"
        assert env.step("list_my_orders")["ok"]
    problems = verify(spec)
    assert not any("crashed" in p["reason"] or "invalid spec" in p["reason"] for p in problems), problems


# ----------------------------------------------------------------------------------------------
# Effects on every matching row (`where`)


def _lists_spec(effects):
    return {
        "name": "lists",
        "spec_version": "1.1",
        "tables": {
            "lists": {"primary_key": "list_id", "columns": {"list_id": {"type": "string"}}},
            "tasks": {
                "primary_key": "task_id",
                "columns": {
                    "task_id": {"type": "string"},
                    "list_id": {"type": "string", "references": "lists"},
                    "status": {"type": "string", "enum": ["open", "archived"]},
                },
            },
        },
        "initial_state": {
            "lists": [{"list_id": "a"}, {"list_id": "b"}],
            "tasks": [
                {"task_id": "t1", "list_id": "a", "status": "open"},
                {"task_id": "t2", "list_id": "a", "status": "open"},
                {"task_id": "t3", "list_id": "b", "status": "open"},
            ],
        },
        "tools": [
            {
                "name": "delete_list",
                "description": "Delete a list and its tasks.",
                "kind": "write",
                "parameters": {
                    "type": "object",
                    "properties": {"list_id": {"type": "string"}},
                    "required": ["list_id"],
                },
                "operation": {
                    "type": "delete",
                    "table": "lists",
                    "key": {"list_id": "list_id"},
                    "effects": effects,
                },
            }
        ],
    }


def test_a_where_effect_removes_every_child_before_its_parent_and_verifies():
    effects = [
        {"type": "delete", "table": "tasks", "where": [{"column": "list_id", "value": {"column": "list_id"}}]}
    ]
    spec = _lists_spec(effects)
    validate_spec(spec)
    with Environment(spec) as env:
        env.reset()
        obs = env.step("delete_list", {"list_id": "a"})
        assert obs["ok"], obs
        assert [t["task_id"] for t in env.dump()["tasks"]] == ["t3"]  # both children of `a` went first
        assert [r["list_id"] for r in env.dump()["lists"]] == ["b"]
        # a list without children: the effect writes no row, and the call still succeeds
        env.step("delete_list", {"list_id": "b"})
        assert env.dump() == {"lists": [], "tasks": []}
    without = _lists_spec([])
    with Environment(without) as env:  # without the effect the parent cannot go: its children hold it
        env.reset()
        assert env.step("delete_list", {"list_id": "a"})["code"] == "conflict"
    assert verify(spec, semantic=False) == []  # the write check allows every row a `where` effect writes


def test_a_where_effect_updates_every_match_and_its_guards_see_each_row():
    effects = [
        {
            "type": "update",
            "table": "tasks",
            "where": [{"column": "list_id", "value": {"column": "list_id"}}],
            "set": {"list_id": {"value": None}},
            "guards": [
                {"check": {"eq": [{"target": "status"}, {"value": "open"}]}, "error": "a task is archived"}
            ],
        }
    ]
    spec = _lists_spec(effects)
    with Environment(spec) as env:
        env.reset()
        assert env.step("delete_list", {"list_id": "a"})["ok"]
        assert {t["task_id"]: t["list_id"] for t in env.dump()["tasks"]} == {
            "t1": None,
            "t2": None,
            "t3": "b",
        }
    spec["initial_state"]["tasks"][2]["status"] = "archived"
    with Environment(spec) as env:
        env.reset()
        unchanged(env, ("delete_list", {"list_id": "b"}), "invalid_state", "a task is archived")


def test_a_where_effect_is_checked_like_a_count():
    bad = [{"type": "delete", "table": "tasks", "where": [{"column": "nope", "value": {"value": "a"}}]}]
    with pytest.raises(SpecError, match="where"):
        validate_spec(_lists_spec(bad))
    both = [
        {
            "type": "delete",
            "table": "tasks",
            "key": {"task_id": {"value": "t1"}},
            "where": [{"column": "list_id", "value": {"value": "a"}}],
        }
    ]
    with pytest.raises(SpecError, match="not both"):
        validate_spec(_lists_spec(both))


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (
            {"type": "object", "properties": {"qty": {"type": "integr"}}},
            "'integr' is not valid under any of the given schemas",
        ),
        ({"type": "object", "required": "qty"}, "'qty' is not of type 'array'"),
        ({"type": "object", "properties": {"qty": {"minimum": "one"}}}, "'one' is not of type 'number'"),
    ],
)
def test_a_tool_whose_parameters_break_the_metaschema_is_named_with_the_reason(schema, words):
    """The fast metaschema check (jsonschema_rs) decides; the reference one (jsonschema) words the reason."""
    spec = load_spec("tests/fixtures/envs/shop.yaml")
    tool = next(t for t in spec["tools"] if t["name"] == "get_order")
    tool["parameters"] = schema
    problems = [p for p in spec_problems(spec) if p.get("tool") == "get_order"]
    assert problems and words in problems[0]["reason"], problems
    tool["parameters"] = {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    }
    assert not [p for p in spec_problems(spec) if p.get("tool") == "get_order"]
