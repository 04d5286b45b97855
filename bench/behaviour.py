"""Behaviour fingerprint of a pipeline run: did a refactor change what the stages make?

Reads a run folder (`envscale run recipes/quickstart.yaml --output-dir DIR`) and prints, per stage, a
digest of what a refactor must not change: every environment's initial state hash, every task's gold
state hash (by task id), and the ids of the kept trajectories. With two folders it compares them.

```bash
envscale run recipes/quickstart.yaml --output-dir /tmp/before    # on the old commit
envscale run recipes/quickstart.yaml --output-dir /tmp/after     # on the new one
python bench/behaviour.py /tmp/before /tmp/after                 # exit 1 when anything differs
python bench/behaviour.py /tmp/after --save after.json           # the fingerprint alone
```
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from envscale.artifacts import open_artifact


def _column_pairs(path: Path, config: str, key: str, value: str | None) -> dict[str, str]:
    """`{key: value}` over every split of one config of an artifact (value None: the key alone)."""
    art = open_artifact(path)
    out: dict[str, str] = {}
    for split in art.splits.get(config, {}):
        ds = art.load(config, split=split)
        keys = ds[key]
        values = ds[value] if value else [""] * len(keys)
        for k, v in zip(keys, values, strict=True):
            out[f"{split}/{k}"] = str(v)
    return out


#: What is compared: name -> (stage folder, config, key column, value column or None for the key alone).
WHAT = {
    "environment state hashes": ("environments", "environments", "name", "state_hash"),
    "rejected environments": ("environments", "rejected", "name", None),
    "task gold state hashes": ("tasks", "tasks", "task_id", "gold_state_hash"),
    "trajectory final state hashes": ("trajectories", "trajectories", "trajectory_id", "final_state_hash"),
    "kept trajectory ids": ("filtered", "filtered", "trajectory_id", None),
}


def fingerprint(run: Path) -> dict[str, dict[str, str]]:
    """What a run made, as `{what: {id: value}}`; a stage the run lacks is left out."""
    return {
        what: _column_pairs(run / folder, config, key, value)
        for what, (folder, config, key, value) in WHAT.items()
        if (run / folder).exists()
    }


def digest(pairs: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(pairs, sort_keys=True).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="one run folder, or two to compare (before after)")
    parser.add_argument("--save", type=Path, help="write the first run's fingerprint as JSON")
    args = parser.parse_args(argv)
    prints = [fingerprint(run) for run in args.runs]
    if args.save:
        args.save.write_text(json.dumps(prints[0], indent=1, sort_keys=True))
    differ = False
    for what in WHAT:
        if not all(what in p for p in prints):
            print(f"{what:<32}(not in every run: skipped)")
            continue
        cells = [f"{len(p[what]):>6} rows  {digest(p[what])}" for p in prints]
        line = f"{what:<32}" + "   |   ".join(cells)
        if len(prints) == 2:
            a, b = prints[0][what], prints[1][what]
            changed = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
            only = sorted(a.keys() ^ b.keys())
            same = not changed and not only
            differ |= not same
            line += (
                "   identical" if same else f"   DIFFER: {len(changed)} changed, {len(only)} in one run only"
            )
            for k in (changed + only)[:5]:
                line += f"\n      e.g. {k}: {a.get(k)!r} -> {b.get(k)!r}"
        print(line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
