"""The format of a table's generated keys: `cus_0007`, digits (`"7"`), or a name where the key is a name.

An API that addresses a resource by its name (`/groups/{groupName}/vaults/{vaultName}`) has tables whose
key column holds names; a person says "the vault vault-finance-prod-02", never "vau_0002". A string
key is a **name key** when its column, or a column referencing its table, is called a name (`name`,
`vault_name`, `vaultName`, `username`), or an argument bound to it says so (a description "The name of
the vault", a `pattern` of letters, digits and hyphens). Its generated keys read like names of the
entity: the entity's word (`vault`, `event-hub`, or the initials of a longer one: `resource_group` ->
`rg`), two words from a fixed word list chosen by the table and the number, and the number itself,
lower-case and hyphenated, fitted to the `pattern`, `minLength` and `maxLength` of every argument bound
to the key (the hyphens dropped or the words shortened when the schema asks; the `cus_0007` form when
nothing fits). A name key of people (`users.username`, a `handle` or `login`) is a handle made of a
person's name (`mary.lee01`). Every key ends with its number, which is how the runtime finds the next
free one (`KeyFormat.serial`). The keys depend on the table and the number only, so the same spec
always gets the same keys.

Example:

```python
>>> from envscale.env.data.keys import key_formats
>>> vaults = {"primary_key": "vault_name", "columns": {"vault_name": {"type": "string"}}}
>>> spec = {"tables": {"vaults": vaults}}
>>> fmt = key_formats(spec)["vaults"]
>>> key = fmt.make(2)
>>> key.startswith("vault-") and key.endswith("-02"), fmt.serial(key)
(True, 2)
```
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from typing import Any

from envscale.env.data.schemas import bound_schemas
from envscale.env.data.values import digit_keys, format_id, id_prefix, pick_first_name, pick_last_name
from envscale.words.inflect import singular
from envscale.words.names import name_words
from envscale.words.semantics import PERSON_ENTITIES

_NAME_WORDS = frozenset(("name", "username", "handle", "login", "slug"))  # a slug is what its owner calls it
_HANDLE_WORDS = frozenset(("username", "handle", "login"))
_NAMED_BY = re.compile(r"^\s*(?:the\s+)?(?:\w+\s+)?name\s+of\b", re.IGNORECASE)
"""A description that says an argument is a name: "The name of the vault", "Name of the resource group",
"The resource name of ...", never "The id of ..." nor "A display name" (which names no key)."""
_CHARACTER_CLASS = re.compile(r"\[((?:\\.|[^\]\\])*)\]")


def name_pattern(pattern: str) -> bool:
    """Whether a `pattern` has the shape of a name: a character class of letters that takes a hyphen
    (`^[a-zA-Z0-9-]+$`, `^[-\\w\\._]+$`, `^[a-z][a-z0-9-]*$`); `^[a-z0-9]+$` takes no hyphen and says
    nothing either way."""
    for body in _CHARACTER_CLASS.findall(pattern):
        letters = re.search(r"a-z|A-Z|\\w", body) is not None
        if letters and (body.startswith(("-", "^-")) or body.endswith("-") or "\\-" in body):
            return True
    return False


_QUALIFIERS = ("prod", "dev", "test", "staging", "qa", "sandbox", "shared", "main", "backup", "edge")
_PURPOSES = (
    "finance",
    "billing",
    "analytics",
    "web",
    "api",
    "data",
    "logs",
    "media",
    "sales",
    "ops",
    "search",
    "orders",
    "payments",
    "reports",
    "events",
    "mobile",
    "partner",
    "archive",
    "core",
    "marketing",
    "support",
    "identity",
    "inventory",
    "research",
)
"""The word list names are drawn from: what a team names its resources after."""
_TRAILING_NUMBER = re.compile(r"(\d+)$")
_MAX_STEM = 12


@dataclasses.dataclass(frozen=True)
class KeyFormat:
    """How one table's generated keys look, and how to read their number back.

    Args:
        table (`str`): The table.
        kind (`str`): `"integer"` (the number), `"digits"` (`"7"`), `"id"` (`cus_0007`), `"name"`
            (`vault-finance-prod-07`) or `"uuid"` (an Azure subscription's `3f2b8c1e-...-9a1b2c3d0007`).
        stem (`str`): The entity's word of a name key (`vault`, `rg`); empty otherwise.
        schemas (`tuple`): The argument schemas bound to the key (their `pattern`s and lengths bind a name).
        person (`bool`): A name key of people (`users.username`): a handle made of a person's name
            (`maria.lopez07`) rather than the entity's word.
    """

    table: str
    kind: str
    stem: str = ""
    schemas: tuple[dict[str, Any], ...] = ()
    person: bool = False
    email: bool = False

    def make(self, number: int) -> Any:
        """The key numbered `number` (from 1): `7`, `"7"`, `cus_0007` or a name ending in `07`."""
        if self.kind == "integer":
            return number
        if self.kind == "digits":
            return str(number)
        if self.kind == "name":
            return self._name(number)
        if self.kind == "uuid":  # random-looking, its number in the last four hex digits
            h = hashlib.sha256(f"{self.table}:{number}".encode()).hexdigest()
            return (
                f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:28]}{number:04x}"
            )
        return format_id(id_prefix(self.table), number)

    def serial(self, key: Any) -> int:
        """The number of a key (`42` for `ord_0042`, `"42"` or `vault-data-dev-42`), else 0."""
        if isinstance(key, int) and not isinstance(key, bool):
            return key
        key = str(key)
        if self.kind == "digits":
            return int(key) if key.isdigit() else 0
        if self.kind == "name":
            found = _TRAILING_NUMBER.search(key.split("@")[0] if self.email else key)
            return int(found.group(1)) if found else 0
        if self.kind == "uuid":
            return int(key[-4:], 16) if _UUID.fullmatch(key) else 0
        prefix = id_prefix(self.table) + "_"
        number = key[len(prefix) :]
        return int(number) if key.startswith(prefix) and number.isdigit() else 0

    def person_of(self, number: int) -> tuple[str, str] | None:
        """The (first, last) name of the person whose handle is key `number` of a person-name key
        (`maria.lopez07` is Maria Lopez's), else `None`: the row's own name and email say the same person."""
        if not (self.kind == "name" and self.person):
            return None
        rng = random.Random(f"key:{self.table}:{number}")  # str seeds are hashed deterministically
        return pick_first_name(rng), pick_last_name(rng)

    def _name(self, number: int) -> str:
        n = f"{number:02d}"
        stem = self.stem
        if self.email:  # a row keyed by an email: its person's address (`maria.lopez07@example.com`)
            first, last = (re.sub(r"[^a-z]", "", w.lower()) for w in self.person_of(number) or ("", ""))
            for address in (f"{first}.{last}{n}@example.com", f"{first[:1]}{last}{n}@example.com"):
                if self._fits(address):
                    return address
        if self.person:
            first, last = (re.sub(r"[^a-z]", "", w.lower()) for w in self.person_of(number) or ("", ""))
            options, seps = [(first, last), (first[:1] + last,), (first,)], (".", "_", "", "-")
            stem = first
        else:
            digest = hashlib.blake2b(f"{self.table}:{number}".encode(), digest_size=8).digest()
            purpose = _PURPOSES[digest[0] % len(_PURPOSES)]
            qualifier = _QUALIFIERS[digest[1] % len(_QUALIFIERS)]
            options, seps = [(stem, purpose, qualifier), (stem, purpose), (stem,)], ("-", "", "_")
        for words in options:
            for sep in seps:
                # a handle ends in its number (`mary.lee07`), a resource's name in a part (`vault-data-07`)
                name = sep.join(words) + n if self.person else sep.join((*words, n)).replace("-", sep)
                if self._fits(name):
                    return name
        stem = stem.replace("-", "")
        for size in range(len(stem), 0, -1):  # a short `maxLength`: a shorter stem
            if self._fits(stem[:size] + n):
                return stem[:size] + n
        return format_id(id_prefix(self.table), number)

    def _fits(self, name: str) -> bool:
        for schema in self.schemas:
            if isinstance(schema.get("maxLength"), int) and len(name) > schema["maxLength"]:
                return False
            if isinstance(schema.get("minLength"), int) and len(name) < schema["minLength"]:
                return False
            pattern = schema.get("pattern")
            if isinstance(pattern, str):
                try:
                    if re.search(pattern, name) is None:
                        return False
                except re.error:
                    continue  # a pattern Python cannot read binds nothing
        return True


def key_formats(
    spec: dict[str, Any], bound: dict[tuple[str, str], list[dict[str, Any]]] | None = None
) -> dict[str, KeyFormat]:
    """The key format of every table of a spec.

    Args:
        spec (`dict`): A spec (its `tables`, and its `tools` for the argument schemas bound to keys).
        bound (`dict`, *optional*): `bound_schemas(spec)`, when the caller has it.

    Returns:
        `dict[str, KeyFormat]`: Per table.
    """
    bound = bound_schemas(spec) if bound is None else bound
    tables = spec["tables"]
    referencing: dict[str, list[tuple[str, str]]] = {t: [] for t in tables}
    for table, tspec in tables.items():
        for column, cspec in tspec["columns"].items():
            if cspec.get("references") in referencing and cspec["references"] != table:
                referencing[cspec["references"]].append((table, column))
    arguments = _argument_names(spec)
    out = {}
    for table, tspec in tables.items():
        pk = tspec["primary_key"]
        if tspec["columns"][pk]["type"] == "integer":
            out[table] = KeyFormat(table, "integer")
        elif digit_keys(tspec):
            out[table] = KeyFormat(table, "digits")
        else:
            columns = [(table, pk), *referencing[table]]
            schemas = tuple(s for place in columns for s in bound.get(place, []) if isinstance(s, dict))
            names = [*(c for _, c in columns), *(a for place in columns for a in arguments.get(place, ()))]
            if _guids(spec, names, schemas):
                out[table] = KeyFormat(table, "uuid")
            elif name_words(pk)[-1:] in (["email"], ["mail"]):  # iQualify's users keyed by `user_email`
                out[table] = KeyFormat(table, "name", "", schemas, person=True, email=True)
            elif _names(names, schemas):
                person = singular(table.lower()).split("_")[-1] in PERSON_ENTITIES or any(
                    set(name_words(name)[-1:]) & _HANDLE_WORDS for name in names
                )
                stem = _stem(table, pk, [c for _, c in columns])
                out[table] = KeyFormat(table, "name", stem, schemas, person=person)
            else:
                out[table] = KeyFormat(table, "id")
    return out


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _guids(spec: dict[str, Any], names: list[str], schemas: tuple) -> bool:
    """Whether a string key holds GUIDs: an argument bound to it says `format: uuid`, or it is the subscription of
    Azure Resource Manager routes (`/subscriptions/{subscriptionId}/...`), which a user copies from the portal
    (`sub_0018` was also a subnet's key in NetApp's world)."""
    if any(s.get("format") == "uuid" for s in schemas):
        return True
    if not any(name_words(n) == ["subscription", "id"] for n in names):
        return False
    return any(
        "/subscriptions/{" in str(((t.get("metadata") or {}).get("annotations") or {}).get("path") or "")
        for t in spec.get("tools") or []
    )


def _argument_names(spec: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    """The names of the arguments tools bind to each column as a key, a filter or a value (`vaultName`)."""
    out: dict[tuple[str, str], set[str]] = {}
    for tool in spec.get("tools", []):
        op = tool.get("operation") or {}
        pairs = [*op.get("key", {}).items(), *op.get("values", {}).items()]
        pairs += [(f.get("column"), f.get("arg")) for f in op.get("filters", []) if isinstance(f, dict)]
        for column, arg in pairs:
            if isinstance(column, str) and isinstance(arg, str):
                out.setdefault((op.get("table"), column), set()).add(arg)
    return out


def _names(names: list[str], schemas: tuple) -> bool:
    """Whether a string key holds names: it, a column referencing it or an argument bound to it is called
    a name (`vault_name`, `resourceGroupName`), or an argument's schema says it is one."""
    if any(s.get("format") in ("uuid", "uri", "email", "date", "date-time") for s in schemas):
        return False
    if any(set(name_words(name)[-1:]) & _NAME_WORDS for name in names):
        return True
    return any(
        isinstance(s.get("description"), str)
        and _NAMED_BY.match(s["description"])
        or isinstance(s.get("pattern"), str)
        and name_pattern(s["pattern"])
        for s in schemas
    )


def _stem(table: str, pk: str, columns: list[str]) -> str:
    """The entity's word: the longest of the key's and its references' names that ends in the table's
    entity (`resource_group_name` for `groups` -> `rg`), else the table's singular (`indexes` -> `index`)."""
    entity = singular(table.lower())
    candidates = []
    for column in columns:
        words = [w for w in name_words(column) if w not in ("name", "id")]
        if words and (
            singular(words[-1]) == entity.split("_")[-1] or "".join(words).endswith(entity.replace("_", ""))
        ):
            candidates.append(words)
    words = max(candidates, key=len) if candidates else [w for w in name_words(entity) if w]
    words = [re.sub(r"[^a-z0-9]", "", w.lower()) for w in words]
    words = [w for w in words if w] or ["item"]
    joined = "-".join(words)
    if len(words) > 1 and len(joined) > _MAX_STEM:
        return "".join(w[0] for w in words)  # `resource_group` -> `rg`
    return joined[: _MAX_STEM + 4]
