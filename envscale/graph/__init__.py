"""The tool graph: dependency edges and domains over an `api_pool`, and their helpers.

- `envscale.graph.build`: :class:`GraphConfig` and :func:`build_graph`, what the stage `envscale graph`
  (`envscale.stages.graph`) runs: tools loaded and deduplicated, parameter/semantic/dependency edges,
  Louvain domains, optional LLM checks and names;
- `envscale.graph.embeddings`: cached, token-length-ordered sentence embeddings and blockwise top-k;
- `envscale.graph.communities`: seeded Louvain (igraph or networkx) cut to domain size rules;
- `envscale.graph.draw`: one domain of a `graph` artifact as a PNG (`envscale show graph`).
"""
