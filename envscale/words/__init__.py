"""The package's English: how names split into words, singulars and plurals, the shared verb lists, and what a
tool means read from its name.

- `names`: `tokens` (the words of a tool or argument name), `name_words` (of a column or table name, for the
  data generator), `glued_words` (words an API ran together: `conferencecallinfo`), `sanitize_name` and `NAME_MAX` (the OpenAI function-name rule);
- `inflect`: THE `singular` and `plural`;
- `verbs`: the verb lists more than one module reads (`READ_VERBS`, `WRITE_VERBS`, `STATUS_VERBS`,
  `RETIRED_STATUSES`, and the verbs a simulated user asks with);
- `semantics`: `tool_meaning` (verb, effect, entity, parent), `argument_role`, `computation_reason` and the
  other readings of a tool built on the three above.

A bottom layer: it imports nothing from the rest of `envscale`, and `sources`, `graph`, `env`, `tasks` and the
stages read their words here. The data generator's Faker word lists stay with it (`env.data.vocabulary`).
Nothing is imported here: each part loads on its own.

Example:

```python
>>> from envscale.words.inflect import singular
>>> from envscale.words.names import tokens
>>> from envscale.words.semantics import tool_meaning
>>> [singular(w) for w in tokens("listOrderShipments")], tool_meaning("listOrderShipments").entity
(['list', 'order', 'shipment'], 'shipment')
```
"""
