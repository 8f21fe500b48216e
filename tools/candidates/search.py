"""When the two greedy passes miss a diversity target: a pick of the same size that meets more targets at the
least score loss, and for every target still unmet, why.

A better pick is judged, in order, by the number of targets it meets, then by its total score (an exact sum,
`math.fsum`), then by its ranks: of two sets with equal totals the one whose ranks, best first, come first wins
(ranks 1, 2, 5 before 1, 3, 4). The passes' pick stands unless a set meets strictly more targets, so wherever
the passes meet every target, or as many as can be met, the source design's output is Gavel's.

Candidates with the same values on every target attribute are interchangeable for the targets, and a best set
takes the better-ranked of them first, so only the best `size` of each such group are searched over. The search
is exhaustive while the number of sets is at most EXHAUSTIVE_SETS, and beyond it a bounded swap search from the
passes' pick; the result says which ran, so "no set meets it" is claimed only when every set was examined.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from gavel.tools.candidates.values import canonical_key

# Sets of `size` examined one by one at most (about 0.3 s of CPU in a worker thread for two targets).
EXHAUSTIVE_SETS = 100_000
# Swaps the bounded search evaluates at most, and candidate checks the "would need N picks" count makes at most.
SWAPS_MAX = 200_000
COVER_STEPS_MAX = 200_000
# How far above top_k the count goes before it only says "more than top_k".
COVER_EXTRA_PICKS = 20

NO_VALUE = -1


@dataclass(frozen=True)
class Search:
    """What the search after the passes did and found."""

    method: Literal["exhaustive", "swaps", "none"]  # none: every missed target is out of reach on its own
    exact: bool  # every same-size set was examined (or none could meet more), so its answer is proven
    examined: int  # sets (exhaustive), or candidates and swaps considered (swaps)
    pool: int  # candidates searched over, after keeping the best `size` of each interchangeable group
    passes_met: int  # targets the passes' pick meets
    found: tuple[int, ...] | None  # a pick meeting more targets (indices, best rank first); None if none
    found_met: int = 0
    reasons: dict[str, str] = field(default_factory=dict)  # attribute -> why its target stays unmet


@dataclass
class _Space:
    """The eligible candidates as the targets see them: per pool member, one value id per target attribute."""

    attrs: list[str]
    wants: list[int]
    pool: list[int]  # candidate indices, best rank first
    values: list[tuple[int, ...]]  # per pool member: a value id per attribute, NO_VALUE when it has none
    scores: list[float]
    available: list[int]  # distinct values per attribute among all the eligible

    def distinct(self, members: Sequence[int], a: int) -> int:
        seen = {self.values[m][a] for m in members}
        seen.discard(NO_VALUE)
        return len(seen)

    def met(self, members: Sequence[int]) -> int:
        return sum(1 for a, want in enumerate(self.wants) if self.distinct(members, a) >= want)

    def met_attrs(self, members: Sequence[int]) -> list[int]:
        return [a for a, want in enumerate(self.wants) if self.distinct(members, a) >= want]


def search(
    order: Sequence[int],
    candidates: Sequence[Mapping[str, Any]],
    targets: Mapping[str, int],
    scores: Sequence[float | None],
    passes: Sequence[int],
) -> Search:
    """Look for a pick of len(passes) candidates from `order` (eligible, best first) meeting more targets."""
    size = len(passes)
    space = _space(order, candidates, targets, scores, size)
    position = {index: m for m, index in enumerate(space.pool)}
    # Every pick of the passes is in the pool: they take at most `size` of a group, and the best ones first.
    start = [position[i] for i in passes]
    passes_met = space.met(start)
    reachable = [a for a, want in enumerate(space.wants) if space.available[a] >= want and size >= want]
    if passes_met >= len(reachable):
        outcome = Search("none", True, 0, len(space.pool), passes_met, None)
    elif math.comb(len(space.pool), size) <= EXHAUSTIVE_SETS:
        outcome = _exhaustive(space, size, passes_met)
    else:
        outcome = _swaps(space, start, passes_met)
    final = [position[i] for i in outcome.found] if outcome.found is not None else start
    outcome.reasons.update(_reasons(space, final, size, outcome))
    return outcome


def _space(
    order: Sequence[int],
    candidates: Sequence[Mapping[str, Any]],
    targets: Mapping[str, int],
    scores: Sequence[float | None],
    size: int,
) -> _Space:
    attrs = list(targets)
    ids: list[dict[Any, int]] = [{} for _ in attrs]
    taken: dict[tuple[int, ...], int] = {}
    pool: list[int] = []
    values: list[tuple[int, ...]] = []
    pool_scores: list[float] = []
    for index in order:
        signature = []
        for a, attr in enumerate(attrs):
            value = candidates[index].get(attr)
            signature.append(NO_VALUE if value is None else ids[a].setdefault(canonical_key(value), len(ids[a])))
        key = tuple(signature)
        if taken.get(key, 0) >= size:
            continue
        taken[key] = taken.get(key, 0) + 1
        score = scores[index]
        if score is None:
            raise RuntimeError(f"candidate {index} has no score but is eligible")
        pool.append(index)
        values.append(key)
        pool_scores.append(score)
    return _Space(attrs, [targets[a] for a in attrs], pool, values, pool_scores, [len(d) for d in ids])


def _exhaustive(space: _Space, size: int, passes_met: int) -> Search:
    """Every set of `size` in lexicographic order of ranks, so the first of equal value is the better-ranked."""
    best: tuple[int, ...] | None = None
    best_met, best_total = passes_met, -math.inf
    examined = 0
    for members in combinations(range(len(space.pool)), size):
        examined += 1
        met = space.met(members)
        if met <= passes_met or met < best_met:
            continue
        total = math.fsum(space.scores[m] for m in members)
        # Strictly better only: of equal sets the first in rank order was seen first.
        if best is None or met > best_met or total > best_total:
            best, best_met, best_total = members, met, total
    found = tuple(space.pool[m] for m in best) if best is not None else None
    return Search("exhaustive", True, examined, len(space.pool), passes_met, found, best_met if found else 0)


def _swaps(space: _Space, start: Sequence[int], passes_met: int) -> Search:
    """Hill-climb from the passes' pick by swapping one member for a non-member that brings a value some short
    target lacks, each step raising (targets met, distinct values toward the targets, total score). Each swap is
    weighed from per-attribute value counts, so one costs a step per target, not per member."""
    current = list(start)
    wants = space.wants
    counts: list[dict[int, int]] = [{} for _ in wants]
    for m in current:
        for a, v in enumerate(space.values[m]):
            if v != NO_VALUE:
                counts[a][v] = counts[a].get(v, 0) + 1
    total = math.fsum(space.scores[m] for m in current)
    examined = 0

    def value_after(out: int, entering: int) -> tuple[int, int, float]:
        met = progress = 0
        for a, want in enumerate(wants):
            gone, new = space.values[out][a], space.values[entering][a]
            distinct = len(counts[a])
            if gone != new:
                distinct -= gone != NO_VALUE and counts[a][gone] == 1
                distinct += new != NO_VALUE and new not in counts[a]
            met += distinct >= want
            progress += min(distinct, want)
        return met, progress, total - space.scores[out] + space.scores[entering]

    now = (space.met(current), sum(min(len(c), w) for c, w in zip(counts, wants, strict=True)), total)
    improved = True
    while improved and examined < SWAPS_MAX:
        improved = False
        inside = set(current)
        short = [a for a, want in enumerate(wants) if len(counts[a]) < want]
        for entering in range(len(space.pool)):
            examined += 1
            if examined >= SWAPS_MAX:
                break
            row = space.values[entering]
            if entering in inside or not any(row[a] != NO_VALUE and row[a] not in counts[a] for a in short):
                continue
            best_out, best_value = None, now
            for slot, out in enumerate(current):
                examined += 1
                trial = value_after(out, entering)
                if trial > best_value:
                    best_out, best_value = slot, trial
            if best_out is not None:
                out = current[best_out]
                for a in range(len(wants)):
                    gone, new = space.values[out][a], row[a]
                    if gone != NO_VALUE:
                        counts[a][gone] -= 1
                        if not counts[a][gone]:
                            del counts[a][gone]
                    if new != NO_VALUE:
                        counts[a][new] = counts[a].get(new, 0) + 1
                current[best_out] = entering
                current.sort()
                total = math.fsum(space.scores[m] for m in current)
                now, improved = (best_value[0], best_value[1], total), True
                break
    found = tuple(space.pool[m] for m in current) if now[0] > passes_met else None
    return Search("swaps", False, examined, len(space.pool), passes_met, found, now[0] if found else 0)


def _reasons(space: _Space, final: Sequence[int], size: int, outcome: Search) -> dict[str, str]:
    """Why each target the final pick misses stays unmet, as exactly as the search can tell."""
    met = space.met_attrs(final)
    reasons: dict[str, str] = {}
    for a, want in enumerate(space.wants):
        if a in met:
            continue
        attr = space.attrs[a]
        if space.available[a] < want:
            reasons[attr] = f"the eligible candidates offer only {space.available[a]} distinct value(s)"
        elif size < want:
            # Fewer eligible than top_k would have offered fewer values (the branch above), so size is top_k here.
            reasons[attr] = f"top_k {size} picks hold at most {size} distinct value(s)"
        else:
            reasons[attr] = _joint_reason(space, met, a, size, outcome)
    return reasons


def _joint_reason(space: _Space, met: Sequence[int], a: int, size: int, outcome: Search) -> str:
    """The target is reachable on its own: it clashes with the targets the pick meets."""
    others = " and ".join(repr(space.attrs[m]) for m in met)
    together = f"meeting {space.attrs[a]!r} together with {others}" if others else f"meeting {space.attrs[a]!r}"
    if not outcome.exact:
        return (
            f"the bounded search ({outcome.examined} swaps over {outcome.pool} candidates) found no {size} picks "
            f"{together.removeprefix('meeting ')}; it was not proven impossible"
        )
    need = _fewest_picks(space, [*met, a], size)
    if need is None:
        return f"{together} needs more than {size} picks (every set of {size} was checked)"
    return f"{together} would need {need} picks, not {size}"


def _fewest_picks(space: _Space, wanted: Sequence[int], size: int) -> int | None:
    """The fewest picks meeting every target in `wanted`, above `size`; None when the step budget ran out.

    In a smallest such set, taken in rank order, each pick brings a value some still-short target lacks (one
    that brings none could be dropped), so the depth-first search only adds such picks.
    """
    steps = 0

    def reach(begin: int, slots: int, have: list[frozenset[int]]) -> bool:
        nonlocal steps
        short = [a for a in wanted if len(have[a]) < space.wants[a]]
        if not short:
            return True
        if slots == 0 or any(len(have[a]) + slots < space.wants[a] for a in short):
            return False
        for m in range(begin, len(space.pool)):
            steps += 1
            if steps > COVER_STEPS_MAX:
                return False
            row = space.values[m]
            if not any(row[a] != NO_VALUE and row[a] not in have[a] for a in short):
                continue
            grown = [h | {row[a]} if a in wanted and row[a] != NO_VALUE else h for a, h in enumerate(have)]
            if reach(m + 1, slots - 1, grown):
                return True
        return False

    # One value per pick at worst; the depth stays well inside Python's recursion limit.
    upper = min(sum(space.wants[a] for a in wanted), size + COVER_EXTRA_PICKS)
    for picks in range(size + 1, upper + 1):
        if reach(0, picks, [frozenset() for _ in space.wants]):
            return picks
        if steps > COVER_STEPS_MAX:
            return None
    return None
