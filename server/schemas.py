"""The schemas a client lists with the tools, kept small, and the full ones published as resources.

Every tools/list reply goes into the context of the agent's model: with the full schemas it measured
~110,000 characters for five tools, most of it the nested result models (metric scores, provenance,
usage, rankings) and pydantic's verbose spelling of optional fields. The listing carries the input
schemas in a shorter but equivalent spelling (`compact`), and as outputSchema an object with the fields
every judgment has (its evaluation_id and cached flag); the full schema of a tool's result, with every
description, is the resource schema://result/<tool>.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver.resources import FunctionResource
from pydantic import BaseModel, TypeAdapter

from gavel.tools.common import ToolResult

if TYPE_CHECKING:
    from gavel.server.boundary import BoundaryServer

RESULT_SCHEMA_URI = "schema://result/{tool}"

_JSON_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"]


def result_schema(result_model: type[BaseModel]) -> dict[str, Any]:
    return result_model.model_json_schema()


@cache
def result_schema_text(result_model: type[BaseModel]) -> str:
    """The schema://result/<tool> resource's text, made at its first read: a start only lists the tools, and the
    full schema of every result model took a quarter of the time to the first tools/list."""
    return schema_text(result_schema(result_model))


def add_result_schema(server: BoundaryServer, tool: str, title: str) -> None:
    """The resource schema://result/<tool>: the full JSON schema of the tool's structured result, made when read."""
    if tool in server.result_schemas:
        return
    server.result_schemas.add(tool)

    async def text() -> str:
        server.tools_now()
        return await anyio.to_thread.run_sync(result_schema_text, server.tool_specs[tool].result_model)

    server.add_resource(
        FunctionResource(
            uri=RESULT_SCHEMA_URI.format(tool=tool),
            name=f"{tool}-result-schema",
            title=f"{title}: result schema",
            description=f"The full JSON schema of {tool}'s structured result, with every field's description.",
            mime_type="application/schema+json",
            fn=text,
        )
    )


def _types(node: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """The JSON types a schema node admits (every type when it says nothing)."""
    if "$ref" in node:
        return _types(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return sorted({t for option in node[key] for t in _types(option, defs)})
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return sorted(kind)
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return sorted({"string" if isinstance(v, str) else "number" if isinstance(v, float) else "null" if v is None
                       else "boolean" if isinstance(v, bool) else "integer" if isinstance(v, int) else "object"
                       for v in values})  # fmt: skip
    return list(_JSON_TYPES)


def outline(result_model: type[BaseModel]) -> dict[str, Any]:
    """The listed outputSchema: an object, with the ledger's fields when it is a judgment (the full one: a resource).

    Each field's types come from that field's own schema, as the result model declares it (its order too): the
    whole model's schema, generated only to read two fields, cost as much as everything else a start builds.
    """
    shared = ToolResult.model_fields if issubclass(result_model, ToolResult) else {}
    properties: dict[str, Any] = {}
    for name, field in result_model.model_fields.items():
        if name in shared:
            declared = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
            node = TypeAdapter(declared).json_schema()
            types = _types(node, node.get("$defs", {}))
            properties[name] = {"type": types[0] if len(types) == 1 else types}
    # The full schema's address is in the resource list (and the server's instructions), not repeated here.
    return {"type": "object", "properties": properties} if properties else {"type": "object"}


def compact(node: Any) -> Any:
    """`node` as listed: the same constraints, written shorter.

    pydantic titles every field with its own name, writes an optional field as `anyOf: [X, {type: null}]`
    with `default: null`; listed for every field of every tool, that came to a third of the input schemas.
    `{type: [X's type, null], ...X's keywords}` admits the same values (each keyword applies to its own type).
    """
    if isinstance(node, list):
        return [compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if key == "properties":
            out[key] = {name: compact(sub) for name, sub in value.items()}
        elif key == "$defs":
            # A definition's description is its model's docstring ("One retrieved passage."): the property
            # that refers to it says what it is.
            out[key] = {
                name: {k: v for k, v in compact(sub).items() if k != "description"} for name, sub in value.items()
            }
        else:
            out[key] = compact(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (other,) = [option for option in options if option != {"type": "null"}]
        if isinstance(other.get("type"), str) and not set(other) & set(out):
            del out["anyOf"]
            out = {**other, **out, "type": [other["type"], "null"]}
    return out


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2)
