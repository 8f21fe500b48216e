"""`gavel eval DATA --tool TOOL --out DIR`: judge a whole dataset, for a person or a CI job.

    gavel eval answers.jsonl --tool judge_rag_answer --out runs/today
    gavel eval answers.csv --tool judge_rag_answer --out runs/today --map sources=context \\
        --fail-under mean_overall=0.7 --compare runs/yesterday

Writes DIR/results.jsonl (one line per item: id, evaluation_id, score, verdict and the tool's result, or its
error), DIR/summary.json (the figures) and DIR/report.html (one self-contained page). The ledger is the cache: a
rerun judges only the items that changed. A progress bar goes to stderr, the summary to stdout.

Exit codes: 0 done; 1 a --fail-under figure is below its value; 2 a usage error; 3 a bug in gavel (its traceback
is logged on stderr; the items judged before it are in results.jsonl, and its message says so); 130 interrupted
(the items judged so far are in results.jsonl).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from gavel.server.cli.console import EXIT_INTERRUPTED, EXIT_OK, fail, load_registry, out, until_interrupted
from gavel.server.settings import Settings
from gavel.tools.common import terminal_line
from gavel.tools.evaluation.compare import ID_CHARS
from gavel.tools.guards.text import printable

if TYPE_CHECKING:
    from gavel.tools.evaluation.figures import Threshold

EXIT_BELOW = 1
BAR_WIDTH = 30


class ProgressBar:
    """One line redrawn in place on a terminal; on anything else (a CI log), one line per item."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total = total
        self.stream = stream
        self.done = 0
        self.cached = 0
        self.errors = 0
        self.tty = stream.isatty()
        self.started = time.perf_counter()

    def step(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.cached += bool(row.get("cached"))
        self.errors += row.get("result") is None
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        elapsed = time.perf_counter() - self.started
        what = row.get("verdict", "error")
        text = (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total} "
            f"{elapsed:.0f}s, {self.cached} from the ledger, {self.errors} errors | {shown_id(row['id'])}: {what}"
        )
        if self.tty:
            self.stream.write("\r\x1b[2K" + text[:200])
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def shown_id(item_id: str) -> str:
    """A dataset's id as the terminal is sent it: one line, not too long, and no escape sequence in it."""
    return terminal_line(item_id, ID_CHARS)


def evaluate(settings: Settings, args: argparse.Namespace) -> int:
    from gavel.server.cli.eval_run import EVAL_TOOLS
    from gavel.tools.errors import GavelError
    from gavel.tools.evaluation import compare, dataset, figures

    spec = EVAL_TOOLS[args.tool]
    try:
        thresholds = [figures.parse_threshold(text) for text in args.fail_under]
    except ValueError as exc:
        return fail(str(exc))
    unknown = [t.figure for t in thresholds if t.figure not in figures.FIGURES[spec.name]]
    if unknown:
        known = ", ".join(figures.FIGURES[spec.name])
        return fail(f"--fail-under: {', '.join(unknown)} is no figure of {spec.name}; its figures: {known}")
    try:
        items = dataset.load(args.data, spec.request_model, dataset.parse_mapping(args.map))
        previous = compare.read_run(args.compare) if args.compare is not None else None
    except GavelError as exc:
        return fail(str(exc))
    if args.limit is not None:
        items = items[: args.limit]
    ignored = dataset.ignored_keys(items)
    absent = dataset.missing_everywhere(items, spec.request_model)
    if absent:
        keys = f"its keys: {', '.join(ignored)}" if ignored else "it has no other keys"
        return fail(
            f"{args.data}: no item has {', '.join(absent)}, which {spec.name} requires; {keys}. Name the key to read "
            f"it from with --map {absent[0]}=KEY"
        )
    if ignored:
        keys = terminal_line(", ".join(ignored), 500)
        sys.stderr.write(f"not arguments of {spec.name}, kept in results as 'extra': {keys}\n")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return fail(f"--out {args.out}: cannot create it: {exc.strerror}")
    if (refused := _unwritable_out(args.out, args.data, (compare.RESULTS, compare.SUMMARY, "report.html"))) is not None:
        return fail(refused)

    sys.stderr.write(f"judging {len(items)} items of {args.data} with {spec.name}\n")
    results = args.out / compare.RESULTS
    rows: list[dict[str, Any]] = []  # filled as `results` is: a bug partway can say how many rows are kept there
    try:
        return _judged(settings, args, spec, items, previous, thresholds, results, rows)
    except Exception as exc:
        if rows:  # said after the bug's one line (main's `_reporting_bugs`)
            exc.add_note(f"the {len(rows)} items judged before the bug are kept in {results}")
        raise


def _judged(settings: Settings, args: argparse.Namespace, spec: Any, items: list[Any],
            previous: tuple[list[dict[str, Any]], dict[str, Any]] | None, thresholds: list[Threshold],
            results: Path, rows: list[dict[str, Any]]) -> int:  # fmt: skip
    """Judge the items into `results` and `rows`, then write the summary and the report; the exit code."""
    import anyio

    from gavel.tools.errors import GavelError
    from gavel.tools.evaluation import compare, figures

    judge, interrupted = anyio.run(_run, settings, spec, items, results, rows)
    found = figures.figures(spec.name, rows)
    comparison = None
    if previous is not None:
        try:
            comparison = compare.compare(spec.name, rows, previous[0], previous[1], str(args.compare))
        except GavelError as exc:
            return fail(str(exc))
    summary = {
        "tool": spec.name, "data": str(args.data), "created_at": _now(), "complete": not interrupted,
        "items": len(rows), "from_ledger": sum(1 for r in rows if r.get("cached")),
        "errors": sum(1 for r in rows if r.get("result") is None), "judge": judge, "figures": found,
    }  # fmt: skip
    (args.out / compare.SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    _write_report(args.out / "report.html", spec.name, rows, items, found, summary, comparison)
    _print_summary(summary, figures, spec.name, args.out, comparison)
    if interrupted:
        return EXIT_INTERRUPTED
    below = figures.failures(found, thresholds)
    for line in below:
        sys.stderr.write(f"gavel: below the bar: {line}\n")
    return EXIT_BELOW if below else EXIT_OK


def _unwritable_out(out: Path, data: Path, names: tuple[str, ...]) -> str | None:
    """Why the run could not write its files (`names`) into `out`, found before any judging: a file that is the data
    itself (the results would replace it), a name taken by a directory, or a directory it may not write in."""
    for name in names:
        path = out / name
        if path.exists() and path.resolve() == data.resolve():
            return (
                f"--out {out}: {name} there is the data being judged, which the results would replace; "
                "choose another --out"
            )
        if path.is_dir():
            return f"--out {out}: {name} there is a directory; remove it or choose another --out"
    if not os.access(out, os.W_OK):
        return f"--out {out}: cannot write in it; choose a directory you can write to"
    return None


async def _run(
    settings: Settings, spec: Any, items: list[Any], results: Path, rows: list[dict[str, Any]]
) -> tuple[str, bool]:
    """Judge every item, appending each row to `results` and to `rows` as it comes; (the judge in words,
    interrupted)."""

    from gavel.server.cli.eval_run import run_items
    from gavel.tools.deps import ToolDeps
    from gavel.tools.engine.provider import BackendProvider

    provider = BackendProvider(settings.engine_config())
    ledger = settings.make_ledger()
    deps = ToolDeps(registry=load_registry(settings), limits=settings.limits(), judge_factory=provider.judge)
    bar = ProgressBar(len(items))
    judges: set[str] = set()
    interrupted = False
    with results.open("w", encoding="utf-8") as handle:

        async def on_row(row: dict[str, Any]) -> None:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            handle.flush()
            rows.append(row)  # after the write: `rows` counts only what `results` holds
            provenance = (row.get("result") or {}).get("provenance") or {}
            if provenance.get("model"):
                judges.add(f"{provenance.get('backend')} {provenance.get('model')} ({provenance.get('readout')})")
            bar.step(row)

        try:
            interrupted = await until_interrupted(
                lambda: run_items(spec, items, deps, ledger, on_row), "\ninterrupted: the items judged so far are kept"
            )
        finally:
            await provider.aclose()
            if ledger is not None:
                ledger.close()
    return "; ".join(sorted(judges)) or "n/a", interrupted


def _now() -> str:
    from gavel.tools.ledger import timestamp, utc_now

    return timestamp(utc_now())


def _write_report(path: Path, tool: str, rows: list[dict[str, Any]], items: list[Any], found: dict[str, Any],
                  summary: dict[str, Any], comparison: Any) -> None:  # fmt: skip
    from gavel.tools.report.eval_report import eval_report

    arguments = {item.id: item.arguments for item in items}
    path.write_text(eval_report(tool, rows, arguments, found, summary, comparison), encoding="utf-8")


def _print_summary(summary: dict[str, Any], figures: Any, tool: str, where: Path, comparison: Any) -> None:
    state = "" if summary["complete"] else " (INTERRUPTED: partial)"
    out(
        f"{tool}: {summary['items']} items{state}, {summary['from_ledger']} from the ledger, "
        f"{summary['errors']} in error; judge {printable(summary['judge'])}"
    )
    for name, value in summary["figures"].items():
        shown = "n/a" if value is None else f"{value:.4f}"
        out(f"  {name:<20} {shown:>8}   {figures.FIGURES[tool][name].description}")
    if comparison is not None:
        out(comparison.render_text())
    out(f"results: {where / 'results.jsonl'}")
    out(f"report:  {where / 'report.html'}")
