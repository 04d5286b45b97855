"""The state of an environment: an in-memory SQLite database of the spec's tables, hashed by content.

`Database` builds databases from rows (checked against the spec; foreign keys checked after
loading), keeps the last few built ones as images to reset to, saves and restores snapshots, dumps
and diffs states, and keeps the content hash up to date: per table, the sum (mod 2**256) of a
BLAKE2b digest of each row, adjusted by every write (`apply`), so `state_hash()` costs
microseconds whatever the database size and equal contents give equal hashes whatever the order of
the operations that produced them. It also keeps each table's id serial (the largest number in its
generated-style keys, so a generated id is always new) and the session (current user) key.

Snapshots are plain SQLite database files; a hidden table (`envscale_meta`) in them holds the row
digests, serials and session key, so restoring one costs no rescan.

Example:

```python
>>> from envscale.env.spec import load_spec
>>> from envscale.env.state import Database
>>> db = Database(load_spec("tests/fixtures/envs/shop.yaml"))
>>> db.reset()["tables"]["orders"]
40
>>> before = db.snapshot()
>>> _ = db.conn.execute("DELETE FROM order_items WHERE item_id = 'oi_0001'")
>>> db.state_hash() == db.state_hash(recompute=True)   # a write behind its back: the running hash is stale
False
>>> db.restore(before)
>>> db.state_hash() == db.state_hash(recompute=True)
True
```
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import sqlite3
import tempfile
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envscale.env.columns import SQL_TYPES, decode, encode, is_nullable, value_problem
from envscale.env.data import build_state, digit_keys, id_prefix, key_formats, parse_now, table_order
from envscale.env.spec import SpecError, check_state, plain_operation

META = "envscale_meta"
"""Hidden table of a snapshot holding the row digests, id serials and session key."""
_OTHER = "envscale_other"  # schema name a snapshot is attached under by `diff`
MOD = 1 << 256
_IMAGES = 8  # initial databases kept per environment (the spec's own plus recent seeds)


def q(identifier: str) -> str:
    """Quote an identifier that the spec validated against `IDENTIFIER` (so it holds no quote)."""
    return f'"{identifier}"'


def key_where(columns: Iterable[str]) -> str:
    """The condition addressing one row by its key columns, one parameter each: `"a" = ? AND "b" = ?`.

    Every statement that reads, updates or deletes a row by its key builds its `WHERE` with this.
    """
    return " AND ".join(f"{q(c)} = ?" for c in columns)


def _literal(value: str | int | float) -> str:
    """An SQL literal for an enum value in DDL (the only place values are not bound parameters)."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def row_digest(row: tuple) -> int:
    """The digest of one row as `SELECT` reads it (summed per table into the state hash)."""
    return int.from_bytes(
        hashlib.blake2b(repr(row).encode("utf-8", "surrogatepass"), digest_size=32).digest(), "little"
    )


@dataclass(frozen=True)
class Image:
    """A built database: its bytes, row counts, row-digest sums and id serials."""

    data: bytes
    sizes: dict[str, int]
    digests: dict[str, int]
    serials: dict[str, int]


class Database:
    """The database of an environment, its running content hash, id serials and session.

    Use it from one thread at a time. `conn` is the current connection (replaced by every reset and
    restore); a write must be followed by `apply` with the rows it removed and added. SQL running
    past `deadline` (a `time.thread_time()` value: CPU time of the calling thread, infinite unless a caller
    sets it) is interrupted
    with `sqlite3.OperationalError("interrupted")`.

    Args:
        spec (`dict`): A valid spec.
    """

    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.name: str = spec["name"]
        self.tables: dict[str, dict[str, Any]] = spec["tables"]
        self.order = table_order(spec)
        self.columns = {t: tuple(s["columns"]) for t, s in self.tables.items()}
        self.pk_index = {t: self.columns[t].index(s["primary_key"]) for t, s in self.tables.items()}
        self.pk_is_int = {
            t: s["columns"][s["primary_key"]]["type"] == "integer" for t, s in self.tables.items()
        }
        self.prefix = {t: id_prefix(t) for t in self.tables}
        self.digits = {t: digit_keys(s) for t, s in self.tables.items()}  # string keys of digits (`"7"`)
        self.key_format = key_formats(spec)  # how a table's generated keys look (`cus_0007`, a name)
        self._decoded = {
            t: [(c, cs["type"]) for c, cs in s["columns"].items() if cs["type"] in ("boolean", "json")]
            for t, s in self.tables.items()
        }
        self._reals = {
            t: tuple(i for i, c in enumerate(s["columns"].values()) if c["type"] == "number")
            for t, s in self.tables.items()
        }
        self.children = {
            t: [
                (c, col)
                for c, s in self.tables.items()
                for col, cs in s["columns"].items()
                if cs.get("references") == t
            ]
            for t in self.tables
        }
        now = parse_now(spec)
        self.now, self.today = now.strftime("%Y-%m-%dT%H:%M:%SZ"), now.date().isoformat()
        session = spec.get("session")
        self.session_table: str | None = session["table"] if session else None
        self._session_default = None
        if session:
            tspec = self.tables[self.session_table]
            self._session_default = encode(tspec["columns"][tspec["primary_key"]]["type"], session.get("key"))
        self.session_key: Any = None
        # `data.build_state` reads the tools' argument bindings only (1.0 operations).
        self._generation_spec = {
            **spec,
            "tools": [{**t, "operation": plain_operation(t["operation"])} for t in spec["tools"]],
        }
        self._ddl = [self._create_table(t) for t in self.order]
        self._ddl.append(
            f"CREATE TABLE {META} (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID"
        )
        self._images: OrderedDict[Any, Image] = OrderedDict()
        self.deadline = math.inf
        self.conn: sqlite3.Connection | None = None
        self.digests: dict[str, int] = {}
        self.serials: dict[str, int] = {}
        self._meta_current = False
        with contextlib.closing(sqlite3.connect(":memory:")) as conn:
            for ddl in self._ddl:
                conn.execute(ddl)
            self._schema = self._read_schema(conn, "main")  # what a snapshot must hold

    def _create_table(self, table: str) -> str:
        tspec = self.tables[table]
        parts = []
        for column, cspec in tspec["columns"].items():
            ctype, c = cspec["type"], q(column)
            part = f"{c} {SQL_TYPES[ctype]}"
            if column == tspec["primary_key"]:
                part += " PRIMARY KEY"
            if not is_nullable(tspec, column):
                part += " NOT NULL"
            if cspec.get("unique") and column != tspec["primary_key"]:
                part += " UNIQUE"
            if "enum" in cspec:
                part += f" CONSTRAINT {q(column + '_enum')} CHECK ({c} IN ({', '.join(map(_literal, cspec['enum']))}))"
            if ctype == "boolean":
                part += f" CONSTRAINT {q(column + '_boolean')} CHECK ({c} IN (0, 1))"
            if "references" in cspec:
                ref = cspec["references"]
                part += f" REFERENCES {q(ref)} ({q(self.tables[ref]['primary_key'])})"
            parts.append(part)
        for group in tspec.get("unique", []):  # a row named by several columns (warehouse, product)
            parts.append(f"UNIQUE ({', '.join(map(q, group))})")
        return f"CREATE TABLE {q(table)} ({', '.join(parts)}) STRICT, WITHOUT ROWID"

    # ------------------------------------------------------------------------------------------
    # Reset, snapshots, restore

    def reset(
        self,
        seed: int | None = None,
        state: dict[str, list[dict[str, Any]]] | None = None,
        session_key: Any = None,
    ) -> dict[str, Any]:
        """Load an initial state; see `Environment.reset`."""
        if seed is not None and state is not None:
            raise ValueError("pass seed or state, not both")
        if session_key is not None and self.session_table is None:
            raise ValueError(f"session_key: environment {self.name!r} declares no session")
        if state is not None:
            image = self._build(state, where="state")
        else:
            image = self._images.get(seed)
            if image is None:
                if seed is None and "initial_state" in self.spec:
                    image = self._build(self.spec["initial_state"], where="initial_state")
                else:
                    gen_seed = (self.spec.get("data") or {}).get("seed", 0) if seed is None else seed
                    image = self._generated(gen_seed)
                self._images[seed] = image
                while len(self._images) > _IMAGES:
                    self._images.popitem(last=False)
            self._images.move_to_end(seed)
        conn = self._connect(image.data)
        try:
            key = self._session_of(conn, session_key)
        except BaseException:
            conn.close()
            raise
        # The image's meta table holds the digests and serials; the session key is written by `snapshot`.
        self._use(conn, dict(image.digests), dict(image.serials), key, meta=self.session_table is None)
        return {"tables": dict(image.sizes), "state_hash": self.state_hash()}

    def _generated(self, seed: int) -> Image:
        """The generated initial state of `seed`, from the on-disk state cache when it is large.

        Generating a state costs about 35 us a row (1.2 s for 33,000 rows) plus a fixed cost per
        column (value fitting, schema checks: tens of milliseconds for a small environment with nested
        bodies); loading its database from `$ENVSCALE_CACHE/states` costs a few milliseconds, which is
        what makes scoring a trajectory, or the first episode of an environment, in a fresh process
        cheap. States of at least `STATE_CACHE_MIN_ROWS` rows, or that took at least
        `STATE_CACHE_MIN_SECONDS` to generate, are cached (a trivial state is cheaper to generate than
        to read back); the key covers everything generation reads (the spec's tables, data settings
        and tool bindings), the seed, and the envscale and Faker versions.
        """
        own = seed == (self.spec.get("data") or {}).get("seed", 0)  # other seeds: not cached (unbounded)
        path = _state_cache_path(self._generation_spec, seed) if own else None
        if path is not None and path.is_file():
            try:
                return self._image_of(path)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a damaged or foreign cache entry: generate again (and overwrite it)
        start = time.perf_counter()
        state = build_state(self._generation_spec, seed)
        image = self._build(state, where=f"generated state (seed {seed})")
        slow = time.perf_counter() - start >= STATE_CACHE_MIN_SECONDS
        if path is not None and (slow or sum(image.sizes.values()) >= STATE_CACHE_MIN_ROWS):
            sidecar = {
                "sizes": image.sizes,
                "digests": {t: f"{d:064x}" for t, d in image.digests.items()},
                "serials": image.serials,
                "bytes": len(image.data),
                "crc32": zlib.crc32(image.data),
            }
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
                for target, payload in (
                    (path, image.data),
                    (path.with_suffix(".json"), json.dumps(sidecar).encode()),
                ):
                    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{target.name}.")
                    try:
                        with os.fdopen(fd, "wb") as out:
                            out.write(payload)
                        os.replace(tmp, target)
                    finally:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(tmp)
        return image

    def _image_of(self, path: Path) -> Image:
        """A cached image: the database bytes and, beside them, its sizes, digests, serials and checksum."""
        meta = json.loads(path.with_suffix(".json").read_text())
        data = path.read_bytes()
        if len(data) != meta["bytes"] or zlib.crc32(data) != meta["crc32"]:
            raise ValueError("the cached state does not match its record")
        return Image(
            data,
            {t: int(meta["sizes"][t]) for t in self.tables},
            {t: int(meta["digests"][t], 16) for t in self.tables},
            {t: int(meta["serials"][t]) for t in self.tables},
        )

    def _session_of(self, conn: sqlite3.Connection, chosen: Any) -> Any:
        """The session key for a freshly loaded database: `chosen`, the spec's, or the first row's."""
        if self.session_table is None:
            return None
        table, tspec = self.session_table, self.tables[self.session_table]
        pk = tspec["primary_key"]
        if chosen is not None:
            problem = value_problem(tspec["columns"][pk], chosen)
            found = (
                None
                if problem
                else conn.execute(f"SELECT 1 FROM {q(table)} WHERE {key_where([pk])}", (chosen,)).fetchone()
            )
            if found is None:
                raise ValueError(f"session_key: {table} has no row with {pk}={chosen!r:.80}")
            return encode(tspec["columns"][pk]["type"], chosen)  # 2.0 for an integer key is 2
        if self._session_default is not None:
            return self._session_default
        first = conn.execute(f"SELECT {q(pk)} FROM {q(table)} ORDER BY {q(pk)} LIMIT 1").fetchone()
        return first[0] if first else None

    def _connect(self, data: bytes) -> sqlite3.Connection:
        """A new connection holding the database `data`.

        Every reset or restore opens a new connection rather than deserializing into the current
        one: with SQLite 3.40, deserializing into a connection whose statement cache holds prepared
        statements corrupts the database ("cannot store BLOB value in INT column
        sqlite_master.rootpage", then crashes).
        """
        conn = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, cached_statements=512
        )
        try:
            conn.deserialize(data)
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA foreign_keys = ON")
        conn.set_progress_handler(self._over_time, 1000)
        return conn

    def _over_time(self) -> bool:
        # CPU time, not wall time: on a loaded machine (two workers and a driver on two cores) a wall-clock
        # budget failed a 1 ms list now and then, and the same episode played twice came out differently
        return time.thread_time() > self.deadline

    def _use(
        self,
        conn: sqlite3.Connection,
        digests: dict[str, int],
        serials: dict[str, int],
        session_key: Any,
        *,
        meta: bool,
    ) -> None:
        """Make `conn` the database, with its row-digest sums, id serials and session key.

        `meta` says whether the database's meta table already holds those.
        """
        if self.conn is not None:
            self.conn.close()
        self.conn, self.digests, self.serials, self._meta_current = conn, digests, serials, meta
        self.session_key = session_key

    def _build(self, state: dict[str, list[dict[str, Any]]], *, where: str) -> Image:
        """Load rows into a fresh database (foreign keys checked after loading, so order is free)."""
        check_state(self.spec, state, where=where)
        scratch = sqlite3.connect(":memory:", isolation_level=None)
        try:
            for ddl in self._ddl:
                scratch.execute(ddl)
            scratch.execute("BEGIN")
            for table in self.order:
                columns = self.tables[table]["columns"]
                names = self.columns[table]
                sql = f"INSERT INTO {q(table)} VALUES ({', '.join('?' * len(names))})"
                try:
                    scratch.executemany(
                        sql,
                        (
                            [encode(columns[c]["type"], row.get(c)) for c in names]
                            for row in state.get(table, [])
                        ),
                    )
                except sqlite3.IntegrityError as exc:
                    raise SpecError(f"{where}.{table}: {exc}") from None
            scratch.execute("COMMIT")
            for table, tspec in self.tables.items():
                for column, cspec in tspec["columns"].items():
                    if "references" not in cspec:
                        continue
                    ref = cspec["references"]
                    bad = scratch.execute(
                        f"SELECT {q(column)} FROM {q(table)} WHERE {q(column)} IS NOT NULL AND {q(column)} NOT IN "
                        f"(SELECT {q(self.tables[ref]['primary_key'])} FROM {q(ref)}) LIMIT 1"
                    ).fetchone()
                    if bad:
                        raise SpecError(f"{where}.{table}: {column}={bad[0]!r} references no row of {ref}")
            digests, serials = self._scan(scratch)
            sizes = {t: scratch.execute(f"SELECT COUNT(*) FROM {q(t)}").fetchone()[0] for t in self.tables}
            self._write_meta(scratch, digests, serials, None)
            return Image(scratch.serialize(), sizes, digests, serials)
        finally:
            scratch.close()

    def _scan(self, conn: sqlite3.Connection) -> tuple[dict[str, int], dict[str, int]]:
        """Row-digest sums and id serials computed from a database's rows."""
        digests, serials = {}, {}
        for table, tspec in self.tables.items():
            total = 0
            for row in conn.execute(f"SELECT * FROM {q(table)}"):
                total += row_digest(row)
            digests[table] = total % MOD
            pk = q(tspec["primary_key"])
            if tspec["columns"][tspec["primary_key"]]["type"] == "integer":
                serials[table] = conn.execute(f"SELECT COALESCE(MAX({pk}), 0) FROM {q(table)}").fetchone()[0]
            elif self.digits[table] or self.key_format[table].kind in ("name", "uuid"):
                fmt = self.key_format[table]
                keys = conn.execute(f"SELECT {pk} FROM {q(table)}")
                serials[table] = max((fmt.serial(k) for (k,) in keys), default=0)
            else:
                prefix = self.prefix[table]
                numbers = conn.execute(
                    f"SELECT substr({pk}, ?) FROM {q(table)} WHERE {pk} GLOB ?",
                    (len(prefix) + 2, f"{prefix}_[0-9]*"),
                )
                serials[table] = max((int(n) for (n,) in numbers if n.isdigit()), default=0)
        return digests, serials

    @staticmethod
    def _read_schema(conn: sqlite3.Connection, schema: str) -> list[tuple[str, str]]:
        return conn.execute(
            f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()

    def _write_meta(
        self, conn: sqlite3.Connection, digests: dict[str, int], serials: dict[str, int], session_key: Any
    ) -> None:
        rows = [(f"digest:{t}", f"{d:064x}") for t, d in digests.items()] + [
            (f"serial:{t}", str(s)) for t, s in serials.items()
        ]
        if self.session_table is not None:
            rows.append(("session", json.dumps(session_key)))
        conn.executemany(f"INSERT OR REPLACE INTO {META} VALUES (?, ?)", rows)

    def snapshot(self) -> bytes:
        """The current database as bytes (a plain SQLite database file) for `restore` or `diff`."""
        if not self._meta_current:
            self._write_meta(self.conn, self.digests, self.serials, self.session_key)
            self._meta_current = True
        return self.conn.serialize()

    def restore(self, data: bytes) -> None:
        """Go back to a state saved by `snapshot`; see `Environment.restore`."""
        try:
            conn = self._connect(data)
        except (sqlite3.DatabaseError, TypeError, ValueError) as exc:
            raise ValueError(f"restore: not a snapshot of environment {self.name!r}: {exc}") from None
        try:
            if self._read_schema(conn, "main") != self._schema:
                raise ValueError(f"restore: the snapshot's tables differ from environment {self.name!r}")
            meta = dict(conn.execute(f"SELECT key, value FROM {META}").fetchall())
            has_meta = all(f"digest:{t}" in meta and f"serial:{t}" in meta for t in self.tables)
            if has_meta:
                digests = {t: int(meta[f"digest:{t}"], 16) for t in self.tables}
                serials = {t: int(meta[f"serial:{t}"]) for t in self.tables}
            else:  # a database written by something else: recompute from its rows
                digests, serials = self._scan(conn)
            if "session" in meta and self.session_table is not None:
                session_key = json.loads(meta["session"])
            else:
                session_key = self._session_of(conn, None)
                has_meta = has_meta and self.session_table is None
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"restore: not a snapshot of environment {self.name!r}: {exc}") from None
        except ValueError:
            conn.close()
            raise
        self._use(conn, digests, serials, session_key, meta=has_meta)

    # ------------------------------------------------------------------------------------------
    # Writes, hash, reading

    def apply(self, changes: list[tuple[str, int, tuple]], serials: dict[str, int]) -> None:
        """Account for a committed write: rows removed (`-1`) and added (`+1`) per table, new id serials."""
        digests = self.digests
        for table, sign, row in changes:
            digests[table] = (digests[table] + sign * row_digest(row)) % MOD
        if serials:
            self.serials.update(serials)
        self._meta_current = False

    def serial_of(self, table: str, row: tuple) -> int:
        """The number in a row's primary key (`42` for `ord_0042`, `42`, `vault-data-dev-42`), else 0."""
        return self.key_format[table].serial(row[self.pk_index[table]])

    def state_hash(self, *, recompute: bool = False) -> str:
        """A content hash of the database; see `Environment.state_hash`."""
        digests = self._scan(self.conn)[0] if recompute else self.digests
        h = hashlib.blake2b(digest_size=32)
        for table in sorted(digests):
            h.update(f"{table}:{digests[table]:064x};".encode())
        return h.hexdigest()

    def session_row(self) -> dict[str, Any] | None:
        """The session row as JSON values, or `None` (no session declared, or its row does not exist)."""
        if self.session_table is None or self.session_key is None:
            return None
        table = self.session_table
        row = self.conn.execute(
            f"SELECT * FROM {q(table)} WHERE {key_where([self.tables[table]['primary_key']])}",
            (self.session_key,),
        ).fetchone()
        return None if row is None else self.decode(table, row)

    def dump(self) -> dict[str, list[dict[str, Any]]]:
        """All rows per table, in primary key order, as JSON values (the format of `initial_state`)."""
        return {
            t: [
                self.decode(t, r)
                for r in self.conn.execute(f"SELECT * FROM {q(t)} ORDER BY {q(s['primary_key'])}")
            ]
            for t, s in self.tables.items()
        }

    def diff(self, data: bytes) -> dict[str, dict[str, list[Any]]]:
        """The row changes that turn the state `data` (a snapshot) into this one; see `Environment.diff`."""
        # Both states side by side in a scratch connection (see `_connect` on deserializing).
        conn = sqlite3.connect(":memory:")
        try:
            conn.deserialize(self.conn.serialize())
            conn.execute(f"ATTACH DATABASE ':memory:' AS {_OTHER}")
            conn.deserialize(data, name=_OTHER)
            if self._read_schema(conn, _OTHER) != self._schema:
                raise ValueError(f"diff: the other state's tables differ from environment {self.name!r}")
            changes = {}
            for table in self.tables:
                t, pk = q(table), self.pk_index[table]
                new = conn.execute(f"SELECT * FROM main.{t} EXCEPT SELECT * FROM {_OTHER}.{t}").fetchall()
                old = conn.execute(f"SELECT * FROM {_OTHER}.{t} EXCEPT SELECT * FROM main.{t}").fetchall()
                if not new and not old:
                    continue
                before, after = {r[pk]: r for r in old}, {r[pk]: r for r in new}
                changes[table] = {
                    "added": [self.decode(table, after[k]) for k in sorted(after.keys() - before.keys())],
                    "removed": [self.decode(table, before[k]) for k in sorted(before.keys() - after.keys())],
                    "changed": [
                        {
                            "key": k,
                            "before": self.decode(table, before[k]),
                            "after": self.decode(table, after[k]),
                        }
                        for k in sorted(before.keys() & after.keys())
                    ],
                }
            return changes
        except (sqlite3.DatabaseError, TypeError) as exc:
            raise ValueError(f"diff: not a snapshot of environment {self.name!r}: {exc}") from None
        finally:
            conn.close()

    def changes_diff(self, changes: list[tuple[str, int, tuple]]) -> dict[str, dict[str, list[Any]]]:
        """The rows a write removed (`-1`) and added (`+1`), as `diff` gives them: net per row, in key order.

        A row removed and added again with the same values is no change; one changed twice is changed
        once, from its first value to its last.
        """
        first: dict[tuple[str, Any], tuple | None] = {}
        last: dict[tuple[str, Any], tuple | None] = {}
        for table, sign, row in changes:
            at = (table, row[self.pk_index[table]])
            first.setdefault(at, row if sign < 0 else None)
            last[at] = row if sign > 0 else None
        out: dict[str, dict[str, list[Any]]] = {}
        for (table, key), before in sorted(first.items(), key=lambda item: (item[0][0], repr(item[0][1]))):
            after = last[(table, key)]
            if before == after:
                continue
            parts = out.setdefault(table, {"added": [], "removed": [], "changed": []})
            if before is None:
                parts["added"].append(self.decode(table, after))
            elif after is None:
                parts["removed"].append(self.decode(table, before))
            else:
                parts["changed"].append(
                    {"key": key, "before": self.decode(table, before), "after": self.decode(table, after)}
                )
        return out

    def as_read(self, table: str, row: tuple) -> tuple:
        """A row from `RETURNING` as `SELECT` reads it: SQLite returns whole REAL values stored as integers."""
        if not self._reals[table]:
            return row
        values = list(row)
        for i in self._reals[table]:
            if values[i] is not None:
                values[i] = float(values[i])
        return tuple(values)

    def decode(self, table: str, row: tuple) -> dict[str, Any]:
        """A row as JSON values (`columns.decode`: booleans from 0/1, json columns parsed)."""
        out = dict(zip(self.columns[table], row, strict=True))
        for column, ctype in self._decoded[table]:
            out[column] = decode(ctype, out[column])
        return out

    def close(self) -> None:
        """Close the database."""
        self.conn.close()


STATE_CACHE_MIN_ROWS = 5_000
"""Generated states with at least this many rows are kept in `$ENVSCALE_CACHE/states` (set
`ENVSCALE_STATE_CACHE=0` to turn the cache off)."""
STATE_CACHE_MIN_SECONDS = 0.01
"""... and so are those that took at least this long to generate (reading one back takes ~1-5 ms)."""


def _state_cache_path(spec: dict[str, Any], seed: int) -> Path | None:
    """Where the generated state of `spec` and `seed` is cached, or None when caching is off.

    The key covers what generation reads (tables, data settings, tool bindings), the seed, the
    Faker version and the source of the code that generates and stores states, `envscale.words` included
    (an edit to it in an editable install must not serve a stale state).
    """
    if os.environ.get("ENVSCALE_STATE_CACHE", "1") in ("0", "false", "no"):
        return None
    code = _generation_code()
    if code is None:
        return None
    material = {k: spec.get(k) for k in ("tables", "data", "tools", "session")}
    text = json.dumps([material, seed, code], sort_keys=True, default=str)
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    root = os.environ.get("ENVSCALE_CACHE") or Path.home() / ".cache" / "envscale"
    return Path(root) / "states" / f"{key}.sqlite"


@functools.cache
def _generation_code() -> str | None:
    """Faker's version and a digest of the modules that generate and store states (once per process)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        faker = version("faker")
    except PackageNotFoundError:
        return None
    here = Path(__file__).parent
    words = here.parent / "words"  # the generator reads table and column names with `singular`, `name_words`
    digest = hashlib.blake2b(digest_size=16)
    sources = [
        *here.glob("data/*.py"),
        *words.glob("*.py"),
        here / "state.py",
        here / "columns.py",
        here / "spec.py",
    ]
    for source in sorted(sources):
        digest.update(source.read_bytes())
    return f"faker {faker}; code {digest.hexdigest()}"
