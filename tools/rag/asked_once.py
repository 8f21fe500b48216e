"""A request's value asked of the model at most once, however many of its answers await it: the judge's own answer
(`own_answer.py`) and a yes/no part's statements (`yes_no_part.py`) are the question's, not an answer's."""

from __future__ import annotations

from typing import Generic, TypeVar

import anyio

from gavel.tools.engine.calls import Tally
from gavel.tools.engine.scores import Usage

T = TypeVar("T")


class AskedOnce(Generic[T]):
    """`_ask` runs once, under a lock; every later `get` returns its value at no usage."""

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self._value: tuple[T] | None = None  # a tuple, so that a value that is None still counts as asked

    async def get(self) -> tuple[T, Usage]:
        """The value, and the usage of asking it: to the first caller only, so a batch counts it once."""
        async with self._lock:
            if self._value is not None:
                return self._value[0], Usage()
            tally = Tally()
            value = await self._ask(tally)
            self._value = (value,)
            return value, tally.usage

    async def _ask(self, tally: Tally) -> T:
        raise NotImplementedError
