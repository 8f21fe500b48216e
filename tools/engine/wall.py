"""A rubric metric whose own anchors name a wall of text ("1 = A wall of text or a jumbled list; the key status is
buried...") and that states no checks: a text that is one wall of text scores that anchor, read from the text's
layout without a model call, and the explanation says so.

Read as digits, a status email's organization gave an email rewritten as one long paragraph within tenths of the
good email, and most such emails passed. Held out on 4 status emails read once, each organization version a wall:
4 of 4 read as walls and failed, none of the 16 other versions did (bench/README.md, "A wall of text read from the
layout"). Whether a text is a
wall is what the anchor names, and it can be read exactly: one block (the lines between blank lines) holds most of
the text's characters and several sentences. A text that is not a wall is read as the metric would be without this
rule: whether its parts are grouped well, or its list jumbled, is the model's to say.

Recognised by the anchor's words alone ("wall of text" in a level or the description), so a rubric whose author did
not name the wall keeps its reading: a support reply or a summary in one paragraph is often as it should be.
engine/derived_checks.py says when a metric is asked (not when its author stated checks or a question).
"""

from __future__ import annotations

import re

from gavel.tools.engine.paragraphs import layout_score
from gavel.tools.engine.scores import MetricScore
from gavel.tools.engine.sentences import every_sentence
from gavel.tools.rubrics import Metric, Rubric

_WALL = re.compile(r"\bwalls? of text\b", re.IGNORECASE)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPACE = re.compile(r"\s")
# A text is a wall when one block holds at least this share of its characters (spaces left out) and at least this
# many sentences. On the 15 read status emails the organization versions' longest block held 0.27-0.98 of the text,
# every other version's at most 0.47 (bench/README.md, "A wall of text read from the layout").
WALL_SHARE = 0.6
MIN_SENTENCES = 4


def _anchor(metric: Metric) -> float | None:
    """The lowest level whose anchor names a wall of text (the description naming it: the scale's worst level)."""
    named = [float(key) for key, label in metric.levels.items() if _WALL.search(label)]
    return min(named) if named else None


def reads(metric: Metric) -> bool:
    """Whether the metric's anchors or description name a wall of text."""
    return _anchor(metric) is not None or _WALL.search(metric.description) is not None


def longest_block(text: str) -> tuple[float, int]:
    """The longest block's share of the text's characters (spaces left out) and its number of sentences."""
    blocks = [block for block in _BLANK_LINE.split(text) if block.strip()]
    if not blocks:
        return 0.0, 0
    longest = max(blocks, key=lambda block: len(_SPACE.sub("", block)))
    total = sum(len(_SPACE.sub("", block)) for block in blocks)
    return len(_SPACE.sub("", longest)) / total, len(every_sentence(longest))


def walled(rubric: Rubric, metric: Metric, text: str) -> MetricScore | None:
    """The metric at the anchor that names a wall of text when `text` is one; None when it is not (read as before)."""
    share, sentences = longest_block(text)
    if share < WALL_SHARE or sentences < MIN_SENTENCES:
        return None
    anchor = _anchor(metric)
    score = rubric.scale.from_share(0.0) if anchor is None else anchor
    subject = rubric.prompt.subject
    explanation = (
        f"the {subject} is a wall of text: one block holds {share:.0%} of it in {sentences} sentences, and "
        f"{metric.name}'s anchors name a wall of text at {score:g}, so it scores that, read from the layout without "
        "asking the model"
    )
    return layout_score(metric, score, explanation)
