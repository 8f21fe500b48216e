"""Injections in disguise (look-alike letters, spaced-out letters, digits for letters, base64, ROT13, invisible
tag characters, Chinese, Russian, Japanese, notes to the evaluator, orders aimed at a Yes/No judge) are all
caught, and the detector flags nothing in a corpus of ordinary text. The cases also run through the real server
in test_injection.py (flagged, never approved); `python -m bench.injection_detector` reports the same rates."""

from __future__ import annotations

import pytest

from gavel.tools.guards import detect_injection
from tests.reliability.tally import TALLY
from tests.support.detector_timing import LONGEST, MAX_GROWTH, MAX_SECONDS, TENTH, seconds_to_detect
from tests.support.injection_cases import CASES, DISGUISED
from tests.support.injection_texts import clean_corpus

DISGUISED_CASES = [pytest.param(case, id=case.id) for case in CASES if case.id in DISGUISED]


@pytest.mark.parametrize("case", DISGUISED_CASES)
def test_every_disguised_injection_is_detected(case) -> None:  # type: ignore[no-untyped-def]
    assert detect_injection(case.injected), f"{case.id} ({case.description}) was not detected"
    assert detect_injection(case.clean) == []
    TALLY["injection: disguised cases detected"] += 1


def test_the_detector_flags_nothing_in_ordinary_text() -> None:
    try:
        corpus = clean_corpus()
    except FileNotFoundError as exc:
        pytest.skip(f"the dev set (shared/data beside the checkout) is absent, so there is no clean corpus: {exc}")
    assert len(corpus) >= 200
    flagged = [(source, text[:120], findings) for source, text in corpus if (findings := detect_injection(text))]
    assert flagged == []
    TALLY["injection: clean corpus texts, none flagged"] += len(corpus)


def test_undoing_the_disguises_grows_linearly_up_to_the_longest_allowed_text() -> None:
    # Every disguise at once, repeated up to GAVEL_MAX_TEXT_CHARS' default (200,000 characters).
    chunk = "Ｔhe t0wer 1s t a l l; Ԁata SGVsbG8gd29ybGQgYWdhaW4h \U000e0041. "
    tenth, _ = seconds_to_detect(chunk, TENTH)
    longest, _ = seconds_to_detect(chunk, LONGEST)
    assert longest < MAX_SECONDS and longest / tenth < MAX_GROWTH, (tenth, longest)
