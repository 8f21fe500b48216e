"""bench.user_rubrics' figures: per domain and metric, the broken version below the good one where both were scored;
and the rows it reads."""

from __future__ import annotations

from bench.user_rubrics import figures, selected_rows


def _item(case: str, version: str, scores: dict[str, float | None], passed: bool | None) -> dict:
    given = [v for v in scores.values() if v is not None]
    average = sum(given) / len(given) if given else None
    return {"case": case, "domain": "summary", "version": version, "scores": scores, "average": average,
            "passed": passed, "seconds": 1.0}  # fmt: skip


def test_a_broken_metric_counts_below_only_where_both_were_scored() -> None:
    items = [
        _item("a", "good", {"faith": 5, "brevity": 5}, True),
        _item("a", "faith", {"faith": 2, "brevity": 5}, False),
        _item("a", "brevity", {"faith": 5, "brevity": None}, None),
    ]
    found = figures(items)
    assert found["per_metric"] == {"summary.faith": [1, 1], "summary.brevity": [0, 1]}
    assert found["broken_below_good"] == [1, 2] and found["good_average_higher"] == [1, 2]
    assert found["good_passed"] == [1, 1] and found["degraded_passed"] == [0, 2]


def test_rows_come_from_several_splits_and_only_the_named_cases() -> None:
    rows = selected_rows("dev,fresh", "code-review", "code-review-retry-loop,code-review-debounce", None)
    assert {row["case"] for row in rows} == {"code-review-retry-loop", "code-review-debounce"}
    assert len(rows) == 10 and {row["domain"] for row in rows} == {"code-review"}
    assert len(selected_rows("dev", "summary", None, 3)) == 3
