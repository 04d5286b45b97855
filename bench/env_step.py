"""Cost of environment calls next to raw `sqlite3` running the same statements, on a ~3 MB database.

The environment is the shop fixture (`tests/fixtures/envs/shop.yaml`) with its `data.rows` scaled
to `--rows` rows in all (default 33,000, about 3 MB), generated from its data settings. A copy of
the same database is opened with plain `sqlite3`; each operation is timed in rounds of `--batch`
calls, the variants' rounds interleaved, and the median per-call time is printed beside:

- raw, same statements: the SQL the call runs, executed directly (for writes, between the same
  SAVEPOINT and RELEASE the step wraps them in);
- raw, bare: the least SQL doing the same work, in autocommit (writes only).

Operations: read steps `get_order` (dict and JSON-text arguments) and `list_orders`; write steps
`update_order_status` (the precondition SELECT, then UPDATE ... RETURNING) and `create_order`
(INSERT ... RETURNING); `reset` (raw: `deserialize` of the same bytes); `state_hash()` (kept up to
date by every write) and `state_hash(recompute=True)` (every row digested again; raw: `SELECT *` of
every table, the least any hash over the rows must read); `snapshot` / `restore` (raw: `serialize`
/ `deserialize`). Steps include argument validation and building the observation.
Targets: step <= 3x raw, reset <= 1 ms, state hash <= 5 ms.

Usage:

```bash
python bench/env_step.py                     # 33,000 rows, ~3 MB
python bench/env_step.py --rows 100000 --rounds 15
```
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import sqlite3
import statistics
import time
from pathlib import Path

from envscale.env import Environment, load_spec

SHOP = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "envs" / "shop.yaml"
SHARES = {"customers": 0.15, "products": 0.10, "orders": 0.35, "order_items": 0.40}


def per_call_us(fn, calls, batch: int) -> float:
    """Microseconds per call of `fn` over one batch of arguments drawn from `calls` (garbage collector off)."""
    items = [next(calls) for _ in range(batch)]
    gc.disable()
    start = time.perf_counter_ns()
    for item in items:
        fn(item)
    elapsed = time.perf_counter_ns() - start
    gc.enable()
    return elapsed / batch / 1000


def compare(variants, *, batch: int, rounds: int) -> list[float]:
    """Median per-call microseconds of each `(fn, calls)` variant, their rounds interleaved."""
    times: list[list[float]] = [[] for _ in variants]
    for _ in range(rounds):
        for fn_times, (fn, calls) in zip(times, variants, strict=True):
            fn_times.append(per_call_us(fn, calls, batch))
    return [statistics.median(t) for t in times]


def savepoint(conn, work):
    """`work` between the SAVEPOINT and RELEASE statements that a write step runs."""

    def run(item):
        conn.execute("SAVEPOINT s")
        work(item)
        conn.execute("RELEASE s")

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=33_000, help="Rows in all four tables together (~3 MB).")
    parser.add_argument(
        "--rounds", type=int, default=25, help="Timed rounds per operation (median reported)."
    )
    parser.add_argument("--batch", type=int, default=400, help="Calls per round for steps.")
    args = parser.parse_args()

    spec = load_spec(SHOP)
    spec["data"]["rows"] = {t: int(args.rows * share) for t, share in SHARES.items()}
    start = time.perf_counter()
    env = Environment(spec)
    build_s = time.perf_counter() - start
    data = env.snapshot()
    raw = sqlite3.connect(":memory:", isolation_level=None)
    raw.deserialize(data)
    raw.execute("PRAGMA foreign_keys = ON")
    # Deserializing into a connection that has run statements corrupts it (see `Environment._connect`):
    # the raw reset/restore baselines get a connection of their own that runs none.
    loader = sqlite3.connect(":memory:", isolation_level=None)
    sizes = env.reset()["tables"]
    print(
        f"database: {sum(sizes.values()):,} rows {sizes}, {len(data) / 1e6:.2f} MB; built in {build_s:.2f} s"
    )

    dump = env.dump()
    order_ids = [o["order_id"] for o in dump["orders"]]
    open_ids = [o["order_id"] for o in dump["orders"] if o["status"] != "cancelled"]
    customer_ids = [c["customer_id"] for c in dump["customers"]]
    del dump
    rows = []

    def add(name, target, env_variant, same, bare=None, *, batch=args.batch, rounds=args.rounds):
        variants = [env_variant, same] + ([bare] if bare else [])
        rows.append((name, target, *compare(variants, batch=batch, rounds=rounds)))

    select_order = 'SELECT * FROM "orders" WHERE "order_id" = ?'
    add(
        "step get_order",
        "<= 3x raw",
        (lambda oid: env.step("get_order", {"order_id": oid}), itertools.cycle(order_ids)),
        (lambda oid: raw.execute(select_order, (oid,)).fetchone(), itertools.cycle(order_ids)),
    )
    add(
        "step get_order (JSON text)",
        "<= 3x raw",
        (
            lambda text: env.step("get_order", text),
            itertools.cycle([json.dumps({"order_id": o}) for o in order_ids]),
        ),
        (lambda oid: raw.execute(select_order, (oid,)).fetchone(), itertools.cycle(order_ids)),
    )
    list_sql = (
        'SELECT * FROM "orders" WHERE "customer_id" = ? AND "status" IN (SELECT value FROM json_each(?))'
        ' ORDER BY "created_at" DESC, "order_id" LIMIT ?'
    )
    add(
        "step list_orders",
        "<= 3x raw",
        (
            lambda cid: env.step(
                "list_orders", {"customer_id": cid, "statuses": ["pending", "shipped"], "limit": 10}
            ),
            itertools.cycle(customer_ids),
        ),
        (
            lambda cid: raw.execute(list_sql, (cid, '["pending", "shipped"]', 10)).fetchall(),
            itertools.cycle(customer_ids),
        ),
        batch=max(1, args.batch // 10),
    )

    update_sql = 'UPDATE "orders" SET "status" = ? WHERE "order_id" = ? RETURNING *'

    def raw_update(call):
        oid, status = call
        if raw.execute(select_order, (oid,)).fetchone()[2] != "cancelled":  # the precondition
            raw.execute(update_sql, (status, oid)).fetchall()

    updates = [(oid, status) for status in ("shipped", "delivered") for oid in open_ids]
    add(
        "step update_order_status",
        "<= 3x raw",
        (
            lambda call: env.step("update_order_status", {"order_id": call[0], "status": call[1]}),
            itertools.cycle(updates),
        ),
        (savepoint(raw, raw_update), itertools.cycle(updates)),
        (raw_update, itertools.cycle(updates)),
    )
    insert_sql = (
        'INSERT INTO "orders" ("status", "customer_id", "total", "order_id", "created_at") VALUES (?, ?, ?, ?, ?)'
        " RETURNING *"
    )
    serial = itertools.count()

    def raw_insert(cid):
        raw.execute(
            insert_sql, ("pending", cid, 12.5, f"raw_{next(serial)}", "2025-06-01T12:00:00Z")
        ).fetchall()

    add(
        "step create_order",
        "<= 3x raw",
        (
            lambda cid: env.step("create_order", {"customer_id": cid, "total": 12.5}),
            itertools.cycle(customer_ids),
        ),
        (savepoint(raw, raw_insert), itertools.cycle(customer_ids)),
        (raw_insert, itertools.cycle(customer_ids)),
    )
    assert env.state_hash() == env.state_hash(recompute=True), "running hash differs from the recomputed one"

    add(
        "reset",
        "<= 1 ms",
        (lambda _: env.reset(), itertools.repeat(None)),
        (lambda _: loader.deserialize(data), itertools.repeat(None)),
        batch=20,
    )
    read_all = [f'SELECT * FROM "{t}"' for t in spec["tables"]]
    hash_rounds = max(5, args.rounds // 2)
    running = statistics.median(
        per_call_us(lambda _: env.state_hash(), itertools.repeat(None), 1000) for _ in range(5)
    )
    add(
        "state_hash (recompute)",
        "<= 5 ms",
        (lambda _: env.state_hash(recompute=True), itertools.repeat(None)),
        (lambda _: [raw.execute(sql).fetchall() for sql in read_all], itertools.repeat(None)),
        batch=1,
        rounds=hash_rounds,
    )
    rows.insert(-1, ("state_hash (running)", "<= 5 ms", running, rows[-1][3]))
    snapshot = env.snapshot()
    add(
        "snapshot",
        "",
        (lambda _: env.snapshot(), itertools.repeat(None)),
        (lambda _: raw.serialize(), itertools.repeat(None)),
        batch=20,
    )
    add(
        "restore",
        "",
        (lambda _: env.restore(snapshot), itertools.repeat(None)),
        (lambda _: loader.deserialize(snapshot), itertools.repeat(None)),
        batch=20,
    )
    env.close()

    print(f"\nmedians of {args.rounds} rounds ({hash_rounds} rounds of one call for state_hash (recompute))")
    print("raw, same statements: the SQL the call runs (writes: inside the step's SAVEPOINT ... RELEASE),")
    print(
        "  for state_hash: SELECT * of every table; raw, bare: the least SQL doing the same work (autocommit)\n"
    )
    header = ["operation", "envscale", "raw, same statements", "ratio", "raw, bare", "ratio", "target"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in header) + "|")
    for name, target, env_us, same_us, *bare in rows:
        bare_cells = [_fmt(bare[0]), f"{env_us / bare[0]:.2f}x"] if bare else ["", ""]
        cells = [name, _fmt(env_us), _fmt(same_us), f"{env_us / same_us:.2f}x", *bare_cells, target]
        print("| " + " | ".join(cells) + " |")


def _fmt(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


if __name__ == "__main__":
    main()
