"""bench.rag_partial: per split, how often the complete answer ranks first and reads the higher completeness; an
unscored completeness is left out of the comparison, never counted as lower."""

from __future__ import annotations

from bench.rag_partial import figures, kinds_of, questions

DIMS = {"relevance": 0.8, "accuracy": 0.8, "source_attribution": 0.8, "coherence": 0.8}


def _pair(
    qid: str,
    split: str,
    complete: float | None,
    partial: float | None,
    complete_first: bool,
    own=(None, None),
    overall=(None, None),
) -> list[dict]:
    """`own`: the own-answer check's P(yes) for each answer, as its explanation gives it (None: none given);
    `overall`: each answer's overall score (None: unscored)."""
    ranks = (1, 2) if complete_first else (2, 1)
    said = [f"P(yes) {p} that the answer states everything the judge's own answer says" if p else None for p in own]
    return [
        {"id": qid, "split": split, "kind": kind, "rank": rank, "verdict": "approved", "completeness": value,
         "overall": score, "completeness_explanation": why, "dimensions": {**DIMS, "completeness": value}}
        for kind, rank, value, why, score in zip(
            ("complete", "partial"), ranks, (complete, partial), said, overall, strict=True
        )
    ]  # fmt: skip


def test_each_split_counts_first_places_and_higher_completeness():
    records = _pair("q1", "tune", 0.9, 0.3, True) + _pair("q2", "tune", 0.4, 0.6, False)
    records += _pair("q3", "heldout", 0.2, 0.5, True)
    result = figures(records)
    assert result["tune"]["complete_ranked_first"] == 1 and result["tune"]["completeness_higher"] == 1
    assert result["heldout"]["complete_ranked_first"] == 1


def test_an_unscored_completeness_is_left_out_never_counted_as_lower():
    result = figures(_pair("q3", "heldout", None, 0.5, True))
    assert result["heldout"]["completeness_scored"] == 0 and result["heldout"]["completeness_higher"] == 0


def test_the_ranking_with_the_own_answer_check_alone_is_recomputed_from_its_p_yes():
    # The yes/no part lowered the partial answer's completeness to 0.3: alone, its own-answer check read 0.9.
    records = _pair("q1", "fresh7", 0.7, 0.3, True, own=(0.7, 0.9))
    assert figures(records)["fresh7"]["complete_first_own_answer_check_alone"] == 0


def test_the_ranking_by_the_overall_alone_is_recomputed_beside_the_one_the_batch_gave():
    # Ranked first by the overall plus completeness, though its overall alone is the lower.
    records = _pair("q1", "fresh17", 0.9, 0.3, True, overall=(0.70, 0.72))
    result = figures(records)["fresh17"]
    assert result["complete_ranked_first"] == 1 and result["complete_first_by_overall_alone"] == 0


def test_the_set_has_both_answers_and_a_split_for_every_question():
    rows = questions()
    splits = {"tune", "heldout", "fresh", *(f"fresh{n}" for n in range(2, 20))}
    assert len(rows) == 252 and {r["split"] for r in rows} == splits
    assert all(r["complete"] != r["partial"] and "[p1]" in r["complete"] and "[p1]" in r["partial"] for r in rows)


def test_a_set_with_a_wrong_answer_counts_it_above_the_complete_one_and_named_best():
    records = _pair("q1", "three1", 0.9, 0.3, False, overall=(0.7, 0.6))
    records[0]["rank"], records[1]["rank"] = 2, 3  # the wrong answer came first and was named best
    wrong = {**records[0], "kind": "wrong", "rank": 1, "best": True, "overall": 0.8}
    result = figures([*records, wrong])["three1"]
    assert result["complete_ranked_first"] == 0 and result["complete_first_by_overall_alone"] == 0
    assert (result["wrong_above_complete"], result["wrong_named_best"], result["partial_above_complete"]) == (1, 1, 0)


def test_the_three_answers_take_turns_at_coming_first():
    row = {"wrong": "w"}
    assert [kinds_of(row, i)[0] for i in range(3)] == ["complete", "partial", "wrong"]
    assert kinds_of({}, 1) == ["partial", "complete"]
