"""English nouns in the singular and the plural: THE one `singular` and `plural` of the package.

Tool names, tables, routes and requests all name things in the plural (`list_orders`, `/repos/{r}/issues`,
`order_items`); every stage reads them through these two, so that an entity is called the same everywhere.
`singular` knows the irregular plurals (`people`, `children`), acronyms in -is (`apis`, `uris`), Latin -us
and -is singulars that end in s (`status`, `bus`, `analysis`), the -ies of `movies` and `cookies`, the -es
of `caches` and `statuses`, and leaves words of three letters and uncountables (`news`, `series`) alone.

Example:

```python
>>> from envscale.words.inflect import plural, singular
>>> [singular(w) for w in ("orders", "categories", "addresses", "statuses", "people", "sales_people")]
['order', 'category', 'address', 'status', 'person', 'sales_person']
>>> [singular(w) for w in ("status", "news", "series", "movies", "apis", "bus")]
['status', 'news', 'series', 'movie', 'api', 'bus']
>>> plural("category"), plural("box"), plural("person"), plural("orders")
('categories', 'boxes', 'people', 'orders')
```
"""

from __future__ import annotations

_IE_WORDS = frozenset(
    "movie cookie calorie zombie tie pie lie rookie selfie hoodie genie smoothie brownie prairie sortie".split()
)
_E_WORDS = frozenset("cache niche headache avalanche moustache mustache quiche psyche cliche".split())
_ES_WORDS = frozenset(
    "status alias bus bonus campus virus census corpus canvas atlas bias gas focus radius".split()
)


_IRREGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    # acronyms and words ending in -i whose plural ends in -is (`apis`, not a word like `analysis`)
    "apis": "api",
    "kpis": "kpi",
    "uris": "uri",
    "guis": "gui",
    "emojis": "emoji",
    "wikis": "wiki",
    "taxis": "taxi",
    # two-letter nouns (`ads`, not a word of its own) and Greek -sis nouns (`analyses`, never `analysises`)
    "ads": "ad",
    "tvs": "tv",
    "analyses": "analysis",
    "diagnoses": "diagnosis",
    "hypotheses": "hypothesis",
    "syntheses": "synthesis",
    "theses": "thesis",
    "crises": "crisis",
    "prognoses": "prognosis",
    "emphases": "emphasis",
}
_INVARIANT = frozenset(
    "news series species data metadata media sms mms feedback information info equipment software hardware "
    "analytics settings stats statistics".split()
)
"""Nouns whose plural is the word itself: `series` has no `serieses`, `data` no `datas`."""
_IRREGULAR_PLURAL = {one: many for many, one in _IRREGULAR.items()}


def singular(word: str) -> str:
    """`orders` -> `order`, `categories` -> `category`, `addresses` -> `address`, `people` -> `person`,
    `status` stays."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(tuple(f"_{w}" for w in _IRREGULAR)):  # `sales_people`
        head, _, last = word.rpartition("_")
        return f"{head}_{_IRREGULAR[last]}"
    if len(word) <= 3 or word.endswith(("ss", "us", "is")) or word in ("news", "series", "species"):
        return word
    if word in _ES_WORDS:
        return word
    if word.endswith("ies"):
        return word[:-1] if word[:-1] in _IE_WORDS else word[:-3] + "y"  # movies, categories
    if word[:-1] in _E_WORDS or word[:-2] in _ES_WORDS:
        return word[:-1] if word[:-1] in _E_WORDS else word[:-2]  # caches, statuses
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def plural(word: str) -> str:
    """`order` -> `orders`, `category` -> `categories`, `box` -> `boxes`, `person` -> `people`; plural
    words stay."""
    head, _, last = word.rpartition("_")
    if last in _IRREGULAR_PLURAL:
        return f"{head}_{_IRREGULAR_PLURAL[last]}" if head else _IRREGULAR_PLURAL[last]
    if last in _INVARIANT or last in _IRREGULAR or singular(word) != word:
        return word
    if last.endswith("sis") and len(last) > 4:  # basis, thesis, analysis
        return word[:-2] + "es"
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh", "z")) else "s")
