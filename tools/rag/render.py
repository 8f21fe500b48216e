"""The RAG results as people read them: the verdict card, the batch table and the one-line summaries."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gavel.tools.common import flags_line, one_line, table_cell
from gavel.tools.engine.scores import MetricScore
from gavel.tools.rubrics import Rubric

if TYPE_CHECKING:
    from gavel.tools.rag.reference import ReferenceFigure
    from gavel.tools.rag.verdicts import Diagnosis, RagBatchResult, RagJudgment, Verdict

_CONFIDENCE_LABELS = {"sample_spread": "sample spread", "probability_margin": "probability margin"}


def card(result: RagJudgment) -> str:
    who = f"{one_line(result.agent_name, 100)}: " if result.agent_name else ""
    conf = ""
    if result.confidence is not None:
        label = _CONFIDENCE_LABELS.get(result.confidence_source or "", "judge-stated")
        conf = f" · confidence {result.confidence:.2f} ({label})"
    lines = [
        f"{who}{result.verdict.upper().replace('_', ' ')} · overall {fmt(result.overall_score)} · "
        f"context {result.evaluation_context}{conf}",
        f"why: {result.verdict_reason}",
    ]
    for score in [*result.dimensions(), *result.other_metrics]:
        lines.append(f"  {score.metric:<18} {_score_cell(score):<9} {one_line(_score_note(score), 120)}")
    cited = f" (cited: {', '.join(result.cited_source_ids)})" if result.cited_source_ids else ""
    grounded = {True: "yes", False: "no", None: "undecided"}[result.is_grounded]
    facts = f"has_sources: {'yes' if result.has_sources else 'no'}{cited} · is_grounded: {grounded}"
    if result.unknown_citations:
        facts += f" · unknown citations: {', '.join(result.unknown_citations)}"
    lines.append(facts)
    if result.reasoning:
        # Gavel's account of the checks (with the judge's own answer to the question), or the judge's own words.
        label = "grounding" if result.decision_cut is not None else "grounding (the judge's words)"
        lines.append(f"{label}: {one_line(result.reasoning, 300)}")
    lines += reference_lines(result)
    lines.append(f"diagnosis: {result.diagnosis} — {result.diagnosis_reason}")
    if result.issues:
        lines.append("issues:")
        lines += [f"- {one_line(issue, 200)}" for issue in result.issues]
    lines += [f"read another way: {one_line(fallback, 200)}" for fallback in result.fallbacks]
    tail = {"flags": ", ".join(result.flags), "error": result.error, "narrative (the judge's words)": result.narrative}
    lines += [f"{label}: {text}" for label, text in tail.items() if text]
    return "\n".join(lines)


def reference_lines(result: RagJudgment) -> list[str]:
    """The figures read against the reference answer, when one was given; they do not change the verdict."""
    lines = []
    for name, figure in (("answer_correctness", result.answer_correctness), ("context_recall", result.context_recall)):
        if figure is not None:
            lines.append(f"{name} (vs the reference, informs only): {_figure(figure)}")
    return lines


def _figure(figure: ReferenceFigure) -> str:
    if figure.score is None:
        return f"unscored — {figure.reason}"
    text = f"{figure.score:.3g} — {figure.explanation}"
    if figure.unsupported:
        text += f"; unsupported: {'; '.join(f'“{one_line(s, 120)}”' for s in figure.unsupported[:3])}"
    return text


def table(batch: RagBatchResult) -> str:
    graded = any(item.answer_correctness is not None for item in batch.results)
    extra = (" correctness |", "---|") if graded else ("", "")
    lines = [
        batch.summary,
        "",
        f"| # | agent | verdict | overall | completeness |{extra[0]} diagnosis | first issue |",
        f"|---|---|---|---|---|{extra[1]}---|---|",
    ]
    for rank, item in enumerate(batch.results, 1):
        first = table_cell(item.issues[0], 100) if item.issues else "-"
        correctness = f" {_correctness_cell(item)} |" if graded else ""
        lines.append(
            f"| {rank} | {table_cell(item.agent_name or '')} | {item.verdict} | {fmt(item.overall_score)} | "
            f"{_score_cell(item.completeness)} |{correctness} {item.diagnosis} | {first} |"
        )
    # Why a lower overall can rank higher (orchestration.rank_key).
    lines += [
        "",
        "Ranked by verdict, then by the overall score plus completeness where the rubric weighs it; unscored last.",
    ]
    recall = next((item.context_recall for item in batch.results if item.context_recall is not None), None)
    if recall is not None:
        lines += ["", f"context_recall (vs the reference, informs only): {_figure(recall)}"]
    lines += flags_line(batch.flags)
    return "\n".join(lines)


def _correctness_cell(item: RagJudgment) -> str:
    figure = item.answer_correctness
    if figure is None:
        return "-"
    return fmt(figure.score) if figure.score is not None else "unscored"


def summary(
    agent_name: str | None, verdict: Verdict, context: str, rubric: Rubric, reason: str, diagnosis: Diagnosis
) -> str:
    """One answer's headline. The verdict's reason states the overall score whenever there is one (every verdict
    rule compares it), so the headline does not say it again."""
    who = f"{one_line(agent_name, 100)}: " if agent_name else ""
    return f"{who}{verdict} ({context}, {rubric.id} v{rubric.version}): {reason}; diagnosis {diagnosis}"


def batch_summary(results: list[RagJudgment], context: str, rubric: Rubric, best: str | None) -> str:
    counts = {
        v: sum(1 for r in results if r.verdict == v) for v in ("approved", "needs_improvement", "rejected", "unscored")
    }
    tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    return (
        f"{len(results)} answers judged ({context}, {rubric.id} v{rubric.version}): {tally}; "
        f"best: {best or 'none approved'}"
    )


def fmt(value: float | None) -> str:
    return f"{value:.3g}" if value is not None else "n/a"


def _score_cell(score: MetricScore) -> str:
    if score.status == "not_applicable":
        return "n/a"
    if score.score is None:
        return "unscored"
    # Probability readouts are real numbers: three significant digits say all the model's distribution does.
    return f"{score.score:.3g}"


def _score_note(score: MetricScore) -> str:
    if score.status == "scored":
        return (
            f"{score.reason}. {first_sentence(score.explanation)}"
            if score.reason
            else first_sentence(score.explanation)
        )
    return score.reason or ""


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", text)
    return match.group(1) if match else text
