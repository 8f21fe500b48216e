"""bench.rag_partial: per split, how often the complete answer ranks first and reads the higher completeness; an
unscored completeness is left out of the comparison, never counted as lower."""

from __future__ import annotations

from bench.rag_partial import figures, questions


def _pair(qid: str, split: str, complete: float | None, partial: float | None, complete_first: bool) -> list[dict]:
    ranks = (1, 2) if complete_first else (2, 1)
    return [
        {"id": qid, "split": split, "kind": "complete", "rank": ranks[0], "verdict": "approved",
         "completeness": complete},
        {"id": qid, "split": split, "kind": "partial", "rank": ranks[1], "verdict": "approved",
         "completeness": partial},
    ]  # fmt: skip


def test_each_split_counts_first_places_and_higher_completeness():
    records = _pair("q1", "tune", 0.9, 0.3, True) + _pair("q2", "tune", 0.4, 0.6, False)
    records += _pair("q3", "heldout", None, 0.5, True)
    result = figures(records)
    assert result["tune"]["complete_ranked_first"] == 1 and result["tune"]["completeness_higher"] == 1
    assert result["heldout"]["complete_ranked_first"] == 1
    assert result["heldout"]["completeness_scored"] == 0 and result["heldout"]["completeness_higher"] == 0


def test_the_set_has_both_answers_and_a_split_for_every_question():
    rows = questions()
    splits = {"tune", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6"}
    assert len(rows) == 96 and {r["split"] for r in rows} == splits
    assert all(r["complete"] != r["partial"] and "[p1]" in r["complete"] and "[p1]" in r["partial"] for r in rows)
