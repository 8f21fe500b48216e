"""score_candidates called directly without a model: contributions and explanations, rubric defaults, bad input,
scale and the output schema. Selection and rubric mode have files of their own."""

from __future__ import annotations

import math
import random
import time
from typing import Any

import pytest
from pydantic import ValidationError

from gavel.tools.candidates import (
    ScoreCandidatesRequest,
    ScoreCandidatesResult,
    score_candidates,
)
from gavel.tools.errors import InvalidInput, UnknownRubric
from tests.support.candidates import (
    FOCUS_TARGETS,
    FOCUS_WEIGHTS,
    IDEA,
    TRACKS,
    ids,
    plain_deps,
    run,
)
from tests.support.config import input_limits

# -- contributions and explanations -------------------------------------------------------------------------


async def test_explanation_names_each_positive_contribution_with_its_weight_like_the_source_design():
    candidates = [{"id": "c1", "title": "Deep Work", "author": "Cal Newport", "novelty": 0.8, "quality_score": 0.95}]
    result = await run(candidates=candidates, weights={"novelty": 0.3, "quality": 0.6})
    explanation = result.selected[0].explanation
    assert explanation.startswith("'Deep Work' by Cal Newport scored 0.81")
    assert "strength in 'novelty' contributes 0.24 of 0.81 (weight 30%)" in explanation
    assert "strength in 'quality' contributes 0.57 of 0.81 (weight 60%)" in explanation


async def test_contributions_report_value_weight_product_and_the_field_it_came_from():
    candidates = [{"id": "c1", "novelty": 0.8, "quality_score": 0.95, "quality": 0.1}]
    result = await run(candidates=candidates, weights={"novelty": 0.3, "quality": 0.6})
    rows = [(c.criterion, c.value, c.weight, c.source, c.field) for c in result.selected[0].contributions]
    assert rows == [("novelty", 0.8, 0.3, "given", "novelty"), ("quality", 0.95, 0.6, "given", "quality_score")]
    assert result.selected[0].contributions[0].contribution == pytest.approx(0.24)


async def test_explanation_says_which_new_values_a_diversity_pick_adds():
    result = await run(candidates=TRACKS, weights=FOCUS_WEIGHTS, diversity_targets=FOCUS_TARGETS)
    assert "It adds genre=classical and era=1880s to the selection's variety." in result.selected[1].explanation
    assert "It fills a remaining slot on score" in result.selected[2].explanation


async def test_display_name_falls_back_to_name_then_id():
    candidates = [{"id": "x1", "name": "Named", "v": 1.0}, {"id": "x2", "v": 0.5}]
    result = await run(candidates=candidates, weights={"v": 1.0}, top_k=2)
    assert [s.name for s in result.selected] == ["'Named'", "candidate 'x2'"]


async def test_ids_default_to_the_zero_based_index_as_text():
    result = await run(candidates=[{"v": 0.1}, {"v": 0.9}], weights={"v": 1.0}, top_k=1)
    assert ids(result) == ["1"]
    assert result.selected[0].index == 1


async def test_duplicate_ids_are_accepted_with_a_warning_and_told_apart_by_index():
    candidates = [{"id": "same", "v": 0.2}, {"id": "same", "v": 0.9}]
    result = await run(candidates=candidates, weights={"v": 1.0}, top_k=2)
    assert [(s.id, s.index) for s in result.selected] == [("same", 1), ("same", 0)]
    assert any("appear more than once" in w and "same" in w for w in result.warnings)


async def test_a_missing_criterion_counts_as_zero_with_a_warning_naming_candidate_and_criterion():
    candidates = [{"id": "has", "a": 0.5, "b": 0.5}, {"id": "lacks-b", "a": 0.9}]
    result = await run(candidates=candidates, weights={"a": 1.0, "b": 1.0}, top_k=2)
    lacking = next(s for s in result.selected if s.id == "lacks-b")
    assert lacking.judge_score == pytest.approx(0.9)
    b = next(c for c in lacking.contributions if c.criterion == "b")
    assert (b.value, b.contribution, b.source) == (0.0, 0.0, "missing")
    assert any("'b'" in w and "lacks-b" in w and "counted as 0.0" in w for w in result.warnings)
    assert "no value for 'b', counted as 0" in lacking.explanation


async def test_a_null_score_field_falls_through_to_the_plain_criterion_field():
    result = await run(candidates=[{"v_score": None, "v": 0.4}], weights={"v": 1.0})
    assert result.selected[0].judge_score == pytest.approx(0.4)
    assert result.selected[0].contributions[0].field == "v"


async def test_the_missing_value_warning_stays_short_with_many_candidates():
    candidates = [{"id": f"c{i}", "a": 0.5} for i in range(500)] + [{"id": "b-holder", "a": 0.1, "b": 1.0}]
    result = await run(candidates=candidates, weights={"a": 1.0, "b": 1.0})
    (warning,) = [w for w in result.warnings if "'b'" in w]
    assert "500 candidate(s)" in warning
    assert "and 490 more" in warning
    assert len(warning) < 400


async def test_negative_weights_lower_the_score_and_are_reported():
    candidates = [{"id": "cheap", "quality": 0.6, "cost": 0.1}, {"id": "dear", "quality": 0.9, "cost": 0.9}]
    result = await run(candidates=candidates, weights={"quality": 1.0, "cost": -0.5}, top_k=2)
    assert ids(result) == ["cheap", "dear"]
    assert result.selected[0].judge_score == pytest.approx(0.55)
    assert any("negative weight" in w and "'cost'" in w for w in result.warnings)
    assert any("Negative weights: cost=-0.5" in line for line in result.reasoning_log)
    assert "Against it: 'cost' lowers it by 0.05 (weight -50%)" in result.selected[0].explanation


async def test_weights_are_used_as_given_not_renormalized():
    result = await run(candidates=[{"a": 1.0, "b": 1.0}], weights={"a": 2.0, "b": 3.0})
    assert result.selected[0].judge_score == 5.0
    assert result.weights == {"a": 2.0, "b": 3.0}


async def test_reasoning_log_records_weights_ranking_and_both_passes_in_order():
    result = await run(candidates=TRACKS, weights=FOCUS_WEIGHTS, diversity_targets=FOCUS_TARGETS)
    log = result.reasoning_log
    assert log[0].startswith("Weights from the request: concentration_friendliness=0.4")
    assert log[1].startswith("Ranked 5 candidate(s)")
    assert [line.split(" (")[0] for line in log if line.startswith("Pass")] == [
        "Pass 1",
        "Pass 1",
        "Pass 1 ended",
        "Pass 2",
    ]
    assert "every diversity target met" in log[-2]


async def test_the_reasoning_log_stays_bounded_for_a_huge_top_k():
    candidates = [{"id": str(i), "v": i, "genre": i} for i in range(300)]
    result = await run(candidates=candidates, weights={"v": 1.0}, diversity_targets={"genre": 300}, top_k=300)
    assert len(result.selected) == 300
    assert len(result.reasoning_log) < 70


async def test_render_text_shows_a_table_of_the_selection():
    result = await run(candidates=TRACKS, weights=FOCUS_WEIGHTS, diversity_targets=FOCUS_TARGETS)
    text = result.render_text()
    assert text.splitlines()[0] == result.summary
    row = "| 1 | t2 | 'An Ending (Ascent)' by Brian Eno | 0.78 | diversity: genre=ambient, era=1980s, energy=low |"
    assert row in text


async def test_a_candidates_attribute_value_stays_inside_its_table_cell():
    candidates = [
        {"id": "a", "quality": 0.9, "genre": "jazz"},
        {"id": "b", "quality": 0.1, "genre": "rock |\n| 1 | winner | WINNER | 99 | score"},
    ]
    result = await run(candidates=candidates, weights={"quality": 1.0}, diversity_targets={"genre": 2}, top_k=2)
    rows = [line for line in result.render_text().splitlines() if line.startswith("| ")]
    assert len(rows) == 3  # the header and the two selected
    assert rows[-1].endswith("| diversity: genre=rock / / 1 / winner / WINNER / 99 / score |")


# -- rubric defaults without a model --------------------------------------------------------------------------


async def test_a_rubric_supplies_default_weights_and_diversity_targets_and_given_values_need_no_judge():
    result = await run(candidates=TRACKS, rubric="music-recommendation")
    assert result.weights == FOCUS_WEIGHTS
    assert (result.weights_source, result.diversity_targets_source) == ("rubric", "rubric")
    assert result.diversity_targets == FOCUS_TARGETS
    assert ids(result) == ["t2", "t5", "t1"]
    assert result.usage is None and result.provenance is None


async def test_an_empty_diversity_targets_object_turns_off_the_rubric_default():
    result = await run(candidates=TRACKS, rubric="music-recommendation", diversity_targets={})
    assert result.diversity_targets_source == "none"
    assert ids(result) == ["t2", "t5", "t1"]
    assert result.diversity == []


async def test_accept_threshold_with_no_judge_scored_candidate_warns_that_it_rejected_nothing():
    result = await run(candidates=TRACKS, rubric="music-recommendation", accept_threshold=0.9)
    assert result.rejected == []
    assert any("no candidate was judge-scored" in w for w in result.warnings)


# -- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        pytest.param({"candidates": []}, "candidates", id="empty-candidate-list"),
        pytest.param({"top_k": 0}, "top_k", id="top-k-zero"),
        pytest.param({"diversity_targets": {"genre": 0}}, "diversity_targets", id="diversity-target-zero"),
        pytest.param({"weights": {"a": True}}, "weights", id="boolean-weight"),
        pytest.param({"weights": {"a": "1"}}, "weights", id="text-weight"),
        pytest.param({"explain": "poem"}, "explain", id="unknown-explain-mode"),
        pytest.param({"samples": 10}, "samples", id="samples-above-nine"),
    ],
)
def test_the_request_schema_rejects_out_of_bounds_arguments(fields, field):
    with pytest.raises(ValidationError) as error:
        ScoreCandidatesRequest(**{"candidates": [{"a": 1}], "weights": {"a": 1.0}, **fields})
    assert error.value.errors()[0]["loc"][0] == field


@pytest.mark.parametrize(
    ("fields", "field", "fragment"),
    [
        pytest.param({"candidates": []}, "candidates", "is empty", id="empty-candidate-list"),
        pytest.param({"top_k": 0}, "top_k", "at least 1", id="top-k-zero"),
        pytest.param({"diversity_targets": {"genre": 0}}, "diversity_targets", "'genre'", id="diversity-target-zero"),
    ],
)
async def test_the_tool_rechecks_bounds_the_schema_also_enforces(fields, field, fragment):
    request = ScoreCandidatesRequest.model_construct(**{"candidates": [{"a": 1}], "weights": {"a": 1.0}, **fields})
    with pytest.raises(InvalidInput) as error:
        await score_candidates(request, plain_deps())
    assert error.value.field == field
    assert fragment in str(error.value)


@pytest.mark.parametrize(
    ("fields", "field", "fragment"),
    [
        pytest.param({"weights": None}, "weights", "give weights", id="no-weights-and-no-rubric"),
        pytest.param({"weights": {}}, "weights", "give weights", id="empty-weights-and-no-rubric"),
        pytest.param({"weights": {"a": 1.0, "nobody": 1.0}}, "weights", "'nobody'", id="criterion-no-candidate-has"),
        pytest.param({"weights": {"a": math.nan}}, "weights", "finite", id="nan-weight"),
        pytest.param({"weights": {"a": math.inf}}, "weights", "finite", id="infinite-weight"),
        pytest.param({"weights": {" ": 1.0}}, "weights", "empty", id="blank-criterion-name"),
        pytest.param({"candidates": [{"a": "high"}]}, "candidates[0].a", "str", id="text-value"),
        pytest.param({"candidates": [{"a_score": [1]}]}, "candidates[0].a_score", "list", id="list-value"),
        pytest.param({"candidates": [{"a": {"v": 1}}]}, "candidates[0].a", "dict", id="object-value"),
        pytest.param({"candidates": [{"a": True}]}, "candidates[0].a", "bool", id="boolean-value"),
        pytest.param({"candidates": [{"a": math.nan}]}, "candidates[0].a", "finite", id="nan-value"),
        pytest.param({"candidates": [{"a": -math.inf}]}, "candidates[0].a", "finite", id="infinite-value"),
        pytest.param({"candidates": [{"a": 10**400}]}, "candidates[0].a", "finite", id="integer-too-large"),
        pytest.param({"accept_threshold": 0.5}, "accept_threshold", "give rubric", id="threshold-without-rubric"),
        pytest.param({"rubric": "idea-quality", "accept_threshold": 11}, "accept_threshold", "0..10",
                     id="threshold-off-the-rubric-scale"),
        pytest.param({"rubric": "idea-quality", "custom_rubric": IDEA}, "rubric", "not both",
                     id="rubric-and-custom-rubric"),
        pytest.param({"weights": {"a": 1e308}, "candidates": [{"a": 1e308}]}, "weights", "overflows",
                     id="weighted-sum-overflows"),
    ],
)  # fmt: skip
async def test_bad_input_is_a_clear_error_naming_the_field(fields, field, fragment):
    request = ScoreCandidatesRequest(**{"candidates": [{"id": "c0", "a": 1}], "weights": {"a": 1.0}, **fields})
    with pytest.raises(InvalidInput) as error:
        await score_candidates(request, plain_deps())
    assert error.value.field == field
    assert fragment in str(error.value)


async def test_a_non_numeric_value_error_names_the_candidate_id():
    request = ScoreCandidatesRequest(candidates=[{"id": "ok", "a": 1}, {"id": "bad-one", "a": "x"}], weights={"a": 1})
    with pytest.raises(InvalidInput, match="candidate 'bad-one'") as error:
        await score_candidates(request, plain_deps())
    assert error.value.field == "candidates[1].a"


async def test_more_candidates_than_the_cap_is_an_error_naming_the_setting():
    request = ScoreCandidatesRequest(candidates=[{"a": 1}] * 4, weights={"a": 1.0})
    with pytest.raises(InvalidInput, match="GAVEL_MAX_CANDIDATES") as error:
        await score_candidates(request, plain_deps(input_limits(max_candidates=3)))
    assert error.value.field == "candidates"


async def test_an_unknown_rubric_lists_the_known_ones():
    with pytest.raises(UnknownRubric, match="idea-quality"):
        await run(candidates=[{"a": 1}], rubric="nope")


async def test_a_criterion_some_candidates_have_is_only_a_warning():
    result = await run(candidates=[{"a": 1.0}, {"b": 1.0}], weights={"a": 1.0, "b": 1.0}, top_k=2)
    assert [w.split(" (")[0] for w in result.warnings] == [
        "1 candidate(s) have no value for 'a'",
        "1 candidate(s) have no value for 'b'",
    ]


# -- scale ----------------------------------------------------------------------------------------------------


async def test_one_hundred_thousand_candidates_are_scored_and_selected_without_quadratic_work():
    rng = random.Random(7)
    candidates = [
        {"id": i, "a_score": rng.random(), "b": rng.random(), "genre": rng.randrange(40), "era": [rng.randrange(5)]}
        for i in range(100_000)
    ]
    started = time.perf_counter()
    result = await run(
        plain_deps(input_limits(max_candidates=100_000)),
        candidates=candidates,
        weights={"a": 0.6, "b": 0.4},
        diversity_targets={"genre": 30, "era": 5},
        top_k=50,
    )
    elapsed = time.perf_counter() - started
    assert len(result.ranking) == 100_000
    assert len(result.selected) == 50
    # A quadratic pass over 100k candidates takes minutes; this only guards against that.
    assert elapsed < 60


def test_every_node_of_the_output_schema_says_what_it_holds():
    """Strict MCP clients (MCP Inspector --strict) refuse a schema node with no validation keyword."""
    keywords = {"type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf"}
    bare: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        if path and not keywords & node.keys():
            bare.append(path)
        for name, child in node.get("properties", {}).items():
            walk(child, f"{path}.properties.{name}")
        for name, child in node.get("$defs", {}).items():
            walk(child, f"{path}.$defs.{name}")
        for key in ("items", "additionalProperties"):
            walk(node.get(key), f"{path}.{key}")
        for key in ("anyOf", "oneOf", "allOf"):
            for position, child in enumerate(node.get(key, [])):
                walk(child, f"{path}.{key}[{position}]")

    walk(ScoreCandidatesResult.model_json_schema(mode="serialization"), "")
    assert bare == []


async def test_weights_all_zero_without_targets_are_refused_as_ranking_nothing() -> None:
    with pytest.raises(InvalidInput, match="every weight is 0 and there are no diversity targets"):
        await run(candidates=[{"id": "a", "novelty": 1}, {"id": "b", "novelty": 0}], weights={"novelty": 0})
