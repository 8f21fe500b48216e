"""The page `gavel eval` writes as DIR/report.html: figures, score distributions, the diff against an earlier run,
and one card per item."""

from __future__ import annotations

from typing import Any

from gavel.tools.evaluation.compare import Comparison
from gavel.tools.evaluation.figures import FIGURES
from gavel.tools.report import charts
from gavel.tools.report.cards import card
from gavel.tools.report.page import charts_block, document, esc, figure_table, filters, num

# Where each tool's per-metric scores are, for the box plot.
_METRICS = {
    "judge_rag_answer": lambda r: [r[d] for d in ("relevance", "completeness", "accuracy", "source_attribution",
                                                  "coherence")],
    "judge_rag_answers": lambda r: [a[d] for a in r["results"] for d in ("relevance", "completeness", "accuracy",
                                                                          "source_attribution", "coherence")],
    "evaluate_assessment": lambda r: r["scores"],
    "refine_until_pass": lambda r: r["final_evaluation"]["scores"],
}  # fmt: skip


def _metric_values(tool: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    read = _METRICS.get(tool)
    if read is None:
        return []
    return [
        {"metric": m.get("name") or m["metric"], "score": m["score"]}
        for row in rows
        if row.get("result") is not None
        for m in read(row["result"])
        if m.get("score") is not None
    ]


def _diff(comparison: Comparison, rows: list[dict[str, Any]]) -> tuple[str, dict[str, Any] | None]:
    figures = "".join(
        # No colour for up or down: a higher rate is better for approved_rate, worse for error_rate.
        f"<tr><th>{esc(f.figure)}</th><td>{num(f.before)}</td><td>{num(f.after)}</td>"
        f"<td>{'n/a' if f.delta is None else f'{f.delta:+.3f}'}</td></tr>"
        for f in comparison.figures
    )
    changed = "".join(
        f'<tr><td><a href="#item-{esc(c.id)}">{esc(c.id)}</a></td><td>{esc(c.verdict_before)}</td>'
        f"<td>{esc(c.verdict_after)}</td><td>{num(c.score_before)}</td><td>{num(c.score_after)}</td>"
        f"<td>{'n/a' if c.delta is None else f'{c.delta:+.3f}'}</td></tr>"
        for c in comparison.changed
    )
    html = (
        f"<h2>Changes since {esc(comparison.previous)}</h2>"
        f'<p class="meta">{len(comparison.changed)} changed, {comparison.unchanged} unchanged, '
        f"{len(comparison.added)} added, {len(comparison.removed)} removed"
        f"{'' if not comparison.previous_created_at else ' (previous run ' + esc(comparison.previous_created_at) + ')'}"
        "</p>"
        f"<table><tr><th>figure</th><th>before</th><th>now</th><th>change</th></tr>{figures}</table>"
    )
    if changed:
        html += (
            "<table><tr><th>item</th><th>verdict before</th><th>now</th><th>score before</th><th>now</th>"
            f"<th>change</th></tr>{changed}</table>"
        )
    if comparison.added:
        html += f"<p>added: {esc(', '.join(comparison.added))}</p>"
    if comparison.removed:
        html += f"<p>removed: {esc(', '.join(comparison.removed))}</p>"
    changed_ids = {c.id for c in comparison.changed}
    before = {c.id: c.score_before for c in comparison.changed}
    points = [
        {"id": row["id"], "before": before.get(row["id"], row.get("score")), "after": row.get("score"),
         "changed": "yes" if row["id"] in changed_ids else "no"}
        for row in rows
        if row["id"] not in comparison.added
    ]  # fmt: skip
    points = [p for p in points if p["before"] is not None and p["after"] is not None]
    return html, charts.compare_scatter(points) if points else None


def eval_report(
    tool: str,
    rows: list[dict[str, Any]],
    arguments: dict[str, dict[str, Any]],
    figures: dict[str, float | None],
    meta: dict[str, Any],
    comparison: Comparison | None = None,
) -> str:
    """The whole page. `arguments`: each item's arguments by id (the text the cards show)."""
    scored = [{"id": r["id"], "score": r["score"], "verdict": r["verdict"]} for r in rows if r.get("score") is not None]
    specs: dict[str, dict[str, Any]] = {
        "chart-scores": charts.score_histogram(scored, title="Item scores"),
        "chart-verdicts": charts.verdict_bars([str(r.get("verdict")) for r in rows]),
    }
    metric_values = _metric_values(tool, rows)
    if metric_values:
        specs["chart-metrics"] = charts.metric_boxplot(metric_values)
    diff_html = ""
    if comparison is not None:
        diff_html, scatter = _diff(comparison, rows)
        if scatter is not None:
            specs["chart-compare"] = scatter
    cached = sum(1 for r in rows if r.get("cached"))
    errors = sum(1 for r in rows if r.get("result") is None)
    defs = FIGURES[tool]
    body = (
        f"<h1>gavel eval: {esc(tool)} on {esc(meta.get('data', ''))}</h1>"
        f'<p class="meta">{len(rows)} items ({cached} from the ledger, {errors} in error); judge '
        f"{esc(meta.get('judge', 'n/a'))}; {esc(meta.get('created_at', ''))}</p>"
        + figure_table([(n, num(figures.get(n)), d.description) for n, d in defs.items()])
        + "<h2>Score distributions</h2>"
        + charts_block({k: v for k, v in specs.items() if k != "chart-compare"})
        + (
            diff_html + charts_block({"chart-compare": specs["chart-compare"]})
            if "chart-compare" in specs
            else diff_html
        )
        + f"<h2>Items ({len(rows)})</h2>"
        + filters([str(r.get("verdict")) for r in rows])
        + "".join(card(tool, row, arguments.get(row["id"], {})) for row in rows)
    )
    return document(f"gavel eval: {tool}", body, specs)
