"""`gavel calibrate`: measure the configured judge on a labelled set, or `--show` the calibrations kept.

    gavel calibrate --set halueval-qa --limit 40     # a shipped set (judge_rag_answer)
    gavel calibrate --set topicalchat-usr            # evaluate_assessment against people's ratings (Spearman)
    gavel calibrate --data mine.jsonl                 # your own labelled JSONL (tools/calibration/data/README.md)
    gavel calibrate --show                            # every calibration in the ledger
    gavel calibrate --set halueval-qa --report cal.html   # also a self-contained HTML report

The table goes to stdout, one progress line per item to stderr. Ctrl-C stops the run (the item being judged is
dropped): the items judged so far are kept and reported (and stored) as a partial calibration.

Exit codes: 0 done; 2 a usage error; 3 a bug in gavel (its traceback is logged on stderr); 130 interrupted (the
report is partial).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from gavel.server.cli.console import EXIT_INTERRUPTED, EXIT_OK, fail, load_registry, out, until_interrupted
from gavel.server.settings import Settings
from gavel.tools.calibration.models import shown_set
from gavel.tools.common import terminal_line
from gavel.tools.guards.text import printable

# How much of a progress message (an item's id and its score, or the engine's step) a progress line shows.
PROGRESS_CHARS = 200


def calibrate(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.tools.calibration.sets import load_file, load_set, shipped_sets
    from gavel.tools.errors import GavelError

    ledger = settings.make_ledger()
    try:
        if args.show:
            return _show(ledger, args.json)
        if args.set is None and args.data is None:
            return fail(f"give --set NAME ({', '.join(shipped_sets())}), --data FILE or --show")
        registry = load_registry(settings)
        try:
            cal_set = load_set(args.set, registry) if args.set else load_file(args.data, registry)
        except GavelError as exc:
            return fail(str(exc))
        if args.report is not None and not args.report.parent.is_dir():
            # Checked before the run, which can take many minutes: a report it cannot write would lose them.
            return fail(f"--report {args.report}: its directory {args.report.parent} does not exist; create it first")
        import anyio

        report, interrupted = anyio.run(_calibrate, settings, registry, cal_set, ledger, args.limit)
        if report is not None and args.report is not None:
            _write_report(args.report, report, cal_set, ledger)
    finally:
        if ledger is not None:
            ledger.close()
    if report is None:
        return fail("the calibration was interrupted before any item was judged")
    out(report.model_dump_json(indent=2) if args.json else report.render_text())
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


async def _calibrate(settings: Settings, registry: Any, cal_set: Any, ledger: Any, limit: int | None) -> Any:

    from gavel.server.ledger_calls import uncalibrated_calls
    from gavel.tools.calibration.measure import CalibrationRun
    from gavel.tools.deps import ToolDeps
    from gavel.tools.engine.provider import BackendProvider

    provider = BackendProvider(settings.engine_config())

    async def progress(done: float, total: float | None, message: str | None) -> None:
        sys.stderr.write(progress_line(done, total, message) + "\n")
        sys.stderr.flush()

    deps = ToolDeps(
        registry=registry, limits=settings.limits(), judge_factory=provider.judge, progress=progress, ledger=ledger,
        judge_through_ledger=uncalibrated_calls(ledger),
    )  # fmt: skip
    calibration = CalibrationRun(cal_set, deps, ledger, limit)
    sys.stderr.write(f"calibrating {cal_set.tool} on {shown_set(cal_set.name)}: {len(calibration.items)} items\n")
    interrupted = False
    try:
        interrupted = await until_interrupted(
            calibration.execute, "interrupted: keeping the items judged so far, as a partial calibration"
        )
    finally:
        await provider.aclose()
    return calibration.report, interrupted


def _write_report(path: Any, report: Any, cal_set: Any, ledger: Any) -> None:
    """The HTML report: each item's card shows its judgment as the ledger kept it (none when the ledger is off)."""
    from gavel.tools.report.calibration_report import calibration_report

    results = {}
    for row in report.items:
        record = ledger.get(row.evaluation_id) if ledger is not None and row.evaluation_id else None
        if record is not None:
            results[row.id] = record["result"]
    judged = {row.id for row in report.items}
    arguments = {
        item.id: cal_set.adapter.request(item, cal_set.rubric).model_dump(mode="json")
        for item in cal_set.items
        if item.id in judged
    }
    path.write_text(calibration_report(report.model_dump(mode="json"), results, arguments), encoding="utf-8")
    sys.stderr.write(f"report: {path}\n")


def progress_line(done: float, total: float | None, message: str | None) -> str:
    """One progress line: items judged of the items to judge, as whole numbers. The engine's signs of life between
    two items (fractional values, and no total once past it) keep the count of the items judged so far. The message
    names the item by the data's id: it is put on one line, cut, and shown with no escape sequence, as `gavel eval`
    shows an id."""
    message = terminal_line(message or "", PROGRESS_CHARS)
    count = f"[{math.floor(done)}/{math.floor(total)}]" if total is not None else f"[{math.floor(done)}]"
    return f"{count} {message}".rstrip() if float(done).is_integer() else f"{count} ... {message}".rstrip()


def _show(ledger: Any, as_json: bool) -> int:
    from gavel.tools.calibration.records import calibration_index

    if ledger is None:
        return fail("the evaluation ledger is off (GAVEL_LEDGER_PATH=off): no calibration is kept")
    index = calibration_index(ledger)
    if ledger.failure is not None:
        return fail(f"the evaluation ledger at {ledger.path} cannot be read: {ledger.failure}")
    if as_json:
        out(json.dumps({"calibrations": index}, indent=2))
        return EXIT_OK
    if not index:
        out("no calibration kept yet; run 'gavel calibrate --set halueval-qa --limit 40'")
        return EXIT_OK
    header = ("KEY", "SET", "BACKEND", "MODEL", "READOUT", "N", "BAL.ACC", "AUROC", "SPEARMAN", "DATE (UTC)")
    rows = [
        (
            e["key"], shown_set(e["set"]), printable(str(e["backend"])), printable(str(e["model"])),
            str(e["readout"]),
            f"{e['n']}{'' if e['complete'] else ' (partial)'}", _num(e["balanced_accuracy"]), _num(e["auroc"]),
            _num(e.get("spearman")),
            e["created_at"][:16].replace("T", " "),
        )
        for e in index
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        out("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return EXIT_OK


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
