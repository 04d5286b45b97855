"""Do the graph stage's domains recover real API families? NMI/AMI/ARI on BFCL multi-turn docs.

The BFCL multi-turn function docs belong to 8 stateful API classes (file system, math, messages,
posting, tickets, trading, travel, vehicle); the class is the label. Every setting runs the real
`graph` stage on the real docs, side by side with a naive baseline (Louvain over name-token
Jaccard similarity, same size rules). Isolated tools count as singleton clusters.

NMI rises as a partition fragments, so AMI (chance-adjusted) and ARI are printed beside it, and
`purity`: the mean over domains (isolated tools left out) of the share of a domain's tools from
its largest class. The
docs' descriptions start with "This tool belongs to the <X> API ..."; the `stripped` corpus
removes that preamble so the label is not spelled out in the text.

The `as-is` and `stripped` corpora come *without* their source group (each class file holds one
`{"functions": [...]}` record, so the tools are group-less, like BFCL's loose docs): they measure
the semantic/dependency community detection itself. The `grouped` corpus gives each class as its
own group (one JSON file per class, as the quickstart reads `multi_turn_func_doc/`), with the
preamble stripped: there the stage keeps each API whole, so it measures the group rules, and
`group_domains: false` the detection alone on the same pool.
A tool dropped as a near-duplicate counts in the domain of the copy that was kept.

Usage:

```bash
python bench/graph_quality.py            # the table and the chosen default thresholds
```
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import tempfile
from itertools import combinations
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")
CLASSES = [
    "gorilla_file_system",
    "math_api",
    "message_api",
    "posting_api",
    "ticket_api",
    "trading_bot",
    "travel_booking",
    "vehicle_control",
]
PREAMBLE = re.compile(r"^This tool belongs to .*?(Tool description: )", re.S)


def corpora(work: Path) -> dict[str, str]:
    """Write the 8 classes' docs, group-less (as-is and with the class preamble stripped) and grouped."""
    from envscale.sources.base import RawTool, SourceInfo
    from envscale.sources.json_docs import read_archive
    from envscale.sources.pypi import fetch_wheel

    wheel = fetch_wheel("bfcl-eval==2026.3.23")
    out = {}
    for variant in ("as-is", "stripped", "grouped"):
        folder = work / variant
        folder.mkdir()
        for cls in CLASSES:
            docs = []
            for t in read_archive(
                wheel, [f"bfcl_eval/data/multi_turn_func_doc/{cls}.json"], SourceInfo("b", "pypi")
            ):
                if isinstance(t, RawTool):
                    desc = t.description or ""
                    if variant != "as-is":
                        desc = PREAMBLE.sub("", desc)
                    docs.append(
                        {
                            "name": t.name,
                            "description": desc,
                            "parameters": t.parameters,
                            "response": t.output_schema,
                        }
                    )
            # A record embedding a tool list carries no group; a bare list in a file is grouped by the file.
            (folder / f"{cls}.json").write_text(
                json.dumps(docs if variant == "grouped" else {"functions": docs})
            )
        out[variant] = f"json:{folder}"
    return out


def scores(labels: list[str], predicted: list[int]) -> dict[str, float]:
    from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score, normalized_mutual_info_score

    return {
        "nmi": normalized_mutual_info_score(labels, predicted),
        "ami": adjusted_mutual_info_score(labels, predicted),
        "ari": adjusted_rand_score(labels, predicted),
    }


def label_of(row) -> str:
    """The API class of a pool row, from the file it was read from (`.../math_api.json:1...`)."""
    return next(cls for cls in CLASSES if f"/{cls}.json" in row["position"])


def predicted_clusters(pool, graph) -> tuple[list[str], list[int]]:
    domain = {r["tool_id"]: r["domain_id"] for r in graph.load("assignments")}
    for dup in graph.load("duplicates"):  # a dropped near-duplicate goes where its kept copy went
        domain[dup["tool_id"]] = domain[dup["duplicate_of"]]
    labels, pred = [], []
    for i, row in enumerate(pool):
        labels.append(label_of(row))
        d = domain[row["id"]]
        pred.append(d if d >= 0 else 10_000 + i)  # an isolated tool is a cluster of its own
    return labels, pred


def label_purity(labels: list[str], predicted: list[int]) -> float:
    """Mean over domains (isolated tools left out) of the share of their tools from their largest class."""
    members: dict[int, list[str]] = {}
    for label, p in zip(labels, predicted, strict=True):
        if p < 10_000:
            members.setdefault(p, []).append(label)
    return sum(max(map(m.count, set(m))) / len(m) for m in members.values()) / max(len(members), 1)


def naive_baseline(pool) -> tuple[list[str], list[int]]:
    """Louvain over Jaccard similarity of name tokens (+ parameter names), same size rules."""
    import networkx as nx

    from envscale.graph.communities import detect_domains
    from envscale.words.names import tokens

    rows = list(pool)
    toks = [set(tokens(r["original_name"])) | set(r["parameters"].get("properties", {})) for r in rows]
    g = nx.Graph()
    g.add_nodes_from(r["id"] for r in rows)
    for (i, a), (j, b) in combinations(enumerate(toks), 2):
        jac = len(a & b) / len(a | b) if a | b else 0.0
        if jac >= 0.2:
            g.add_edge(rows[i]["id"], rows[j]["id"], weight=jac)
    result = detect_domains(g, seed=0, min_size=3, max_size=50)
    domain = {t: d for d, members in enumerate(result.domains) for t in members}
    return [label_of(r) for r in rows], [domain.get(r["id"], 10_000 + i) for i, r in enumerate(rows)]


def main() -> None:
    logging.disable(logging.INFO)
    from envscale.graph.build import GraphConfig, build_graph
    from envscale.sources.collect import CollectConfig, collect

    settings = [
        ("default (semantic+dependency)", {}),
        ("semantic only", {"domain_signal": ["semantic"]}),
        ("dependency only", {"domain_signal": ["dependency"]}),
        *[
            (
                f"parameter lists (paper), threshold={t}",
                {"match_mode": "tool", "domain_signal": ["parameter"], "parameter_threshold": t},
            )
            for t in (0.6, 0.7, 0.85)
        ],
        ("semantic+parameter", {"match_mode": "both", "domain_signal": ["semantic", "parameter"]}),
        *[
            (f"semantic_threshold={t}", {"semantic_threshold": t})
            for t in (0.2, 0.25, 0.35, 0.4, 0.45, 0.5, 0.6)
        ],
        *[(f"dependency_threshold={t}", {"dependency_threshold": t}) for t in (0.65, 0.7, 0.8, 0.85, 0.9)],
        *[(f"resolution={r}", {"resolution": r}) for r in (0.5, 2.0)],
        ("networkx backend", {"community_backend": "networkx"}),
    ]
    grouped_settings = [
        ("default (groups kept whole)", {}),
        ("group_domains: false", {"group_domains": False}),
        ("max_domain_size=10 (groups split)", {"max_domain_size": 10}),
        ("networkx backend", {"community_backend": "networkx"}),
    ]
    with tempfile.TemporaryDirectory(prefix="envscale-gq-") as tmp:
        work = Path(tmp)
        for variant, spec in corpora(work).items():
            pool_art = collect(CollectConfig(sources=[spec]), work / f"pool-{variant}")
            pool = pool_art.load("api_pool")
            n_groups = len({g for g in pool["group"] if g})
            print(
                f"\n{variant}: {pool.num_rows} tools in {len(CLASSES)} API classes, {n_groups} source groups"
            )
            print(
                f"  {'setting':42s} {'NMI':>6s} {'AMI':>6s} {'ARI':>6s} {'purity':>6s} {'domains':>8s} "
                f"{'isolated':>8s} {'dep edges':>9s} {'dups':>5s}"
            )
            labels, pred = naive_baseline(pool)
            s = scores(labels, pred)
            print(
                f"  {'naive: name-token Jaccard':42s} {s['nmi']:6.3f} {s['ami']:6.3f} {s['ari']:6.3f} "
                f"{label_purity(labels, pred):6.3f} {len(set(p for p in pred if p < 10_000)):8d} "
                f"{sum(p >= 10_000 for p in pred):8d}"
            )
            for i, (name, overrides) in enumerate(grouped_settings if variant == "grouped" else settings):
                graph = build_graph(pool_art, GraphConfig(**overrides), work / f"graph-{variant}-{i}")
                labels, pred = predicted_clusters(pool, graph)
                s = scores(labels, pred)
                st = graph.manifest["stats"]
                print(
                    f"  {name:42s} {s['nmi']:6.3f} {s['ami']:6.3f} {s['ari']:6.3f} "
                    f"{label_purity(labels, pred):6.3f} {st['domains']:8d} {st['isolated']:8d} "
                    f"{st['edges'].get('dependency', 0):9d} {st['duplicates']:5d}"
                )
                sys.stdout.flush()


if __name__ == "__main__":
    main()
