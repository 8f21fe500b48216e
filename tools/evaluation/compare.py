"""`gavel eval --compare DIR`: what changed since an earlier run, item by item and figure by figure.

Items are matched by id. An item changed when its verdict differs or its score moved (by more than rounding);
items only one run has are listed as added or removed. Each summary figure both runs have gets its delta.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gavel.tools.common import terminal_line
from gavel.tools.errors import InvalidInput
from gavel.tools.evaluation.figures import figures, headline

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
# Scores are stored as the tool gave them; a move below this is rounding, not a change.
SCORE_EPSILON = 1e-6
# How much of an item's id a line of text shows.
ID_CHARS = 80


class ItemChange(BaseModel):
    id: str
    verdict_before: str
    verdict_after: str
    score_before: float | None
    score_after: float | None
    delta: float | None  # after - before, when both have a score


class FigureChange(BaseModel):
    figure: str
    before: float | None
    after: float | None
    delta: float | None


class Comparison(BaseModel):
    previous: str  # the earlier run's directory
    previous_created_at: str | None
    changed: list[ItemChange]
    added: list[str]
    removed: list[str]
    unchanged: int
    figures: list[FigureChange]

    def render_text(self) -> str:
        lines = [
            f"compared with {self.previous}: {len(self.changed)} changed, {self.unchanged} unchanged, "
            f"{len(self.added)} added, {len(self.removed)} removed"
        ]
        for f in self.figures:
            lines.append(f"  {f.figure}: {_num(f.before)} -> {_num(f.after)} ({_signed(f.delta)})")
        for c in self.changed:
            shown = terminal_line(c.id, ID_CHARS)  # a dataset's id, bound for the terminal
            lines.append(
                f"  {shown}: {c.verdict_before} {_num(c.score_before)} -> {c.verdict_after} {_num(c.score_after)}"
            )
        return "\n".join(lines)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def read_run(directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """An earlier run's rows and summary; refused with what to give when it is not one."""
    results = directory / RESULTS
    if not results.is_file():
        raise InvalidInput(f"--compare {directory}: no {RESULTS} there; give the --out DIR of an earlier run")
    rows: list[dict[str, Any]] = []
    # By the file's own lines: a result's text may hold U+2028 or U+0085, which str.splitlines() would break at.
    with results.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                rows.append(_json(line, f"{RESULTS} line {number}", directory))
    summary_path = directory / SUMMARY
    summary = _json(summary_path.read_text(encoding="utf-8"), SUMMARY, directory) if summary_path.is_file() else {}
    return rows, summary


def _json(text: str, where: str, directory: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"--compare {directory}: {where} is not JSON ({exc.msg}, column {exc.colno}); give the --out DIR of an "
            "earlier run, as gavel eval wrote it"
        ) from None


def compare(
    tool: str, rows: list[dict[str, Any]], previous_rows: list[dict[str, Any]], previous: dict[str, Any], where: str
) -> Comparison:
    earlier_tool = previous.get("tool", tool)
    if earlier_tool != tool:
        raise InvalidInput(f"--compare {where}: that run judged with {earlier_tool}, this one with {tool}")
    before = {row["id"]: headline(tool, row) for row in previous_rows}
    after = {row["id"]: headline(tool, row) for row in rows}
    changed = []
    for item_id, now in after.items():
        then = before.get(item_id)
        if then is None:
            continue
        moved = (then.score is None) != (now.score is None) or (
            then.score is not None and now.score is not None and abs(now.score - then.score) > SCORE_EPSILON
        )
        if then.verdict != now.verdict or moved:
            delta = None if then.score is None or now.score is None else round(now.score - then.score, 4)
            changed.append(ItemChange(id=item_id, verdict_before=then.verdict, verdict_after=now.verdict,
                                      score_before=then.score, score_after=now.score, delta=delta))  # fmt: skip
    now_figures, then_figures = figures(tool, rows), figures(tool, previous_rows)
    return Comparison(
        previous=where,
        previous_created_at=previous.get("created_at"),
        changed=changed,
        added=[i for i in after if i not in before],
        removed=[i for i in before if i not in after],
        unchanged=sum(1 for i in after if i in before) - len(changed),
        figures=[
            FigureChange(
                figure=name, before=then_figures.get(name), after=value,
                delta=None if value is None or then_figures.get(name) is None else round(value - then_figures[name], 4),
            )
            for name, value in now_figures.items()
        ],
    )  # fmt: skip
