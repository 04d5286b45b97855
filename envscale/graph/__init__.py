"""The tool graph's helpers: sentence embeddings, community detection, and drawing a domain.

The `graph` stage itself (`envscale.stages.graph`) builds edges and domains with these:

- `envscale.graph.embeddings`: cached, token-length-ordered sentence embeddings and blockwise top-k;
- `envscale.graph.communities`: seeded Louvain (igraph or networkx) cut to domain size rules;
- `envscale.graph.draw`: one domain of a `graph` artifact as a PNG (`envscale show graph`).
"""
