"""When the two greedy passes miss a diversity target: a pick of the same size that meets more targets at the
least score loss, and for every target still unmet, why.

A better pick is judged, in order, by the number of targets it meets, then by its total score (an exact sum,
`math.fsum`), then by its ranks: of two sets with equal totals the one whose ranks, best first, come first wins
(ranks 1, 2, 5 before 1, 3, 4). The passes' pick stands unless a set meets strictly more targets, so wherever
the passes meet every target, or as many as can be met, Gavel picks what the recommender's two passes pick.

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
    """Hill-climb from the passes' pick, one swap of a member for a non-member at a time, each raising (targets
    met, distinct values toward the targets, total score). First the scan goes round the pool for candidates
    bringing a value some short target lacks, resuming after each swap, until a full round makes none; then
    one pass over the candidates scoring above the weakest member trades score where no target loses."""
    climb = _Climb(space, start)
    entering, unchanged = -1, 0
    while unchanged < len(space.pool) and climb.steps < SWAPS_MAX:
        entering = (entering + 1) % len(space.pool)
        unchanged += 1
        climb.steps += 1
        if climb.brings_short_value(entering) and climb.try_enter(entering):
            unchanged = 0
    weakest = min(space.scores[m] for m in climb.current)
    for entering in range(len(space.pool)):
        climb.steps += 1
        if climb.steps >= SWAPS_MAX or space.scores[entering] <= weakest:
            break
        if climb.try_enter(entering):
            weakest = min(space.scores[m] for m in climb.current)
    current = sorted(climb.current)
    met = climb.now[0]
    found = tuple(space.pool[m] for m in current) if met > passes_met else None
    return Search("swaps", False, climb.steps, len(space.pool), passes_met, found, met if found else 0)


class _Climb:
    """The swap search's state: the members, their value counts per attribute, and the objective reached.

    A swap is weighed from the counts, so it costs a step per target, not per member."""

    def __init__(self, space: _Space, start: Sequence[int]) -> None:
        self.space = space
        self.current = list(start)
        self.counts: list[dict[int, int]] = [{} for _ in space.wants]
        for m in self.current:
            self._count(m, 1)
        self.steps = 0
        self.now = self._value()

    def _count(self, member: int, change: int) -> None:
        for a, v in enumerate(self.space.values[member]):
            if v == NO_VALUE:
                continue
            left = self.counts[a].get(v, 0) + change
            if left:
                self.counts[a][v] = left
            else:
                del self.counts[a][v]

    def _value(self) -> tuple[int, int, float]:
        wants = self.space.wants
        distinct = [len(c) for c in self.counts]
        met = sum(1 for d, w in zip(distinct, wants, strict=True) if d >= w)
        progress = sum(min(d, w) for d, w in zip(distinct, wants, strict=True))
        return met, progress, math.fsum(self.space.scores[m] for m in self.current)

    def brings_short_value(self, entering: int) -> bool:
        row = self.space.values[entering]
        return entering not in self.current and any(
            len(self.counts[a]) < want and row[a] != NO_VALUE and row[a] not in self.counts[a]
            for a, want in enumerate(self.space.wants)
        )

    def _after(self, out: int, entering: int) -> tuple[int, int, float]:
        met = progress = 0
        for a, want in enumerate(self.space.wants):
            gone, new = self.space.values[out][a], self.space.values[entering][a]
            distinct = len(self.counts[a])
            if gone != new:
                distinct -= gone != NO_VALUE and self.counts[a][gone] == 1
                distinct += new != NO_VALUE and new not in self.counts[a]
            met += distinct >= want
            progress += min(distinct, want)
        return met, progress, self.now[2] - self.space.scores[out] + self.space.scores[entering]

    def try_enter(self, entering: int) -> bool:
        """Swap `entering` for the member whose leaving serves the objective best, if that raises it."""
        if entering in self.current:
            return False
        best_slot, best = None, self.now
        for slot, out in enumerate(self.current):
            self.steps += 1
            trial = self._after(out, entering)
            if trial > best:
                best_slot, best = slot, trial
        if best_slot is None:
            return False
        self._count(self.current[best_slot], -1)
        self._count(entering, 1)
        self.current[best_slot] = entering
        self.now = self._value()
        return True


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
            f"the bounded search ({outcome.examined} steps over {outcome.pool} candidates) found no {size} picks "
            f"{together}; it was not proven impossible"
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
