"""Ranking by weighted score and the music recommender's two-pass diversity selection, searched further when it
misses a target (search.py), with what they decided."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gavel.tools.candidates.display import id_list, num, show
from gavel.tools.candidates.models import DiversityOutcome
from gavel.tools.candidates.notes import Notes
from gavel.tools.candidates.plan import Plan
from gavel.tools.candidates.scoring import Scored
from gavel.tools.candidates.search import Search, search
from gavel.tools.candidates.values import canonical_key

# Pass-1 picks logged one per line; beyond this the log summarizes, so it stays bounded for a huge top_k.
PICKS_LOGGED = 50


@dataclass(frozen=True)
class Pick:
    index: int
    by_diversity: bool
    # (attribute, value) pairs that were new and wanted when the candidate was taken in pass 1.
    new_values: tuple[tuple[str, Any], ...] = ()


@dataclass
class SelectionTrace:
    picks: list[Pick]
    pass1_end: str
    search: Search | None = None  # ran when the passes missed a target
    passes: list[Pick] | None = None  # the passes' own pick, when the search replaced it


@dataclass
class Ranking:
    ranked: list[int]  # the scored candidates' indices, best first
    rank_of: dict[int, int]  # index -> 1-based rank
    eligible: list[int]  # ranked minus the rejected
    trace: SelectionTrace
    diversity: list[DiversityOutcome]


def rank(scores: Sequence[float | None]) -> tuple[list[int], dict[int, int]]:
    """The scored candidates' indices by score, descending, and each one's 1-based rank."""
    # Stable sort: ties keep input order (sorted() stays stable with reverse=True).
    ranked = sorted((i for i, s in enumerate(scores) if s is not None), key=scores.__getitem__, reverse=True)
    return ranked, {index: position + 1 for position, index in enumerate(ranked)}


def select_diverse(
    order: Sequence[int], candidates: Sequence[Mapping[str, Any]], targets: Mapping[str, int], top_k: int
) -> SelectionTrace:
    """The music recommender's selection (see the package docstring), reproduced exactly (same set, same order),
    so a caller moving from it gets the picks it got.

    `order` is the eligible candidates' indices sorted by score. Without targets: the first top_k. With
    targets, pass 1 walks the order and takes a candidate when some target attribute has a non-null value
    that is new and the attribute is still short of its target; taking it records all its non-null target
    values. Pass 2 fills the remaining slots from the top of the order. Candidates are told apart by index,
    and membership is a set lookup, so both passes are linear.
    """
    if not targets:
        return SelectionTrace([Pick(i, False) for i in order[:top_k]], "no diversity targets")
    seen: dict[str, set[Any]] = {attr: set() for attr in targets}
    short = {attr for attr, target in targets.items() if target > 0}
    taken: set[int] = set()
    picks: list[Pick] = []
    pass1_end = "walked every eligible candidate"
    for index in order:
        if len(picks) >= top_k:
            pass1_end = f"top_k ({top_k}) reached"
            break
        if not short:
            # Every target is met, and met sets only grow, so no later candidate can qualify in pass 1.
            pass1_end = "every diversity target met"
            break
        candidate = candidates[index]
        keys: list[tuple[str, Any]] = []
        new: list[tuple[str, Any]] = []
        for attr, target in targets.items():
            value = candidate.get(attr)
            if value is None:
                continue
            key = canonical_key(value)
            keys.append((attr, key))
            if len(seen[attr]) < target and key not in seen[attr]:
                new.append((attr, value))
        if new:
            picks.append(Pick(index, True, tuple(new)))
            taken.add(index)
            for attr, key in keys:
                seen[attr].add(key)
                if len(seen[attr]) >= targets[attr]:
                    short.discard(attr)
    for index in order:
        if len(picks) >= top_k:
            break
        if index not in taken:
            picks.append(Pick(index, False))
            taken.add(index)
    return SelectionTrace(picks[:top_k], pass1_end)


def select(
    order: Sequence[int],
    candidates: Sequence[Mapping[str, Any]],
    targets: Mapping[str, int],
    top_k: int,
    scores: Sequence[float | None],
) -> SelectionTrace:
    """The two passes; when they miss a target, the search for a same-size pick that meets more."""
    trace = select_diverse(order, candidates, targets, top_k)
    if all(outcome.met for outcome in diversity_outcomes(trace, candidates, targets)):
        return trace
    found = search(order, candidates, targets, scores, [pick.index for pick in trace.picks])
    if found.found is None:
        return SelectionTrace(trace.picks, trace.pass1_end, found)
    return SelectionTrace(_labelled(found.found, candidates, targets), trace.pass1_end, found, trace.picks)


def _labelled(
    indices: Sequence[int], candidates: Sequence[Mapping[str, Any]], targets: Mapping[str, int]
) -> list[Pick]:
    """A searched pick told like the passes tell theirs: walked best rank first, a candidate bringing a value a
    short target lacks is a diversity pick (listed first, with those values), any other one a score pick."""
    seen: dict[str, set[Any]] = {attr: set() for attr in targets}
    diverse: list[Pick] = []
    filled: list[Pick] = []
    for index in indices:
        candidate = candidates[index]
        new = []
        for attr, target in targets.items():
            value = candidate.get(attr)
            if value is None:
                continue
            key = canonical_key(value)
            if len(seen[attr]) < target and key not in seen[attr]:
                new.append((attr, value))
        for attr in targets:
            if candidate.get(attr) is not None:
                seen[attr].add(canonical_key(candidate[attr]))
        if new:
            diverse.append(Pick(index, True, tuple(new)))
        else:
            filled.append(Pick(index, False))
    return diverse + filled


def diversity_outcomes(
    trace: SelectionTrace, candidates: Sequence[Mapping[str, Any]], targets: Mapping[str, int]
) -> list[DiversityOutcome]:
    outcomes = []
    reasons = trace.search.reasons if trace.search is not None else {}
    for attribute, target in targets.items():
        values: dict[Any, Any] = {}
        for pick in trace.picks:
            value = candidates[pick.index].get(attribute)
            if value is not None:
                values.setdefault(canonical_key(value), value)
        outcomes.append(
            DiversityOutcome(
                attribute=attribute, target=target, achieved=len(values), values=list(values.values()),
                met=len(values) >= target, reason=reasons.get(attribute) if len(values) < target else None,
            )
        )  # fmt: skip
    return outcomes


def selection_notes(
    ranking: Ranking, candidates: Sequence[Mapping[str, Any]], plan: Plan, scored: Scored, top_k: int
) -> Notes:
    """How the candidates were ranked and picked, and where the selection fell short of the request."""
    notes = Notes()
    dupes = [cid for cid, n in Counter(scored.ids).items() if n > 1]
    if dupes:
        notes.warnings.append(
            f"{len(dupes)} id(s) appear more than once ({id_list(dupes)}); entries are told apart by 'index'"
        )
    if ranking.ranked:
        best = ranking.ranked[0]
        notes.log.append(
            f"Ranked {len(ranking.ranked)} candidate(s) by judge_score, descending; ties keep input order. Best: "
            f"{scored.ids[best]} ({num(scored.score(best))})."
        )
    notes.log += _selection_log(ranking, plan, scored, top_k)
    if len(ranking.eligible) < top_k:
        notes.warnings.append(
            f"top_k is {top_k} but only {len(ranking.eligible)} candidate(s) are eligible; selected "
            f"{len(ranking.trace.picks)}"
        )
    for outcome in ranking.diversity:
        if not outcome.met:
            notes.warn_and_log(
                f"diversity target not met for {outcome.attribute!r}: {outcome.achieved} distinct value(s) among "
                f"the selected, target {outcome.target} ({outcome.reason})"
            )
    return notes


def _selection_log(ranking: Ranking, plan: Plan, scored: Scored, top_k: int) -> list[str]:
    trace, rank_of = ranking.trace, ranking.rank_of

    def label(index: int) -> str:
        return f"{scored.ids[index]} (rank {rank_of[index]}, score {num(scored.score(index))})"

    if not plan.targets:
        ids = [label(p.index) for p in trace.picks]
        return [f"No diversity targets: selected the first {len(ids)} eligible by score: {id_list(ids)}."]
    log = [
        f"Diversity targets from the {plan.targets_source}: "
        + ", ".join(f"{a}={t}" for a, t in plan.targets.items())
        + f"; top_k {top_k}."
    ]
    passes = trace.passes if trace.passes is not None else trace.picks
    first = [p for p in passes if p.by_diversity]
    for pick in first[:PICKS_LOGGED]:
        adds = ", ".join(f"{a}={show(v)}" for a, v in pick.new_values)
        log.append(f"Pass 1 (diversity) took {label(pick.index)} for its new {adds}.")
    if len(first) > PICKS_LOGGED:
        log.append(f"Pass 1 took {len(first) - PICKS_LOGGED} more candidate(s) the same way.")
    log.append(f"Pass 1 ended ({trace.pass1_end}) with {len(first)} pick(s).")
    second = [label(p.index) for p in passes if not p.by_diversity]
    if second:
        log.append(f"Pass 2 (score) filled {len(second)} remaining slot(s) from the top: {id_list(second)}.")
    else:
        log.append("Pass 2 (score) had no slot left to fill.")
    if trace.search is not None:
        log.append(_search_log(trace.search, [p.index for p in passes], len(plan.targets), scored, label))
    return log


def _search_log(found: Search, passes: list[int], count: int, scored: Scored, label: Callable[[int], str]) -> str:
    size = len(passes)
    head = f"The passes met {found.passes_met} of {count} diversity target(s). "
    if found.method == "none":
        return head + f"No {size} picks can meet more: every target they miss is out of reach on its own."
    if found.method == "exhaustive":
        how = (
            f"Every one of the {found.examined} sets of {size} among {found.pool} candidate(s) (the best {size} of "
            "each group with equal target values) was compared"
        )
    else:
        how = (
            f"A bounded swap search from the passes' pick ({found.examined} steps over {found.pool} candidate(s)) "
            "ran, since the sets of that size were too many to compare one by one"
        )
    if found.found is None:
        proven = "" if found.exact else "; it was not proven that none exists"
        return head + how + f": none meets more, so the passes' pick stands{proven}."
    before = math.fsum(scored.score(i) for i in passes)
    after = math.fsum(scored.score(i) for i in found.found)
    change = f"a loss of {num(before - after)}" if after < before else "no score lost"
    return (
        head + how + f": {id_list([label(i) for i in found.found])} meets {found.found_met}, at a total score of "
        f"{num(after)} against the passes' {num(before)} ({change}); it replaces their pick."
    )
