"""Calibrations kept in the evaluation ledger (its `calibrations` table, schema v3), and the judge's view of them.

One row per calibration run, keyed by the judge's fitness key (backend, model digest, readout, prompt template
hash; tools/engine/fitness.py), with the whole report as JSON. A judge's fitness is the newest row for its key,
complete or interrupted (an interrupted run says so and counts only the items it judged).

Judging calls look their fitness up at every judgment, so `LedgerFitness` remembers each key's answer for a few
seconds; a calibration stored through it is seen at once, one stored by another process within `MEMORY_S`.
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from typing import Any

import anyio

from gavel.tools.engine.fitness import JudgeFitness, near_chance, near_chance_graded
from gavel.tools.ledger import Ledger, to_json
from gavel.tools.ledger.schema import Conn

MEMORY_S = 30.0
INDEX_LIMIT = 200

_COLUMNS = "id, fitness_key, set_name, created_at, complete, report_json"


def store_calibration(ledger: Ledger, report: dict[str, Any]) -> bool:
    """Write one calibration report (as `CalibrationReport.model_dump`); True once committed."""

    def write(conn: Conn) -> bool:
        with conn.transaction():
            conn.execute(
                f"INSERT INTO calibrations ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    report["calibration_id"], report["fitness_key"], report["set"], report["created_at"],
                    int(report["complete"]), to_json(report),
                ),
            )  # fmt: skip
        return True

    written = bool(ledger.run("store_calibration", write))
    if written:
        fitness_source(ledger).forget(report["fitness_key"])
    return written


def calibrations_for(ledger: Ledger, key: str, limit: int = INDEX_LIMIT) -> list[dict[str, Any]]:
    """Every calibration report for `key`, newest first."""

    def read(conn: Conn) -> list[dict[str, Any]]:
        rows = conn.execute(
            "SELECT report_json FROM calibrations WHERE fitness_key = ? ORDER BY created_at DESC LIMIT ?", (key, limit)
        ).fetchall()
        return [json.loads(row[0]) for row in rows]

    return ledger.run("calibrations_for", read, create=False) or []


def calibration_index(ledger: Ledger, limit: int = INDEX_LIMIT) -> list[dict[str, Any]]:
    """The newest calibration per key and set, newest first, as short summaries."""

    def read(conn: Conn) -> list[dict[str, Any]]:
        if not conn.has_table("calibrations"):
            return []
        rows = conn.execute(
            "SELECT report_json FROM calibrations ORDER BY created_at DESC LIMIT ?", (limit * 4,)
        ).fetchall()
        return [json.loads(row[0]) for row in rows]

    seen: set[tuple[str, str]] = set()
    index = []
    for report in ledger.run("calibration_index", read, create=False) or []:
        if (report["fitness_key"], report["set"]) in seen:
            continue
        seen.add((report["fitness_key"], report["set"]))
        index.append(summary_of(report))
    return index[:limit]


def summary_of(report: dict[str, Any]) -> dict[str, Any]:
    judge = report.get("judge", {})
    return {
        "key": report["fitness_key"],
        "uri": f"calibration://{report['fitness_key']}",
        "set": report["set"],
        "backend": judge.get("backend"),
        "model": judge.get("model"),
        "readout": judge.get("readout"),
        "n": report["n"],
        "complete": report["complete"],
        "balanced_accuracy": report["balanced_accuracy"]["value"],
        "auroc": report["auroc"]["value"],
        "spearman": (report.get("spearman") or {}).get("value"),
        "created_at": report["created_at"],
    }


def fitness_of(report: dict[str, Any]) -> JudgeFitness:
    """What a judgment's provenance carries of a calibration report. A set graded by people only (no good/bad
    labels, so no balanced accuracy) is judged near chance by its Spearman interval."""
    ba, au = report["balanced_accuracy"], report["auroc"]
    rho = report.get("spearman") or {"value": None, "low": None, "high": None}
    graded_only = ba["value"] is None and rho["value"] is not None
    return JudgeFitness(
        calibration_id=report["calibration_id"],
        set=report["set"],
        n=report["n"],
        complete=report["complete"],
        balanced_accuracy=ba["value"],
        balanced_accuracy_ci95=(ba["low"], ba["high"]),
        auroc=au["value"],
        auroc_ci95=(au["low"], au["high"]),
        spearman=rho["value"],
        spearman_ci95=(rho["low"], rho["high"]),
        calibrated_cut=(report.get("cut") or {}).get("best"),
        date=report["created_at"],
        near_chance=near_chance_graded(rho["low"], rho["high"]) if graded_only else near_chance(ba["low"], ba["high"]),
    )


class LedgerFitness:
    """A judge's calibrations as the ledger holds them (`FitnessSource`)."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._memory: dict[str, tuple[float, JudgeFitness | None]] = {}
        self._lock = threading.Lock()

    def forget(self, key: str) -> None:
        with self._lock:
            self._memory.pop(key, None)

    def lookup(self, key: str) -> JudgeFitness | None:
        with self._lock:
            found = self._memory.get(key)
        if found is not None and found[0] > time.monotonic():
            return found[1]
        if self.ledger.failure is not None:
            return None
        newest = calibrations_for(self.ledger, key, limit=1)
        fitness = fitness_of(newest[0]) if newest else None
        with self._lock:
            self._memory[key] = (time.monotonic() + MEMORY_S, fitness)
        return fitness

    async def fitness_for(self, key: str) -> JudgeFitness | None:
        with self._lock:
            found = self._memory.get(key)
        if found is not None and found[0] > time.monotonic():
            return found[1]  # from memory, without a worker thread
        return await anyio.to_thread.run_sync(self.lookup, key)


_SOURCES: weakref.WeakKeyDictionary[Ledger, LedgerFitness] = weakref.WeakKeyDictionary()


def fitness_source(ledger: Ledger) -> LedgerFitness:
    """The one `LedgerFitness` of `ledger` (its memory is shared by every call of the process)."""
    source = _SOURCES.get(ledger)
    if source is None:
        source = _SOURCES.setdefault(ledger, LedgerFitness(ledger))
    return source
