"""A mistake read with certainty costs at least an anchor.

A `supported` check marks a sentence unsupported with P 0, and asks no model, when the sentence states a quantity its
source never states (engine/quantities.py). On anchors that count mistakes that is one whole mistake. On anchors
that only describe levels ("5 = every statement can be traced to the notes", "3 = one fact is wrong", "1 = several
facts are wrong"), the share of sentences supported placed one certain mistake in ten sentences at 4.6 and passed it,
though the best anchor says no errors. So k certain mistakes place the score at most k anchors below the best: the
first certain mistake rules out the best anchor, the next the one below it, and past the last anchor the worst
stays. A figure stated again in a later sentence is the same mistake. The model's uncertain answers still move the
score within that as a share, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from gavel.tools.rubrics import Metric, Scale


def certain_mistakes(unstated: Sequence[Sequence[str]]) -> int:
    """How many facts the sentences' unstated quantities (each sentence's, in the text's order) get wrong: a sentence
    counts when it states one no earlier sentence did. A status email states its changed figure in the subject line
    and again in the body, and the anchors count wrong facts, not the sentences that repeat one."""
    seen: set[str] = set()
    count = 0
    for missing in unstated:
        count += not seen.issuperset(missing)
        seen.update(missing)
    return count


def anchor_below_best(scale: Scale, metric: Metric, steps: int) -> float | None:
    """The anchor `steps` below the metric's best (its worst past the last), or None when it states fewer than two
    anchors or `steps` is 0: then nothing says what a mistake costs."""
    if steps <= 0 or len(metric.levels) < 2:
        return None
    ordered = sorted((float(key) for key in metric.levels), reverse=scale.higher_is_better)
    return ordered[min(steps, len(ordered) - 1)]


def within(scale: Scale, score: float, anchor: float) -> float:
    """`score`, no better than `anchor`."""
    return min(score, anchor) if scale.higher_is_better else max(score, anchor)
