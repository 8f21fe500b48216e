"""`gavel calibrate` and the MCP tool `calibrate_judge`: the judge measured on a labelled set, on this machine.

Every item of the set (up to `limit`, whole pairs) is judged by the tool the set belongs to, with the configured
backend and model, one item after another. Each judgment goes through the evaluation ledger as any tool call
does: an item judged identically before (same inputs, rubric, prompts, model digest, options) is served from
it and counted as cached, a new judgment is recorded. The judge is calibrated without its earlier calibration:
no fitness lookup, no calibrated cut, so a measurement never depends on the one before.

THE DECISION RULE, FIXED BEFORE ANY RUN: an item is predicted good when the tool's score for it (0-1, see
tools/calibration/sets.py) is at or above Gavel's default cut; an item the judge did not score counts as a
wrong prediction (and in `unscored`). The cut that maximizes balanced accuracy on the set is reported beside
it, never used for the figures. Intervals: 95% percentile bootstrap over pairs where the set has them, else
over items.

An interrupted run (Ctrl-C, an MCP cancel) keeps every item judged so far: its figures are computed on them,
stored as a partial calibration, and say so. So does the MCP tool's run at the call's deadline
(GAVEL_CALL_DEADLINE_S), which bounds it as it bounds every tool call; `gavel calibrate` on the command line is no
tool call and runs to the end.
"""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from gavel.tools.calibration import stats
from gavel.tools.calibration.models import (
    MIN_ITEMS_FOR_CUT,
    CalibrateJudgeRequest,
    CalibrationReport,
    CutReport,
    Figure,
    ItemRow,
)
from gavel.tools.calibration.records import store_calibration
from gavel.tools.calibration.sets import CalibrationSet, Item, load_set
from gavel.tools.deps import Tool, ToolDeps, Unprepared
from gavel.tools.errors import GavelError
from gavel.tools.ledger import Ledger, timestamp, utc_now

# -- figures ----------------------------------------------------------------------------------------------


def _figure(units: Sequence[Any], statistic: Callable[[Sequence[Any]], float | None]) -> Figure:
    value = statistic(units)
    low, high = stats.bootstrap_ci(units, statistic) if value is not None else (None, None)
    return Figure(value=None if value is None else round(value, 4), low=low, high=high)


def _units(rows: Sequence[tuple[Item, ItemRow]]) -> list[list[tuple[Item, ItemRow]]]:
    """Bootstrap units: whole pairs where the set pairs its items, else single items."""
    groups: dict[str, list[tuple[Item, ItemRow]]] = {}
    for index, (item, row) in enumerate(rows):
        groups.setdefault(item.pair or f"#{index}", []).append((item, row))
    return list(groups.values())


def _flat(units: Sequence[Sequence[tuple[Item, ItemRow]]]) -> list[tuple[Item, ItemRow]]:
    return [pair for unit in units for pair in unit]


def figures(rows: Sequence[tuple[Item, ItemRow]], default_cut: float) -> dict[str, Any]:
    units = _units(rows)
    labelled = [(item.good, row.score) for item, row in rows if item.good is not None]

    def balanced(sample: Sequence[Any]) -> float | None:
        items = [(i.good, r.score) for i, r in _flat(sample) if i.good is not None]
        return stats.balanced_accuracy(stats.outcomes_at(items, default_cut))

    def auroc(sample: Sequence[Any]) -> float | None:
        flat = _flat(sample)
        return stats.auroc([r.score for i, r in flat if i.good], [r.score for i, r in flat if i.good is False])

    def pairwise(sample: Sequence[Any]) -> float | None:
        pairs = []
        for unit in sample:
            good = [r.score for i, r in unit if i.good]
            bad = [r.score for i, r in unit if i.good is False]
            if len(unit) == 2 and len(good) == 1 and len(bad) == 1:
                pairs.append((good[0], bad[0]))
        return stats.pairwise_accuracy(pairs)

    def spearman(sample: Sequence[Any]) -> float | None:
        return stats.spearman([(i.graded, r.score) for i, r in _flat(sample) if i.graded is not None])

    best, at_best = stats.best_cut(labelled, default_cut)
    at_default = stats.balanced_accuracy(stats.outcomes_at(labelled, default_cut))
    has_pairs = any(len(unit) == 2 for unit in units)
    return {
        "balanced_accuracy": _figure(units, balanced),
        "auroc": _figure(units, auroc),
        "pairwise_accuracy": _figure(units, pairwise) if has_pairs else None,
        "spearman": _figure(units, spearman) if any(i.graded is not None for i, _ in rows) else None,
        "cut": CutReport(
            default=default_cut,
            best=None if at_best is None else round(best, 4),
            balanced_accuracy_at_best=None if at_best is None else round(at_best, 4),
            differs=at_best is not None and at_default is not None and at_best > at_default + 1e-9,
            fitted_on=sum(1 for _, score in labelled if score is not None),
        ),
        "base_rate_good": round(sum(1 for g, _ in labelled if g) / len(labelled), 4) if labelled else None,
    }


# -- the run ----------------------------------------------------------------------------------------------


class CalibrationRun:
    """One calibration. `report` is set when `execute` ends, also when it ends by cancellation (then partial)."""

    def __init__(
        self,
        cal_set: CalibrationSet,
        deps: ToolDeps,
        ledger: Ledger | None,
        limit: int | None,
        deadline_s: float | None = None,
    ) -> None:
        """`deadline_s`: how long the whole run may take (the MCP tool's call deadline); None: no bound."""
        self.set = cal_set
        self.deps = deps
        self.ledger = ledger
        self.items = cal_set.take(limit)
        self.rows: list[tuple[Item, ItemRow]] = []
        self.judge_info: dict[str, Any] = {}
        self.fitness_key: str | None = None
        self.report: CalibrationReport | None = None
        self.calibration_id = secrets.token_hex(8)
        self._started = time.perf_counter()
        self._deadline_s = deadline_s
        self._ends = None if deadline_s is None else time.monotonic() + deadline_s

    async def execute(self) -> CalibrationReport:
        try:
            for item in self.items:
                left = float("inf") if self._ends is None else self._ends - time.monotonic()
                with anyio.move_on_after(left) as bound:
                    row = await self._judge(item)
                if bound.cancelled_caught:
                    self.report = await self._finish(complete=False, deadline=True)
                    return self.report
                self.rows.append((item, row))
                shown = "unscored" if row.score is None else f"score {row.score:.2f}"
                cached = ", from the ledger" if row.cached else ""
                await self.deps.progress(len(self.rows), len(self.items), f"{item.id}: {shown}{cached}")
        except (anyio.get_cancelled_exc_class(), KeyboardInterrupt):
            with anyio.CancelScope(shield=True):
                self.report = await self._finish(complete=False)
            raise
        self.report = await self._finish(complete=True)
        return self.report

    async def _judge(self, item: Item) -> ItemRow:
        adapter = self.set.adapter
        started = time.perf_counter()
        request = adapter.request(item, self.set.rubric)
        judge = self.deps.judge_through_ledger
        try:
            if judge is None:
                result = await adapter.impl(request, self.deps)
            else:
                result = await judge(adapter.tool, request, adapter.result_model, adapter.impl, self.deps)
        except GavelError as exc:
            return ItemRow(id=item.id, label=_label(item), score=None, cached=False, error=str(exc),
                           seconds=round(time.perf_counter() - started, 3))  # fmt: skip
        cached = bool(result.cached)
        self._note_judge(result)
        return ItemRow(
            id=item.id, label=_label(item), score=adapter.score(result), cached=cached,
            seconds=round(time.perf_counter() - started, 3), evaluation_id=result.evaluation_id,
        )  # fmt: skip

    def _note_judge(self, result: Any) -> None:
        provenance = getattr(result, "provenance", None)
        if provenance is None or self.fitness_key is not None:
            return
        self.fitness_key = provenance.fitness_key
        self.judge_info = {
            "backend": provenance.backend, "model": provenance.model, "model_digest": provenance.model_digest,
            "readout": provenance.readout, "prompt_template_hash": provenance.prompt_template_hash,
        }  # fmt: skip

    async def _finish(self, *, complete: bool, deadline: bool = False) -> CalibrationReport:
        rubric = self.deps.registry.get(self.set.rubric)
        found = figures(self.rows, self.set.adapter.default_cut(rubric))
        judged_now = [row.seconds for _, row in self.rows if not row.cached]
        notes = []
        if deadline:
            notes.append(
                f"stopped at the call's deadline of {self._deadline_s:g}s (GAVEL_CALL_DEADLINE_S) after "
                f"{len(self.rows)} of {len(self.items)} items: raise it, give a smaller limit, or run `gavel "
                "calibrate` on the command line"
            )
        tuned = int(self.set.meta.get("tuned_items", 0) or 0)
        if tuned >= len(self.set.items):
            notes.append("this whole set is development data Gavel's prompts may be chosen on: not a held-out measure")
        elif tuned and len(self.rows) > len(self.set.items) - tuned:
            notes.append(f"the last {tuned} items of this set are the ones Gavel's prompts were chosen on")
        if self.rows and all(item.good is None for item, _ in self.rows):
            notes.append(
                "graded labels only: balanced accuracy, AUROC and the cut need good/bad labels; the judge's fitness "
                "is the Spearman figure"
            )
        cut: CutReport = found["cut"]
        if cut.few_items:
            notes.append(
                f"the best cut was fitted on {cut.fitted_on} scored items, fewer than {MIN_ITEMS_FOR_CUT}: on so few "
                "it mostly fits this sample's noise; do not decide at it (GAVEL_USE_CALIBRATED_CUT) before a run of "
                f"{MIN_ITEMS_FOR_CUT} items or more (--limit {MIN_ITEMS_FOR_CUT})"
            )
        report = CalibrationReport(
            calibration_id=self.calibration_id,
            fitness_key=self.fitness_key,
            set=self.set.name,
            tool=self.set.tool,
            rubric=self.set.rubric,
            judge=self.judge_info,
            created_at=timestamp(utc_now()),
            complete=complete,
            n=len(self.rows),
            requested=len(self.items),
            set_size=len(self.set.items),
            from_cache=sum(1 for _, row in self.rows if row.cached),
            unscored=sum(1 for _, row in self.rows if row.score is None),
            seconds_per_item=round(statistics.fmean(judged_now), 2) if judged_now else None,
            seconds_total=round(time.perf_counter() - self._started, 1),
            score=self.set.adapter.score_note,
            stored=False,
            notes=notes,
            items=[row for _, row in self.rows],
            **found,
        )
        scored = any(row.score is not None for _, row in self.rows)
        if self.rows and not scored:
            # Figures of a judge that scored nothing measure the backend's failure, not the judge: not kept as its
            # fitness (every later verdict would carry them).
            report.notes.append(
                "no item was scored (see each item's reason): not stored as this judge's fitness; fix the backend "
                "and run it again"
            )
        if self.ledger is not None and self.fitness_key is not None and scored:
            kept = report.model_dump(mode="json") | {"stored": True}
            report.stored = await anyio.to_thread.run_sync(store_calibration, self.ledger, kept)
        return report


def _label(item: Item) -> str | None:
    if item.good is not None:
        return "good" if item.good else "bad"
    return None if item.graded is None else f"{item.graded:g}"


# -- the MCP tool -------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _SetLoaded(Unprepared):
    """A request with its set loaded: an unknown set is refused before the run (and before a task is started)."""

    cal_set: CalibrationSet


async def _prepare(request: CalibrateJudgeRequest, deps: ToolDeps) -> _SetLoaded:
    return _SetLoaded(request, cal_set=load_set(request.set, deps.registry))


async def _calibrate(prepared: _SetLoaded, deps: ToolDeps) -> CalibrationReport:
    deadline_s = (await deps.judge()).config.call_deadline_s
    return await CalibrationRun(prepared.cal_set, deps, deps.ledger, prepared.request.limit, deadline_s).execute()


calibrate_judge = Tool(_prepare, _calibrate)
