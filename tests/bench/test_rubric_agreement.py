"""bench.rubric_agreement's figures: a weaker or broken version counts as below the good one only where both were
scored, and every version's passes are counted; the essay set and its rubric file."""

from __future__ import annotations

from bench.rubric_agreement import ESSAY_BROKEN, ESSAY_RUBRIC, ESSAYS, REPO, clinical_figures, essay_figures, read_rows
from gavel.tools.rubric_registry import RubricRegistry


def _item(prompt: int, version: str, score: float | None, passed: bool | None) -> dict:
    scores = dict.fromkeys(("thesis", "evidence", "organization", "clarity"), score)
    return {"prompt_id": prompt, "version": version, "scores": scores, "average": score, "passed": passed}


def test_a_weaker_version_is_below_only_where_both_were_scored():
    items = [_item(1, "good", 4.5, True), _item(1, "rambling", 4.0, True), _item(1, "unsupported", None, None)]
    items += [_item(1, "draft", 4.6, True)]
    figures = essay_figures(items)
    assert figures["below_good"]["rambling"]["evidence"] == [1, 1]
    assert figures["below_good"]["unsupported"]["evidence"] == [0, 1]
    assert figures["below_good"]["draft"]["average"] == [0, 1]
    assert figures["passed"] == {"good": [1, 1], "rambling": [1, 1], "unsupported": [0, 1], "draft": [1, 1]}


def test_the_set_has_four_versions_of_twelve_prompts_split_in_half():
    rows = read_rows(ESSAYS)
    assert len(rows) == 48 and {r["version"] for r in rows} == {"good", *ESSAY_BROKEN}
    assert {r["prompt_id"] for r in rows if r["split"] == "tune"} == set(range(1, 7))
    assert {r["prompt_id"] for r in rows if r["split"] == "heldout"} == set(range(7, 13))


def test_the_essay_rubric_is_a_file_gavel_rubrics_dir_serves_without_checks():
    registry = RubricRegistry.load([REPO / "bench" / "data" / "rubrics"])
    rubric = registry.get(ESSAY_RUBRIC["id"])
    assert [m.id for m in rubric.metrics] == ["thesis", "evidence", "organization", "clarity"]
    assert all(m.checks is None for m in rubric.metrics) and rubric.scale.integer


def test_a_clinical_metric_left_unscored_counts_as_no_evidence_either_way():
    def item(version: str, accuracy: float | None, average: float | None) -> dict:
        return {"case": "c1", "version": version, "scores": {"accuracy": accuracy}, "average": average,
                "passed": False, "seconds": 1.0}  # fmt: skip

    figures = clinical_figures([item("good", 4.0, 4.0), item("accuracy", None, None), item("coherence", 3.0, 3.0)])
    assert figures["per_metric"]["accuracy"] == {"broken_below_good": 0, "cases": 1}
    assert figures["good_average_higher"] == {"pairs": 2, "higher": 1}
