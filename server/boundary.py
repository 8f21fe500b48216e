"""The MCP boundary: the one place a tool implementation meets the SDK, and `GavelError` becomes `ToolError`.

A tool in `gavel.tools` is `async def impl(request: XRequest, deps: ToolDeps) -> XResult` over pydantic
models, described by a `ToolSpec`. `publish` makes it an MCP tool whose calls run one pipeline:

1. validate: the request model's fields are the tool's flat arguments (see `gavel.server.arguments`), and
   the request model validates the raw wire arguments, reporting each bad field with what to change;
2. prepare: the tool's prepare step refuses a bad request and returns what it prepared (see `gavel.tools.deps.Tool`);
3. look up: for a judging tool (its result model is a `ToolResult`) whose result type may be served, when the call
   needs a model, the judge is resolved and the server's evaluation ledger asked for an identical earlier judgment
   (see `gavel.server.ledger_calls`);
4. run: on a miss the tool runs on what was prepared;
5. record: its judgment is committed to the ledger before the client gets it, with its `evaluation_id`;
6. render: the result is the structuredContent (its model the outputSchema) and its compact
   `render_text()` the text content.

A long call from a client that opted into MCP tasks (`ToolSpec.task_when`; `gavel.server.tasks_extension`) is
answered with a task handle after step 2, and steps 3-6 run on as the task (`run_call`, in `gavel.server.tasks`): a
refused request is answered at once, as for any call.

`GavelError` text reaches the client verbatim (it is written for the caller); anything else is logged with
its traceback and the client gets only a reference to the log line.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any, Generic, Protocol, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as MCPTool
from pydantic import BaseModel

from gavel.server.arguments import CONTEXT_PARAM, raw_arguments, refuse_missing, validate_request, wrapper_parameters
from gavel.server.call_outcome import progress_for, render_text, sdk_error_text, tool_errors
from gavel.server.client_sampling import UsesSampling, replay_for_call, sampling_slots
from gavel.server.deferred_tools import DeferredToolsServer
from gavel.server.inflight import Gate, admit
from gavel.server.logging import bind_request_context, get_logger
from gavel.server.schemas import add_result_schema, compact, outline
from gavel.server.tasks_extension import task_intent
from gavel.tools.common import ToolResult
from gavel.tools.deps import Prepared, Tool, ToolDeps, steps

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn
    from gavel.tools.ledger import Ledger

log = get_logger("gavel.boundary")

RequestT = TypeVar("RequestT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)


class DepsFactory(Protocol):
    """Builds the `ToolDeps` for one tool call. `progress` is already wired to the calling client."""

    def __call__(self, ctx: Context[Any, Any], progress: ProgressFn) -> ToolDeps: ...


def judging_annotations(*, idempotent: bool, title: str | None = None) -> ToolAnnotations:
    """Annotations for a judging tool: reads its inputs, changes nothing, talks only to the configured model.

    Every tools/list reply carries these, so only what read-only does not say already: no destructiveHint (MCP
    defines it only for a tool that is not read-only), and idempotentHint only when true (false is its default).
    """
    return ToolAnnotations(title=title, read_only_hint=True, idempotent_hint=idempotent or None, open_world_hint=False)


@dataclass(frozen=True)
class ToolSpec(Generic[RequestT, ResultT]):
    """One tool as the server publishes it."""

    name: str
    title: str
    description: str
    request_model: type[RequestT]
    result_model: type[ResultT]
    # A `Tool` (prepare, then run) or a plain implementation, which prepares nothing. The prepare step runs before
    # the ledger is consulted, so a refusal comes first and a call needing no model costs no lookup.
    impl: Callable[[RequestT, ToolDeps], Awaitable[ResultT]]
    idempotent: bool = False
    # Default: `judging_annotations` with `idempotent` (the title is the tool's own, listed once).
    annotations: ToolAnnotations | None = None
    # Overrides the result's own `render_text()` for the text content.
    text_renderer: Callable[[ResultT], str] | None = None
    # The tool keeps its own records in the ledger (calibrate_judge): its deps carry the server's ledger and
    # `judge_through_ledger`. A judging tool never sees the ledger: the server records around it.
    keeps_records: bool = False
    # Whether a call with this request runs as an MCP task when its client opted into tasks (see
    # `gavel.server.tasks_extension`): for calls that may take minutes. None: never.
    task_when: Callable[[RequestT], bool] | None = None


class BoundaryServer(DeferredToolsServer):
    """An `MCPServer` that holds the boundary's per-server state: its ledger, tool specs and call gate. Its tools may
    register at their first use (`DeferredToolsServer`).

    It also reports a missing argument in the boundary's own format. The SDK validates the arguments with its own
    model before the wrapper runs. `SkipValidation` lets every value through, but a missing required argument is
    still refused there, in pydantic's raw text naming an internal '<tool>Arguments' model. The request model is
    checked first instead, so the caller reads 'assessment: is required' like every other argument error.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ledger: Ledger | Callable[[], Ledger | None] | None = None
        self.tool_specs: dict[str, ToolSpec[Any, Any]] = {}
        # Its calls in flight, which shutdown and departed clients end (see `gavel.server.inflight`).
        self.gate = Gate()
        # The outputSchema each published tool lists (see `gavel.server.schemas`).
        self.output_outlines: dict[str, dict[str, Any]] = {}
        # The tools whose schema://result/<tool> resource is added.
        self.result_schemas: set[str] = set()
        # Which resources a call changed, each function given the tool and its structured result: added with the
        # resources they tell of, whose `subscriptions/listen` subscribers (2026-07-28) are told after the call.
        self.changed_by: list[Callable[[str, dict[str, Any]], Iterable[str]]] = []

    @property
    def ledger(self) -> Ledger | None:
        """Where this server's judging calls are recorded and served from; None: no ledger. Given as a function (the
        settings' ledger, see `build_server`), it is made at its first use: a start imports no ledger code."""
        if callable(self._ledger):
            self._ledger = self._ledger()
        return self._ledger

    @ledger.setter
    def ledger(self, ledger: Ledger | Callable[[], Ledger | None] | None) -> None:
        self._ledger = ledger

    async def live_tools(self) -> list[MCPTool]:
        tools = await super().live_tools()
        return [
            tool.model_copy(
                update={"input_schema": compact(tool.input_schema), "output_schema": self.output_outlines[tool.name]}
            )
            if tool.name in self.output_outlines
            else tool
            for tool in tools
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        self.tools_now()
        if self._tool_manager.get_tool(name) is None:
            # A protocol error, as MCP specifies for an unknown tool; a tool result would read as the tool's own answer.
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}")
        spec = self.tool_specs.get(name)
        if spec is not None:
            try:
                refuse_missing(spec.request_model, arguments)
            except ToolError as exc:
                # In the SDK's words for the tool's other argument errors, which it reports from inside the tool.
                raise ToolError(sdk_error_text(name, exc)) from None
        # Straight to the SDK: the tools are registered, and a call's way to its tool stays in this file
        # (`DeferredToolsServer.call_tool` would only register them again; see bench/call_path.py).
        return await MCPServer.call_tool(self, name, arguments, context)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        if self._prompt_manager.get_prompt(name) is None:
            # The SDK raises a plain error here, which reaches the client as an internal error (or code 0).
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {name}")
        return await super().get_prompt(name, arguments, context)


def publish(
    server: MCPServer[Any],
    spec: ToolSpec[Any, Any],
    deps_factory: DepsFactory,
    uses_sampling: UsesSampling | None = None,
) -> None:
    """Publish `spec.impl` as the MCP tool `spec.name`, with the request model's fields as its flat arguments.

    With `uses_sampling`, the tool also gets the `Resolve(Sample)` slots that carry MCP sampling on the
    2026-07-28 protocol (see `gavel.server.client_sampling`); they are resolver parameters, invisible in the
    inputSchema.
    """
    params = wrapper_parameters(spec.request_model)
    slot_params = (
        sampling_slots(
            request_model=spec.request_model,
            impl=spec.impl,
            deps_factory=deps_factory,
            raw_arguments=lambda ctx: raw_arguments(ctx, {}),
            uses_sampling=uses_sampling,
        )
        if uses_sampling is not None
        else []
    )
    context_param = inspect.Parameter(CONTEXT_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    return_annotation = Annotated[CallToolResult, spec.result_model]
    rubric_field = "rubric" in spec.request_model.model_fields
    # A BoundaryServer lists its own outputSchema (see `gavel.server.schemas`), so the SDK is not asked to derive the
    # result model's full schema (a fifth of a start's work, never listed); the boundary then makes the SDK's check of
    # every structured result itself.
    lists_own_schema = isinstance(server, BoundaryServer)

    async def call(**kwargs: Any) -> CallToolResult:
        ctx: Context[Any, Any] = kwargs.pop(CONTEXT_PARAM)
        slot_values = {p.name: kwargs.pop(p.name) for p in slot_params}
        # The call's id is the ledger row's id when the call is recorded; the log names it `call_id` and gives the
        # result's evaluation_id only at the end, so a call recorded nowhere never logs an id `gavel show` lacks.
        from gavel.server.ledger_calls import new_evaluation_id  # the ledger's code loads at a first call, not a start

        evaluation_id = new_evaluation_id()
        raw = raw_arguments(ctx, kwargs)
        rubric = raw.get("rubric") if rubric_field and isinstance(raw.get("rubric"), str) else None
        with bind_request_context(tool=spec.name, rubric=rubric, call_id=evaluation_id):
            request = validate_request(spec.request_model, raw, kwargs)
            if await _started_as_task(server, spec, request, ctx, deps_factory, uses_sampling, evaluation_id):
                # The tasks extension's interceptor answers with the task's handle instead of this.
                return CallToolResult(content=[])
            # On 2026-07-28 the client's sampling answers arrive as resolved slots; replay them to the engine.
            with replay_for_call(ctx, slot_values):
                result = await run_call(
                    server,
                    spec,
                    request,
                    lambda: _call_deps(server, spec, deps_factory(ctx, progress_for(ctx))),
                    evaluation_id,
                )
            await _tell_subscribers(server, ctx, spec.name, result)
            return result

    call.__name__ = spec.name
    call.__qualname__ = spec.name
    call.__doc__ = spec.description
    call.__signature__ = inspect.Signature([*params, *slot_params, context_param], return_annotation=return_annotation)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in [*params, *slot_params]} | {
        CONTEXT_PARAM: Context,
        "return": return_annotation,
    }
    if lists_own_schema:
        server.tool_specs[spec.name] = spec
        server.output_outlines[spec.name] = outline(spec.result_model)
        add_result_schema(server, spec.name, spec.title)
    server.add_tool(
        call,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        annotations=spec.annotations or judging_annotations(idempotent=spec.idempotent),
        structured_output=not lists_own_schema,
    )


async def run_call(
    server: MCPServer[Any],
    spec: ToolSpec[Any, Any],
    request: BaseModel,
    make_deps: Callable[[], ToolDeps],
    evaluation_id: str,
    prepared: Prepared | None = None,
) -> CallToolResult:
    """One validated call through the pipeline (prepare unless `prepared` is given, look up, run, record, render), as
    the client gets it; a refusal or failure raises `ToolError` (the SDK's error result), after logging it.
    `make_deps` gives the call's deps as its tool sees them (`_call_deps`)."""
    started = time.perf_counter()
    with tool_errors(evaluation_id):
        deps = make_deps()
        log.info("tool call started")
        notes: list[str] = []
        with admit(server):
            result, structured = await _answer(server, spec, request, deps, evaluation_id, notes, prepared)
        text = "\n".join([render_text(result, spec.text_renderer), *notes])
    log.info(
        "tool call finished",
        duration_ms=round((time.perf_counter() - started) * 1000),
        cached=bool(getattr(result, "cached", False)),
        evaluation_id=getattr(result, "evaluation_id", None),
    )
    if structured is None:
        structured = result.model_dump(mode="json", by_alias=True)
    if isinstance(server, BoundaryServer):
        # It lists its own outputSchema, so it makes the SDK's check of every structured result itself.
        spec.result_model.model_validate(structured)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


async def _started_as_task(
    server: MCPServer[Any],
    spec: ToolSpec[Any, Any],
    request: BaseModel,
    ctx: Context[Any, Any],
    deps_factory: DepsFactory,
    uses_sampling: UsesSampling | None,
    evaluation_id: str,
) -> bool:
    """Start the call as an MCP task when its client opted in and the tool runs this request as one; whether it did.

    A call that would sample the client's model is answered directly: on 2026-07-28 sampling is input-required
    rounds of the call itself, which a task has no way to carry."""
    intent = task_intent()
    if intent is None or spec.task_when is None or not spec.task_when(request):
        return False
    try:
        if uses_sampling is not None and await uses_sampling(ctx, request):
            return False
        # Made now, while the request is there to make them from; the task's progress replaces the client's.
        from gavel.tools.engine.progress import no_progress

        deps = _call_deps(server, spec, deps_factory(ctx, no_progress))
    except Exception:  # answered directly, where the same failure is reported as for any call
        log.warning("not run as a task", exc_info=True)
        return False
    # A refused request is answered now, as a call without a task is, and the task runs on what was prepared.
    with tool_errors(evaluation_id), admit(server):
        prepared = await steps(spec.impl).prepare(request, deps)

    async def work(progress: ProgressFn) -> CallToolResult:
        deps.progress = progress
        with bind_request_context(tool=spec.name, call_id=evaluation_id):
            result = await run_call(server, spec, request, lambda: deps, evaluation_id, prepared)
            await _tell_subscribers(server, ctx, spec.name, result)
            return result

    return await intent.start(spec.name, evaluation_id, work)


async def _answer(
    server: MCPServer[Any],
    spec: ToolSpec[Any, Any],
    request: BaseModel,
    deps: ToolDeps,
    evaluation_id: str,
    notes: list[str],
    prepared: Prepared | None,
) -> tuple[BaseModel, dict[str, Any] | None]:
    """Prepare (unless done), look up, run, record: the result the call answers with, and its structured content once
    recorded; `notes` gets what the reader must be told about the ledger (a judgment it could not record)."""
    result_model = spec.result_model
    ledger = server.ledger if isinstance(server, BoundaryServer) else None
    # The ledger's code loads here, at a first call, not at a start.
    from gavel.server.ledger_calls import through_ledger

    tool = steps(spec.impl)
    if prepared is None:
        prepared = await tool.prepare(request, deps)
    if ledger is None or not issubclass(result_model, ToolResult):
        return await _run(spec, tool, prepared, deps), None
    return await through_ledger(
        ledger, tool=spec.name, prepared=prepared, result_model=result_model, evaluation_id=evaluation_id,
        run=lambda tracked: _run(spec, tool, prepared, tracked), deps=deps, notes=notes,
    )  # fmt: skip


async def _run(spec: ToolSpec[Any, Any], tool: Tool[Any, Any, Any], prepared: Prepared, deps: ToolDeps) -> BaseModel:
    result = await tool.run(prepared, deps)
    if not isinstance(result, spec.result_model):
        raise TypeError(f"{spec.name} returned {type(result).__name__}, not {spec.result_model.__name__}")
    return result


async def _tell_subscribers(server: MCPServer[Any], ctx: Context[Any, Any], tool: str, result: CallToolResult) -> None:
    """Tell the resources' subscribers what the call changed (`BoundaryServer.changed_by`). The call has its result
    already: failing to tell them is logged, never the call's failure."""
    if not isinstance(server, BoundaryServer) or result.structured_content is None:
        return
    try:
        changed = [uri for changed_by in server.changed_by for uri in changed_by(tool, result.structured_content)]
        for uri in dict.fromkeys(changed):
            await ctx.notify_resource_updated(uri)
    except Exception:
        log.warning("subscribers not told of the resources this call changed", exc_info=True)


def _call_deps(server: MCPServer[Any], spec: ToolSpec[Any, Any], deps: ToolDeps) -> ToolDeps:
    """The call's deps as its tool sees them: a tool that keeps its own records gets the server's ledger."""
    if not spec.keeps_records:
        return deps
    from gavel.server.ledger_calls import uncalibrated_calls  # the ledger's code loads at a first call, not a start

    ledger = server.ledger if isinstance(server, BoundaryServer) else None
    return replace(deps, ledger=ledger, judge_through_ledger=uncalibrated_calls(ledger))
