"""One card per item: its verdict and score, the text judged, and what the judge found wrong, highlighted.

judge_rag_answer: the answer's unsupported sentences marked in place (with their P(supported)); a quote the
judge gave that is not verbatim in the answer is listed under it. evaluate_assessment and refine_until_pass: the
metrics, low and unscored ones highlighted. score_candidates: the selection, unmet diversity targets and the
candidates left unscored. An item in error shows its message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gavel.tools.report.page import esc, num


def highlight(text: str, claims: list[str], support: dict[str, float | None]) -> tuple[str, list[str]]:
    """`text` as HTML with every claim found verbatim in it marked; the claims not found, to list apart."""
    spans: list[tuple[int, int, str]] = []
    missing = []
    for claim in dict.fromkeys(c for c in claims if c.strip()):
        start = text.find(claim)
        if start < 0 or any(start < end and start + len(claim) > begin for begin, end, _ in spans):
            missing.append(claim)
            continue
        spans.append((start, start + len(claim), claim))
    out, at = [], 0
    for begin, end, claim in sorted(spans):
        p = support.get(claim)
        tip = "unsupported by the passages" + ("" if p is None else f": P(supported) = {p:.2f}")
        out += [esc(text[at:begin]), f'<mark class="unsupported" title="{esc(tip)}">{esc(text[begin:end])}</mark>']
        at = end
    out.append(esc(text[at:]))
    return "".join(out), missing


def _header(row: dict[str, Any], extra: str = "") -> str:
    verdict = str(row.get("verdict", "error"))
    cached = '<span class="badge b-cached">from the ledger</span>' if row.get("cached") else ""
    eid = f'<span class="eid">{esc(row["evaluation_id"])}</span>' if row.get("evaluation_id") else ""
    return (
        f'<header><span class="id">{esc(row["id"])}</span><span class="badge b-{esc(verdict)}">{esc(verdict)}</span>'
        f'<span class="score">score {num(row.get("score"))}</span>{cached}{extra}{eid}</header>'
    )


def _metrics(scores: list[dict[str, Any]], low: set[str]) -> str:
    rows = []
    for m in scores:
        kind = "unscored" if m.get("status") == "unscored" else "low" if m.get("metric") in low else ""
        why = m.get("reason") or m.get("explanation") or ""
        rows.append(
            f'<tr class="{kind}"><td>{esc(m.get("name") or m.get("metric"))}</td><td>{num(m.get("score"), 2)}</td>'
            f"<td>{esc(m.get('status'))}{' (low)' if kind == 'low' else ''}</td><td>{esc(why)}</td></tr>"
        )
    return "<table><tr><th>metric</th><th>score</th><th>status</th><th>why</th></tr>" + "".join(rows) + "</table>"


def _text(label: str, body_html: str) -> str:
    return f'<div><b>{esc(label)}</b><div class="text">{body_html}</div></div>'


def _list(label: str, items: list[str], css: str = "") -> str:
    if not items:
        return ""
    return f"<div><b>{esc(label)}</b><ul>" + "".join(f'<li class="{css}">{esc(i)}</li>' for i in items) + "</ul></div>"


def _sources(arguments: dict[str, Any]) -> str:
    sources = arguments.get("sources") or []
    if not sources:
        return ""
    shown = "".join(
        f'<div class="text">{esc(s.get("content", s) if isinstance(s, dict) else s)}</div>' for s in sources
    )
    return f"<details><summary>sources ({len(sources)})</summary>{shown}</details>"


def _rag_answer(result: dict[str, Any], answer: str) -> str:
    support = {s["sentence"]: s.get("p_supported") for s in result.get("sentence_support", [])}
    marked, missing = highlight(answer, list(result.get("unsupported_claims", [])), support)
    dims = [result[d] for d in ("relevance", "completeness", "accuracy", "source_attribution", "coherence")]
    return (
        _text("answer (unsupported sentences marked)", marked)
        + _list("unsupported claims the judge quoted", missing, "unmet")
        + _list("issues", list(result.get("issues", [])))
        + f"<details><summary>metrics, diagnosis: {esc(result.get('diagnosis'))}</summary>"
        + _metrics([*dims, *result.get("other_metrics", [])], set())
        + "</details>"
    )


def _rag(row: dict[str, Any], arguments: dict[str, Any]) -> str:
    result = row["result"]
    return (
        _text("question", esc(arguments.get("question", "")))
        + _rag_answer(result, str(arguments.get("answer", "")))
        + _sources(arguments)
    )


def _rag_batch(row: dict[str, Any], arguments: dict[str, Any]) -> str:
    answers = {a.get("agent_name"): a.get("answer", "") for a in arguments.get("answers", []) if isinstance(a, dict)}
    parts = [_text("question", esc(arguments.get("question", "")))]
    for judged in row["result"].get("results", []):
        name = judged.get("agent_name")
        parts.append(
            f'<div><span class="badge b-{esc(judged.get("verdict"))}">{esc(judged.get("verdict"))}</span> '
            f"<b>{esc(name)}</b> score {num(judged.get('overall_score'))}</div>"
        )
        parts.append(_rag_answer(judged, str(answers.get(name, ""))))
    return "".join(parts) + _sources(arguments)


def _evaluation(evaluation: dict[str, Any]) -> str:
    return _metrics(evaluation.get("scores", []), set(evaluation.get("low_metrics", [])))


def _assessment(row: dict[str, Any], arguments: dict[str, Any]) -> str:
    return _text("text", esc(arguments.get("assessment", ""))) + _evaluation(row["result"])


def _refine(row: dict[str, Any], arguments: dict[str, Any]) -> str:
    result = row["result"]
    return (
        f"<div>stop: {esc(result.get('stop_reason'))}; revisions {esc(result.get('iterations_used'))}</div>"
        + _text("final text", esc(result.get("final_text", "")))
        + _evaluation(result.get("final_evaluation", {}))
    )


def _candidates(row: dict[str, Any], arguments: dict[str, Any]) -> str:
    result = row["result"]
    picks = "".join(
        f"<tr><td>{esc(s['rank'])}</td><td>{esc(s['name'])}</td><td>{num(s['judge_score'])}</td>"
        f"<td>{esc(s['selected_for'])}</td></tr>"
        for s in result.get("selected", [])
    )
    unmet = [f"{d['attribute']}: {d['achieved']} of {d['target']}" for d in result.get("diversity", []) if not d["met"]]
    return (
        f"<table><tr><th>rank</th><th>selected</th><th>score</th><th>for</th></tr>{picks}</table>"
        + _list("diversity targets not met", unmet, "unmet")
        + _list("unscored candidates", [f"{u['name']}: {'; '.join(u['reasons'])}" for u in result.get("unscored", [])])
        + _list("failures", [str(f) for f in result.get("failures", [])], "unmet")
    )


BODIES: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "judge_rag_answer": _rag,
    "judge_rag_answers": _rag_batch,
    "evaluate_assessment": _assessment,
    "refine_until_pass": _refine,
    "score_candidates": _candidates,
}


def card(tool: str, row: dict[str, Any], arguments: dict[str, Any], badges: str = "") -> str:
    """One item's card; `badges`: more header HTML (a calibration item's label and whether it was decided right)."""
    verdict = str(row.get("verdict", "error"))
    if row.get("result") is None:
        body = f'<div class="error">{esc(row.get("error_kind", "error"))}: {esc(row.get("error", ""))}</div>'
    else:
        body = BODIES[tool](row, arguments)
    return (
        f'<article class="card v-{esc(verdict)}" id="item-{esc(row["id"])}" data-verdict="{esc(verdict)}">'
        f"{_header(row, badges)}{body}</article>"
    )
