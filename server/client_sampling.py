"""MCP sampling as a model backend: the calling client's own model answers the engine's calls.

Two transports for the same backend:

- On the handshake protocols (up to 2025-11-25, what desktop clients speak today) the server may send
  `sampling/createMessage` in the middle of a tool call, so every engine call is one request to the client.
- The stateless 2026-07-28 protocol has no back-channel inside a call. There the SDK's `Resolve(Sample)`
  pattern carries the requests: each tool gets a chain of resolver parameters ("slots"). Slot *i* replays
  the tool with the answers of slots 0..i-1 (the engine is deterministic: fixed seeds, content-derived
  delimiters) until it needs one more answer, and asks for it; the client answers in the next
  input-required round. The tool body finally runs with every answer recorded. One sampling call costs one
  round, so the sampling judge scores all metrics in one joint call.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver import Context, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    SamplingMessage,
    TextContent,
)
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, ValidationError

from gavel.tools.deps import ToolDeps
from gavel.tools.errors import BackendError, GavelError, leaves

# The engine's sampling backend is imported where a call first uses it: a start needs none of the engine.
if TYPE_CHECKING:
    from gavel.tools.engine.backend import ChatRequest
    from gavel.tools.engine.progress import ProgressFn
    from gavel.tools.engine.sampling_backend import SampledText, SamplingBackend

# Sampling calls one tool call may make on the 2026-07-28 protocol: one input-required round each.
MAX_SAMPLING_ROUNDS = 16
_DONE = "gavel:no-more-sampling"

_STATELESS_PROTOCOL = "2026-07-28"


def client_can_sample(ctx: Context[Any, Any]) -> bool:
    caps = ctx.client_capabilities
    return caps is not None and caps.sampling is not None


def mid_call_requests_possible(ctx: Context[Any, Any]) -> bool:
    version = ctx.protocol_version
    return version is None or not is_version_at_least(version, _STATELESS_PROTOCOL)


class NeedSample(BaseException):
    """Raised inside a replay when the engine asks for an answer that was not recorded yet.

    A BaseException so that no tool code's error handling mistakes it for a failure.
    """


class _Replay:
    def __init__(self, answers: list[SampledText], client_name: str) -> None:
        self.answers = answers
        self.position = 0
        from gavel.tools.engine.sampling_backend import SamplingBackend

        self.pending: ChatRequest | None = None
        self.backend = SamplingBackend(self._sample, client_name=client_name)

    async def _sample(self, request: ChatRequest) -> SampledText:
        if self.position < len(self.answers):
            answer = self.answers[self.position]
            self.position += 1
            return answer
        if self.pending is None:
            self.pending = request
        raise NeedSample


_replay: ContextVar[_Replay | None] = ContextVar("gavel_sampling_replay", default=None)


def _client_name(ctx: Context[Any, Any]) -> str:
    client_info = getattr(ctx.session, "client_params", None)
    return getattr(getattr(client_info, "client_info", None), "name", None) or "client"


def sampling_backend_for(ctx: Context[Any, Any], timeout_s: float) -> SamplingBackend | None:
    """A backend that samples the calling client, or None when this client/session cannot."""
    if not client_can_sample(ctx):
        return None
    if not mid_call_requests_possible(ctx):
        replay = _replay.get()
        return replay.backend if replay is not None else None
    from gavel.tools.engine.sampling_backend import SampledText, SamplingBackend

    client_info = getattr(ctx.session, "client_params", None)
    client_name = getattr(getattr(client_info, "client_info", None), "name", None) or "client"

    async def sample(request: ChatRequest) -> SampledText:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system") or None
        messages = [
            SamplingMessage(role=m.role, content=TextContent(type="text", text=m.content))  # type: ignore[arg-type]
            for m in request.messages
            if m.role != "system"
        ]
        params = CreateMessageRequestParams(
            messages=messages,
            system_prompt=system,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            include_context="none",
            metadata={"gavel_purpose": request.purpose},
        )
        try:
            with anyio.fail_after(timeout_s), warnings.catch_warnings():
                # The SDK marks sampling deprecated for the 2026-07-28 protocol; we only get here on older ones.
                warnings.simplefilter("ignore")
                result = await ctx.session.send_request(
                    CreateMessageRequest(params=params),
                    CreateMessageResult,
                    metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
                )
        except TimeoutError as exc:
            raise BackendError(
                f"the client ({client_name}) did not answer a sampling request within {timeout_s:g}s"
            ) from exc
        except MCPError as exc:
            raise BackendError(f"the client ({client_name}) refused a sampling request: {exc}") from exc
        content = result.content
        text = content.text if isinstance(content, TextContent) else ""
        if not text:
            raise BackendError(f"the client ({client_name}) answered a sampling request without text")
        return SampledText(text=text, model=result.model, truncated=result.stop_reason == "maxTokens")

    return SamplingBackend(sample, client_name=client_name)


# -- the 2026-07-28 protocol: Resolve(Sample) slots and replay --------------------------------------------

UsesSampling = Callable[["Context[Any, Any]", BaseModel], Awaitable[bool]]


def _sampled(value: object) -> SampledText:
    from gavel.tools.engine.sampling_backend import SampledText

    if isinstance(value, CreateMessageResult):
        text = value.content.text if isinstance(value.content, TextContent) else ""
        return SampledText(text=text, model=value.model, truncated=value.stop_reason == "maxTokens")
    raise BackendError("the client answered a sampling request with something other than a message")


def _recorded(values: list[object]) -> list[SampledText] | None:
    """The answers so far, or None once a slot said no more sampling is needed."""
    if any(v == _DONE for v in values):
        return None
    return [_sampled(v) for v in values]


def _as_sample(request: ChatRequest) -> Sample:
    system = "\n\n".join(m.content for m in request.messages if m.role == "system") or None
    messages = [
        SamplingMessage(role=m.role, content=TextContent(type="text", text=m.content))  # type: ignore[arg-type]
        for m in request.messages
        if m.role != "system"
    ]
    return Sample(
        messages,
        max_tokens=request.max_tokens,
        system_prompt=system,
        temperature=request.temperature,
        include_context="none",
        metadata={"gavel_purpose": request.purpose},
    )


@contextmanager
def replaying(ctx: Context[Any, Any], answers: list[SampledText]) -> Iterator[_Replay]:
    state = _Replay(answers, _client_name(ctx))
    token = _replay.set(state)
    try:
        yield state
    finally:
        _replay.reset(token)


def sampling_slots(
    *,
    request_model: type[BaseModel],
    impl: Callable[[Any, ToolDeps], Awaitable[Any]],
    deps_factory: Callable[[Context[Any, Any], ProgressFn], ToolDeps],
    raw_arguments: Callable[[Context[Any, Any]], dict[str, Any]],
    uses_sampling: UsesSampling,
    count: int = MAX_SAMPLING_ROUNDS,
) -> list[inspect.Parameter]:
    """Keyword parameters `Annotated[Any, Resolve(slot_i)]` that carry sampling on 2026-07-28.

    On older protocols and for calls that will not sample, every slot resolves to a marker at once and
    costs nothing.
    """

    async def dry_run(ctx: Context[Any, Any], answers: list[SampledText]) -> ChatRequest | None:
        if mid_call_requests_possible(ctx) or not client_can_sample(ctx):
            return None
        try:
            request = request_model.model_validate(raw_arguments(ctx))
        except ValidationError:
            return None  # the tool body reports it
        if not await uses_sampling(ctx, request):
            return None
        with replaying(ctx, answers) as state:
            try:
                from gavel.tools.engine.progress import no_progress

                await impl(request, deps_factory(ctx, no_progress))
            except NeedSample:
                pass
            except BaseExceptionGroup as group:
                if not any(isinstance(leaf, NeedSample) for leaf in leaves(group)):
                    raise
            except GavelError:
                return None  # the tool body raises it again, as a ToolError
        return state.pending

    def make_slot(index: int, previous: list[Any]) -> Callable[..., Any]:
        async def slot(mcp_context: Context[Any, Any], **earlier: Any) -> Any:
            answers = _recorded([earlier[f"s{i}"] for i in range(index)])
            if answers is None:
                return _DONE
            pending = await dry_run(mcp_context, answers)
            return _DONE if pending is None else _as_sample(pending)

        params = [inspect.Parameter("mcp_context", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
        params += [
            inspect.Parameter(f"s{i}", inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
            for i, annotation in enumerate(previous)
        ]
        slot.__name__ = f"gavel_sampling_slot_{index}"
        slot.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        slot.__annotations__ = {p.name: p.annotation for p in params}
        return slot

    # Each slot's `Annotated[Any, Resolve(slot)]` is made once and shared by every later slot: made afresh per use,
    # the chains' typing objects (count**2 / 2 per tool) were a tenth of a start's work before tools/list.
    resolved: list[Any] = []
    for index in range(count):
        resolved.append(Annotated[Any, Resolve(make_slot(index, list(resolved)))])
    return [
        inspect.Parameter(f"gavel_sampling_{i}", inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
        for i, annotation in enumerate(resolved)
    ]


@contextmanager
def replay_for_call(ctx: Context[Any, Any], kwargs: dict[str, Any]) -> Iterator[None]:
    """Pop the slot values from a tool call's kwargs and replay them to the engine during the call."""
    values = [kwargs.pop(name) for name in sorted((k for k in kwargs if k.startswith("gavel_sampling_")),
                                                  key=lambda k: int(k.rsplit("_", 1)[1]))]  # fmt: skip
    answers = _recorded(values) if values else None
    if answers is None and values:
        answers = [_sampled(v) for v in values if v != _DONE]
    if mid_call_requests_possible(ctx) or not answers:
        yield
        return
    with replaying(ctx, answers):
        yield


def replay_active() -> bool:
    return _replay.get() is not None
