"""`gavel eval --compare`: items matched by id, changed verdicts and scores, and each figure's delta."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gavel.tools.errors import InvalidInput
from gavel.tools.evaluation.compare import compare, read_run


def row(item_id: str, verdict: str, overall: float | None) -> dict[str, Any]:
    return {"id": item_id, "result": {"verdict": verdict, "overall_score": overall}}


def test_changed_added_and_removed_items_and_figure_deltas() -> None:
    before = [row("a", "approved", 0.9), row("b", "approved", 0.8), row("c", "rejected", 0.2)]
    after = [row("a", "approved", 0.9), row("b", "rejected", 0.4), row("d", "approved", 0.85)]
    found = compare("judge_rag_answer", after, before, {"tool": "judge_rag_answer"}, "runs/old")
    assert [(c.id, c.verdict_before, c.verdict_after, c.delta) for c in found.changed] == [
        ("b", "approved", "rejected", -0.4)
    ]
    assert found.added == ["d"] and found.removed == ["c"] and found.unchanged == 1
    approved = next(f for f in found.figures if f.figure == "approved_rate")
    assert (approved.before, approved.after, approved.delta) == (0.6667, 0.6667, 0.0)


def test_a_score_that_only_rounds_differently_is_unchanged() -> None:
    found = compare("judge_rag_answer", [row("a", "approved", 0.9000001)], [row("a", "approved", 0.9)], {}, "old")
    assert found.changed == [] and found.unchanged == 1


def test_a_run_of_another_tool_is_refused() -> None:
    with pytest.raises(InvalidInput, match="that run judged with evaluate_assessment"):
        compare("judge_rag_answer", [], [], {"tool": "evaluate_assessment"}, "old")


def test_a_directory_without_results_is_refused_with_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="give the --out DIR of an earlier run"):
        read_run(tmp_path)


def test_a_run_is_read_by_its_own_lines_and_a_line_that_is_not_json_is_named(tmp_path: Path) -> None:
    # U+2028 and U+0085, written raw inside a string, end no line of results.jsonl.
    (tmp_path / "results.jsonl").write_text('{"id": "case\u20281\u0085"}\n{"id": "case2"}\n', encoding="utf-8")
    rows, _ = read_run(tmp_path)
    assert [r["id"] for r in rows] == ["case\u20281\u0085", "case2"]
    (tmp_path / "results.jsonl").write_text('{"id": "case1"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"results\.jsonl line 2 is not JSON"):
        read_run(tmp_path)


def test_a_changed_items_id_is_listed_with_no_escape_sequence() -> None:
    comparison = compare("judge_rag_answer", [row("\x1b[2Jq1\n", "approved", 0.9)],
                         [row("\x1b[2Jq1\n", "rejected", 0.2)], {}, "old")  # fmt: skip
    assert comparison.render_text().splitlines()[-1] == "  \ufffd[2Jq1: rejected 0.200 -> approved 0.900"
