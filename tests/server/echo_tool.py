"""A test-only tool for exercising the MCP boundary: plain request/result models and async impls.

Lives in tests, never in the package: it stands in for a real tool's shape, not for its behaviour.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field, model_validator

from gavel.tools.deps import ToolDeps
from gavel.tools.errors import InvalidInput

SECRET_DETAIL = "connection string postgres://admin:hunter2@db.internal/prod"


class Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["circle", "square"] = Field(description="Which shape.")
    size: float = Field(gt=0, description="Size in centimetres.")


class EchoRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1, max_length=200, description="The text to echo back.")]
    times: Annotated[int, Field(ge=1, le=5, description="How many times to repeat the text (1-5).")] = 1
    source: Annotated[str | None, Field(default=None, description="Optional source text, kept verbatim.")] = None
    tags: list[str] = Field(default_factory=list, max_length=3, description="Up to three labels.")
    shape: Shape | None = Field(default=None, description="An optional nested object.")
    separator: Annotated[str, Field(default=" ", max_length=3, description="Put between the repeats.")] = " "
    upper_limit: Annotated[int | None, Field(default=None, ge=1, description="Cap on the output length.")] = None

    @model_validator(mode="after")
    def _limit_fits(self) -> EchoRequest:
        if self.upper_limit is not None and self.upper_limit < len(self.text):
            raise ValueError("upper_limit must be at least the length of text")
        return self


class EchoResult(BaseModel):
    echoed: str = Field(description="The text, repeated.")
    times: int
    source: str | None
    tags: list[str]
    shape: Shape | None

    def render_text(self) -> str:
        return f"echoed {self.times}x: {self.echoed}"


class PlainResult(BaseModel):
    """A result without render_text."""

    value: str


# What each impl saw, for assertions about the deps the boundary built.
SEEN: list[dict[str, Any]] = []


async def echo(request: EchoRequest, deps: ToolDeps) -> EchoResult:
    await deps.progress(1, 2, "halfway")
    await deps.progress(2, 2, "done")
    SEEN.append({"request": request, "deps": deps})
    return EchoResult(
        echoed=request.separator.join([request.text] * request.times),
        times=request.times,
        source=request.source,
        tags=request.tags,
        shape=request.shape,
    )


async def refuse(request: EchoRequest, deps: ToolDeps) -> EchoResult:
    raise InvalidInput("must not be shouted; write it in lower case", field="text")


async def crash(request: EchoRequest, deps: ToolDeps) -> EchoResult:
    raise RuntimeError(f"could not reach {SECRET_DETAIL}")


async def plain(request: EchoRequest, deps: ToolDeps) -> PlainResult:
    return PlainResult(value=request.text)


async def wrong_type(request: EchoRequest, deps: ToolDeps) -> Any:
    return PlainResult(value=request.text)


async def refuse_concurrently(request: EchoRequest, deps: ToolDeps) -> EchoResult:
    async def reject(index: int) -> None:
        raise InvalidInput(f"part {index} is empty", field="text")

    async with anyio.create_task_group() as tg:
        for index in range(2):
            tg.start_soon(reject, index)
    raise AssertionError("unreachable: the task group raises")
