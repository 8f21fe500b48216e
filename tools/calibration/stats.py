"""How well a judge agrees with labels: balanced accuracy, F1, AUROC, pairwise accuracy, Spearman, the decision
cut that maximizes balanced accuracy, and percentile-bootstrap intervals.

Shared by `gavel calibrate` (tools/calibration/measure.py) and the agreement benchmark (bench/agreement.py), so the
figures a user measures on their machine are computed exactly as the published ones. Plain functions over
plain values: a labelled outcome is `(label, predicted)` where `predicted` None means the judge decided
nothing, which always counts as a wrong prediction (an undecided judge is not a right one).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

# (the true label, the judge's prediction or None when it decided nothing)
Outcome = tuple[bool, bool | None]


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def bootstrap_ci(
    units: Sequence[Any],
    statistic: Callable[[Sequence[Any]], float | None],
    *,
    resamples: int = 2000,
    seed: int = 7,
    level: float = 0.95,
) -> tuple[float | None, float | None]:
    """Percentile bootstrap CI of `statistic` over resamples (with replacement) of `units`.

    Resamples where the statistic is undefined (e.g. AUROC with one class) are skipped; None when too few
    are left to say anything.
    """
    if not units:
        return None, None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = [units[rng.randrange(len(units))] for _ in units]
        value = statistic(sample)
        if value is not None and not math.isnan(value):
            values.append(value)
    if len(values) < resamples // 10:
        return None, None
    tail = (1 - level) / 2 * 100
    return round(percentile(values, tail), 4), round(percentile(values, 100 - tail), 4)


def balanced_accuracy(outcomes: Sequence[Outcome]) -> float | None:
    """The mean of the two classes' accuracies; None unless both classes are present."""
    hits = {True: [0, 0], False: [0, 0]}  # label -> [right, total]
    for label, predicted in outcomes:
        hits[label][1] += 1
        hits[label][0] += predicted is not None and predicted == label
    if not hits[True][1] or not hits[False][1]:
        return None
    return (hits[True][0] / hits[True][1] + hits[False][0] / hits[False][1]) / 2


def f1_positive(outcomes: Sequence[Outcome]) -> float | None:
    """F1 of the positive class (label True); an undecided item is a miss (a positive) or a false alarm."""
    tp = sum(1 for label, predicted in outcomes if label and predicted is True)
    fn = sum(1 for label, predicted in outcomes if label and predicted is not True)
    fp = sum(1 for label, predicted in outcomes if not label and predicted is not False)
    if tp == 0:
        return 0.0 if outcomes else None
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return 2 * precision * recall / (precision + recall)


def auroc(higher: Sequence[float | None], lower: Sequence[float | None]) -> float | None:
    """P(a score of the class that should score higher > one of the other class), ties half, over every
    combination; None unless both classes have a scored item. A combination with an unscored item is lost, as an
    unscored pair is in `pairwise_accuracy`: left out, a judge that fails on the hard items would rank the rest
    perfectly."""
    if not any(s is not None for s in higher) or not any(s is not None for s in lower):
        return None
    wins = sum(
        0.0 if u is None or d is None else 1.0 if u > d else 0.5 if u == d else 0.0 for u in higher for d in lower
    )
    return wins / (len(higher) * len(lower))


def pairwise_accuracy(pairs: Sequence[tuple[float | None, float | None]]) -> float | None:
    """Share of (should-be-higher, should-be-lower) pairs ordered right, ties half; an unscored pair is lost."""
    if not pairs:
        return None
    total = 0.0
    for up, down in pairs:
        if up is None or down is None:
            continue
        total += 1.0 if up > down else 0.5 if up == down else 0.0
    return total / len(pairs)


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(pairs: Sequence[tuple[float, float | None]]) -> float | None:
    """Spearman's rho between (label, score) over the scored items; None with fewer than 3 or a constant side."""
    scored = [(label, score) for label, score in pairs if score is not None]
    if len(scored) < 3:
        return None
    xs, ys = _ranks([x for x, _ in scored]), _ranks([y for _, y in scored])
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def outcomes_at(items: Sequence[tuple[bool, float | None]], cut: float) -> list[Outcome]:
    """(label good, score) items as outcomes of the rule "good when score >= cut"; no score, no decision."""
    return [(good, None if score is None else score >= cut) for good, score in items]


def best_cut(items: Sequence[tuple[bool, float | None]], default: float) -> tuple[float, float | None]:
    """The cut on the score that maximizes balanced accuracy of "good when score >= cut", and that accuracy.

    Candidates are the midpoints between neighbouring distinct scores (and the default); a tie goes to the
    candidate nearest the default, so a set that cannot tell cuts apart keeps the default.
    """
    scores = sorted({score for _, score in items if score is not None})
    candidates = {default, *((a + b) / 2 for a, b in itertools.pairwise(scores))}
    if scores:
        candidates |= {scores[0], scores[-1] + 1e-9}
    best, best_value = default, balanced_accuracy(outcomes_at(items, default))
    for cut in sorted(candidates, key=lambda c: abs(c - default)):
        value = balanced_accuracy(outcomes_at(items, cut))
        if value is not None and (best_value is None or value > best_value + 1e-12):
            best, best_value = cut, value
    return best, best_value
