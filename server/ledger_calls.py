"""The ledger around one tool call: serve an identical earlier judgment, or record the new one.

The boundary (`gavel.server.boundary`) gives each judging call a `LedgerCall`; the tools never see the
ledger, and this module knows no tool: each result type declares how the ledger treats it
(`ToolResult.ledger_serves`, `is_cacheable()`, `ledger_items()`).

A judgment served from the cache is returned as it was stored: its own evaluation_id (that judgment's), with
`cached: true`. The call that was served is recorded too (a row with `cached = 1` naming the judgment), committed
before the client hears the answer, as every other call is; when that row cannot be written the ledger is failing,
so the call is judged afresh (its evaluation_id null, like every call the ledger could not record).

The cache is consulted before the tool runs: the tool's prepare step has refused a bad request and says whether the
call needs a model (score_candidates' deterministic path pays for no lookup and no backend probe); then the judge is
resolved, so its backend, model and digest are part of the key with the rubric the prepare step resolved; then the
ledger is looked up; only on a miss does the tool run on what was prepared, with the judge the lookup resolved.

A call that never asked for a judge judged nothing and is not recorded (its evaluation_id stays null).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from gavel.server.ledger_key import cache_key
from gavel.server.logging import get_logger
from gavel.tools.calibration.records import fitness_source
from gavel.tools.common import ToolResult
from gavel.tools.deps import Impl, JudgeThroughLedger, Prepared, ToolDeps, steps
from gavel.tools.engine.fitness import FitnessSource
from gavel.tools.engine.judge import Judge
from gavel.tools.engine.progress import Progress
from gavel.tools.ledger import Entry, Ledger, canonical_hash, headline_of, timestamp, to_json, utc_now

log = get_logger("gavel.ledger")

# Field of a request that asks to bypass the cache; never part of the cache key.
NO_CACHE_FIELD = "no_cache"


def model_json(model: BaseModel) -> str:
    """A model as compact JSON text, the fast way; a lone surrogate (which UTF-8 cannot encode) escaped."""
    try:
        return model.model_dump_json(by_alias=True)
    except PydanticSerializationError:
        return to_json(model.model_dump(mode="json", by_alias=True))


# Ids need to be unique, not unguessable: a generator seeded once from the OS, because reading the OS's
# randomness per call (uuid4) measured ~0.1 ms on a loaded VM, on every tool call.
_IDS = random.Random()


def new_evaluation_id() -> str:
    return f"{_IDS.getrandbits(64):016x}"


@dataclass(frozen=True)
class Served:
    """A stored judgment as this call answers with it, and its structured content."""

    result: ToolResult
    structured: dict[str, Any]


# -- one call --------------------------------------------------------------------------------------------


class LedgerCall:
    """One judging tool call's dealings with the ledger."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        tool: str,
        prepared: Prepared,
        result_model: type[ToolResult],
        evaluation_id: str,
        fitness: bool = True,
    ) -> None:
        self.ledger = ledger
        self.tool = tool
        self.prepared = prepared
        self.request: BaseModel = prepared.request
        self.result_model = result_model
        self.evaluation_id = evaluation_id
        # False while calibrating: the judgment is the measurement, so no earlier calibration may shape it.
        self.fitness = fitness
        self.started = time.perf_counter()
        self.judged = False
        self.cache_key: str | None = None
        # Why the judgment could not be recorded, when it could not.
        self.unrecorded: str | None = None
        self._judge: Judge | None = None
        self._keyed = False
        self._request_view: dict[str, Any] | None = None
        self._request_hash: str | None = None
        self._request_json: str | None = None

    @property
    def no_cache(self) -> bool:
        return bool(getattr(self.request, NO_CACHE_FIELD, False))

    def _request_without_flag(self) -> dict[str, Any]:
        if self._request_view is None:
            self._request_view = self.request.model_dump(mode="json", exclude={NO_CACHE_FIELD})
        return self._request_view

    def _hash_and_json(self) -> tuple[str, str | None]:
        """The request's hash (never of no_cache) and, when inputs are stored, its JSON; computed once."""
        if self._request_hash is None:
            self._request_hash = canonical_hash(self._request_without_flag())
            if self.ledger.store_inputs:
                self._request_json = model_json(self.request)
        return self._request_hash, self._request_json

    def _duration_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    # -- the cache -----------------------------------------------------------------------------------

    def track(self, deps: ToolDeps) -> ToolDeps:
        """The deps the tool gets: its judge factory notes that the tool judges and keys the call once.

        The first judge is the one `look_up` resolved, when it ran: the key names the judge that answers.
        """
        resolve = deps.judge_factory

        async def judge(*, progress: Progress, fitness: FitnessSource | None) -> Judge:
            judge = self._judge or await resolve(progress=progress, fitness=fitness)
            self._judge = None  # handed out once; later asks resolve afresh, as they would with no ledger
            self.judged = True
            if not self._keyed:
                self._keyed = True
                self.cache_key = await cache_key(
                    judge,
                    deps,
                    tool=self.tool,
                    prepared=self.prepared,
                    request_view=self._request_without_flag(),
                    result_model=self.result_model,
                )
            return judge

        fitness = fitness_source(self.ledger) if self.fitness else None
        return dataclasses.replace(deps, judge_factory=judge, fitness=fitness)

    async def look_up(self, deps: ToolDeps) -> Served | None:
        """Resolve the judge and answer from the ledger when it holds this judgment; `deps` from `track`.

        Call it only once the request is known to be valid, and before the tool runs.
        """
        self._judge = await deps.judge()
        self.judged = False  # resolving a judge is not judging: only the tool's own ask counts
        if self.cache_key is None or not self.result_model.ledger_serves or self.no_cache:
            return None
        hit = self.ledger.serve_remembered(self.cache_key, self._serve)
        if hit is None:
            hit = await self.ledger.aserve_cached(self.cache_key, self._serve)
        if hit is None:
            return None
        served_from, stored, result, structured = hit
        if await self._record_hit(served_from, stored, result):
            return Served(result, structured)
        log.info("the served call could not be recorded; judging afresh", served_from=served_from)
        return None

    def _serve(self, served_from: str, stored: str) -> tuple[str, str, ToolResult, dict[str, Any]] | None:
        """The stored judgment as this call returns it: marked cached, its own evaluation_id kept.

        Runs on the event loop for a judgment the ledger remembers, else in its worker thread, inside its lock.
        """
        try:
            result = self.result_model.model_validate_json(stored)
        except ValidationError as exc:
            log.warning(
                "a stored judgment no longer validates; judging afresh", served_from=served_from, error=str(exc)
            )
            return None
        result.evaluation_id = served_from  # the stored result says so already; the row is the authority
        result.cached = True
        for item in result.ledger_items():
            item.cached = True
        return served_from, stored, result, result.model_dump(mode="json", by_alias=True)

    async def _record_hit(self, served_from: str, stored: str, result: ToolResult) -> bool:
        """Record that this call was served the judgment `served_from`; True once the row is committed.

        The row keeps the judgment as it was recorded (its `cached` column says this call was served it),
        so writing it costs no serialization of the result.
        """
        duration_ms, served_at = self._duration_ms(), time.time()

        def build() -> list[Entry]:
            provenance, usage = getattr(result, "provenance", None), getattr(result, "usage", None)
            parts = {
                "provenance": provenance.model_dump(mode="json") if isinstance(provenance, BaseModel) else None,
                "usage": usage.model_dump(mode="json") if isinstance(usage, BaseModel) else None,
            }
            return [
                self._entry(
                    result_json=stored,
                    structured=parts,
                    headline=headline_of(str(getattr(result, "summary", ""))),
                    cached=True,
                    served_from=served_from,
                    duration_ms=duration_ms,
                    created_at=timestamp(datetime.fromtimestamp(served_at, UTC)),
                )
            ]

        recorded = await self.ledger.arecord(build())
        if recorded:
            log.info("judgment served from the ledger", served_from=served_from)
        return recorded

    # -- recording -------------------------------------------------------------------------------------

    def _entry(
        self,
        *,
        result_json: str,
        structured: dict[str, Any] | None,
        evaluation_id: str | None = None,
        parent_id: str | None = None,
        headline: str = "",
        servable: bool = False,
        cached: bool = False,
        served_from: str | None = None,
        duration_ms: float | None = None,
        created_at: str | None = None,
    ) -> Entry:
        request_hash, request_json = self._hash_and_json()
        top = parent_id is None
        structured = structured or {}
        provenance, usage = structured.get("provenance"), structured.get("usage")
        return Entry(
            id=evaluation_id or self.evaluation_id,
            tool=self.tool,
            created_at=created_at or timestamp(utc_now()),
            duration_ms=self._duration_ms() if duration_ms is None else duration_ms,
            request_hash=request_hash,
            # Items share their batch's request; only the top-level row keeps it.
            request_json=request_json if top else None,
            result_json=result_json,
            provenance_json=to_json(provenance) if provenance is not None else None,
            usage_json=to_json(usage) if usage is not None else None,
            headline=headline,
            parent_id=parent_id,
            cache_key=self.cache_key if top else None,
            servable=servable,
            cached=cached,
            served_from=served_from,
        )

    async def record(self, result: ToolResult) -> dict[str, Any] | None:
        """Record a judgment the tool made; its structured content, with the ids filled in, once committed.

        None when nothing was judged or the ledger could not record it: the ids then stay null.
        """
        if not self.judged:
            return None
        children = result.ledger_items()
        result.evaluation_id = self.evaluation_id
        for child in children:
            child.evaluation_id = new_evaluation_id()
        structured = result.model_dump(mode="json", by_alias=True)
        entries = [
            self._entry(
                result_json=model_json(result),
                structured=structured,
                headline=headline_of(str(getattr(result, "summary", ""))),
                servable=result.is_cacheable(),
            )
        ]
        for child in children:
            child_structured = child.model_dump(mode="json", by_alias=True)
            entries.append(
                self._entry(
                    result_json=model_json(child),
                    structured=child_structured,
                    evaluation_id=child.evaluation_id,
                    parent_id=self.evaluation_id,
                    headline=headline_of(str(getattr(child, "summary", ""))),
                )
            )
        if await self.ledger.arecord(entries):
            return structured
        result.evaluation_id = None
        for child in children:
            child.evaluation_id = None
        self.unrecorded = self.ledger.failure or "the write failed"
        return None


async def through_ledger(
    ledger: Ledger,
    *,
    tool: str,
    prepared: Prepared,
    result_model: type[ToolResult],
    run: Callable[[ToolDeps], Awaitable[ToolResult]],
    deps: ToolDeps,
    evaluation_id: str,
    fitness: bool = True,
    notes: list[str] | None = None,
) -> tuple[ToolResult, dict[str, Any] | None]:
    """Look up, run, record one judging call: the result it answers with, and its structured content once recorded.

    `prepared` is what the tool's prepare step made of the request (`gavel.tools.deps.Prepared`); `run` judges it.
    `fitness` False judges with no calibration shaping the judge (a calibration's own items). `notes` gets a line
    for the reader when the judgment could not be recorded: its null evaluation_id alone is easily missed.
    """
    call = LedgerCall(
        ledger, tool=tool, prepared=prepared, result_model=result_model, evaluation_id=evaluation_id, fitness=fitness
    )
    deps = call.track(deps)
    if result_model.ledger_serves and prepared.needs_model:
        served = await call.look_up(deps)
        if served is not None:
            return served.result, served.structured
    result = await run(deps)
    # Committed before the client hears of the result: a reported judgment is never lost.
    structured = await call.record(result)
    if call.unrecorded is not None and notes is not None:
        notes.append(
            f"(not recorded: the evaluation ledger at {ledger.path} could not store this judgment: {call.unrecorded}; "
            "it has no evaluation_id, so it cannot be read back or served again)"
        )
    return result, structured


def uncalibrated_calls(ledger: Ledger | None) -> JudgeThroughLedger:
    """How a tool that keeps its own records judges: each judgment a call of its own through `ledger` (served when
    judged identically before, else recorded), with no calibration shaping the judge; run directly without one."""

    async def judge(tool: str, request: BaseModel, result_model: type[ToolResult], impl: Impl, deps: ToolDeps) -> Any:
        if ledger is None:
            return await impl(request, deps)
        two = steps(impl)
        prepared = await two.prepare(request, deps)
        result, _ = await through_ledger(
            ledger, tool=tool, prepared=prepared, result_model=result_model, evaluation_id=new_evaluation_id(),
            run=lambda tracked: two.run(prepared, tracked), deps=deps, fitness=False,
        )  # fmt: skip
        return result

    return judge
