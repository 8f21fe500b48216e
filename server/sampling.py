"""MCP sampling as a model backend: the calling client's own model answers the engine's calls.

On the handshake protocols (up to 2025-11-25, what desktop clients speak today) the server may send
`sampling/createMessage` in the middle of a tool call, so every engine call becomes one request to the
client. The stateless 2026-07-28 protocol has no back-channel inside a call; there a sampling backend is
refused with a message that says what to use instead.
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
from mcp.server.mcpserver import Context
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

from gavel.tools.engine.backend import ChatRequest
from gavel.tools.engine.sampling import SampledText, SamplingBackend
from gavel.tools.errors import BackendError

_STATELESS_PROTOCOL = "2026-07-28"


def client_can_sample(ctx: Context[Any, Any]) -> bool:
    caps = ctx.client_capabilities
    return caps is not None and caps.sampling is not None


def mid_call_requests_possible(ctx: Context[Any, Any]) -> bool:
    version = ctx.protocol_version
    return version is None or not is_version_at_least(version, _STATELESS_PROTOCOL)


def sampling_unavailable_reason(ctx: Context[Any, Any]) -> str | None:
    if not client_can_sample(ctx):
        return "this client did not declare the MCP sampling capability"
    if not mid_call_requests_possible(ctx):
        return (
            f"this session uses protocol {ctx.protocol_version}, which has no server-to-client requests inside "
            "a tool call"
        )
    return None


def sampling_backend_for(ctx: Context[Any, Any], timeout_s: float) -> SamplingBackend | None:
    """A backend that samples the calling client, or None when this client/session cannot."""
    if sampling_unavailable_reason(ctx) is not None:
        return None
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
