"""Cut a weighted tool graph into domains: Louvain, then size rules.

Louvain (igraph's multilevel, or networkx's in pure Python; both seeded) finds communities; a
community larger than `max_size` is cut again at a higher resolution (and, if it will not
split, in BFS order), and one smaller than `min_size` joins the neighbouring community it is
most connected to, or stays isolated with a reason. The same graph and seed give the same
domains.

Example:

```python
>>> import networkx as nx
>>> from envscale.graph.communities import detect_domains
>>> g = nx.Graph([("a", "b", {"weight": 1.0}), ("b", "c", {"weight": 1.0}), ("x", "y", {"weight": 1.0})])
>>> result = detect_domains(g, seed=0, min_size=2, max_size=10)
>>> sorted(sorted(d) for d in result.domains)
[['a', 'b', 'c'], ['x', 'y']]
```
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import networkx as nx


@dataclass
class DomainResult:
    """Domains (lists of nodes), isolated nodes with reasons, and what was done to get there."""

    domains: list[list[str]]
    isolated: dict[str, str]
    split_reasons: list[str | None]
    stats: dict = field(default_factory=dict)


def louvain(graph: nx.Graph, *, resolution: float, seed: int, backend: str) -> list[set]:
    """Communities of `graph` with the chosen backend (`networkx` or `igraph`)."""
    if graph.number_of_edges() == 0:
        return [{n} for n in graph.nodes]
    if backend == "igraph":
        try:
            import igraph as ig
        except ImportError:
            raise ImportError(
                "community backend 'igraph' needs `pip install igraph` (part of envscale[graph]), "
                "or set community_backend: networkx"
            ) from None
        nodes = sorted(graph.nodes)
        index = {n: i for i, n in enumerate(nodes)}
        edges = sorted(
            (min(index[u], index[v]), max(index[u], index[v]), d.get("weight", 1.0))
            for u, v, d in graph.edges(data=True)
        )
        g = ig.Graph(n=len(nodes), edges=[(u, v) for u, v, _ in edges])
        ig.set_random_number_generator(random.Random(seed))
        try:
            parts = g.community_multilevel(weights=[w for _, _, w in edges], resolution=resolution)
        finally:
            ig.set_random_number_generator(random)
        return [{nodes[i] for i in part} for part in parts]
    if backend != "networkx":
        raise ValueError(f"unknown community backend {backend!r}; use 'networkx' or 'igraph'")
    ordered = nx.Graph()
    ordered.add_nodes_from(sorted(graph.nodes))
    ordered.add_weighted_edges_from(
        sorted((min(u, v), max(u, v), d.get("weight", 1.0)) for u, v, d in graph.edges(data=True))
    )
    return nx.community.louvain_communities(ordered, weight="weight", resolution=resolution, seed=seed)


def _split(
    graph: nx.Graph, nodes: set, *, max_size: int, resolution: float, seed: int, backend: str, depth: int = 0
) -> list[tuple[set, str | None]]:
    """Cut an oversize community until every part fits; returns (part, reason)."""
    if len(nodes) <= max_size:
        return [(nodes, None)]
    sub = graph.subgraph(nodes)
    parts = louvain(sub, resolution=resolution * 2, seed=seed, backend=backend) if depth < 6 else [nodes]
    if len(parts) > 1:
        out = []
        for part in parts:
            for piece, reason in _split(
                graph,
                set(part),
                max_size=max_size,
                resolution=resolution * 2,
                seed=seed,
                backend=backend,
                depth=depth + 1,
            ):
                out.append((piece, reason or f"split from a community of {len(nodes)} tools (resolution x2)"))
        return out
    # Louvain will not cut it (e.g. a near-clique): chunk it in BFS order so neighbours stay together.
    order = []
    seen = set()
    for start in sorted(nodes):
        if start not in seen:
            for node in nx.bfs_tree(sub, start):
                if node not in seen:
                    seen.add(node)
                    order.append(node)
    chunks = [set(order[i : i + max_size]) for i in range(0, len(order), max_size)]
    return [(c, f"chunked from an unsplittable community of {len(nodes)} tools") for c in chunks]


def detect_domains(
    graph: nx.Graph,
    *,
    seed: int = 0,
    resolution: float = 1.0,
    min_size: int = 3,
    max_size: int = 50,
    backend: str = "networkx",
) -> DomainResult:
    """Louvain communities of `graph` made to respect `min_size` <= size <= `max_size`."""
    start = time.perf_counter()
    isolated = {n: "no edge above the similarity thresholds" for n in graph.nodes if graph.degree(n) == 0}
    connected = graph.subgraph([n for n in graph.nodes if n not in isolated])
    raw = louvain(connected, resolution=resolution, seed=seed, backend=backend) if len(connected) else []
    seconds = time.perf_counter() - start
    pieces: list[tuple[set, str | None]] = []
    giant = max((len(c) for c in raw), default=0)
    for community in sorted(raw, key=lambda c: (-len(c), min(c))):
        pieces.extend(
            _split(
                connected,
                set(community),
                max_size=max_size,
                resolution=resolution,
                seed=seed,
                backend=backend,
            )
        )
    # Merge tiny pieces into the piece they share the most weight with, if that one has room.
    owner = {n: i for i, (piece, _) in enumerate(pieces) for n in piece}
    merged = 0
    for i, (piece, _) in sorted(enumerate(pieces), key=lambda x: (len(x[1][0]), min(x[1][0]))):
        if not piece or len(piece) >= min_size:
            continue
        weight: Counter = Counter()
        for node in piece:
            for nbr, data in connected[node].items():
                j = owner[nbr]
                if j != i and pieces[j][0]:
                    weight[j] += data.get("weight", 1.0)
        target = next(
            (
                j
                for j, _ in sorted(weight.items(), key=lambda x: (-x[1], x[0]))
                if len(pieces[j][0]) + len(piece) <= max_size
            ),
            None,
        )
        if target is None:
            for node in piece:
                isolated[node] = (
                    f"in a community of {len(piece)} (< min_size {min_size}) with no room to merge"
                )
        else:
            pieces[target][0].update(piece)
            for node in piece:
                owner[node] = target
            merged += 1
        pieces[i] = (set(), None)
    final = sorted(((sorted(p), r) for p, r in pieces if p), key=lambda x: (-len(x[0]), x[0][0]))
    stats = {
        "louvain_seconds": round(seconds, 3),
        "raw_communities": len(raw),
        "largest_raw_community": giant,
        "split_pieces": sum(1 for _, r in final if r),
        "merged_small": merged,
        "isolated": len(isolated),
        "backend": backend,
    }
    return DomainResult([d for d, _ in final], isolated, [r for _, r in final], stats)


def cohesion(graph: nx.Graph, nodes: list[str]) -> tuple[int, float, float]:
    """(internal edges, internal weight, internal weight / all weight touching the domain)."""
    members = set(nodes)
    internal = total = 0.0
    n_internal = 0
    for node in nodes:
        for nbr, data in graph[node].items():
            w = data.get("weight", 1.0)
            total += w if nbr not in members else w / 2
            if nbr in members:
                internal += w / 2
                n_internal += 1
    return n_internal // 2, internal, (internal / total if total else 0.0)


def group_counts(labels: dict[str, str | None], nodes: list[str]) -> dict[str, int]:
    counts = defaultdict(int)
    for n in nodes:
        counts[labels.get(n) or ""] += 1
    return dict(sorted(counts.items(), key=lambda x: -x[1]))
