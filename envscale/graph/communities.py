"""Cut a weighted tool graph into domains: one API per domain, Louvain, then size rules.

A source group (an API class, an OpenAPI document, an MCP server) stays in one domain unless it is
larger than `max_group_size`; then it is cut along its resource clusters (resources that reference
each other stay together), packed into as few domains as fit, and only a cluster still too large by
Louvain. Group-less tools are clustered by Louvain (igraph's multilevel, or networkx's in pure
Python; both seeded) and may join a group's domain only when they share its entity noun. A
community larger than `max_size` is cut again at a higher resolution (and, if it will not split,
in BFS order), and one smaller than `min_size` joins the neighbouring domain it is most connected
to and may join, or stays isolated with a reason. The same graph and seed give the same domains.

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


def _within(
    graph: nx.Graph, nodes: list[str], *, max_size: int, resolution: float, seed: int, backend: str
) -> list[set]:
    """Louvain inside `nodes` (edges to the outside ignored), each part cut to `max_size`."""
    sub = graph.subgraph(nodes)
    parts = louvain(sub, resolution=resolution, seed=seed, backend=backend)
    out = []
    for part in sorted(parts, key=lambda c: (-len(c), min(c))):
        out.extend(
            piece
            for piece, _ in _split(
                sub, set(part), max_size=max_size, resolution=resolution, seed=seed, backend=backend
            )
        )
    return out


def _pack(graph: nx.Graph, parts: list[tuple[set, str]], *, min_size: int, max_size: int) -> list:
    """Put the pieces of one group smaller than `min_size` back into another piece of the group.

    Smallest first, each into the piece it shares the most edge weight with (then the smallest, so
    tag pieces without edges still end in one piece of their API) among those with room.
    """
    parts = [(set(p), r) for p, r in parts]
    owner = {n: i for i, (p, _) in enumerate(parts) for n in p}
    for i in sorted(range(len(parts)), key=lambda i: (len(parts[i][0]), min(parts[i][0]))):
        piece = parts[i][0]
        if len(piece) >= min_size:
            continue
        weight: Counter = Counter()
        for node in piece:
            for nbr, data in graph[node].items():
                j = owner.get(nbr)
                if j is not None and j != i:
                    weight[j] += data.get("weight", 1.0)
        room = [j for j, (p, _) in enumerate(parts) if j != i and p and len(p) + len(piece) <= max_size]
        if not room:
            continue
        target = min(room, key=lambda j: (-weight.get(j, 0.0), len(parts[j][0]), j))
        parts[target][0].update(piece)
        for node in piece:
            owner[node] = target
        parts[i] = (set(), None)
    return [(p, r) for p, r in parts if p]


def resource_clusters(nodes: list[str], resources: dict[str, tuple[str, ...]]) -> list[list[str]]:
    """Group a source group's tools into resource clusters: resources that reference each other stay together.

    `resources[node]` is the tool's own resource first (`order`), then the resources it refers to (the
    parent resource of its path, `/orders/{id}/items` -> `order`; a key argument, `customer_id` ->
    `customer`). Two tools of one resource are always in one cluster, and a resource joins every
    resource of the group it refers to (references to resources the group does not have are ignored).
    A tool without a resource is a cluster of its own. Clusters come largest first, then by first node.
    """
    owners: dict[str, list[str]] = defaultdict(list)
    for n in nodes:
        if resources.get(n):
            owners[resources[n][0]].append(n)
    parent = {r: r for r in owners}

    def find(r: str) -> str:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    for n in nodes:
        own, *refs = resources.get(n) or ("",)
        for ref in refs:
            if own in parent and ref in parent:
                a, b = sorted((find(own), find(ref)))
                parent[b] = a
    clusters: dict[str, list[str]] = defaultdict(list)
    for n in nodes:
        key = resources[n][0] if resources.get(n) else None
        clusters[find(key) if key else f"\x00{n}"].append(n)
    return sorted((sorted(c) for c in clusters.values()), key=lambda c: (-len(c), c[0]))


MAX_PARENT_READS = 6
"""Reads of other pieces' resources a piece of a cut API borrows, at most (`parent_reads`)."""


def parent_reads(
    domains: list[list[str]],
    resources: dict[str, tuple[str, ...]],
    groups: dict[str, str | None],
    reads: dict[str, int],
    *,
    limit: int = MAX_PARENT_READS,
) -> list[list[str]]:
    """For each domain, the read tools it borrows from other domains of its own API: one read of each resource
    its tools act on or refer to but none of them reads (a piece of Microsoft Graph with a group's mails,
    members and favorites, whose `GET /groups/{id}` landed in another piece). Without it that resource is a
    table that holds only its key. `reads[tool]` is how well a read fetches its resource, the lower the better (a get of one
    by its key before a list); tools missing from `reads` are not reads. The best read of a resource is taken
    in its API, never from another API; at most `limit` a domain, in the order of the resources' first use."""
    owner_reads: dict[tuple[str | None, str], list[str]] = defaultdict(list)
    for tool in reads:
        if resources.get(tool):
            owner_reads[groups.get(tool), resources[tool][0]].append(tool)
    for key in owner_reads:
        owner_reads[key].sort(key=lambda t: (reads[t], t))
    out = []
    for members in domains:
        inside = set(members)
        read = {(groups.get(t), resources[t][0]) for t in members if resources.get(t) and t in reads}
        borrowed: list[str] = []
        for tool in members:
            for ref in resources.get(tool) or ():
                key = (groups.get(tool), ref)
                if key in read or groups.get(tool) is None or len(borrowed) >= limit:
                    continue
                read.add(key)  # one read a resource
                best = next((t for t in owner_reads.get(key, []) if t not in inside), None)
                if best is not None:
                    borrowed.append(best)
        out.append(borrowed)
    return out


def _bin_pack(graph: nx.Graph, clusters: list[set], *, max_size: int) -> list[set]:
    """Fewest pieces of at most `max_size`: each cluster, largest first, joins the piece with room it shares
    the most edge weight with (then the fullest), or opens a new piece. A cluster is never cut here."""
    bins: list[set] = []
    for cluster in sorted(clusters, key=lambda c: (-len(c), min(c))):
        room = [i for i, b in enumerate(bins) if len(b) + len(cluster) <= max_size]
        if not room:
            bins.append(set(cluster))
            continue
        weight: Counter = Counter()
        for node in cluster:
            for nbr, data in graph[node].items():
                for i in room:
                    if nbr in bins[i]:
                        weight[i] += data.get("weight", 1.0)
        best = min(room, key=lambda i: (-weight.get(i, 0.0), -len(bins[i]), i))
        bins[best] |= cluster
    return bins


def _split_group(
    graph: nx.Graph,
    group: str,
    nodes: list[str],
    resources: dict,
    *,
    min_size: int,
    max_size: int,
    limit: int,
    resolution: float,
    seed: int,
    backend: str,
) -> tuple[list[tuple[set, str]], str]:
    """Cut a group larger than `limit` into pieces of at most `max_size` along its resource clusters.

    Resource clusters (:func:`resource_clusters`) are packed into as few pieces as fit; only a cluster
    larger than `max_size` is cut, by Louvain inside it. So a resource's create and read never land in
    two worlds, unlike a cut along tags or Louvain over the whole group.
    """
    head = f"group {group!r} has {len(nodes)} tools (> max_group_size {limit})"
    whole: list[set] = []
    loose: list[set] = []  # single resources of a cluster too large to keep whole
    parts: list[tuple[set, str]] = []
    how = set()
    own_only = {n: r[:1] for n, r in resources.items()}
    for cluster in resource_clusters(nodes, resources):
        if len(cluster) <= max_size:
            whole.append(set(cluster))
            continue
        for single in resource_clusters(cluster, own_only):
            if len(single) <= max_size:
                loose.append(set(single))
                continue
            how.add("communities")
            for piece in _within(
                graph, single, max_size=max_size, resolution=resolution, seed=seed, backend=backend
            ):
                parts.append((piece, f"{head}: a resource of {len(single)} tools cut by community detection"))
    if whole or loose:
        how.add("resources")
        packed = _bin_pack(graph, whole + loose, max_size=max_size)
        parts += [(b, f"{head}: split along its resource clusters") for b in packed]
    return _pack(graph, parts, min_size=min_size, max_size=max_size), "+".join(sorted(how))


def detect_domains(
    graph: nx.Graph,
    *,
    seed: int = 0,
    resolution: float = 1.0,
    min_size: int = 3,
    max_size: int = 50,
    backend: str = "networkx",
    groups: dict[str, str | None] | None = None,
    tags: dict[str, str | None] | None = None,
    entities: dict[str, str | None] | None = None,
    resources: dict[str, tuple[str, ...]] | None = None,
    max_group_size: int | None = None,
) -> DomainResult:
    """Domains of `graph` with `min_size` <= size <= `max_size`, one source group (API) per domain.

    Without `groups` (or where every node's group is None) this is Louvain plus the size rules. With
    groups (the API class, OpenAPI document or MCP server of each node):

    1. a group of at most `max_group_size` nodes (default `max_size`) is one piece, whatever its edges:
       one API, one world; a larger group is cut into pieces of at most `max_size` along its resource
       clusters (`resources[node]`: the tool's resource, then those it refers to; see
       :func:`resource_clusters`), packed into as few pieces as fit; only a cluster larger than
       `max_size` is cut by Louvain inside it. A node without `resources` falls back to its entity
       (`entities[node]`), then its tag (`tags[node]`); pieces smaller than `min_size` are packed into
       another piece of the same group;
    2. group-less nodes: Louvain over the edges between them, each community cut to `max_size`; a
       node linked to grouped nodes only is a piece of its own;
    3. a piece smaller than `min_size` joins the piece it shares the most edge weight with, among
       those with room that it may join: two group-less pieces, or two pieces of one group, always
       may; any other pair must share an entity (`entities[node]`, a singular noun), and two
       different groups of `min_size` nodes or more each never join. A piece that may join none
       stays isolated, with the reason.

    So a group-less node enters a group's domain only when its own community is too small to be a
    domain and it shares the group's entity. (Also moving group-less nodes that are more linked to a
    group than to their own community was measured on the quickstart pool: 16 foreign tools, a
    friend-to-friend payment among them, joined the shop and purity fell from 0.93 to 0.87.)

    Deterministic: nodes, groups and candidates are visited in sorted order; Louvain is seeded.
    """
    groups, tags, entities = groups or {}, tags or {}, entities or {}
    limit = max(max_group_size or max_size, max_size)
    keys = {
        n: (resources or {}).get(n)
        or ((entities.get(n) or tags.get(n) or "",) if entities.get(n) or tags.get(n) else ())
        for n in graph.nodes
    }
    start = time.perf_counter()
    group_of = {n: groups.get(n) for n in graph.nodes}
    group_size = Counter(g for g in group_of.values() if g is not None)
    members: dict[str, list[str]] = defaultdict(list)
    for n in sorted(graph.nodes):
        if group_of[n] is not None:
            members[group_of[n]].append(n)

    # 1. One piece per group, or its tag / community pieces when it is too large.
    pieces: list[tuple[set, str | None]] = []
    split_groups: dict[str, dict] = {}
    for g in sorted(members):
        nodes = members[g]
        if len(nodes) <= limit:
            pieces.append((set(nodes), None))
            continue
        parts, how = _split_group(
            graph,
            g,
            nodes,
            keys,
            min_size=min_size,
            max_size=max_size,
            limit=limit,
            resolution=resolution,
            seed=seed,
            backend=backend,
        )
        split_groups[g] = {
            "tools": len(nodes),
            "domains": len(parts),
            "by": how,
            "reason": f"too large: {len(nodes)} tools > max_group_size {limit}",
        }
        pieces.extend(parts)

    # 2. Group-less nodes: Louvain over the edges between them (all of the graph when no groups).
    loose = [n for n in graph.nodes if group_of[n] is None]
    loose_graph = graph.subgraph(loose)
    isolated: dict[str, str] = {}
    lonely = []
    for n in loose:
        if graph.degree(n) == 0:
            isolated[n] = "no edge above the similarity thresholds"
        elif loose_graph.degree(n) == 0:
            lonely.append(n)  # linked to grouped nodes only: may join one of their pieces below
    connected = loose_graph.subgraph([n for n in loose if loose_graph.degree(n) > 0])
    raw = louvain(connected, resolution=resolution, seed=seed, backend=backend) if len(connected) else []
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
    pieces.extend(({n}, None) for n in sorted(lonely))
    seconds = time.perf_counter() - start
    owner = {n: i for i, (piece, _) in enumerate(pieces) for n in piece}

    # 3. Pieces smaller than min_size join the piece they share the most weight with, if allowed.
    ents = [{entities[n] for n in piece if entities.get(n)} for piece, _ in pieces]
    grps = [{group_of[n] for n in piece if group_of[n] is not None} for piece, _ in pieces]

    def may_join(i: int, j: int) -> bool:
        if grps[i] == grps[j] and len(grps[i]) <= 1:
            return True  # both group-less, or both of one group
        if not ents[i] & ents[j]:
            return False
        return not any(
            a != b and group_size[a] >= min_size and group_size[b] >= min_size
            for a in grps[i]
            for b in grps[j]
        )

    merged = cross = joined = 0
    order = sorted(
        (i for i, (p, _) in enumerate(pieces) if p), key=lambda i: (len(pieces[i][0]), min(pieces[i][0]))
    )
    for i in order:
        piece = pieces[i][0]
        if not piece or len(piece) >= min_size:
            continue
        weight: Counter = Counter()
        for node in piece:
            for nbr, data in graph[node].items():
                j = owner.get(nbr)
                if j is not None and j != i and pieces[j][0]:
                    weight[j] += data.get("weight", 1.0)
        roomy = [
            j
            for j, _ in sorted(weight.items(), key=lambda x: (-x[1], x[0]))
            if len(pieces[j][0]) + len(piece) <= max_size
        ]
        target = next((j for j in roomy if may_join(i, j)), None)
        if target is None:
            reason = _small_reason(len(piece), grps[i], group_size, min_size, refused=bool(roomy))
            for node in piece:
                isolated[node] = reason
        else:
            cross += grps[i] != grps[target] or len(grps[i]) > 1
            joined += len(piece) if not grps[i] and grps[target] else 0
            pieces[target][0].update(piece)
            ents[target] |= ents[i]
            grps[target] |= grps[i]
            for node in piece:
                owner[node] = target
            merged += 1
        pieces[i] = (set(), None)
    final = sorted(((sorted(p), r) for p, r in pieces if p), key=lambda x: (-len(x[0]), x[0][0]))
    stats = {
        "louvain_seconds": round(seconds, 3),
        "raw_communities": len(raw) + len(members),  # a group counts as one
        "largest_raw_community": max([len(c) for c in raw] + [len(m) for m in members.values()], default=0),
        "split_pieces": sum(1 for _, r in final if r),
        "merged_small": merged,
        "isolated": len(isolated),
        "backend": backend,
        "groups": len(members),
        "split_groups": split_groups,
        "loose_joined_groups": joined,
        "cross_group_merges": cross,
    }
    return DomainResult([d for d, _ in final], isolated, [r for _, r in final], stats)


def _small_reason(size: int, groups: set, group_size: Counter, min_size: int, *, refused: bool) -> str:
    """Why a piece smaller than `min_size` joined no other piece."""
    tools = f"{size} tool{'s' if size != 1 else ''}"
    if not groups:
        if refused:
            return (
                f"in a community of {size} (< min_size {min_size}) linked only to domains of APIs "
                "it shares no entity with"
            )
        return f"in a community of {size} (< min_size {min_size}) with no room to merge"
    names = ", ".join(repr(g) for g in sorted(groups))
    total = sum(group_size[g] for g in groups)
    what = f"group {names} has {tools}" if total == size else f"a piece of {tools} of group {names}"
    if refused:
        return (
            f"{what} (< min_size {min_size}); the domains it is linked to share no entity with it, or "
            f"hold another API of {min_size}+ tools while its own has {total}"
        )
    return f"{what} (< min_size {min_size}) and is linked to no domain with room"


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


def purity(labels: dict[str, str | None], nodes: list[str]) -> float:
    """Share of `nodes` from their largest group; a group-less node counts as a group of its own."""
    if not nodes:
        return 0.0
    counts = Counter(labels[n] for n in nodes if labels.get(n) is not None)
    return max(max(counts.values(), default=0), 1) / len(nodes)
