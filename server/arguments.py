"""A tool's arguments at the MCP boundary: the request model's fields as flat parameters, and their validation.

The SDK derives a tool's inputSchema from a function signature, so the boundary hands it a wrapper whose
signature is synthesized from the request model's fields. The arguments are then validated by the request
model itself, from the raw wire arguments, and a failure is reported per field with what to change.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field, SkipValidation, ValidationError
from pydantic.fields import FieldInfo

from gavel.tools.field_hints import unknown_field
from gavel.tools.rubrics import RUBRIC_SCHEMA_URI

RequestT = TypeVar("RequestT", bound=BaseModel)

# The wrapper's own parameter for the SDK's Context; a request model may not use this field name.
CONTEXT_PARAM = "mcp_context"
# How much of a rejected value an error message quotes back: enough to recognise it, never a whole document.
_QUOTE_CHARS = 60


def wrapper_parameters(request_model: type[BaseModel]) -> list[inspect.Parameter]:
    """One keyword parameter per request field, typed so the SDK's schema is the field's own schema.

    `SkipValidation` keeps the JSON schema of the real type while letting any value through the SDK's
    argument model: the request model validates the raw arguments afterwards, so every type and bound
    error is reported in one consistent, per-field form.
    """
    params: list[inspect.Parameter] = []
    for name, field in request_model.model_fields.items():
        if name == CONTEXT_PARAM or name.startswith("_"):
            raise ValueError(f"{request_model.__name__}.{name}: this field name is reserved at the MCP boundary")
        if field.alias or field.validation_alias:
            raise ValueError(f"{request_model.__name__}.{name}: aliased fields are not supported as tool arguments")
        schema_info = FieldInfo(
            description=field.description,
            title=field.title,
            examples=field.examples,
            json_schema_extra=field.json_schema_extra,
            deprecated=field.deprecated,
        )
        inner: list[Any] = list(field.metadata)
        if field.discriminator is not None:
            inner.append(Field(discriminator=field.discriminator))
        annotation = Annotated[(field.annotation, *inner, SkipValidation, schema_info)]  # type: ignore[valid-type]
        default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
    return params


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "..."


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def format_validation_error(error: ValidationError, request_model: type[BaseModel]) -> str:
    """'field: what is wrong (got ...)' per problem, on one line; names the field so the caller can fix it."""
    parts = []
    rubric_refused = False
    for item in error.errors(include_url=False):
        rubric_refused = rubric_refused or item["loc"][:1] == ("custom_rubric",)
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        message = item["msg"]
        if item["type"] == "missing":
            parts.append(f"{where}: is required")
        elif item["type"] == "extra_forbidden":
            parts.append(f"{where}: {unknown_field(request_model, item['loc'])}")
        elif "input" in item and (item["type"] not in ("model_type", "dict_type") or _scalar(item["input"])):
            # A whole object where one was expected is left unquoted; a string or number in its place is shown,
            # so a caller that sent a list of strings for a list of objects sees what it sent.
            parts.append(f"{where}: {message} (got {_quote(item['input'])})")
        else:
            parts.append(f"{where}: {message}")
    # The inputSchema says only "an object" for an inline rubric, so the refusal says where its schema is.
    hint = f" (an inline rubric's schema: {RUBRIC_SCHEMA_URI})" if rubric_refused else ""
    return "invalid arguments: " + "; ".join(parts) + hint


def raw_arguments(ctx: Context[Any, Any], fallback: dict[str, Any]) -> dict[str, Any]:
    """The arguments exactly as the client sent them.

    The SDK pre-parses any string that looks like JSON for a non-`str` parameter (so a `str | None` source
    that happens to be a JSON document would arrive as a dict) and drops unknown keys silently; reading
    the wire arguments keeps the caller's text intact and lets us name a misspelled argument.
    """
    try:
        params = ctx.request_context.params
    except ValueError:  # no request in flight: called in-process through MCPServer.call_tool
        return fallback
    arguments = params.get("arguments") if isinstance(params, Mapping) else None
    return dict(arguments) if isinstance(arguments, Mapping) else fallback


def validate_request(request_model: type[RequestT], raw: dict[str, Any], sdk_parsed: dict[str, Any]) -> RequestT:
    """The request model built from the raw arguments, or a `ToolError` naming every bad field."""
    known = set(request_model.model_fields)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ToolError(
            f"invalid arguments: unknown argument(s) {', '.join(unknown)}; this tool takes: {', '.join(sorted(known))}"
        )
    try:
        return request_model.model_validate(raw)
    except ValidationError as first:
        # Some clients send lists and objects as JSON text; the SDK's pre-parsed copy covers them.
        if sdk_parsed != raw:
            try:
                return request_model.model_validate({k: v for k, v in sdk_parsed.items() if k in raw})
            except ValidationError:
                pass
        raise ToolError(format_validation_error(first, request_model)) from None


def refuse_missing(request_model: type[BaseModel], arguments: dict[str, Any]) -> None:
    """Raise the boundary's own error when a required argument is missing (before the SDK's raw one)."""
    if any(field.is_required() and key not in arguments for key, field in request_model.model_fields.items()):
        validate_request(request_model, arguments, arguments)
