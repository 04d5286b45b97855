"""Tool records as `collect` writes them for an OpenAPI operation, for tests that infer environments."""


def api_tool(name, method, path, props, required, output=None, group="Notes API"):
    """One operation of the API `group`: `METHOD path` with `props` (JSON Schema properties) as arguments."""
    return {
        "id": name,
        "name": name,
        "original_name": name,
        "description": name,
        "group": group,
        "parameters": {"type": "object", "properties": props, "required": required},
        "output_schema": output,
        "annotations": {"method": method, "path": path},
        "kind": "read" if method == "GET" else "write",
    }
