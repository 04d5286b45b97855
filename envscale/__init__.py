"""envscale: executable tool-use environments and agent training data from real API descriptions.

Every stage is a function over versioned Hugging Face datasets:

```python
>>> from envscale.sources.collect import CollectConfig, collect
>>> art = collect(CollectConfig(sources=["mcp:mcp-server-time"]), output="outputs/time")
>>> art.load("api_pool")["name"]
['get_current_time', 'convert_time']
```
"""

__version__ = "0.1.0"
