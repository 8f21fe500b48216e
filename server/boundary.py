"""The MCP boundary: the one place a tool implementation meets the SDK, and `GavelError` becomes `ToolError`.

A tool in `gavel.tools` is `async def impl(request: XRequest, deps: ToolDeps) -> XResult` over pydantic
models. `register_tool` publishes it so that:

- the request model's fields are the tool's flat, top-level arguments, and the inputSchema carries their
  descriptions and bounds (the SDK derives the schema from a function signature, so we hand it a wrapper
  whose signature is synthesized from the model's fields);
- the arguments are validated by the request model itself, from the raw wire arguments, and a failure is
  reported per field with what to change;
- the result model becomes the outputSchema and the structuredContent, while the text content is the
  result's compact `render_text()`;
- `GavelError` text reaches the client verbatim (it is written for the caller), anything else is logged
  with its traceback and the client gets only a reference to the log line;
- a judging tool (its result model is a `ToolResult`) meets the evaluation ledger attached to the server:
  an identical earlier judgment is served from it, a new one is recorded (committed before the client
  gets the result), and the result carries its `evaluation_id` and `cached` flag.
"""

from __future__ import annotations

import inspect
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from contextlib import ExitStack
from typing import Annotated, Any, Protocol, TypeVar

import pydantic_core
import structlog
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, SkipValidation, ValidationError
from pydantic.fields import FieldInfo

from gavel.server.inflight import admit
from gavel.server.logging import bind_request_context
from gavel.server.sampling import UsesSampling, replay_for_call, sampling_slots
from gavel.tools.common import ToolResult
from gavel.tools.deps import ProgressFn, ToolDeps
from gavel.tools.engine.fitness import fitness_line
from gavel.tools.engine.verdict import Provenance
from gavel.tools.errors import GavelError
from gavel.tools.ledger import Ledger
from gavel.tools.ledger_calls import CacheHit, LedgerCall, new_evaluation_id

log = structlog.get_logger("gavel.boundary")

RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)

# The wrapper's own parameter for the SDK's Context; a request model may not use this field name.
_CONTEXT_PARAM = "mcp_context"
# How much of a rejected value an error message quotes back: enough to recognise it, never a whole document.
_QUOTE_CHARS = 60


# The evaluation ledger of each built server (see `attach_ledger`); weak so a discarded server frees its ledger.
_LEDGERS: weakref.WeakKeyDictionary[MCPServer[Any], Ledger] = weakref.WeakKeyDictionary()
# The request model of each tool `register_tool` published, per server (see `BoundaryServer`).
_REQUEST_MODELS: weakref.WeakKeyDictionary[MCPServer[Any], dict[str, type[BaseModel]]] = weakref.WeakKeyDictionary()


class BoundaryServer(MCPServer[Any]):
    """An `MCPServer` whose boundary tools report a missing argument in the boundary's own format.

    The SDK validates the arguments with its own model before the wrapper runs. `SkipValidation` lets every
    value through, but a missing required argument is still refused there, in pydantic's raw text naming an
    internal '<tool>Arguments' model. The request model is checked first instead, so the caller reads
    'assessment: is required' like every other argument error.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        request_model = _REQUEST_MODELS.get(self, {}).get(name)
        if request_model is not None and any(
            field.is_required() and key not in arguments for key, field in request_model.model_fields.items()
        ):
            _validate_request(request_model, arguments, arguments)  # raises ToolError naming every bad field
        return await super().call_tool(name, arguments, context)


def attach_ledger(server: MCPServer[Any], ledger: Ledger | None) -> None:
    """Record this server's judging calls in `ledger` and serve its cache from it (None: no ledger)."""
    if ledger is None:
        _LEDGERS.pop(server, None)
    else:
        _LEDGERS[server] = ledger


def ledger_for(server: MCPServer[Any]) -> Ledger | None:
    return _LEDGERS.get(server)


class DepsFactory(Protocol):
    """Builds the `ToolDeps` for one tool call. `progress` is already wired to the calling client."""

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps: ...


def judging_annotations(*, idempotent: bool, title: str | None = None) -> ToolAnnotations:
    """Annotations for a judging tool: reads its inputs, changes nothing, talks only to the configured model."""
    return ToolAnnotations(
        title=title, read_only_hint=True, destructive_hint=False, idempotent_hint=idempotent, open_world_hint=False
    )


def _wrapper_parameters(request_model: type[BaseModel]) -> list[inspect.Parameter]:
    """One keyword parameter per request field, typed so the SDK's schema is the field's own schema.

    `SkipValidation` keeps the JSON schema of the real type while letting any value through the SDK's
    argument model: the request model validates the raw arguments afterwards, so every type and bound
    error is reported in one consistent, per-field form.
    """
    params: list[inspect.Parameter] = []
    for name, field in request_model.model_fields.items():
        if name == _CONTEXT_PARAM or name.startswith("_"):
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


def format_validation_error(error: ValidationError) -> str:
    """'field: what is wrong (got ...)' per problem, on one line; names the field so the caller can fix it."""
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        message = item["msg"]
        if item["type"] == "missing":
            parts.append(f"{where}: is required")
        elif item["type"] == "extra_forbidden":
            parts.append(f"{where}: is not a known field; remove it or check its spelling")
        elif "input" in item and item["type"] not in ("model_type", "dict_type"):
            parts.append(f"{where}: {message} (got {_quote(item['input'])})")
        else:
            parts.append(f"{where}: {message}")
    return "invalid arguments: " + "; ".join(parts)


def _raw_arguments(ctx: Context[Any, Any], fallback: dict[str, Any]) -> dict[str, Any]:
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


def _validate_request(request_model: type[RequestT], raw: dict[str, Any], sdk_parsed: dict[str, Any]) -> RequestT:
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
        raise ToolError(format_validation_error(first)) from None


def _progress_for(ctx: Context[Any, Any]) -> ProgressFn:
    """Progress wired to the calling client.

    The SDK already drops a report when the client asked for none (no progress token over JSON-RPC, no
    callback in-process), and only it can tell which dispatcher is in use, so every call gets this fn.
    """
    try:
        ctx.request_context  # noqa: B018 - raises outside a request
    except ValueError:
        return _no_progress

    async def progress(value: float, total: float | None, message: str | None) -> None:
        await ctx.report_progress(value, total, message)

    return progress


def _render_text(result: BaseModel, text_renderer: Callable[[Any], str] | None) -> str:
    if text_renderer is not None:
        return text_renderer(result)
    render = getattr(result, "render_text", None)
    if callable(render):
        return str(render())
    return pydantic_core.to_json(result.model_dump(mode="json"), indent=2).decode()


def register_tool(
    server: MCPServer,
    *,
    name: str,
    title: str,
    description: str,
    request_model: type[RequestT],
    result_model: type[ResultT],
    impl: Callable[[RequestT, ToolDeps], Awaitable[ResultT]],
    deps_factory: DepsFactory,
    annotations: ToolAnnotations | None = None,
    text_renderer: Callable[[ResultT], str] | None = None,
    uses_sampling: UsesSampling | None = None,
) -> None:
    """Publish `impl` as the MCP tool `name`, with the request model's fields as its flat arguments.

    `annotations` defaults to a non-idempotent judging tool (see `judging_annotations`); `text_renderer`
    overrides the result's own `render_text()` for the text content. With `uses_sampling`, the tool also
    gets the `Resolve(Sample)` slots that carry MCP sampling on the 2026-07-28 protocol (see
    `gavel.server.sampling`); they are resolver parameters, invisible in the inputSchema.
    """
    params = _wrapper_parameters(request_model)
    slot_params = (
        sampling_slots(
            request_model=request_model,
            impl=impl,
            deps_factory=deps_factory,
            raw_arguments=lambda ctx: _raw_arguments(ctx, {}),
            uses_sampling=uses_sampling,
        )
        if uses_sampling is not None
        else []
    )
    context_param = inspect.Parameter(_CONTEXT_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    return_annotation = Annotated[CallToolResult, result_model]
    rubric_field = "rubric" in request_model.model_fields

    judging = issubclass(result_model, ToolResult)

    async def call(**kwargs: Any) -> CallToolResult:
        ctx: Context[Any, Any] = kwargs.pop(_CONTEXT_PARAM)
        slot_values = {p.name: kwargs.pop(p.name) for p in slot_params}
        evaluation_id = new_evaluation_id()
        raw = _raw_arguments(ctx, kwargs)
        rubric = raw.get("rubric") if rubric_field and isinstance(raw.get("rubric"), str) else None
        with ExitStack() as stack, bind_request_context(tool=name, rubric=rubric, evaluation_id=evaluation_id):
            request = _validate_request(request_model, raw, kwargs)
            started = time.perf_counter()
            ledger = ledger_for(server) if judging else None
            recorder = (
                LedgerCall(ledger, tool=name, request=request, result_model=result_model, evaluation_id=evaluation_id)
                if ledger is not None
                else None
            )
            structured: dict[str, Any] | None = None
            try:
                # On 2026-07-28 the client's sampling answers arrive as resolved slots; replay them to the engine.
                stack.enter_context(replay_for_call(ctx, slot_values))
                deps = deps_factory(ctx, _progress_for(ctx))
                if recorder is not None:
                    deps = recorder.wrap(deps)
                log.info("tool call started")
                try:
                    with admit(server):
                        result = await impl(request, deps)
                except CacheHit as hit:
                    result, structured = hit.result, hit.structured
                except BaseExceptionGroup as group:
                    # The judge was asked for inside a task group: the hit arrives wrapped.
                    found = _cache_hit_in(group)
                    if found is None:
                        raise
                    result, structured = found.result, found.structured
                else:
                    if not isinstance(result, result_model):
                        raise TypeError(f"{name} returned {type(result).__name__}, not {result_model.__name__}")
                    if recorder is not None:
                        # Committed before the client hears of the result: a reported judgment is never lost.
                        structured = await recorder.record(result)
                text = _render_text(result, text_renderer)
                provenance = getattr(result, "provenance", None)
                if isinstance(provenance, Provenance):  # how far to trust this verdict, in one line
                    text += "\n" + fitness_line(provenance.judge_fitness, provenance.fitness_key)
                if getattr(result, "cached", False):
                    # A person reading the chat should know no model judged this call.
                    text += f"\n(served from the ledger: {result.evaluation_id}; no model call; no_cache re-judges)"
            except GavelError as exc:
                log.info("tool call refused", error=str(exc), error_type=type(exc).__name__)
                raise ToolError(str(exc)) from exc
            except (ToolError, MCPError):
                raise
            except Exception as exc:  # the traceback is logged; the client gets a reference
                caller_errors = _gavel_errors_only(exc)
                if caller_errors:
                    # Concurrent work (a task group) failed only with errors written for the caller.
                    log.info("tool call refused", error=caller_errors)
                    raise ToolError(caller_errors) from exc
                log.exception("tool call failed unexpectedly", reference=evaluation_id)
                raise ToolError(f"internal error; see the server log, reference {evaluation_id}") from exc
            log.info(
                "tool call finished",
                duration_ms=round((time.perf_counter() - started) * 1000),
                cached=bool(getattr(result, "cached", False)),
            )
        if structured is None:
            structured = result.model_dump(mode="json", by_alias=True)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = description
    call.__signature__ = inspect.Signature([*params, *slot_params, context_param], return_annotation=return_annotation)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in [*params, *slot_params]} | {
        _CONTEXT_PARAM: Context,
        "return": return_annotation,
    }
    _REQUEST_MODELS.setdefault(server, {})[name] = request_model
    server.add_tool(
        call,
        name=name,
        title=title,
        description=description,
        annotations=annotations or judging_annotations(idempotent=False, title=title),
        structured_output=True,
    )


def _cache_hit_in(group: BaseExceptionGroup[BaseException]) -> CacheHit | None:
    matched = group.subgroup(CacheHit)
    while isinstance(matched, BaseExceptionGroup):
        matched = matched.exceptions[0] if matched.exceptions else None
    return matched if isinstance(matched, CacheHit) else None


def _gavel_errors_only(exc: BaseException) -> str | None:
    """The messages of an exception group whose every leaf is a GavelError, else None."""
    if not isinstance(exc, BaseExceptionGroup):
        return None
    leaves: list[BaseException] = []
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    if not leaves or not all(isinstance(leaf, GavelError) for leaf in leaves):
        return None
    return "; ".join(dict.fromkeys(str(leaf) for leaf in leaves))


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None
