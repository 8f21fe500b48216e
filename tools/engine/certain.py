"""A contradiction costs at least an anchor.

A user's faithfulness metric states levels, not mistake counts ("5 = every statement can be traced to the notes",
"3 = one fact is wrong", "1 = several facts are wrong"), and is read as the share of sentences the source supports:
one sentence in ten that its notes contradict read 4.6 and passed, though the best anchor says no errors. So k facts
the source contradicts (engine/contradicted.py) place the score at most k anchors below the best: the first rules out
the best anchor, the next the one below it, and past the last anchor the worst stays. A fact a later sentence
repeats (a status email's subject line and its body) is one mistake. A quantity the source merely never states is
not enough: it is as often a good text's own count ("there are two risks") or its way of writing a date, and costing
it an anchor failed good texts twice (bench/README.md, "A certain mistake against its share").
"""

from __future__ import annotations

from collections.abc import Sequence

from gavel.tools.rubrics import Metric, Scale


def certain_mistakes(found: Sequence[Sequence[str]]) -> int:
    """How many facts the sentences' contradictions (each sentence's, in the text's order) get wrong: a sentence
    counts when it has one no earlier sentence had."""
    seen: set[str] = set()
    count = 0
    for reasons in found:
        count += not seen.issuperset(reasons)
        seen.update(reasons)
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


def at_most_anchor(scale: Scale, metric: Metric, score: float, contradicted: int, how: str) -> tuple[float, str]:
    """A share-read score no better than `contradicted` anchors below the best, and its explanation saying so when
    that lowers it."""
    anchor = anchor_below_best(scale, metric, contradicted)
    if anchor is None or (lowered := within(scale, score, anchor)) == score:
        return score, how
    facts = "a fact its source contradicts places" if contradicted == 1 else f"{contradicted} contradicted facts place"
    return lowered, f"{how}, but {facts} it at the anchor {anchor:g} (below)"
