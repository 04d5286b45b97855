"""Draw one domain of a `graph` artifact as a PNG that a person can read at a glance.

The picture reads left to right along the dependency edges: a tool stands one column ("step")
to the right of every tool whose output feeds one of its inputs (tools in a dependency cycle share
a column). Reads (blue) sit in a band above writes (orange); tools of unknown kind (grey, e.g.
when the `api_pool` cannot be found) get a band between them. Tools with no dependency edge are
gathered in a grid of their own on the right. Each arrow carries a number that keys a side table
of its field flows (`source.output -> target.input`, best score first); light grey lines are
semantic/parameter similarity. Boxes are sized from their text and never overlap; long tool
names are wrapped, and any that had to be shortened are listed in full in the side table.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.graph.draw import draw_domain, layout_domain
>>> draw_domain(open_artifact("outputs/quickstart/graph"), domain_id=0, path="domain0")
PosixPath('domain0.png')
>>> layout = layout_domain(["a", "b", "c"], [("a", "b")], kinds={"a": "read", "b": "write"})
>>> layout.layers
{'a': 0, 'b': 1, 'c': -1}
>>> layout.positions["a"][0] < layout.positions["b"][0]
True
```

From the command line (`--png` without `.png` gets the suffix added; folders are created):

```bash
envscale show graph outputs/quickstart/graph --domain 3 --png pictures/shop
```
"""

from __future__ import annotations

import argparse
import logging
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..artifacts import Artifact
from ..errors import ArtifactError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

logger = logging.getLogger(__name__)

# ----------------------------------------------------------------------------- geometry
# All layout coordinates are in inches: the drawing axes map one data unit to one inch, so the
# boxes computed here are the boxes on the page. Labels use a monospaced font (DejaVu Sans Mono,
# bundled with matplotlib), whose advance width is 0.602 em, so a label's width is known exactly
# without rendering it.

FONT = "DejaVu Sans Mono"
FONT_SIZE = 8.0  # points
CHAR_W = 0.61 * FONT_SIZE / 72  # inches per character column (0.602 em, rounded up)
LINE_H = 1.3 * FONT_SIZE / 72  # inches per text line (matplotlib's 1.2 spacing, rounded up)
PAD_X, PAD_Y = 0.09, 0.06  # inside a box, around its text
MIN_BOX_W = 0.7
LABEL_COLS, LABEL_LINES = 22, 3  # wrap tool names to at most this many columns and lines
LAYER_GAP = 1.1  # between columns of boxes: room for arrows and their keys
ROW_GAP = 0.2  # between boxes of one column
BAND_GAP = 0.4  # between the read / unknown / write bands
ISOLATED_GAP = 1.0  # between the last step and the grid of tools without dependency edges
ISOLATED_COL_GAP = 0.3
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 0.55, 0.2, 0.35, 0.15  # band names left, captions on top

BANDS = ("read", "unknown", "write")
STYLE = {  # face, edge: light faces keep the black text readable
    "read": ("#d6e9ff", "#2e86de"),
    "unknown": ("#eef1f4", "#8395a7"),
    "write": ("#ffe3c4", "#e67e22"),
}
DEPENDENCY_COLOUR = "#2d3436"
SIMILARITY_COLOUR = "#b2bec3"
MAX_FLOW_ROWS = 30  # field flows listed in the side table; the rest are counted
MAX_FLOW_COLS = 84
MAX_PIXELS = 16000  # per side: the dpi is lowered for huge domains


def text_columns(text: str) -> int:
    """Character columns `text` takes in a monospaced font (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fit(text: str, cols: int) -> str:
    """`text` cut to `cols` columns with an ellipsis in the middle."""
    if text_columns(text) <= cols:
        return text
    head = max(1, (cols - 1) // 2)
    tail = max(1, cols - 1 - head)
    return text[:head] + "…" + text[-tail:]


def wrap_name(name: str, cols: int = LABEL_COLS, lines: int = LABEL_LINES) -> tuple[str, bool]:
    """`name` wrapped at `_ - . / :` and camelCase boundaries; returns (label, shortened)."""
    tokens = [t for t in re.split(r"(?<=[_\-./:])|(?<=[a-z0-9])(?=[A-Z])", name) if t]
    pieces: list[str] = []
    for tok in tokens:  # a token wider than a line is cut into line-wide pieces
        while text_columns(tok) > cols:
            pieces.append(tok[:cols])
            tok = tok[cols:]
        pieces.append(tok)
    out = [""]
    for piece in pieces:
        if out[-1] and text_columns(out[-1] + piece) > cols:
            out.append(piece)
        else:
            out[-1] += piece
    if len(out) <= lines:
        return "\n".join(out), False
    tail = ""
    for ch in reversed(name):  # the end of the name, which tells tools of one family apart
        if text_columns(ch + tail) > cols - 1:
            break
        tail = ch + tail
    return "\n".join([*out[: lines - 1], "…" + tail]), True


def box_size(label: str) -> tuple[float, float]:
    """Width and height in inches of the box drawn around a (possibly multi-line) label."""
    rows = label.split("\n")
    width = max(text_columns(r) for r in rows) * CHAR_W + 2 * PAD_X
    return max(MIN_BOX_W, width), len(rows) * LINE_H + 2 * PAD_Y


@dataclass
class DomainLayout:
    """Where every tool of a domain goes; coordinates in inches, origin at the bottom left.

    `positions` are box centres, `sizes` box widths and heights; `layers` is the step (column) of a
    tool, -1 for tools without dependency edges (`isolated`, drawn in a grid on the right);
    `bands` is "read", "unknown" or "write"; `components` maps a tool to the id of its strongly
    connected component (tools of one dependency cycle share it, and share their step).
    """

    positions: dict[str, tuple[float, float]]
    sizes: dict[str, tuple[float, float]]
    labels: dict[str, str]
    layers: dict[str, int]
    bands: dict[str, str]
    components: dict[str, int]
    isolated: list[str]
    shortened: dict[str, str]  # tool -> full name, for labels that had to be cut
    width: float
    height: float
    band_spans: dict[str, tuple[float, float]] = field(default_factory=dict)  # band -> (y_low, y_high)
    layer_spans: dict[int, tuple[float, float]] = field(default_factory=dict)  # step -> (x_left, x_right)
    isolated_span: tuple[float, float] | None = None

    def box(self, node: str) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of a tool's box."""
        (x, y), (w, h) = self.positions[node], self.sizes[node]
        return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def layout_domain(
    nodes: Iterable[str],
    dependency_edges: Iterable[tuple[str, str]],
    kinds: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> DomainLayout:
    """A deterministic layered layout of one domain: same input (in any order), same picture.

    Args:
        nodes: tool ids.
        dependency_edges: (source, target) pairs, the source's output feeding the target's input;
            edges to tools not in `nodes` and self-loops are ignored.
        kinds: tool id -> "read" / "write"; anything else (or missing) is "unknown".
        names: tool id -> the name to show (default: the id).

    Steps are the longest-path depth over the dependency DAG, cycles condensed (networkx
    `condensation`) so that the tools of a cycle share a step. Within a step, tools are ordered by
    the mean height of the tools feeding them (fewer crossings), then by name.
    """
    import networkx as nx

    nodes = sorted(set(nodes))
    kinds = kinds or {}
    names = names or {}
    node_set = set(nodes)
    edges = sorted({(u, v) for u, v in dependency_edges if u in node_set and v in node_set and u != v})
    band = {n: kinds.get(n) if kinds.get(n) in ("read", "write") else "unknown" for n in nodes}
    labels, shortened, sizes = {}, {}, {}
    for n in nodes:
        full = names.get(n) or n
        labels[n], cut = wrap_name(full)
        if cut:
            shortened[n] = full
        sizes[n] = box_size(labels[n])
    order_key = {n: (names.get(n) or n, n) for n in nodes}

    g = nx.DiGraph(edges)
    cond = nx.condensation(g) if edges else nx.DiGraph()
    component = {n: cond.graph["mapping"][n] for n in g} if edges else {}
    depth: dict[int, int] = {}
    for c in nx.topological_sort(cond):
        depth[c] = max((depth[p] + 1 for p in cond.predecessors(c)), default=0)
    layer = {n: depth[component[n]] if n in component else -1 for n in nodes}
    # Component ids depend on networkx's traversal order: renumber them by their smallest member.
    renumber = {
        c: i
        for i, c in enumerate(
            sorted(set(component.values()), key=lambda c: min(order_key[n] for n in cond.nodes[c]["members"]))
        )
    }
    component = {n: renumber[c] for n, c in component.items()}
    isolated = sorted((n for n in nodes if layer[n] < 0), key=lambda n: order_key[n])
    n_layers = max(layer.values(), default=-1) + 1
    present = [b for b in BANDS if any(band[n] == b for n in nodes)]

    slot_h = max((h for _, h in sizes.values()), default=LINE_H + 2 * PAD_Y) + ROW_GAP
    groups: dict[tuple[int, str], list[str]] = {(L, b): [] for L in range(n_layers) for b in BANDS}
    for n in nodes:
        if layer[n] >= 0:
            groups[layer[n], band[n]].append(n)
    dag_slots = {b: max((len(groups[L, b]) for L in range(n_layers)), default=0) for b in BANDS}

    # The isolated grid: about as tall as the steps, or square-ish when they are few.
    iso_by_band = {b: [n for n in isolated if band[n] == b] for b in BANDS}
    iso_rows = dict.fromkeys(BANDS, 0)
    if isolated:
        col_w = max(sizes[n][0] for n in isolated) + ISOLATED_COL_GAP
        target_rows = max(sum(dag_slots.values()), math.ceil(math.sqrt(len(isolated) * col_w / slot_h)))
        n_cols = math.ceil(len(isolated) / max(1, target_rows))
        iso_rows = {b: math.ceil(len(iso_by_band[b]) / n_cols) for b in BANDS}
    slots = {b: max(dag_slots[b], iso_rows[b]) for b in present}

    # Bands from the top: read, unknown, write.
    y = MARGIN_B + sum(slots[b] * slot_h for b in present) + BAND_GAP * max(0, len(present) - 1)
    height = y + MARGIN_T
    band_top, band_spans = {}, {}
    for b in present:
        band_top[b] = y
        band_spans[b] = (y - slots[b] * slot_h, y)
        y -= slots[b] * slot_h + BAND_GAP

    positions: dict[str, tuple[float, float]] = {}
    layer_spans = {}
    x = MARGIN_L
    for L in range(n_layers):
        members = [n for b in BANDS for n in groups[L, b]]
        width = max(sizes[n][0] for n in members)
        layer_spans[L] = (x, x + width)
        for b in present:
            group = groups[L, b]

            def key(n, L=L):
                fed_by = [positions[p][1] for p in g.predecessors(n) if p in positions and layer[p] < L]
                return (0, -sum(fed_by) / len(fed_by)) if fed_by else (1, 0.0), order_key[n]

            group.sort(key=key)
            offset = (slots[b] - len(group)) / 2
            for i, n in enumerate(group):
                positions[n] = (x + width / 2, band_top[b] - (offset + i + 0.5) * slot_h)
        x += width + LAYER_GAP
    isolated_span = None
    if isolated:
        x += ISOLATED_GAP - LAYER_GAP if n_layers else 0.0
        start = x
        columns: dict[int, list[tuple[str, str, int]]] = {}  # grid column -> (tool, band, row)
        for b in present:
            for j, n in enumerate(iso_by_band[b]):
                columns.setdefault(j // iso_rows[b], []).append((n, b, j % iso_rows[b]))
        for c in sorted(columns):
            width = max(sizes[n][0] for n, _, _ in columns[c])
            for n, b, row in columns[c]:
                positions[n] = (x + width / 2, band_top[b] - (row + 0.5) * slot_h)
            x += width + ISOLATED_COL_GAP
        x -= ISOLATED_COL_GAP
        isolated_span = (start, x)
    elif n_layers:
        x -= LAYER_GAP
    return DomainLayout(
        positions=positions,
        sizes=sizes,
        labels=labels,
        layers=layer,
        bands=band,
        components=component,
        isolated=isolated,
        shortened=shortened,
        width=x + MARGIN_R,
        height=height,
        band_spans=band_spans,
        layer_spans=layer_spans,
        isolated_span=isolated_span,
    )


# ----------------------------------------------------------------------------- data


@dataclass
class DomainData:
    """What a picture of one domain needs, read from a graph artifact (or built by hand)."""

    domain_id: int
    name: str
    tool_ids: list[str]
    tool_names: dict[str, str]
    kinds: dict[str, str]  # tool id -> "read" / "write"; empty when the api_pool was not found
    edges: list[dict[str, Any]]  # rows of the `edges` config inside the domain
    source: str = ""  # the graph artifact, pinned
    notes: list[str] = field(default_factory=list)


def load_domain(graph_artifact: Artifact, domain_id: int | None = None) -> DomainData:
    """One domain of a graph artifact (default: the largest), its edges and its tools' kinds."""
    import numpy as np
    import pyarrow.compute as pc
    from datasets import Dataset
    from datasets.table import InMemoryTable

    from ..artifacts import iter_rows, resolve_input

    domains = graph_artifact.load("domains")
    if domains.num_rows == 0:
        raise ValueError(f"{graph_artifact.pinned} has no domains to draw")
    ids = domains["domain_id"]
    if domain_id is None:
        domain_id = ids[0]  # domains are written largest first
    if domain_id not in ids:
        raise ValueError(f"{graph_artifact.pinned} has no domain {domain_id}; ids run {min(ids)}..{max(ids)}")
    domain = domains[ids.index(domain_id)]
    names = dict(zip(domain["tool_ids"], domain["tool_names"], strict=True))

    edges = graph_artifact.load("edges")
    if edges._indices is not None:  # not from `load`, but cheap to guard: rows in their own order
        edges = edges.flatten_indices()
    table = edges.data.table
    inside = np.flatnonzero(pc.equal(table["domain_id"], domain_id).to_numpy(zero_copy_only=False))
    subset = Dataset(InMemoryTable(table.take(inside)), info=edges.info.copy())
    columns = ["source_id", "target_id", "kind", "score", "matches", "llm_verdict"]
    rows = list(iter_rows(subset, columns))

    notes = []
    kinds: dict[str, str] = {}
    try:
        pool = resolve_input(graph_artifact, "api_pool").load("api_pool")
        kinds = {r["id"]: r["kind"] for r in iter_rows(pool, ["id", "kind"]) if r["id"] in names}
    except (ArtifactError, FileNotFoundError) as exc:
        notes.append("read/write unknown: the api_pool this graph was built from was not found")
        logger.warning("drawing without read/write colours: %s", exc)
    return DomainData(
        domain_id=int(domain_id),
        name=domain["name"] or "",
        tool_ids=list(domain["tool_ids"]),
        tool_names=names,
        kinds=kinds,
        edges=rows,
        source=graph_artifact.pinned,
        notes=notes,
    )


# ----------------------------------------------------------------------------- figure


@dataclass
class Flow:
    """One dependency arrow and the field flows it stands for (best match first)."""

    key: int | None  # the number on the arrow, None when the side table is full
    source: str
    target: str
    score: float
    matches: list[dict[str, Any]]


def dependency_flows(data: DomainData) -> list[Flow]:
    """The domain's dependency edges (LLM-rejected ones left out), best score first, numbered."""
    best: dict[tuple[str, str], dict] = {}
    for e in data.edges:
        if (
            e["kind"] != "dependency"
            or e.get("llm_verdict") == "rejected"
            or e["source_id"] == e["target_id"]
        ):
            continue
        pair = (e["source_id"], e["target_id"])
        if pair not in best or e["score"] > best[pair]["score"]:
            best[pair] = e
    name = data.tool_names.get
    ordered = sorted(
        best.values(),
        key=lambda e: (
            -e["score"],
            name(e["source_id"], e["source_id"]),
            name(e["target_id"], e["target_id"]),
        ),
    )
    return [
        Flow(
            key=i + 1 if i < MAX_FLOW_ROWS else None,
            source=e["source_id"],
            target=e["target_id"],
            score=float(e["score"]),
            matches=sorted(e["matches"] or [], key=lambda m: -m.get("score", 0.0)),
        )
        for i, e in enumerate(ordered)
    ]


def _flow_row(flow: Flow, names: Mapping[str, str]) -> str:
    src, tgt = names.get(flow.source, flow.source), names.get(flow.target, flow.target)
    if flow.matches:
        m = flow.matches[0]
        text = f"{src}.{m['output']} -> {tgt}.{m['input']}"
        more = f"  (+{len(flow.matches) - 1} more fields)" if len(flow.matches) > 1 else ""
    else:
        text, more = f"{src} -> {tgt}", ""
    return f"{flow.key:>3}  {flow.score:.2f}  {_fit(text, MAX_FLOW_COLS - 11 - len(more))}{more}"


def side_table(data: DomainData, flows: list[Flow], layout: DomainLayout) -> list[str]:
    """The lines of the side table: numbered field flows, then any shortened names in full."""
    lines = ["Field flows: arrow, score, tool.output -> tool.input", ""]
    listed = [f for f in flows if f.key is not None]
    lines += [_flow_row(f, data.tool_names) for f in listed] or ["    no dependency edges in this domain"]
    if len(flows) > len(listed):
        lines.append(f"    ... {len(flows) - len(listed)} more, score <= {flows[len(listed)].score:.2f}")
    if layout.shortened:
        lines += ["", "Shortened names, in full"]
        width = MAX_FLOW_COLS - 4
        for n, full in sorted(layout.shortened.items(), key=lambda x: x[1]):
            pieces = [full[k : k + width] for k in range(0, len(full), width)]
            lines += [f"  {layout.labels[n].splitlines()[0]}…", *(f"    {p}" for p in pieces[:4])]
    return lines


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _arc_midpoint(a: tuple[float, float], b: tuple[float, float], rad: float) -> tuple[float, float]:
    """The middle of matplotlib's `arc3,rad=rad` curve from a to b (a quadratic Bézier)."""
    (x1, y1), (x2, y2) = a, b
    return (x1 + x2) / 2 + rad / 2 * (y2 - y1), (y1 + y2) / 2 - rad / 2 * (x2 - x1)


def render_domain(data: DomainData) -> Figure:
    """A matplotlib `Figure` of one domain (no pyplot state is touched).

    Artists carry gids for inspection: `node:<tool id>` (the box), `label:<tool id>` (its text),
    `dependency:<source>-><target>`, `key:<n>`, `similarity:<a>--<b>`; the legend is `fig.legends[0]`.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

    flows = dependency_flows(data)
    layout = layout_domain(
        data.tool_ids, [(f.source, f.target) for f in flows], kinds=data.kinds, names=data.tool_names
    )
    pos, members = layout.positions, set(data.tool_ids)
    table = side_table(data, flows, layout)
    table_w = max(text_columns(t) for t in table) * CHAR_W + 0.3
    table_h = len(table) * LINE_H + 0.2

    counts = {b: sum(layout.bands[n] == b for n in data.tool_ids) for b in BANDS}
    dep_pairs = {frozenset((f.source, f.target)) for f in flows}
    similar = sorted(
        {
            tuple(sorted((e["source_id"], e["target_id"])))
            for e in data.edges
            if e["kind"] != "dependency"
            and e["source_id"] in members
            and e["target_id"] in members
            and e["source_id"] != e["target_id"]
            and frozenset((e["source_id"], e["target_id"])) not in dep_pairs
        }
    )
    rejected = sum(e["kind"] == "dependency" and e.get("llm_verdict") == "rejected" for e in data.edges)
    title = f"domain {data.domain_id}: {data.name}" if data.name else f"domain {data.domain_id}"
    kinds_text = ", ".join(f"{counts[b]} {b}" for b in BANDS if counts[b])
    subtitle = (
        f"{_count(len(data.tool_ids), 'tool')} ({kinds_text}), {_count(len(flows), 'dependency edge')}, "
        f"{_count(len(similar), 'similarity edge')}, {len(layout.isolated)} without dependency edges"
    )
    notes = list(data.notes)
    if rejected:
        notes.append(f"{rejected} dependency edges rejected by the LLM are not drawn")
    if data.source:
        notes.append(f"from {data.source}")

    title_h, legend_h, gap = 0.75 + 0.16 * len(notes), 0.45, 0.35
    fig_w = layout.width + gap + table_w + 0.2
    fig_h = max(layout.height, table_h) + title_h + legend_h
    fig = Figure(figsize=(fig_w, fig_h))
    fig.set_dpi(min(110.0, MAX_PIXELS / max(fig_w, fig_h)))

    ax = fig.add_axes(
        (
            0,
            (legend_h + max(0.0, table_h - layout.height)) / fig_h,
            layout.width / fig_w,
            layout.height / fig_h,
        )
    )
    ax.set_xlim(0, layout.width)
    ax.set_ylim(0, layout.height)
    ax.set_axis_off()
    ax.set_gid("graph")

    # Bands, step captions, the isolated grid's heading.
    for b, (lo, hi) in layout.band_spans.items():
        ax.text(
            0.2,
            (lo + hi) / 2,
            b,
            rotation=90,
            ha="center",
            va="center",
            fontsize=9,
            color=STYLE[b][1],
            fontweight="bold",
        )
    spans = list(layout.band_spans.values())
    for (lo, _), (_, hi2) in zip(spans, spans[1:], strict=False):
        y = (lo + hi2) / 2
        ax.plot([0.35, layout.width - 0.1], [y, y], color="#dfe6e9", lw=0.8, ls=(0, (4, 3)), zorder=0)
    top = layout.height - MARGIN_T / 2
    component_size = Counter(layout.components.values())
    cycle_layers = {layout.layers[n] for n, c in layout.components.items() if component_size[c] > 1}
    for step, (x0, x1) in layout.layer_spans.items():
        caption = f"step {step + 1}" + (" (cycle)" if step in cycle_layers else "")
        ax.text((x0 + x1) / 2, top, caption, ha="center", va="center", fontsize=8, color="#636e72")
    if layout.isolated_span:
        x0, x1 = layout.isolated_span
        ax.text(
            (x0 + x1) / 2, top, "no dependency edges", ha="center", va="center", fontsize=8, color="#636e72"
        )
        if layout.layer_spans:
            xs = x0 - ISOLATED_GAP / 2
            ax.plot(
                [xs, xs],
                [MARGIN_B, layout.height - MARGIN_T],
                color="#dfe6e9",
                lw=0.8,
                ls=(0, (4, 3)),
                zorder=0,
            )

    # Similarity: light, unlabelled, under everything.
    for a, b in similar:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.plot(
            [xa, xb],
            [ya, yb],
            color=SIMILARITY_COLOUR,
            lw=0.7,
            alpha=0.6,
            zorder=1,
            gid=f"similarity:{a}--{b}",
        )

    # Tool boxes with their labels.
    for n in data.tool_ids:
        x0, y0, x1, y1 = layout.box(n)
        face, edge = STYLE[layout.bands[n]]
        ax.add_patch(
            FancyBboxPatch(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                boxstyle="round,pad=0,rounding_size=0.06",
                fc=face,
                ec=edge,
                lw=1.0,
                zorder=3,
                gid=f"node:{n}",
            )
        )
        ax.text(
            *pos[n],
            layout.labels[n],
            ha="center",
            va="center",
            family=FONT,
            fontsize=FONT_SIZE,
            zorder=4,
            parse_math=False,
            linespacing=1.2,
            gid=f"label:{n}",
        )

    # Dependency arrows, numbered. Arrows leave a box's right edge and enter the left edge at
    # ports spread over the edge (ordered by the other end's height), so they do not bunch up.
    def ports(ends: dict[str, list[tuple[float, str]]]) -> dict[tuple[str, str], float]:
        out = {}
        for n, others in ends.items():
            others.sort(key=lambda t: (-t[0], t[1]))
            half = layout.sizes[n][1] / 2 * 0.7
            for i, (_, other) in enumerate(others):
                out[n, other] = pos[n][1] + (
                    half - 2 * half * (i + 0.5) / len(others) if len(others) > 1 else 0.0
                )
        return out

    outgoing: dict[str, list[tuple[float, str]]] = {}
    incoming: dict[str, list[tuple[float, str]]] = {}
    for f in flows:
        if layout.layers[f.source] != layout.layers[f.target]:
            outgoing.setdefault(f.source, []).append((pos[f.target][1], f.target))
            incoming.setdefault(f.target, []).append((pos[f.source][1], f.source))
    out_y, in_y = ports(outgoing), ports(incoming)
    for f in flows:
        (sx, sy), (tx, ty) = pos[f.source], pos[f.target]
        (sw, _), (tw, _) = layout.sizes[f.source], layout.sizes[f.target]
        if layout.layers[f.source] == layout.layers[f.target]:
            # Inside a cycle: arrows going down bow out to the right, arrows going up to the left,
            # by at most 0.35 in (into the gap between steps).
            side = 1 if ty < sy else -1
            a, b = (sx + side * sw / 2, sy), (tx + side * tw / 2, ty)
            rad = -min(0.6, 0.7 / max(abs(ty - sy), 1e-6))
        else:
            a, b = (sx + sw / 2, out_y[f.source, f.target]), (tx - tw / 2, in_y[f.target, f.source])
            span = layout.layers[f.target] - layout.layers[f.source]
            rad = 0.0 if span == 1 else 0.15
        ax.add_patch(
            FancyArrowPatch(
                a,
                b,
                arrowstyle="-|>",
                mutation_scale=11,
                lw=1.2,
                color=DEPENDENCY_COLOUR,
                connectionstyle=f"arc3,rad={rad}",
                shrinkA=1,
                shrinkB=1,
                zorder=2,
                gid=f"dependency:{f.source}->{f.target}",
            )
        )
        if f.key is not None:
            mx, my = _arc_midpoint(a, b, rad)
            ax.text(
                mx,
                my,
                str(f.key),
                ha="center",
                va="center",
                fontsize=6.5,
                zorder=5,
                color=DEPENDENCY_COLOUR,
                bbox={"boxstyle": "circle,pad=0.2", "fc": "white", "ec": DEPENDENCY_COLOUR, "lw": 0.6},
                gid=f"key:{f.key}",
            )

    # Side table, title, legend.
    panel = fig.add_axes(
        ((layout.width + gap) / fig_w, legend_h / fig_h, table_w / fig_w, max(layout.height, table_h) / fig_h)
    )
    panel.set_axis_off()
    panel.set_gid("flows")
    panel.set_xlim(0, table_w)
    panel.set_ylim(0, max(layout.height, table_h))
    panel.text(
        0.05,
        max(layout.height, table_h) - 0.1,
        "\n".join(table),
        ha="left",
        va="top",
        family=FONT,
        fontsize=FONT_SIZE,
        linespacing=1.2,
        parse_math=False,
        gid="flow-table",
    )
    fig.text(
        0.15 / fig_w,
        1 - 0.12 / fig_h,
        title,
        ha="left",
        va="top",
        fontsize=13,
        fontweight="bold",
        parse_math=False,
    )
    fig.text(
        0.15 / fig_w,
        1 - 0.45 / fig_h,
        "\n".join([subtitle, *notes]),
        ha="left",
        va="top",
        fontsize=8.5,
        color="#636e72",
        parse_math=False,
        linespacing=1.4,
    )
    handles = [
        Patch(fc=STYLE["read"][0], ec=STYLE["read"][1], label="read tool"),
        Patch(fc=STYLE["write"][0], ec=STYLE["write"][1], label="write tool"),
        Patch(fc=STYLE["unknown"][0], ec=STYLE["unknown"][1], label="unknown kind"),
        Line2D(
            [],
            [],
            color=DEPENDENCY_COLOUR,
            lw=1.2,
            marker=">",
            markersize=6,
            label="dependency: output feeds input (number: side table)",
        ),
        Line2D([], [], color=SIMILARITY_COLOUR, lw=1.0, label="similar (semantic / parameter)"),
    ]
    fig.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(0.1 / fig_w, 0.02),
        ncol=len(handles),
        fontsize=8,
        frameon=False,
        handlelength=2.2,
        numpoints=1,
    )
    return fig


# ----------------------------------------------------------------------------- files and CLI


def png_path(path: str | Path) -> tuple[Path, bool]:
    """The file a picture asked for at `path` is written to: `.png` added when missing.

    Returns (path, whether the suffix was added).
    """
    out = Path(path).expanduser()
    if out.suffix.lower() == ".png":
        return out, False
    return out.with_name(out.name + ".png"), True


def draw_domain(
    graph_artifact: Artifact, domain_id: int | None = None, path: str | Path | None = None
) -> Path:
    """Write a PNG of one domain (default: the largest) and return the path actually written.

    `path` defaults to `<artifact>/domain-<id>.png` (`domain-<id>.png` here for a Hub artifact);
    an existing folder (or a path ending in `/`) gets `domain-<id>.png` inside it; a path without
    `.png` gets the suffix added. Missing parent folders are created. Raises `ValueError` naming
    the path when it cannot be written.
    """
    data = load_domain(graph_artifact, domain_id)
    default_name = f"domain-{data.domain_id}.png"
    if path is None or str(path) == "":
        out = Path(default_name) if graph_artifact.is_hub else Path(graph_artifact.location) / default_name
    elif str(path).endswith(("/", "\\")) or Path(path).expanduser().is_dir():
        out = Path(path).expanduser() / default_name
    else:
        out, added = png_path(path)
        if added:
            logger.debug("%s has no .png suffix: writing %s", path, out)
    fig = render_domain(data)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, format="png", bbox_inches="tight", pad_inches=0.15, facecolor="white")
    except OSError as exc:
        raise ValueError(f"cannot write the picture to {out}: {exc.strerror or exc}") from exc
    return out


def main(args: argparse.Namespace) -> int:
    """Run `envscale show graph REF [--domain N] [--png PATH]` (its parser is in `envscale.show`)."""
    from ..artifacts import open_artifact

    art = open_artifact(args.ref, expect_kind="graph")
    path = draw_domain(art, args.domain, args.png)
    asked = Path(args.png).expanduser() if args.png else None
    note = f" (added .png to {args.png})" if asked is not None and path.name == asked.name + ".png" else ""
    print(f"wrote {path}{note}")
    return 0
