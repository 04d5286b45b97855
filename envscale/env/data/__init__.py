"""Deterministic, realistic initial states for an environment spec, generated with Faker by column meaning.

`generate_state` fills every table with rows that look like a real database: each column's *meaning*
is read from its name, its table, its description and the JSON Schemas of the tool arguments bound
to it (`column_meaning`), and values are drawn to fit it, with Faker's data (`Faker("en_US")`, seeded
per data seed, table and column, so a state does not depend on the order of the tables):

- people: full, first and last names (`players.name`, `author`, `assignee`, `owner`, ...), emails
  and usernames built from the name of the person in the same row, phones, genders, job titles;
- organisations and things: companies, product titles (`products.name`), teams, hotels,
  restaurants, venues, films, songs, books, games, devices, models;
- places: cities, US states, countries and ISO codes, `City, ST` locations, street addresses, zip
  codes, airports, IANA time zones, latitudes and longitudes (coherent within a row);
- the web and files: urls, domains, hosts, IPs, paths, file names, MIME types, user agents;
- codes: ISO 4217 currencies, languages and locales, colors, SKUs, ISBNs, IBANs, versions, tokens;
- time: `*_at`/`*_date`/`due`/`deadline`/`birthday`/... relative to the environment clock
  `data.now` (created in the past, due in the future, born 18 to 90 years ago), as the schema or
  the description says (date, date-time, `MM/DD/YYYY`, ...), with end dates after start dates;
- text: descriptions, notes and messages (a sentence or two), titles, search queries, tags,
  statuses, and values of small vocabularies (units, genres, sports, platforms, ...);
- JSON: lists of the items a plural name says (`product_list`, `ingredients`, `emails`), objects
  of the kind a name says (`address` -> street, city, postal code, country; `amount` -> amount and
  currency; `credentials`, `geo_shape`, `settings`, `details`, ...), the fields an argument declares
  filled by their names; the filler object `{"tags": [...]}` only when nothing is known;
- numbers: money with 2 decimals, quantities, ratings 1-5, percentages, years, ages, ... within the
  bounds of the bound arguments (`minimum`/`maximum`) and of the description ("between 1 and 10").

Keys: primary keys are `cus_0001`-style strings (a prefix of the table name) or 1..n; a column that
references a table, or is named `<entity>_id` after another table's primary key, holds existing
keys (a `parent` column, keys of its own table); other `*_id` columns hold id-like values. The most
specific meaning of a compound name wins: `email_address` holds emails, `phone_number` phones. Enums, unique columns and the arguments bound to a
column (`bound_schemas`: an enum, a pattern, bounds, an array type for a json column, ...) are
respected; values the spec itself names for a column (argument `default`/`examples`, quoted values
and "e.g." lists in descriptions) are used for columns of small or unknown vocabularies. Optional
columns (notes, phones, end dates, ...) are sometimes null.

`is_filler` and `filler_share` measure how much of a state is filler: values that do not fit their
column's meaning.

The package, in the order a value is made:

- `vocabulary`: the word lists, lexicons, real places, titles and templates, and Faker's data;
- `meaning`: what a column means (`column_meaning`), and what the spec says about its values
  (`named_values`, formats and bounds in descriptions, `implicit_references`, `infer_hint`);
- `values`: the value makers by meaning, the key format (`id_prefix`, `format_id`), `column_value`;
- `schemas`: the argument schemas bound to columns (`bound_schemas`), `schema_accepts`,
  `schema_value`, `pattern_value`;
- `keys`: each table's key format (`key_formats`: numbers, `cus_0007`, or readable names where the key
  is a name, `vault-finance-prod-02`), and the number a key ends with;
- `people`: one person in a row, once every table is drawn: a name, its email and username agree, in a
  person's own row and in the objects that hold them, and a display name is its row's name;
- `generate`: `generate_state` and `build_state`, the table order, the clock (`parse_now`), the
  constants;
- `filler`: `is_filler`, `filler_counts`, `filler_share`.

Everything other modules use is importable from `envscale.env.data`.

Example:

```python
>>> from envscale.env.data import filler_share, generate_state
>>> spec = {"name": "crm", "tools": [], "tables": {
...     "customers": {"primary_key": "customer_id", "columns": {
...         "customer_id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string", "unique": True}}}}}
>>> state = generate_state(spec, seed=0, rows={"customers": 2})
>>> state["customers"][0]["customer_id"]
'cus_0001'
>>> filler_share(spec, state)
0.0
```
"""

from envscale.env.data.filler import filler_counts, filler_share, is_filler
from envscale.env.data.generate import (
    DEFAULT_NOW,
    DEFAULT_ROWS,
    NULL_SHARE,
    PROGRESS_MIN_ROWS,
    build_state,
    generate_state,
    parse_now,
    table_order,
)
from envscale.env.data.keys import KeyFormat, key_formats
from envscale.env.data.meaning import (
    ENTITY_MEANINGS,  # noqa: F401 (private, read by tests)
    EXACT_MEANINGS,  # noqa: F401
    TOKEN_MEANINGS,  # noqa: F401
    column_meaning,
    implicit_references,
    infer_hint,
    loose_references,
    named_values,
    value_range,
)
from envscale.env.data.schemas import (
    acceptor,  # noqa: F401 (private, kept importable from here)
    bound_schemas,
    pattern_value,
    schema_accepts,
    schema_value,
)
from envscale.env.data.values import (
    about_subject,
    column_value,
    digit_keys,
    email_for,
    format_id,
    id_prefix,
    kept_value,
    one_place_values,
    prose_line,
    stock_text,
    subject_and_prose,
)
from envscale.env.data.vocabulary import (
    LEXICONS,  # noqa: F401 (private, read by tests)
)

__all__ = [
    "DEFAULT_NOW",
    "DEFAULT_ROWS",
    "NULL_SHARE",
    "PROGRESS_MIN_ROWS",
    "KeyFormat",
    "about_subject",
    "bound_schemas",
    "build_state",
    "column_meaning",
    "column_value",
    "email_for",
    "one_place_values",
    "filler_counts",
    "filler_share",
    "digit_keys",
    "format_id",
    "generate_state",
    "id_prefix",
    "implicit_references",
    "loose_references",
    "infer_hint",
    "is_filler",
    "key_formats",
    "kept_value",
    "named_values",
    "value_range",
    "parse_now",
    "pattern_value",
    "prose_line",
    "schema_accepts",
    "schema_value",
    "stock_text",
    "subject_and_prose",
    "table_order",
]
