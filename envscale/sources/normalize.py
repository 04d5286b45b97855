r"""Turn a tool as found in the wild into one clean, JSON-Schema-valid `api_pool` row.

Real function docs are messy: schema roots typed `"dict"`, `float`/`any`/Java type names,
`required` naming absent properties, properties that are bare strings, OpenAPI 3.0
`nullable`, `$defs` references, names that break the OpenAI name rule, control characters,
megabyte descriptions, regular expressions that no validator can compile, values nested a
thousand levels deep. :func:`normalize_tool` repairs what can be repaired (and writes down every
repair in `normalization`) and rejects what cannot, with a reason a user can act on; it raises
nothing but :class:`Rejected` on bad input (never `RecursionError`).

- A `pattern` (or a `patternProperties` key) that Python's `re` cannot compile (ECMA-only
  syntax such as `\p{L}`, or ranges such as `[\w-\.]`) is dropped with a note naming it and the
  `re` error: `jsonschema`, which later stages validate with, uses `re` and would fail on it.
- Schemas nested more than `MAX_DEPTH` levels are rejected, and so are values kept as found
  (`default`, `enum`, `examples`, unknown keywords, annotations) nested more than
  :data:`~envscale.sources.base.MAX_NESTING` levels ("... nested too deeply").

Example:

```python
>>> from envscale.sources.normalize import normalize_tool
>>> from envscale.sources.base import RawTool
>>> tool = normalize_tool(RawTool(name="math.get_sum", description="Sum two numbers.",
...     parameters={"type": "dict", "properties": {"a": {"type": "float"}}, "required": ["a", "b"]},
...     position="x.json:1"))
>>> tool.name, tool.parameters["type"], tool.parameters["required"], tool.kind
('math_get_sum', 'object', ['a'], 'read')
```
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ..words.names import sanitize_name, tokens
from ..words.verbs import READ_VERBS, WRITE_VERBS
from .base import MAX_NESTING, RawTool, nesting_depth

_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Control characters other than tab/newline/carriage return, and zero-width/format characters.
_STRIP_CHARS = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\ufeff]"
)

JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
# Type names met in BFCL, xLAM, ToolACE, Java/JS docs and Python annotations -> JSON Schema.
_TYPE_NAMES = {
    "object": "object dict dictionary map hashmap mapping json struct record",
    "array": "array list tuple set arraylist sequence iterable",
    "string": "string str char character text date datetime time uuid url",
    "number": "number float double decimal bigdecimal",
    "integer": "integer int long short byte biginteger int32 int64",
    "boolean": "boolean bool",
    "null": "null none nonetype void",
}
_TYPE_MAP = {alias: t for t, names in _TYPE_NAMES.items() for alias in names.split()}
_ANY_TYPES = frozenset({"any", "anytype", "mixed", "unknown", "*", ""})
_GENERIC = re.compile(r"^([a-z_.]+)\s*[\[<]")  # List[str], Array<String>, dict[str, int]

# What each JSON Schema keyword holds, so one pass can repair it (unknown keywords are kept).
_KEYWORD_CLASS = {
    **dict.fromkeys("minimum maximum exclusiveMinimum exclusiveMaximum multipleOf".split(), "number"),
    **dict.fromkeys(
        "minLength maxLength minItems maxItems minProperties maxProperties minContains maxContains".split(),
        "count",
    ),
    **dict.fromkeys(
        "description title pattern format $comment contentMediaType contentEncoding".split(), "string"
    ),
    **dict.fromkeys("uniqueItems deprecated readOnly writeOnly".split(), "bool"),
    **dict.fromkeys("properties patternProperties $defs definitions dependentSchemas".split(), "schema_map"),
    **dict.fromkeys(
        "additionalProperties items contains propertyNames not if then else unevaluatedItems "
        "unevaluatedProperties additionalItems".split(),
        "schema",
    ),
    **dict.fromkeys("anyOf oneOf allOf prefixItems".split(), "schema_list"),
    # Identifiers of the source document; meaningless once references are inlined.
    **dict.fromkeys("$schema $id $anchor $dynamicRef $dynamicAnchor $vocabulary".split(), "drop"),
    **{
        k: k
        for k in ("type", "required", "enum", "nullable", "examples", "example", "dependentRequired", "$ref")
    },
}
MAX_DEPTH = 48


@dataclass
class NormalizedTool:
    """A tool that passed normalisation (see `envscale.schemas.API_POOL_FEATURES`)."""

    id: str
    name: str
    original_name: str
    description: str
    parameters: dict
    output_schema: Any
    kind: str
    kind_evidence: list[str]
    group: str | None
    annotations: dict | None
    position: str
    document: str | None
    normalization: list[str] = field(default_factory=list)


class Rejected(ValueError):
    """Raised by :func:`normalize_tool` with a reason a user can act on."""


def _check_nesting(value: Any, what: str) -> None:
    """Reject a value nested deeper than `MAX_NESTING` before anything recurses on it.

    Schemas are walked with a depth bound (`MAX_DEPTH`); what is kept as found (`default`,
    `enum`, `examples`, unknown keywords, annotations) is checked with this.
    """
    if isinstance(value, dict | list) and nesting_depth(value, MAX_NESTING) > MAX_NESTING:
        raise Rejected(f"{what} nested too deeply: more than {MAX_NESTING} levels of lists and objects")


def _loads(text: str, what: str) -> Any:
    """`json.loads`, with a string nested too deeply for the parser rejected as such."""
    try:
        return json.loads(text)
    except RecursionError:
        raise Rejected(
            f"{what} is a JSON string nested too deeply: more than {MAX_NESTING} levels of lists and objects"
        ) from None


@functools.lru_cache(maxsize=4096)
def regex_error(pattern: str) -> str | None:
    r"""Why Python's `re` (which `jsonschema` validates `pattern` with) refuses `pattern`, or None.

    Example:

    ```python
    >>> regex_error(r"[\w-\.]+")
    'bad character range \\w-\\. at position 1'
    >>> regex_error(r"^[a-z]+$") is None
    True
    ```
    """
    try:
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _clean_text(value: str, what: str, notes: list[str]) -> str:
    if _SURROGATE.search(value):
        pos = _SURROGATE.search(value).start()
        raise Rejected(f"{what} contains an unpaired UTF-16 surrogate at character {pos} (invalid unicode)")
    cleaned = _STRIP_CHARS.sub("", value)
    if cleaned != value:
        notes.append(f"{what}: removed {len(value) - len(cleaned)} control/zero-width characters")
    return unicodedata.normalize("NFC", cleaned)


def infer_kind(name: str, description: str, hints: list[str]) -> tuple[str, list[str]]:
    """Tag a tool `read` or `write` and return the evidence that decided it.

    Priority: MCP annotations, then the HTTP method (a POST whose name starts with a read verb
    such as `search` counts as read), then the verb of the name, then of the description.
    """
    hint_set = set(hints)
    if "mcp:read_only_hint=true" in hint_set:
        return "read", ["mcp:read_only_hint=true"]
    if "mcp:destructive_hint=true" in hint_set or "mcp:read_only_hint=false" in hint_set:
        return "write", [h for h in hints if h.startswith("mcp:")]
    name_tokens = tokens(name.rsplit(".", 1)[-1]) or tokens(name)
    name_verb = next((t for t in name_tokens if t in READ_VERBS or t in WRITE_VERBS), None)
    http = next((h for h in hints if h.startswith("http:")), None)
    if http:
        method = http.split(":", 1)[1].upper()
        if method in ("GET", "HEAD", "OPTIONS", "TRACE"):
            return "read", [http]
        if method == "POST" and name_tokens and name_tokens[0] in READ_VERBS:
            return "read", [http, f"name-verb:{name_tokens[0]} (a read verb overrides POST)"]
        return "write", [http]
    if name_verb is not None:
        return ("write" if name_verb in WRITE_VERBS else "read"), [f"name-verb:{name_verb}"]
    for word in tokens(description[:200])[:6]:
        for stem in (
            word,
            word[:-1] if word.endswith("s") else word,
            word[:-2] if word.endswith("es") else word,
        ):
            if stem in WRITE_VERBS:
                return "write", [f"description-verb:{word}"]
            if stem in READ_VERBS:
                return "read", [f"description-verb:{word}"]
    return "read", ["default:no write evidence found"]


@functools.lru_cache(maxsize=8192)
def _map_type_name(raw: str) -> tuple[str | None, bool, str | None]:
    """(JSON Schema type or None for any, optional?, note or None) for one type name."""
    raw = raw.strip()
    optional = False
    low = raw.lower()
    if low.endswith(", optional") or low.endswith(",optional"):
        optional, low = True, low.rsplit(",", 1)[0].strip()
    if low.startswith("optional[") and low.endswith("]"):
        optional, low = True, low[9:-1]
    generic = _GENERIC.match(low)
    base = generic.group(1).rsplit(".", 1)[-1] if generic else low.rsplit(".", 1)[-1]
    if base in JSON_TYPES and base == raw:
        return base, optional, None
    if base in _TYPE_MAP:
        return _TYPE_MAP[base], optional, f"type {raw!r} -> {_TYPE_MAP[base]!r}"
    if base in _ANY_TYPES:
        return None, optional, f"type {raw!r} -> any"
    return None, optional, f"unknown type {raw!r} -> any"


def _map_type(value: Any, where: str, notes: list[str]) -> tuple[Any, bool]:
    """Map a type name (or list of them) to JSON Schema; returns (type or None for any, optional?)."""
    if isinstance(value, str):
        mapped, optional, note = _map_type_name(value)
        if note:
            notes.append(f"{where}: {note}")
        return mapped, optional
    if isinstance(value, list):
        types: list[str] = []
        optional = False
        for v in value:
            t, opt = _map_type(v, where, notes)
            optional |= opt
            if t is None:
                return None, optional
            for item in t if isinstance(t, list) else [t]:
                if item not in types:
                    types.append(item)
        return (types[0] if len(types) == 1 else types), optional
    notes.append(f"{where}: dropped non-string type {value!r}")
    return None, False


class _SchemaNormalizer:
    """One pass over a schema: repairs, resolves local `$ref`s, records notes."""

    def __init__(self, root: dict, notes: list[str]):
        self.root = root
        self.notes = notes
        self.resolving: set[str] = set()

    def resolve(self, ref: str, where: str, depth: int) -> dict:
        if not ref.startswith("#/"):
            raise Rejected(
                f"{where}: $ref {ref!r} points outside the document (only local refs are resolved)"
            )
        if ref in self.resolving:
            self.notes.append(f"{where}: recursive $ref {ref!r} cut")
            return {"type": "object", "description": f"(recursive reference to {ref.rsplit('/', 1)[-1]})"}
        node: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise Rejected(f"{where}: broken $ref {ref!r} (no such definition)")
        self.resolving.add(ref)
        try:
            return self.schema(node, where, depth + 1)
        finally:
            self.resolving.discard(ref)

    def schema(self, node: Any, where: str, depth: int = 0) -> dict:
        if depth > MAX_DEPTH:
            raise Rejected(f"{where}: schema nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, bool):
            return {} if node else {"not": {}}
        if isinstance(node, str):  # a bare type name used as a schema: "string"
            t, _ = _map_type(node, where, self.notes)
            return {"type": t} if t else {}
        if node is None:
            self.notes.append(f"{where}: empty schema -> any")
            return {}
        if not isinstance(node, dict):
            raise Rejected(f"{where}: schema is a {type(node).__name__}, expected an object")
        out: dict[str, Any] = {}
        ref = node.get("$ref")
        if isinstance(ref, str):
            resolved = self.resolve(ref, where, depth)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if not siblings:
                return resolved
            out.update(resolved)
            node = siblings
        for key, value in node.items():
            cls = _KEYWORD_CLASS.get(key)
            if cls is None:
                _check_nesting(value, f"{where}.{key}")  # `default`, `const`, `x-...`: kept as they are
                out[key] = value  # annotations unknown to JSON Schema are allowed and kept
            elif cls == "string":
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
                error = regex_error(text) if key == "pattern" else None
                if error is None:
                    out[key] = text
                else:
                    self.notes.append(f"{where}: dropped invalid pattern {text!r} (re: {error})")
            elif cls == "type":
                _check_nesting(value, f"{where}.type")
                t, optional = _map_type(value, where, self.notes)
                if t is not None:
                    out["type"] = t
                if optional:
                    out["x-optional"] = True
            elif cls == "schema_map":
                out[key] = self.schema_map(value, f"{where}.{key}", depth)
                if key == "patternProperties":
                    for pattern in list(out[key]):
                        if (error := regex_error(pattern)) is not None:
                            del out[key][pattern]
                            self.notes.append(
                                f"{where}.patternProperties: dropped invalid pattern {pattern!r} (re: {error})"
                            )
            elif cls == "required":
                if isinstance(value, list):
                    out[key] = list(dict.fromkeys(v for v in value if isinstance(v, str)))
                elif isinstance(value, str):
                    out[key] = [value]
                else:
                    out["x-required"] = bool(value)  # a per-property flag (OpenAPI 2 / BFCL style)
            elif cls == "schema":
                if key == "items" and isinstance(value, list):
                    out["prefixItems"] = [
                        self.schema(v, f"{where}.items[{i}]", depth + 1) for i, v in enumerate(value)
                    ]
                    self.notes.append(f"{where}: tuple 'items' -> 'prefixItems'")
                elif key == "additionalProperties" and isinstance(value, bool):
                    out[key] = value
                else:
                    out[key] = self.schema(value, f"{where}.{key}", depth + 1)
            elif cls == "schema_list":
                if isinstance(value, list) and value:
                    out[key] = [self.schema(v, f"{where}.{key}[{i}]", depth + 1) for i, v in enumerate(value)]
                else:
                    self.notes.append(f"{where}: dropped malformed {key!r}")
            elif cls == "enum":
                _check_nesting(value, f"{where}.enum")
                if isinstance(value, list) and value:
                    out[key] = list(value)
                else:
                    self.notes.append(f"{where}: dropped malformed enum")
            elif cls == "number" or cls == "count":
                number = _as_number(value)
                if cls == "count" and number is not None and number >= 0 and number == int(number):
                    out[key] = int(number)
                elif cls == "number" and number is not None and not (key == "multipleOf" and number <= 0):
                    out[key] = number
                else:
                    self.notes.append(f"{where}: dropped invalid {key}={value!r}")
            elif cls == "bool":
                out[key] = bool(value)
            elif cls == "nullable":
                if value is True:
                    out["x-nullable"] = True
            elif cls == "examples":
                _check_nesting(value, f"{where}.examples")
                out[key] = value if isinstance(value, list) else [value]
            elif cls == "example":
                _check_nesting(value, f"{where}.example")
                out.setdefault("examples", [value])
            elif cls == "dependentRequired":
                if isinstance(value, dict):
                    out[key] = {
                        k: [x for x in v if isinstance(x, str)]
                        for k, v in value.items()
                        if isinstance(v, list)
                    }
            elif cls == "$ref":
                raise Rejected(f"{where}: $ref is a {type(value).__name__}, expected a string")
            # cls == "drop": identifiers of the source document, not kept
        _described_enum(out)
        return self.finish_object(out, where)

    def schema_map(self, value: Any, where: str, depth: int) -> dict:
        if isinstance(value, list):  # [{"name": "x", "type": ...}, ...]
            self.notes.append(f"{where}: list of named properties -> object")
            items = {}
            for i, v in enumerate(value):
                if not isinstance(v, dict) or not isinstance(v.get("name"), str):
                    raise Rejected(f"{where}[{i}]: property entry without a name")
                items[v["name"]] = {k: x for k, x in v.items() if k != "name"}
            value = items
        if not isinstance(value, dict):
            raise Rejected(f"{where}: expected an object of schemas, got {type(value).__name__}")
        return {str(k): self.schema(v, f"{where}.{k}", depth + 1) for k, v in value.items()}

    def finish_object(self, out: dict, where: str) -> dict:
        t = out.get("type")
        if out.pop("x-nullable", False) and t is not None:
            types = t if isinstance(t, list) else [t]
            out["type"] = types if "null" in types else [*types, "null"]
            self.notes.append(f"{where}: nullable -> type includes null")
        props = out.get("properties")
        if props is not None:
            if t is None:
                out["type"] = "object"
            lifted = [
                name for name, p in props.items() if isinstance(p, dict) and p.pop("x-required", None) is True
            ]
            required = out.get("required", [])
            if lifted:
                required = list(dict.fromkeys([*required, *lifted]))
            optional = {name for name, p in props.items() if isinstance(p, dict) and p.get("x-optional")}
            for p in props.values():
                if isinstance(p, dict):
                    p.pop("x-required", None)
            kept = [r for r in required if r in props and r not in optional]
            pruned = [r for r in required if r not in kept]
            if pruned:
                self.notes.append(f"{where}: required pruned of {pruned}")
            if kept:
                out["required"] = kept
            else:
                out.pop("required", None)
        elif "required" in out:
            if out["required"]:
                self.notes.append(f"{where}: required pruned of {out['required']} (no properties)")
            out.pop("required")
        return out


_DESCRIBED_ENUM = re.compile(r"\[Enum\]:\s*(\[[^\]]*\])")


def _described_enum(out: dict) -> None:
    """BFCL's values in the description (`"The status of the lock. [Enum]: [\"locked\", \"unlocked\"]"`) are the
    schema's `enum`: of a string, or of an array's string items; a declared enum is kept."""
    match = (
        _DESCRIBED_ENUM.search(out.get("description") or "")
        if isinstance(out.get("description"), str)
        else None
    )
    if match is None:
        return
    try:
        values = json.loads(match[1])
    except ValueError:
        return
    if not values or not all(isinstance(v, str) for v in values):
        return
    items = out.get("items") if out.get("type") == "array" else None
    target = items if isinstance(items, dict) else out
    if target.get("type", "string") == "string" and "enum" not in target:
        target["enum"] = list(dict.fromkeys(values))


def _as_number(value: Any) -> float | int | None:
    """A finite JSON number from a number or numeric string (NaN/Infinity are not JSON)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        f = float(value)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(f):
        return None
    return value if isinstance(value, int | float) else (int(f) if f.is_integer() else f)


def _looks_like_property_map(params: dict) -> bool:
    """xLAM/ToolACE style: `{"city": {"type": "str", "description": ...}, ...}` without a root."""
    return (
        bool(params)
        and all(isinstance(v, dict) and ("type" in v or "description" in v) for v in params.values())
        and not ({"type", "properties"} & params.keys())
    )


def normalize_parameters(params: Any, notes: list[str]) -> dict:
    """Normalise an input schema to a JSON Schema whose root is an object."""
    if params is None:
        notes.append("parameters: missing -> empty object")
        return {"type": "object", "properties": {}}
    if isinstance(params, str):
        try:
            params = _loads(params, "parameters")
        except json.JSONDecodeError as exc:
            raise Rejected(f"parameters is a string that is not JSON ({exc.msg} at char {exc.pos})") from None
        notes.append("parameters: decoded from a JSON string")
    if not isinstance(params, dict):
        raise Rejected(f"parameters is a {type(params).__name__}, expected a JSON Schema object")
    if _looks_like_property_map(params):
        notes.append("parameters: property map without a root -> object schema")
        required = [
            k
            for k, v in params.items()
            if "default" not in v
            and "optional" not in str(v.get("type", "")).lower()
            and v.get("required") is not False
        ]
        params = {"type": "object", "properties": params, "required": required}
    root_type = params.get("type")
    _check_nesting(root_type, "parameters.type")
    if root_type not in (None, "object", "dict", "Dict", "dictionary") and not (
        root_type is None or (isinstance(root_type, list) and "object" in root_type)
    ):
        raise Rejected(f"parameters must describe an object, got type {root_type!r}")
    schema = _SchemaNormalizer(params, notes).schema(params, "parameters")
    if schema.get("type") != "object":
        if "type" not in schema and (not schema or "properties" in schema):
            schema["type"] = "object"
        else:
            raise Rejected(f"parameters must describe an object, got {schema.get('type')!r}")
    schema.setdefault("properties", {})
    for defs in ("$defs", "definitions", "x-required"):
        schema.pop(defs, None)  # inlined above
    return schema


def normalize_output_schema(schema: Any, notes: list[str]) -> Any:
    """Normalise an output schema (any root type); None stays None."""
    if schema is None or schema == {}:
        return None
    if isinstance(schema, str):
        try:
            schema = _loads(schema, "output_schema")
        except json.JSONDecodeError:
            notes.append("output_schema: not JSON -> described as a string")
            return {"type": "string", "description": schema[:2000]}
    s = _SchemaNormalizer(schema if isinstance(schema, dict) else {}, notes).schema(schema, "output_schema")
    for defs in ("$defs", "definitions", "x-required"):
        s.pop(defs, None)
    return s


def canonical_json(value: Any) -> str:
    """Deterministic JSON used for hashing (sorted keys, no whitespace); NaN/Infinity raise ValueError."""
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False
    )


def tool_id(name: str, description: str, parameters: dict, output_schema: Any) -> str:
    """Content hash of what makes a tool the same tool, independent of where it was found."""
    payload = canonical_json([name, description, parameters, output_schema])
    return hashlib.blake2b(payload.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


def normalize_tool(raw: RawTool, *, max_description_chars: int = 32_768) -> NormalizedTool:
    """Normalise one raw tool or raise :class:`Rejected` with the reason.

    Args:
        raw: the tool as a reader found it.
        max_description_chars: longer descriptions are rejected (a 1 MB description is an
            extraction bug, not documentation).

    Raises:
        Rejected: the tool cannot be repaired; the message says why and where.
    """
    try:
        return _normalize_tool(raw, max_description_chars)
    except RecursionError:  # a last resort: values are depth-checked before anything recurses on them
        raise Rejected("nested too deeply: normalising the tool reached Python's recursion limit") from None


def _normalize_tool(raw: RawTool, max_description_chars: int) -> NormalizedTool:
    notes: list[str] = []
    name = raw.name
    if name is None or (isinstance(name, str) and not name.strip()):
        raise Rejected("tool has no name")
    if not isinstance(name, str):
        raise Rejected(f"tool name is a {type(name).__name__}, expected a string")
    name = name.strip()
    odd = _SURROGATE.search(name) or _STRIP_CHARS.search(name)
    if odd:
        raise Rejected(
            f"tool name contains invalid or invisible character U+{ord(odd.group()):04X} "
            f"at position {odd.start()}"
        )
    if len(name) > 256:
        raise Rejected(f"tool name is {len(name)} characters long (limit 256)")
    description = raw.description
    if description is None:
        description = ""
        notes.append("description: missing")
    elif isinstance(description, list) and all(isinstance(d, str) for d in description):
        description = "\n".join(description)
    elif not isinstance(description, str):
        raise Rejected(f"description is a {type(description).__name__}, expected a string")
    if len(description) > max_description_chars:
        raise Rejected(
            f"description is {len(description):,} characters long (limit {max_description_chars:,})"
        )
    description = _clean_text(description.strip(), "description", notes)
    _check_nesting(raw.annotations, "annotations")  # schemas are checked as they are walked
    group = raw.group
    if group is not None:
        group = str(group)
        if _SURROGATE.search(group):
            notes.append("group: invalid unicode (unpaired UTF-16 surrogates) escaped")
            group = group.encode("utf-8", "backslashreplace").decode("utf-8")
        group = _clean_text(group, "group", notes) or None
    parameters = normalize_parameters(raw.parameters, notes)
    output_schema = normalize_output_schema(raw.output_schema, notes)
    try:
        payload = canonical_json([name, description, parameters, output_schema])
    except ValueError:  # json.dumps would write NaN, which no JSON reader accepts (datasets reads it as null)
        raise Rejected(
            "schema holds NaN or Infinity (a default, enum or example), which JSON cannot represent"
        ) from None
    odd = _SURROGATE.search(payload) or (
        raw.annotations is not None and _SURROGATE.search(canonical_json(raw.annotations))
    )
    if odd:
        raise Rejected("schema or annotations contain invalid unicode (an unpaired UTF-16 surrogate)")
    tid = hashlib.blake2b(payload.encode("utf-8"), digest_size=10).hexdigest()
    safe = sanitize_name(name) or f"tool_{tid[:8]}"
    if safe != name:
        notes.append(f"name: {name!r} -> {safe!r} (OpenAI name rule)")
    kind, evidence = infer_kind(name, description, list(raw.kind_hints))
    return NormalizedTool(
        id=tid,
        name=safe,
        original_name=name,
        description=description,
        parameters=parameters,
        output_schema=output_schema,
        kind=kind,
        kind_evidence=evidence,
        group=group,
        annotations=raw.annotations,
        position=raw.position,
        document=raw.document,
        normalization=notes,
    )
