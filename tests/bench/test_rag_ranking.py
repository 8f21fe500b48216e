"""bench.rag_ranking: a two-answer batch's order, recomputed by verdict, then the overall alone or plus completeness."""

from __future__ import annotations

from bench.rag_ranking import tally


def _answer(verdict: str | None, overall: float | None, completeness: float | None) -> dict:
    return {"verdict": verdict, "overall": overall, "completeness": completeness}


def test_completeness_reorders_answers_of_one_verdict_only():
    same = (_answer("approved", 0.70, 0.9), _answer("approved", 0.72, 0.3))
    verdict_first = (_answer("needs_improvement", 0.90, 0.9), _answer("approved", 0.60, 0.1))
    assert tally([same, verdict_first]) == {
        "pairs": 2,
        "first_by_overall": 0,
        "first_by_overall_plus_completeness": 1,
    }


def test_an_unscored_answer_ranks_last_under_either_rule():
    pair = (_answer("unscored", None, None), _answer("rejected", 0.2, 0.1))
    assert tally([pair])["first_by_overall"] == tally([pair])["first_by_overall_plus_completeness"] == 0
