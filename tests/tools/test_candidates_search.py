"""The search after the two greedy passes: a same-size pick meeting more diversity targets at the least score loss,
checked against every set on small random instances, and the reason given for each target still unmet."""

from __future__ import annotations

import copy
import math
import random
import time
from itertools import combinations
from typing import Any

import pytest

from gavel.tools.candidates import ScoreCandidatesResult
from gavel.tools.candidates.search import EXHAUSTIVE_SETS
from tests.support.candidates import ids, plain_deps, run
from tests.support.config import input_limits
from tests.tools.test_candidates_selection import seed_canon, seed_met, seed_scores, seed_select

# Six laptops: by score L2 > L1 > L3 > L4 > L5 > L6. The passes take L2, L1, L3 (three brands, two sizes).
LAPTOPS: list[dict[str, Any]] = [
    {"id": "L1", "brand": "Bravo", "size": 13, "value": 0.90},
    {"id": "L2", "brand": "Acer", "size": 13, "value": 0.95},
    {"id": "L3", "brand": "Cyan", "size": 14, "value": 0.85},
    {"id": "L4", "brand": "Bravo", "size": 15, "value": 0.80},
    {"id": "L5", "brand": "Acer", "size": 14, "value": 0.70},
    {"id": "L6", "brand": "Cyan", "size": 13, "value": 0.60},
]
VALUE = {"value": 1.0}


def unmet(result: ScoreCandidatesResult) -> dict[str, str | None]:
    return {d.attribute: d.reason for d in result.diversity if not d.met}


async def test_the_laptop_example_picks_a_set_meeting_both_targets():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    assert ids(result) == ["L2", "L3", "L4"]
    assert all(d.met and d.reason is None for d in result.diversity)
    assert "NOT met" not in result.summary and result.warnings == []


async def test_the_laptop_log_keeps_the_passes_pick_and_says_what_replaced_it_at_what_loss():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    assert any(line.startswith("Pass 1 (diversity) took L1") for line in result.reasoning_log)
    line = result.reasoning_log[-1]
    assert "The passes met 1 of 2" in line and "Every one of the 20 sets of 3" in line
    assert "at a total score of 2.60 against the passes' 2.70 (a loss of 0.10); it replaces their pick" in line


async def test_a_searched_pick_is_told_as_diversity_picks_with_the_values_they_add():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    assert [s.selected_for for s in result.selected] == [
        "diversity: brand=Acer, size=13",
        "diversity: brand=Cyan, size=14",
        "diversity: brand=Bravo, size=15",
    ]
    assert "It adds brand=Bravo and size=15 to the selection's variety." in result.selected[2].explanation
    assert [r["status"] for r in result.ranking] == ["selected", "not_selected", "selected", "selected"] + [
        "not_selected"
    ] * 2


async def test_a_target_no_candidate_set_can_reach_keeps_the_passes_pick_and_says_how_many_values_exist():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3, "size": 4}, top_k=3)
    assert [s.index for s in result.selected] == seed_select(LAPTOPS, VALUE, {"brand": 3, "size": 4}, 3)
    assert ids(result) == ["L2", "L1", "L3"]
    assert unmet(result) == {"size": "the eligible candidates offer only 3 distinct value(s)"}
    assert "No 3 picks can meet more: every target they miss is out of reach on its own." in result.reasoning_log[-2]


async def test_a_target_above_top_k_says_top_k_cannot_hold_it():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3}, top_k=2)
    assert unmet(result) == {"brand": "top_k 2 picks hold at most 2 distinct value(s)"}


async def test_targets_reachable_alone_but_not_together_say_how_many_picks_both_would_need():
    # Three brands need A, B, C; three sizes exist only among brand A. Both at once take B13, C13, A14, A15.
    candidates = [
        {"id": "A13", "brand": "A", "size": 13, "value": 0.9},
        {"id": "B13", "brand": "B", "size": 13, "value": 0.8},
        {"id": "C13", "brand": "C", "size": 13, "value": 0.7},
        {"id": "A14", "brand": "A", "size": 14, "value": 0.6},
        {"id": "A15", "brand": "A", "size": 15, "value": 0.5},
    ]
    result = await run(candidates=candidates, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    assert ids(result) == ["A13", "B13", "C13"]
    assert unmet(result) == {"size": "meeting 'size' together with 'brand' would need 4 picks, not 3"}
    assert "size 1/3 (meeting 'size' together with 'brand' would need 4 picks, not 3)" in result.summary


async def test_the_reason_reaches_the_warning_and_the_text_table():
    result = await run(candidates=LAPTOPS, weights=VALUE, diversity_targets={"brand": 3, "size": 4}, top_k=3)
    reason = "the eligible candidates offer only 3 distinct value(s)"
    assert any("not met for 'size'" in w and reason in w for w in result.warnings)
    assert f"unmet diversity targets: size 2/4 ({reason})" in result.render_text()


# -- against every set, on small random instances -----------------------------------------------------------


def _small_case(rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, int], int]:
    pools = {"brand": ["a", "b", "c", "d"], "size": [13, 14, 15.0, 15], "color": ["red", "blue", None]}
    candidates = []
    for i in range(rng.randint(2, 9)):
        candidate: dict[str, Any] = {"id": f"c{i}", "value": rng.choice([0.1, 0.2, 0.3, 0.5, 0.5, 0.8, 1.0])}
        for attribute, values in pools.items():
            if rng.random() < 0.85:
                candidate[attribute] = rng.choice(values)
        candidates.append(candidate)
    targets = {a: rng.randint(1, 4) for a in rng.sample(list(pools), rng.randint(1, 3))}
    return candidates, targets, rng.randint(1, 5)


def _best_by_brute_force(
    candidates: list[dict[str, Any]], targets: dict[str, int], size: int
) -> tuple[int, float, list[tuple[int, ...]]]:
    """Over every set of `size`: the most targets met, the highest total among those, and the sets reaching both."""
    scores = seed_scores(candidates, VALUE)
    order = sorted(range(len(candidates)), key=lambda i: scores[i], reverse=True)
    rank = {index: position for position, index in enumerate(order)}
    sets = [tuple(sorted(c, key=rank.__getitem__)) for c in combinations(range(len(candidates)), size)]
    most = max(seed_met(list(s), candidates, targets) for s in sets)
    best = [s for s in sets if seed_met(list(s), candidates, targets) == most]
    top = max(math.fsum(scores[i] for i in s) for s in best)
    return most, top, [s for s in best if math.fsum(scores[i] for i in s) == top]


@pytest.mark.parametrize("seed", range(400))
async def test_the_pick_meets_as_many_targets_as_any_set_and_scores_highest_among_those(seed):
    rng = random.Random(seed)
    candidates, targets, top_k = _small_case(rng)
    result = await run(candidates=copy.deepcopy(candidates), weights=VALUE, diversity_targets=targets, top_k=top_k)
    picked = [s.index for s in result.selected]
    passes = seed_select(candidates, VALUE, targets, top_k)
    most, top, winners = _best_by_brute_force(candidates, targets, len(passes))
    assert seed_met(picked, candidates, targets) == most
    if seed_met(passes, candidates, targets) == most:
        assert picked == passes  # the design's own pick stands
        return
    scores = seed_scores(candidates, VALUE)
    assert math.fsum(scores[i] for i in picked) == top
    # Tie rule: of equal totals, the set whose ranks, best first, come first.
    ranks = {r["index"]: r["rank"] for r in result.ranking}
    assert sorted(ranks[i] for i in picked) == min(sorted(ranks[i] for i in w) for w in winners)


@pytest.mark.parametrize("seed", range(200))
async def test_every_unmet_target_has_a_reason_consistent_with_the_values_on_offer(seed):
    rng = random.Random(1000 + seed)
    candidates, targets, top_k = _small_case(rng)
    result = await run(candidates=copy.deepcopy(candidates), weights=VALUE, diversity_targets=targets, top_k=top_k)
    for outcome in result.diversity:
        if outcome.met:
            assert outcome.reason is None
            continue
        offered = {seed_canon(c[outcome.attribute]) for c in candidates if c.get(outcome.attribute) is not None}
        reason = outcome.reason or ""
        if len(offered) < outcome.target:
            assert reason == f"the eligible candidates offer only {len(offered)} distinct value(s)"
        elif len(result.selected) < outcome.target:
            assert reason.startswith(f"top_k {top_k} picks hold at most")
        else:
            assert reason.startswith(f"meeting {outcome.attribute!r} together with") and "would need" in reason


# -- beyond the exhaustive bound ----------------------------------------------------------------------------


def _many_brands(sizes_deep: dict[int, tuple[str, int]], count: int = 200) -> list[dict[str, Any]]:
    """`count` candidates with distinct brands, all size 13, except the ranks given a (brand, size) of their own."""
    out = []
    for i in range(count):
        brand, size = sizes_deep.get(i, (f"brand{i}", 13))
        out.append({"id": f"c{i}", "brand": brand, "size": size, "value": 1 - i / (count + 1)})
    return out


async def test_past_the_exhaustive_bound_a_swap_search_still_meets_both_targets():
    candidates = _many_brands({150: ("brand150", 14), 180: ("brand180", 15)})
    assert math.comb(len(candidates), 3) > EXHAUSTIVE_SETS
    result = await run(candidates=candidates, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    assert all(d.met for d in result.diversity)
    assert ids(result) == ["c0", "c150", "c180"]
    assert "A bounded swap search from the passes' pick" in result.reasoning_log[-1]


async def test_a_swap_search_that_finds_nothing_does_not_claim_it_is_impossible():
    # Sizes 14 and 15 exist only on brand A's laptops: both targets at once need four picks.
    candidates = _many_brands({150: ("A", 14), 180: ("A", 15), 190: ("A", 13)})
    result = await run(candidates=candidates, weights=VALUE, diversity_targets={"brand": 3, "size": 3}, top_k=3)
    reason = unmet(result)["size"] or ""
    assert reason.startswith("the bounded search (") and reason.endswith("it was not proven impossible")
    assert "it was not proven that none exists" in result.reasoning_log[-2]


async def test_the_search_over_one_hundred_thousand_candidates_stays_bounded():
    rng = random.Random(3)
    candidates = [
        {"id": i, "value": rng.random(), "brand": f"b{i}", "size": 13 if i % 5000 else 14 + i // 5000}
        for i in range(100_000)
    ]
    started = time.perf_counter()
    result = await run(
        plain_deps(input_limits(max_candidates=100_000)), candidates=candidates, weights=VALUE,
        diversity_targets={"brand": 50, "size": 15}, top_k=50,
    )  # fmt: skip
    assert len(result.selected) == 50
    assert time.perf_counter() - started < 30
