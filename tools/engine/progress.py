"""The progress notifications of one tool call: the tool's own steps and the engine's signs of life, in one
strictly increasing sequence (MCP requires every progress value to exceed the one before).

A client commonly gives a tool call 60 s unless progress arrives, and a judgment on a small local model can take
longer; the first one may also assemble and load the embedded model for minutes. So the engine reports each model
call as it is answered, naming the metric or sentence it was for, and while a call waits it sends a heartbeat
every few seconds. The server wires the plain callback to the client (`ctx.report_progress`); tools/ never sees
MCP.

Values: a tool's steps keep their numbers (iteration 2 of 5, 3 of 10 answers judged); the engine's k-th tick
since the last step is that step + k/(k+1), so it never reaches the next step. A step not above the value sent
last (refine's iteration 0, reported after the first evaluation's ticks) goes out as a tick with its message.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import structlog

log = structlog.get_logger("gavel.progress")

T = TypeVar("T")

# progress(progress, total, message): reported to the client when it sent a progress token.
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


async def no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


class Progress:
    """One tool call's progress: call it for the tool's steps, `tick` for the engine's."""

    # While a model call waits, a heartbeat this often; a client resets its timeout on each.
    heartbeat_s = 5.0
    # Ticks closer together than this are dropped: a fast backend judging many candidates would otherwise send
    # a notification per model call. A tool's own steps are never dropped.
    min_interval_s = 0.25

    def __init__(self, send: ProgressFn = no_progress) -> None:
        self._send = send
        self._last: float | None = None
        self._step = 0.0
        self._ticks = 0
        self._total: float | None = None
        self._sent_at = -math.inf
        self._lock = anyio.Lock()

    @property
    def silent(self) -> bool:
        return self._send is no_progress

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        """A step of the tool's own, e.g. (2, 5, "iteration 2 of 5")."""
        async with self._lock:
            if total is not None:
                self._total = total
            if self._last is None or progress > self._last:
                self._step, self._ticks = progress, 0
                await self._emit(progress, total if total is not None else self._total, message)
            else:
                await self._emit(self._next(), self._total, message)

    async def tick(self, message: str, *, min_interval_s: float | None = None) -> None:
        """A sign of life from the engine. Dropped when one went out less than `min_interval_s` ago or one is
        being sent; one that cannot be delivered is logged, never a reason to fail the judgment."""
        interval = self.min_interval_s if min_interval_s is None else min_interval_s
        if self.silent or self._lock.locked() or time.monotonic() - self._sent_at < interval:
            return
        async with self._lock:
            try:
                await self._emit(self._next(), self._total, message)
            except Exception as exc:  # noqa: BLE001 - a lost sign of life must not lose the judgment
                log.warning("progress notification not sent", error=str(exc) or type(exc).__name__)

    async def waiting(self, work: Callable[[], Awaitable[T]], describe: Callable[[], str]) -> T:
        """`await work()`, with a heartbeat (`describe()` and the seconds waited) every `heartbeat_s` until it
        returns. Its exceptions come out as they are, not wrapped in a group."""
        if self.silent:
            return await work()
        failure: BaseException | None = None
        result: T | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._beat, describe)
            try:
                result = await work()
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as exc:  # noqa: BLE001 - re-raised below, outside the heartbeat's task group
                failure = exc
            finally:
                tg.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return result  # type: ignore[return-value]

    async def _beat(self, describe: Callable[[], str]) -> None:
        started = time.monotonic()
        while True:
            await anyio.sleep(self.heartbeat_s)
            # Skipped when anything else went out in the last half interval: the client heard from us.
            await self.tick(f"{describe()} ({time.monotonic() - started:.0f} s)", min_interval_s=self.heartbeat_s / 2)

    def _next(self) -> float:
        self._ticks += 1
        return self._step + self._ticks / (self._ticks + 1)

    async def _emit(self, value: float, total: float | None, message: str | None) -> None:
        self._last, self._sent_at = value, time.monotonic()
        await self._send(value, total if total is None or value <= total else None, message)


__all__ = ["Progress", "ProgressFn", "no_progress"]
