"""bench/rag_serve.py's figures: first and second answers timed apart, an unscored verdict or a failed call counted
as a wrong prediction, and AUROC only over answers the judge scored."""

from __future__ import annotations

from bench.rag_serve import figures


def _item(hallucinated: bool, verdict: str | None, accuracy: float | None, seconds: float, first: bool) -> dict:
    item = {"hallucinated": hallucinated, "seconds": seconds, "first": first}
    if verdict is None:
        return {**item, "error": "the call failed"}
    return {**item, "verdict": verdict, "accuracy": accuracy}


def test_first_answers_are_timed_apart_and_an_undecided_answer_is_a_wrong_prediction() -> None:
    items = [
        _item(False, "approved", 0.7, 9.0, True),
        _item(True, "rejected", 0.2, 5.0, False),
        _item(True, "unscored", None, 8.0, True),
        _item(False, None, None, 4.0, False),
    ]
    summary = figures(items)
    assert summary["seconds_first_answer"] == 8.5 and summary["seconds_second_answer"] == 4.5
    assert summary["balanced_accuracy"] == 0.5  # one of each side right; the unscored and the failed one wrong
    assert summary["auroc"] == 1.0 and summary["errors"] == 1
