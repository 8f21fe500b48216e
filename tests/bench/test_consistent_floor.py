"""bench.consistent_floor recounts coherence from stored readings: a higher floor drops the false flags a longer
good text collects, and with them the real contradiction's weight."""

from __future__ import annotations

from bench.consistent_floor import at_floor


def item(version: str, flags: list[float], **scores: float) -> dict:
    base = {"specificity": 5.0, "completeness": 5.0, "coherence": 0.0, "accuracy": 5.0, **scores}
    return {
        "case": "c", "version": version, "scores": base, "passed": False, "seconds": 1.0,
        "findings": {"coherence": [{"item": "s", "p_mistake": p} for p in flags]},
    }  # fmt: skip


ITEMS = [
    item("good", [0.75, 0.75, 0.75]),
    item("specificity", [0.75, 0.75, 0.75], specificity=1.0),
    item("completeness", [0.75], completeness=4.6),
    item("coherence", [0.88, 0.75, 0.75, 0.75]),
    item("accuracy", [0.75, 0.75, 0.75], accuracy=4.0),
]


def test_a_higher_floor_stops_counting_a_true_sentences_flags_and_so_stops_favouring_the_shorter_text():
    low, high = at_floor(ITEMS, 0.5), at_floor(ITEMS, 0.8)
    assert (low["pairs_good_higher"], high["pairs_good_higher"]) == (3, 4)  # the completeness version, at 0.5
    assert low["coherence_version_below"] == high["coherence_version_below"] == 1
    assert (low["coherence_versions_below_threshold"], high["coherence_versions_below_threshold"]) == (1, 0)
