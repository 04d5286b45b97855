"""Draw artifacts for people: one domain of a `graph` artifact as a PNG.

Nodes are the domain's tools (green: read, orange: write); arrows are dependency edges (an
output of one tool feeds an input of the other, labelled with the matched fields), grey lines
are semantic/parameter similarity. Looking at a domain beats reading edge lists.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.graph.draw import draw_domain
>>> draw_domain(open_artifact("outputs/quickstart/graph"), domain_id=0, path="domain0.png")
PosixPath('domain0.png')
```
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..artifacts import Artifact


def draw_domain(
    graph_artifact: Artifact, domain_id: int | None = None, path: str | Path | None = None
) -> Path:
    """Write a PNG of one domain (default: the largest) and return its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    domains = graph_artifact.load("domains")
    if domains.num_rows == 0:
        raise ValueError(f"{graph_artifact.pinned} has no domains to draw")
    ids = domains["domain_id"]
    if domain_id is None:
        domain_id = ids[0]
    if domain_id not in ids:
        raise ValueError(f"{graph_artifact.pinned} has no domain {domain_id}; ids run {min(ids)}..{max(ids)}")
    domain = domains[ids.index(domain_id)]
    edges = graph_artifact.load("edges").filter(lambda e: e["domain_id"] == domain_id, desc="domain edges")
    pool_ref = graph_artifact.manifest["inputs"][0]["pinned"]
    from ..artifacts import open_artifact

    kinds = {}
    try:
        pool = open_artifact(pool_ref).load("api_pool")
        wanted = set(domain["tool_ids"])
        kinds = {r["id"]: r["kind"] for r in pool.select_columns(["id", "kind"]) if r["id"] in wanted}
    except (FileNotFoundError, ValueError):
        pass  # the pool moved: draw without read/write colours
    names = dict(zip(domain["tool_ids"], domain["tool_names"], strict=True))
    g = nx.DiGraph()
    g.add_nodes_from(domain["tool_ids"])
    for e in edges:
        g.add_edge(e["source_id"], e["target_id"], kind=e["kind"], score=e["score"], matches=e["matches"])
    pos = nx.spring_layout(g, seed=0, k=1.5 / max(len(g), 1) ** 0.5)
    size = min(24, 6 + len(g) * 0.25)
    fig, ax = plt.subplots(figsize=(size, size * 0.75))
    colours = [
        "#ff9f43" if kinds.get(n) == "write" else "#54a0ff" if kinds.get(n) == "read" else "#c8d6e5"
        for n in g
    ]
    nx.draw_networkx_nodes(g, pos, node_color=colours, node_size=500, ax=ax)
    nx.draw_networkx_labels(g, pos, labels={n: names[n] for n in g}, font_size=8, ax=ax)
    similar = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] != "dependency"]
    deps = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "dependency"]
    nx.draw_networkx_edges(g, pos, edgelist=similar, edge_color="#bbbbbb", arrows=False, ax=ax)
    nx.draw_networkx_edges(
        g,
        pos,
        edgelist=deps,
        edge_color="#222222",
        arrows=True,
        arrowsize=14,
        width=1.4,
        ax=ax,
        node_size=500,
    )
    labels = {
        (u, v): f"{g[u][v]['matches'][0]['output']}->{g[u][v]['matches'][0]['input']}"
        for u, v in deps
        if g[u][v]["matches"]
    }
    nx.draw_networkx_edge_labels(g, pos, edge_labels=labels, font_size=6, ax=ax)
    ax.set_title(
        f"domain {domain_id}: {domain['name']} ({domain['n_tools']} tools, {domain['n_read']} read / "
        f"{domain['n_write']} write; blue read, orange write, arrows: output feeds input)"
    )
    ax.axis("off")
    out = (
        Path(path)
        if path
        else (
            Path(graph_artifact.location) / f"domain-{domain_id}.png"
            if not graph_artifact.is_hub
            else Path(f"domain-{domain_id}.png")
        )
    )
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


def make_parser(subparsers=None) -> argparse.ArgumentParser:
    """`envscale show graph REF [--domain N] [--png PATH]`."""
    kwargs = {"description": "Draw one domain of a graph artifact to a PNG."}
    if subparsers is None:
        parser = argparse.ArgumentParser(prog="envscale show", **kwargs)
    else:
        parser = subparsers.add_parser(
            "show", help="draw an artifact (e.g. a domain of a graph) to a PNG", **kwargs
        )
    parser.add_argument("what", choices=["graph"], help="what to draw")
    parser.add_argument("ref", help="a graph artifact: PATH[@vN] or hf://org/name[@revision]")
    parser.add_argument("--domain", type=int, help="domain id (default: the largest domain)")
    parser.add_argument("--png", help="output file (default: <artifact>/domain-<id>.png)")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    from ..artifacts import open_artifact

    art = open_artifact(args.ref, expect_kind="graph")
    path = draw_domain(art, args.domain, args.png)
    print(f"wrote {path}")
    return 0
