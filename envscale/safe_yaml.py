"""Load YAML from untrusted files without alias bombs or recursion crashes.

`yaml.safe_load` builds no arbitrary objects, but it does expand aliases: a 1 KB "billion laughs"
document (`a: &a [lol, lol, ...]`, `b: &b [*a, *a, ...]`, ...) loads in a millisecond into a
structure that shares its parts, and whoever walks it (`json.dumps`, a schema resolver, a deep
copy) then visits 9^9 nodes: minutes and gigabytes. :func:`load_yaml` composes the node graph
first (with libyaml when PyYAML has it), computes the size of the document with every alias
expanded (memoised by node, since an alias is the very node its anchor names) and its nesting
depth, and refuses the document before any Python object is built when either is above its
bound.

- :class:`YAMLBombError`: aliases would add more than `max_nodes` nodes, or an alias refers to
  a node that contains it (an infinitely deep document).
- :class:`YAMLDepthError`: more than `max_depth` levels of lists and mappings, or more than the
  parser can take (libyaml stops at 1,000 levels; PyYAML's pure-Python composer hits Python's
  recursion limit a little earlier).
- Both are :class:`UnsafeYAMLError`, a `ValueError`; syntax errors stay `yaml.YAMLError`.

Example:

```python
>>> from envscale.safe_yaml import YAMLBombError, load_yaml
>>> load_yaml("a: &x [1, 2]\\nb: *x\\nday: 2024-05-01", where="ok.yaml", dates_as_strings=True)
{'a': [1, 2], 'b': [1, 2], 'day': '2024-05-01'}
>>> bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\\n" + "".join(
...     f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\\n" for p, n in zip("abcdefg", "bcdefgh"))
>>> try:
...     load_yaml(bomb, where="bomb.yaml")
... except YAMLBombError as exc:
...     print(exc)
bomb.yaml: YAML aliases would add 123,456,770 nodes to the document (limit 1,000,000; 123,456,797 nodes in all); refused before loading as an alias bomb
```
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_NODES",
    "UnsafeYAMLError",
    "YAMLBombError",
    "YAMLDepthError",
    "load_yaml",
]

#: Nodes that alias expansion may add to a document by default. A hand-written document with
#: anchors adds a few hundred; a billion-laughs document adds billions.
DEFAULT_MAX_NODES = 1_000_000
#: Levels of lists and mappings a document may have by default (real configs and specs: < 50).
DEFAULT_MAX_DEPTH = 200

_Base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _SafeLoader(_Base):  # type: ignore[misc, valid-type]
    """PyYAML's safe loader (libyaml's when available)."""


class _DatesAsStringsLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader with timestamps left as strings, so that values stay JSON-serialisable."""


_DatesAsStringsLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class UnsafeYAMLError(ValueError):
    """A YAML document refused before it was loaded; the message names the file and the bound."""


class YAMLBombError(UnsafeYAMLError):
    """A document whose aliases expand past the bound, or refer to a node that contains them."""


class YAMLDepthError(UnsafeYAMLError):
    """A document nested more deeply than the bound (or than the parser can recurse)."""


def load_yaml(
    text: str | bytes,
    *,
    where: str = "<yaml>",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    max_depth: int | None = DEFAULT_MAX_DEPTH,
    dates_as_strings: bool = False,
) -> Any:
    """Load one YAML document safely: no arbitrary objects, no alias bombs, no recursion crash.

    Args:
        text: the document.
        where: what to call it in errors (a file path).
        max_nodes: the most nodes alias expansion may add to the document: its size with every
            alias expanded minus the nodes it spells out (which are already parsed, so bounded by
            the file's size). `None`: no bound.
        max_depth: the most levels of lists and mappings, counted with aliases expanded. `None`:
            only the parser's own limit (libyaml: 1,000 levels).
        dates_as_strings: leave unquoted dates and times (`2024-05-01`) as strings instead of
            `datetime.date`/`datetime` objects, as JSON documents would have them.

    Returns:
        The document as Python objects (`None` for an empty document).

    Raises:
        YAMLBombError: aliases add more than `max_nodes` nodes, or an alias is recursive.
        YAMLDepthError: the document is nested more than `max_depth` levels deep.
        yaml.YAMLError: the text is not one valid YAML document.
    """
    loader = (_DatesAsStringsLoader if dates_as_strings else _SafeLoader)(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the pure-Python composer recurses once per level
            raise YAMLDepthError(
                f"{where}: YAML nested too deeply to parse (Python's recursion limit reached)"
            ) from None
        except yaml.MarkedYAMLError as exc:
            if "maximum nesting depth" not in str(exc.problem):
                raise
            mark = exc.problem_mark
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise YAMLDepthError(
                f"{where}: YAML nested too deeply to parse{at} (libyaml stops at 1,000 levels)"
            ) from None
        if node is None:
            return None
        expanded, spelled_out, depth = _measure(node, where)
        if max_depth is not None and depth > max_depth:
            raise YAMLDepthError(
                f"{where}: YAML nested {depth:,} levels deep (limit {max_depth:,}); refused before loading"
            )
        if max_nodes is not None and expanded - spelled_out > max_nodes:
            raise YAMLBombError(
                f"{where}: YAML aliases would add {expanded - spelled_out:,} nodes to the document "
                f"(limit {max_nodes:,}; {expanded:,} nodes in all); refused before loading as an alias bomb"
            )
        try:
            return loader.construct_document(node)
        except RecursionError:
            raise YAMLDepthError(
                f"{where}: YAML nested too deeply to load (Python's recursion limit reached)"
            ) from None
    finally:
        loader.dispose()


def _measure(root: yaml.Node, where: str) -> tuple[int, int, int]:
    """(nodes with aliases expanded, nodes spelled out, depth) of a composed document, iteratively.

    An alias is composed as the very node its anchor names, so memoising by node identity makes
    this linear in the document's text however many times a node is referred to. Scalars are not
    memoised (an alias to a scalar adds one node, as it does in the text).
    """
    if not isinstance(root, yaml.CollectionNode):
        return 1, 1, 0
    mapping, collection = yaml.MappingNode, yaml.CollectionNode
    size: dict[int, int] = {}  # expanded size of each distinct list or mapping
    depth: dict[int, int] = {}
    spelled = 0
    opened: set[int] = set()  # lists and mappings being measured: the chain of ancestors of the top
    stack = [root]
    while stack:
        node = stack[-1]
        key = id(node)
        if key in size:
            stack.pop()
            continue
        children = [part for pair in node.value for part in pair] if isinstance(node, mapping) else node.value
        if key not in opened:  # first visit: measure the lists and mappings below first
            opened.add(key)
            for child in children:
                if isinstance(child, collection) and id(child) not in size:
                    if id(child) in opened:
                        mark = child.start_mark
                        raise YAMLBombError(
                            f"{where}: recursive YAML alias (a node that contains itself) at line "
                            f"{mark.line + 1}, column {mark.column + 1}; it cannot be loaded as data"
                        )
                    stack.append(child)
            continue
        total, deepest = 1, 0
        for child in children:
            child_key = id(child)
            if child_key in size:
                total += size[child_key]
                deepest = max(deepest, depth[child_key])
            else:  # a scalar
                total += 1
                spelled += 1
        size[key], depth[key] = total, deepest + 1
        spelled += 1
        opened.discard(key)
        stack.pop()
    return size[id(root)], spelled, depth[id(root)]
