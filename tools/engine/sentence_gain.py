"""Which sentences of a text the source explains little: a likelihood reading told apart by sentence.

A metric read from likelihood (engine/likelihood.py) sums, over the text's tokens, how much more likely each one
is after the source than without it. The same differences summed sentence by sentence say where the nats came
from: on the clinical dev cases a vague sentence ("Mood is low.") gains a few nats, one that carries the
transcript's details ("For about three weeks … at 4 a.m. nearly every night") tens. The sentences under the
rubric's `sentence_cut` are the metric's findings, so its feedback quotes what to make concrete instead of
restating the metric (bench/README.md, "Specificity: which sentences").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gavel.tools.engine.sentences import every_sentence


@dataclass(frozen=True)
class SentenceGain:
    sentence: str
    nats: float


def sentence_gains(
    text: str, ends: Sequence[int], after: Sequence[float], without: Sequence[float]
) -> list[SentenceGain] | None:
    """Each sentence's nats: the log-probability differences of the tokens whose bytes end inside it. Tokens
    between sentences (a line break) belong to none. None when the readings do not line up with the text."""
    if not (len(ends) == len(after) == len(without)) or (ends and ends[-1] != len(text.encode("utf-8"))):
        return None
    spans = _byte_spans(text)
    gains = [0.0] * len(spans)
    at = 0
    for end, given, alone in zip(ends, after, without, strict=True):
        while at < len(spans) and end > spans[at][1]:
            at += 1
        if at == len(spans):
            break
        if end > spans[at][0]:
            gains[at] += given - alone
    return [SentenceGain(text_of, round(nats, 2)) for (_s, _e, text_of), nats in zip(spans, gains, strict=True)]


def _byte_spans(text: str) -> list[tuple[int, int, str]]:
    """Each sentence's start and end in the text's UTF-8, with the sentence."""
    spans: list[tuple[int, int, str]] = []
    cursor = 0
    for sentence in every_sentence(text):
        found = text.find(sentence, cursor)
        if found < 0:  # every sentence is a substring in order; kept safe all the same
            continue
        start = len(text[:found].encode("utf-8"))
        spans.append((start, start + len(sentence.encode("utf-8")), sentence))
        cursor = found + len(sentence)
    return spans
