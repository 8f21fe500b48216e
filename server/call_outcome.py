"""What a call gives its client besides its result: a refusal or failure as the SDK's error result (`tool_errors`),
progress reported to the calling client (`progress_for`), and the result as the call's text content (`render_text`).
Apart from the pipeline in `boundary.py`, which uses all three for every call, direct or as a task."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pydantic_core
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from gavel.server.logging import get_logger
from gavel.tools.errors import GavelError, caller_errors

if TYPE_CHECKING:
    from gavel.tools.engine.progress import ProgressFn

# The pipeline's own logger: a refusal or failure is logged as the call's, wherever it is turned into an answer.
log = get_logger("gavel.boundary")


def sdk_error_text(tool: str, message: object) -> str:
    """A tool error in the SDK's words, as it answers one raised inside the tool: a refusal raised before the tool
    runs (a missing argument) or inside a task reads the same."""
    return f"Error executing tool {tool}: {message}"


@contextmanager
def tool_errors(reference: str) -> Iterator[None]:
    """A refusal or failure as the SDK's error result (`ToolError`): a `GavelError`'s text verbatim, anything else
    logged with its traceback and given to the client as `reference`."""
    try:
        yield
    except GavelError as exc:
        log.info("tool call refused", error=str(exc), error_type=type(exc).__name__)
        raise ToolError(str(exc)) from exc
    except (ToolError, MCPError):
        raise
    except Exception as exc:
        raise _unexpected(exc, reference) from exc


def _unexpected(exc: Exception, reference: str) -> ToolError:
    """The client's error for a failure that is not a `GavelError` raised directly."""
    errors = caller_errors(exc) if isinstance(exc, BaseExceptionGroup) else None
    if errors:
        # Concurrent work (a task group) failed only with errors written for the caller.
        message = "; ".join(dict.fromkeys(str(error) for error in errors))
        log.info("tool call refused", error=message)
        return ToolError(message)
    log.exception("tool call failed unexpectedly", reference=reference)
    return ToolError(f"internal error; see the server log, reference {reference}")


def progress_for(ctx: Context[Any, Any]) -> ProgressFn:
    """Progress wired to the calling client.

    The SDK already drops a report when the client asked for none (no progress token over JSON-RPC, no
    callback in-process), and only it can tell which dispatcher is in use, so every call gets this fn.
    """
    try:
        ctx.request_context  # noqa: B018 - raises outside a request
    except ValueError:
        from gavel.tools.engine.progress import no_progress

        return no_progress

    async def progress(value: float, total: float | None, message: str | None) -> None:
        await ctx.report_progress(value, total, message)

    return progress


def render_text(result: BaseModel, text_renderer: Callable[[Any], str] | None) -> str:
    if text_renderer is not None:
        text = text_renderer(result)
    elif callable(render := getattr(result, "render_text", None)):
        text = str(render())
    else:
        text = pydantic_core.to_json(result.model_dump(mode="json"), indent=2).decode()
    # The engine's modules load at a first call, not at a start.
    from gavel.tools.engine.fitness import fitness_line
    from gavel.tools.engine.scores import Provenance

    provenance = getattr(result, "provenance", None)
    if isinstance(provenance, Provenance):  # how far to trust this verdict, in one line
        text += "\n" + fitness_line(provenance.judge_fitness, provenance.fitness_key)
    if getattr(result, "cached", False):
        # A person reading the chat should know no model judged this call.
        text += f"\n(served from the ledger: {result.evaluation_id}; no model call; no_cache re-judges)"  # type: ignore[attr-defined]
    return text
