"""Two pieces of a call's model work run side by side, with the engine's own error on failure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from gavel.tools.errors import caller_errors

A = TypeVar("A")
B = TypeVar("B")


async def both(first: Callable[[], Awaitable[A]], second: Callable[[], Awaitable[B]]) -> tuple[A, B]:
    """Both results, the two run in one task group; a failure comes out as the engine's own error, not a group
    (the batch and the MCP boundary need its type)."""
    results: dict[int, object] = {}

    async def run(slot: int, job: Callable[[], Awaitable[object]]) -> None:
        results[slot] = await job()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, 0, first)
            tg.start_soon(run, 1, second)
    except BaseExceptionGroup as group:
        raise _unwrap(group) from None
    return results[0], results[1]  # type: ignore[return-value]


def _unwrap(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The single engine error behind a task group's failure, or the group itself when there is more."""
    errors = caller_errors(group)
    return errors[0] if errors else group
