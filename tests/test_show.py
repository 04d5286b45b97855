"""`envscale show graph` and `envscale show environment`: pictures and text a person can read.

What a user would check by eye: boxes never overlap and fit their names, dependency arrows run
left to right (a cycle shares a column), reads sit above writes, tools without dependency edges
get a grid of their own, arrows carry short keys into a side table of field flows, there is a
legend and a title with counts, and the file printed is the file written.

The layout tests use a hand-made domain; the artifact tests build a small graph from
`tests/fixtures/graph` with the offline embedding model (once per module).

An environment is read as text: its policy, its tables with their columns and first rows, and what
each tool does in plain words ("does cancel_order really cancel, and only when?"). Those tests
write a small `environments` artifact from the hand-written specs in `tests/fixtures/envs`.
"""

import itertools
import random
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.figure
import matplotlib.text
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from envscale.artifacts import ArtifactWriter, open_artifact
from envscale.cli import main
from envscale.env import Environment, load_spec
from envscale.graph import draw
from envscale.graph.build import GraphConfig, build_graph
from envscale.graph.draw import text_columns
from envscale.schemas import ENVIRONMENTS
from envscale.show.environment import WIDTH, describe_operation, render_environment
from envscale.show.trajectory import MESSAGE_CHARS, render_trajectory
from envscale.sources.collect import CollectConfig, collect

REPO = Path(__file__).resolve().parent.parent

FIX = "tests/fixtures/graph"
LONG = "export_all_invoices_for_customer_accounting_period_to_csv_format"

# A hand-made domain: two chains, a skip edge, a 3-cycle fed from outside, long names, tools of
# unknown kind, and many tools without any dependency edge.
CHAINS = [
    ("find_customer", "list_orders"),
    ("list_orders", "get_order"),
    ("get_order", "cancel_order"),
    ("get_order", "refund_payment"),
    ("list_orders", "cancel_order"),
    ("find_customer", "updateCustomerShippingAddressForOrder"),
    ("find_customer", LONG),
    ("search_catalogue", "get_product"),
    ("get_product", "add_to_cart"),
    ("add_to_cart", "checkout"),
    ("checkout", "ship_order"),
    ("search_catalogue", "ship_order"),  # skips three steps
    ("seed", "cycle_b"),
    ("cycle_b", "cycle_c"),
    ("cycle_c", "cycle_d"),
    ("cycle_d", "cycle_b"),
    ("cycle_d", "after_cycle"),
]
WRITES = {"cancel_order", "refund_payment", "updateCustomerShippingAddressForOrder", "checkout", "cycle_c"}
UNKNOWN = {"seed", "iso_03"}


def hand_made_data(names, edges, kinds, *, name, score, matches):
    """The `DomainData` of a hand-made domain: every edge a dependency edge with this score and these matches."""
    return draw.DomainData(
        domain_id=7,
        name=name,
        tool_ids=names,
        tool_names={n: n for n in names},
        kinds=kinds,
        edges=[
            {
                "source_id": u,
                "target_id": v,
                "kind": "dependency",
                "score": score,
                "matches": matches,
                "llm_verdict": None,
            }
            for u, v in edges
        ],
    )


def hand_made(n_isolated=12):
    names = sorted({n for e in CHAINS for n in e} | {f"iso_{i:02d}" for i in range(n_isolated)})
    kinds = {
        n: "write" if n in WRITES or n.endswith(("1", "7")) else "read" for n in names if n not in UNKNOWN
    }
    return names, list(CHAINS), kinds


def overlaps(a, b, gap=0.0):
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


def saved_figures(monkeypatch):
    """Keep every matplotlib figure that gets saved, whatever draws it."""
    figures = []
    original = matplotlib.figure.Figure.savefig

    def savefig(self, *args, **kwargs):
        figures.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return figures


def all_texts(fig):
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("emb-cache"))


def build(folder, cache_dir):
    pool = collect(CollectConfig(sources=[f"json:{FIX}"]), folder / "api_pool")
    return build_graph(pool, GraphConfig(embedding_cache=cache_dir), folder / "graph")


@pytest.fixture(scope="module")
def graph_art(tmp_path_factory, cache_dir):
    return build(tmp_path_factory.mktemp("run"), cache_dir)


def shop_id(art):
    return next(d["domain_id"] for d in art.load("domains") if "get_order" in d["tool_names"])


# ----------------------------------------------------------------------------- layout


def test_layout_runs_left_to_right_along_dependencies_and_a_cycle_shares_a_step():
    names, edges, kinds = hand_made()
    layout = draw.layout_domain(names, edges, kinds=kinds)
    layer, comp = layout.layers, layout.components
    for u, v in edges:
        if layer[u] == layer[v]:  # only the tools of one cycle may share a step
            assert comp[u] == comp[v], (u, v)
        else:
            assert layout.box(u)[2] < layout.box(v)[0], (u, v)  # the source's box ends before the target's
    assert layer["cycle_b"] == layer["cycle_c"] == layer["cycle_d"] == 1 and layer["after_cycle"] == 2
    assert layer["find_customer"] == 0 and layer["get_order"] == 2 and layer["cancel_order"] == 3
    assert layer["ship_order"] == 4  # longest path, not the shortcut from search_catalogue
    assert all(layer[n] == -1 for n in layout.isolated) and len(layout.isolated) == 12
    # Deterministic: the same domain given in another order is the same picture.
    random.seed(3)
    shuffled = draw.layout_domain(random.sample(names, len(names)), random.sample(edges, len(edges)), kinds)
    assert shuffled.positions == layout.positions and shuffled.components == layout.components


def test_layout_boxes_never_overlap_reads_above_writes_and_isolated_tools_get_a_grid():
    names, edges, kinds = hand_made(n_isolated=40)
    layout = draw.layout_domain(names, edges, kinds=kinds)
    assert set(layout.positions) == set(names)
    for a, b in itertools.combinations(names, 2):
        assert not overlaps(layout.box(a), layout.box(b), gap=0.05), (a, b)  # a visible gap, too
    for n in names:  # every box lies on the page
        x0, y0, x1, y1 = layout.box(n)
        assert x0 >= 0 and x1 <= layout.width and y0 >= 0 and y1 <= layout.height
    # Bands: every read box above every unknown box, above every write box.
    band = {b: [layout.box(n) for n in names if layout.bands[n] == b] for b in ("read", "unknown", "write")}
    assert band["read"] and band["unknown"] and band["write"]
    assert min(b[1] for b in band["read"]) > max(b[3] for b in band["unknown"])
    assert min(b[1] for b in band["unknown"]) > max(b[3] for b in band["write"])
    assert {layout.bands[n] for n in UNKNOWN} == {"unknown"}
    # Tools without dependency edges: right of every step, in several columns, not a pile or a strip.
    dag_right = max(layout.box(n)[2] for n in names if layout.layers[n] >= 0)
    iso = [layout.box(n) for n in layout.isolated]
    assert min(b[0] for b in iso) > dag_right
    assert len({round(b[0], 3) for b in iso}) >= 2
    width = max(b[2] for b in iso) - min(b[0] for b in iso)
    height = max(b[3] for b in iso) - min(b[1] for b in iso)
    assert 0.25 < width / height < 4


def test_long_names_are_wrapped_and_kept_in_full_in_the_side_table():
    names, edges, kinds = hand_made()
    data = hand_made_data(names, edges, kinds, name="shop", score=0.9, matches=[])
    layout = draw.layout_domain(names, edges, kinds=kinds)
    for n in names:
        lines = layout.labels[n].split("\n")
        assert len(lines) <= draw.LABEL_LINES and all(
            draw.text_columns(line) <= draw.LABEL_COLS for line in lines
        )
    assert layout.labels["updateCustomerShippingAddressForOrder"] == "updateCustomerShipping\nAddressForOrder"
    assert layout.shortened == {LONG: LONG}
    table = "\n".join(draw.side_table(data, draw.dependency_flows(data), layout))
    assert LONG in table


def test_rendered_names_fit_their_boxes_and_boxes_do_not_overlap():
    """The same checks on the rendered figure, with the text extents matplotlib measures."""
    names, edges, kinds = hand_made()
    data = hand_made_data(
        names,
        edges,
        kinds,
        name="shop $not math$",
        score=0.8,
        matches=[{"output": "id", "input": "id", "score": 0.8}],
    )
    fig = draw.render_domain(data)
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    by_gid = {a.get_gid(): a for a in fig.findobj() if a.get_gid()}
    boxes = {n: by_gid[f"node:{n}"].get_window_extent(renderer) for n in names}
    for n in names:
        text = by_gid[f"label:{n}"].get_window_extent(renderer)
        box = boxes[n]
        assert box.x0 <= text.x0 and text.x1 <= box.x1 and box.y0 <= text.y0 and text.y1 <= box.y1, n
    for a, b in itertools.combinations(names, 2):
        ba, bb = boxes[a], boxes[b]
        assert not overlaps((ba.x0, ba.y0, ba.x1, ba.y1), (bb.x0, bb.y0, bb.x1, bb.y1)), (a, b)
    assert "shop $not math$" in " ".join(all_texts(fig))  # `$` in names is text, not mathtext


# ----------------------------------------------------------------------------- pictures of artifacts


def test_the_saved_picture_has_a_legend_a_title_with_counts_and_separate_labels(graph_art, monkeypatch):
    figures = saved_figures(monkeypatch)
    domain = next(d for d in graph_art.load("domains") if d["domain_id"] == shop_id(graph_art))
    path = draw.draw_domain(graph_art, shop_id(graph_art))  # default path: inside the artifact
    assert path.exists() and path.suffix == ".png" and path.parent == Path(graph_art.location)
    (fig,) = figures
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert legends, "the picture has no legend"
    entries = " ".join(t.get_text() for legend in legends for t in legend.get_texts())
    for word in ("read", "write", "unknown", "dependency", "similar"):
        assert word in entries
    texts = all_texts(fig)
    title = " ".join(texts)
    assert f"domain {domain['domain_id']}: {domain['name']}" in title
    assert "5 tools (3 read, 2 write)" in title and "5 dependency edges" in title
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    labels = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text() in domain["tool_names"]]
    assert sorted(t.get_text() for t in labels) == sorted(domain["tool_names"])
    extents = [t.get_window_extent(renderer) for t in labels]
    for a, b in itertools.combinations(extents, 2):
        assert not overlaps((a.x0, a.y0, a.x1, a.y1), (b.x0, b.y0, b.x1, b.y1))


def test_arrows_carry_short_keys_and_the_field_flows_are_listed_best_first(graph_art, monkeypatch, tmp_path):
    figures = saved_figures(monkeypatch)
    draw.draw_domain(graph_art, shop_id(graph_art), tmp_path / "shop.png")
    (fig,) = figures
    names = {n for d in graph_art.load("domains") for n in d["tool_names"]}
    graph_axes = max(fig.axes, key=lambda ax: len(ax.patches) + len(ax.collections))  # where the tools are
    on_arrows = [
        t.get_text() for t in graph_axes.texts if t.get_text() not in names and "step" not in t.get_text()
    ]
    on_arrows = [t for t in on_arrows if t not in ("read", "write", "unknown", "no dependency edges")]
    assert on_arrows and all(t.isdigit() for t in on_arrows)  # keys, not stacked field names
    table = next(t for t in all_texts(fig) if "list_orders.orders.order_id -> get_order.order_id" in t)
    rows = [line.split() for line in table.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 5 and sorted(r[0] for r in rows) == sorted(on_arrows)
    scores = [float(r[1]) for r in rows]
    assert scores == sorted(scores, reverse=True) and scores[-1] < 1.0  # payment_id 0.96 comes last


@pytest.mark.parametrize("asked", ["pic", "new/sub/pic"])
def test_cli_prints_the_file_it_wrote_adding_png_and_folders(graph_art, tmp_path, capsys, asked):
    assert main(["show", "graph", str(graph_art.location), "--png", str(tmp_path / asked)]) == 0
    out = capsys.readouterr().out
    expected = tmp_path / f"{asked}.png"
    assert f"wrote {expected}" in out
    assert expected.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / asked).exists()


def test_an_unwritable_path_is_a_value_error_naming_it(graph_art, tmp_path, capsys):
    (tmp_path / "a-file").write_text("not a folder")
    target = tmp_path / "a-file" / "pic.png"
    with pytest.raises(ValueError, match=str(target)):
        draw.draw_domain(graph_art, None, target)
    assert main(["show", "graph", str(graph_art.location), "--png", str(target)]) == 2
    assert str(target) in capsys.readouterr().err


def test_a_missing_pool_draws_without_colours_and_says_so(tmp_path, cache_dir, monkeypatch):
    art = build(tmp_path / "run", cache_dir)
    shutil.copytree(tmp_path / "run", tmp_path / "moved")  # a run folder moved as a whole keeps its colours
    (tmp_path / "run" / "api_pool").rename(tmp_path / "gone")
    figures = saved_figures(monkeypatch)
    draw.draw_domain(open_artifact(tmp_path / "moved" / "graph"), shop_id(art), tmp_path / "moved.png")
    draw.draw_domain(art, shop_id(art), tmp_path / "lonely.png")
    moved, lonely = (" ".join(all_texts(f)) for f in figures)
    assert "api_pool" in lonely and "not found" in lonely and "5 unknown" in lonely
    assert "3 read, 2 write" in moved and "not found" not in moved


# ----------------------------------------------------------------------------- environments as text

STORE = "tests/fixtures/envs/store.yaml"
SHOP = "tests/fixtures/envs/shop.yaml"


def env_row(spec, domain_id, **columns):
    """A row of an `environments` artifact for a hand-written spec, as `materialize` writes one."""
    env = Environment(spec)
    state = env.dump()
    writes = [t for t in spec["tools"] if t["kind"] == "write"]
    row = {
        "domain_id": domain_id,
        "domain_name": f"{spec['name']} domain",
        "name": spec["name"],
        "spec": spec,
        "n_tables": len(spec["tables"]),
        "n_tools": len(spec["tools"]),
        "n_read": len(spec["tools"]) - len(writes),
        "n_write": len(writes),
        "n_rows": sum(len(rows) for rows in state.values()),
        "state_hash": env.state_hash(),
        "tables": sorted(spec["tables"]),
        "dropped_tools": [],
        "excluded_tools": [],
        "semantic_score": 1.0,
        "read_only": not writes,
        "written_and_read": ["orders"],
        "policy": spec.get("policy", ""),
    }
    return {**row, **columns}


@pytest.fixture(scope="module")
def env_art(tmp_path_factory):
    rows = [
        env_row(load_spec(SHOP), 4, semantic_score=0.9),
        env_row(
            load_spec(STORE),
            7,
            dropped_tools=[{"tool": "refund_order", "reason": "refund_order changed no row"}],
            excluded_tools=[{"tool": "convert_currency", "reason": "pure computation (compute verb)"}],
        ),
    ]
    with ArtifactWriter(tmp_path_factory.mktemp("envs") / "environments", ENVIRONMENTS, "test") as writer:
        shard = writer.shard_writer("environments")
        shard.write_many(rows)
        count = shard.close()
        writer.shard_writer("rejected").close()
        stats = {  # what `materialize` records (the dataset card shows it)
            "domains": count,
            "verified": count,
            "rejected": 0,
            "pass_rate": 1.0,
            "rejection_reasons": {},
            "tools_dropped": 1,
            "drop_reasons": {"changed no row": 1},
            "tools_excluded_as_computations": 1,
            "read_only_environments": 0,
            "mean_semantic_score": 0.95,
        }
        return writer.commit({"environments": count, "rejected": 0}, stats)


def section(text, title):
    """The lines of one section of the text (from its title to the next title)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i - 1 for i in range(start + 2, len(lines)) if lines[i].startswith("====")), len(lines))
    return lines[start:end]


def tool_block(text, name):
    """The signature line of tool `name` and the lines that say what it does, joined into one string."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name}("))
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return " ".join(line.strip() for line in lines[start:end])


def test_show_environment_prints_policy_tables_rows_and_what_each_tool_does(env_art, capsys):
    assert main(["show", "environment", str(env_art.location), "--env", "store"]) == 0
    text = capsys.readouterr().out
    spec = load_spec(STORE)
    assert text.startswith("environment store (domain 7: store domain)")
    assert (
        "semantic score" in text
        and " · world · " in text
        and "tables written and read (by different tools): orders" in text
    )
    flat = " ".join(text.split())
    assert " ".join(spec["policy"].split()) in flat  # the policy, whole
    assert "the customers row with customer_id = 'cus_0001'" in flat  # who the session is
    tables = "\n".join(section(text, "TABLES"))
    for table, tspec in spec["tables"].items():  # every table, each of its columns under it
        block = tables[tables.index(f"\n{table}  (") :].split("\n\n")[0]
        for column, cspec in tspec["columns"].items():
            assert any(line.split()[:2] == [column, cspec["type"]] for line in block.splitlines()), (
                table,
                column,
            )
    assert "-> customers" in tables and "one of pending | paid | shipped | cancelled" in tables
    orders = tables[tables.index("\norders  (5 rows") :]
    assert "first 3 of 5 rows:" in orders
    first = next(line for line in orders.splitlines() if line.strip().startswith("ord_0001"))
    assert first.split()[:6] == ["ord_0001", "cus_0001", "pro_0001", "2", "50.0", "pending"]
    assert "ord_0004" not in orders.split("\n\n")[1]  # only the first 3 rows
    assert "(no rows in the initial state)" in tables  # audit_log starts empty
    # A status tool: the value it sets, and the statuses it is allowed from, with the refusal.
    cancel = tool_block(text, "cancel_order")
    assert cancel.startswith("cancel_order(order_id, reason?)")
    assert "in the orders row with order_id = order_id: sets status = 'cancelled'" in cancel
    assert 'only while status is pending or paid (else: "only orders that have not shipped' in cancel
    assert "then: in the products row with product_id = orders.product_id: sets stock = stock +" in cancel
    # Reads and writes are grouped; tools left out are listed with their reasons.
    reads, writes = "\n".join(section(text, "READ TOOLS")), "\n".join(section(text, "WRITE TOOLS"))
    assert "get_my_profile()" in reads and "cancel_order(" not in reads and "cancel_order(" in writes
    assert "refund_order: refund_order changed no row" in "\n".join(section(text, "DROPPED TOOLS"))
    assert "convert_currency: pure computation" in "\n".join(section(text, "EXCLUDED TOOLS"))
    assert max(text_columns(line) for line in text.splitlines()) <= WIDTH


def test_without_env_the_environment_with_most_writes_is_picked_and_named(env_art, capsys):
    assert main(["show", "environment", str(env_art.location), "--rows", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("picked store: the most write tools (9) of 2 environments")
    assert "first 1 of 5 rows:" in out
    assert main(["show", "environment", str(env_art.location), "--domain", "4", "--rows", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("environment shop (domain 4") and "first " not in out  # --rows 0: no rows


def test_unknown_env_wrong_kind_and_foreign_options_are_one_line_errors(env_art, graph_art, capsys):
    assert main(["show", "environment", str(env_art.location), "--env", "stor"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no environment 'stor'" in err[0] and "store" in err[0]
    assert main(["show", "environment", str(env_art.location), "--env", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no environment 'nope' among 2" in err and "shop" in err and "store" in err
    assert main(["show", "environment", str(env_art.location), "--domain", "99"]) == 2
    assert "no environment of domain 99; domains: 4, 7" in capsys.readouterr().err
    assert main(["show", "environment", str(graph_art.location)]) == 2
    assert "expected 'environments'" in capsys.readouterr().err
    assert main(["show", "graph", str(env_art.location)]) == 2
    assert "expected 'graph'" in capsys.readouterr().err
    assert main(["show", "environment", str(env_art.location), "--png", "x"]) == 2
    assert "--png is not an option of `envscale show environment`" in capsys.readouterr().err
    assert main(["show", "graph", str(graph_art.location), "--env", "shop"]) == 2
    assert "--env is not an option of `envscale show graph`" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("spec_file", "tool", "expected"),
    [
        (SHOP, "get_order", "reads the orders row with order_id = order_id"),
        (
            SHOP,
            "list_products",
            "lists products where category = category, price <= max_price, name contains query "
            "(lowest price first, at most limit)",
        ),
        (SHOP, "list_orders", "customer_id = customer_id, status is one of statuses (newest first"),
        (SHOP, "count_orders", "counts orders where status = status, customer_id = customer_id"),
        (
            SHOP,
            "create_order",
            "adds an orders row: order_id = a new id, customer_id = customer_id, status = 'pending', "
            "total = total, created_at = now, note = note",
        ),
        (SHOP, "remove_order_item", "removes the order_items row with item_id = item_id"),
        (STORE, "update_my_email", "in the session's customers row: sets email = email"),
        (STORE, "count_my_open_orders", "customer_id = the session's customer_id, status is pending or paid"),
        (
            STORE,
            "adjust_stock",
            "sets quantity_on_hand = quantity_on_hand + delta; only if quantity_on_hand + delta >= "
            'quantity_reserved (else: "refused: the quantity on hand',
        ),
        (
            STORE,
            "place_order",
            "total = quantity * unit_price, status = 'pending', created_at = now; only if quantity > 0 "
            '(else: "the quantity must be at least 1"); only if fewer than 3 rows of orders with '
            "customer_id = the session's customer_id and status = 'pending'",
        ),
        (
            STORE,
            "place_order",
            "then: in the products row with product_id = orders.product_id: sets stock = stock - "
            "orders.quantity; only if stock >= orders.quantity",
        ),
        (STORE, "place_order", "then: adds an audit_log row: log_id = a new id, action = 'order placed'"),
        (
            STORE,
            "delete_order",
            'removes the orders row with order_id = order_id; only while status is cancelled (else: "only '
            'cancelled orders can be deleted") then: adds an audit_log row',
        ),
        (
            STORE,
            "pay_order",
            "in the customers row with customer_id = orders.customer_id: sets balance = balance - "
            "orders.total; only if balance >= orders.total",
        ),
    ],
)
def test_each_operation_reads_as_one_plain_sentence(spec_file, tool, expected):
    spec = load_spec(spec_file)
    op = next(t["operation"] for t in spec["tools"] if t["name"] == tool)
    text = describe_operation(op, spec, indent="  ")
    assert expected in " ".join(text.split())
    lines = text.splitlines()
    assert all(text_columns(line) <= WIDTH and line.startswith("  ") for line in lines)
    effects = [line for line in lines if line.startswith("      then: ")]  # one per effect, indented
    assert not lines[0].startswith("   ") and len(effects) == len(op.get("effects", []))


def test_render_is_a_pure_function_of_the_row_and_wide_tables_wrap_into_blocks():
    row = {"spec": load_spec(STORE)}
    text = render_environment(row, rows=5)
    assert text == render_environment(row, rows=5)
    tables = "\n".join(section(text, "TABLES"))
    orders = tables[tables.index("\norders  (") :].split("first 5 of 5 rows:")[1]
    blocks = [b for b in orders.split("\n\n") if b.strip()][:2]
    assert blocks[0].split()[0] == "order_id" and blocks[1].split()[0] == "order_id"  # the key leads each
    assert "updated_at" in blocks[1] and "updated_at" not in blocks[0]
    assert max(text_columns(line) for line in text.splitlines()) <= WIDTH


def test_a_huge_message_is_shown_cut_with_what_was_left_out_counted():
    huge = "word " * 2_000_000  # 10 MB: wrapping it whole took minutes
    row = {
        "trajectory_id": "t#0",
        "messages": [{"role": "user", "content": huge}, {"role": "assistant", "content": "ok " + huge}],
        "status": "completed",
    }
    text = render_trajectory(row)
    assert len(text) < 4 * MESSAGE_CHARS
    assert text.count(f"({len(huge) - MESSAGE_CHARS:,} more characters)") == 1
    assert text.count(f"({len(huge) + 3 - MESSAGE_CHARS:,} more characters)") == 1


def test_graph_shows_one_progress_bar_for_embeddings_not_a_nested_one_per_batch(tmp_path):
    pool = collect(
        CollectConfig(sources=[f"openapi:{REPO / 'recipes/sources/envscale_shop.openapi.yaml'}"]),
        tmp_path / "p",
    )
    proc = subprocess.run(  # a process of its own: logging as a newcomer's run configures it
        [
            sys.executable,
            "-m",
            "envscale.cli",
            "graph",
            "--input",
            str(pool.location),
            "--output",
            str(tmp_path / "g"),
        ]
        + ["--embedding-cache", str(tmp_path / "emb"), "--embedding-processes", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and "embed" in proc.stderr, proc.stderr[-2000:]
    assert "Batches" not in proc.stderr, proc.stderr[-2000:]


def test_an_effect_on_every_matching_row_says_so():
    from envscale.show.environment import describe_operation

    spec = {
        "tables": {"lists": {"primary_key": "list_id", "columns": {"list_id": {"type": "string"}}}},
        "tools": [],
    }
    op = {
        "type": "delete",
        "table": "lists",
        "key": {"list_id": "list_id"},
        "effects": [
            {
                "type": "delete",
                "table": "tasks",
                "where": [{"column": "list_id", "value": {"column": "list_id"}}],
            },
            {
                "type": "update",
                "table": "notes",
                "where": [{"column": "list_id", "value": {"column": "list_id"}}],
                "set": {"list_id": {"value": None}},
            },
        ],
    }
    text = describe_operation(op, spec)
    assert "then: removes every tasks row with list_id = lists.list_id" in text
    assert "then: in every notes row with list_id = lists.list_id: sets list_id = null" in text
