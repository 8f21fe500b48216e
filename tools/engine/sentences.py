"""Deterministic sentence splitting for per-sentence checks: each sentence verbatim, citations kept with it.

Rules: every non-empty line is split on its own (list items and paragraphs are separate sentences; a leading
bullet or number is dropped); inside a line a sentence ends at . ! or ? (with any closing quotes or brackets
and any citation brackets right after it, so "in 1889. [1]" stays one sentence) when whitespace and a
character that is not lower-case follow. Abbreviations (e.g., Dr., U.S.) and single initials do not end a
sentence; decimals never do, as no space follows their point. Each sentence is a substring of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_SENTENCES = 40

_END = re.compile(r"[.!?]+[\"'”’)\]]*(?:[ \t]*\[[^\[\]\n]{1,40}\])*(?=\s|$)")
_BULLET = re.compile(r"^(?:[-*•]|\d{1,3}[.)])\s+")
_NEXT_CHARACTER = re.compile(r"\S")
_CITATION_ONLY = re.compile(r"^(?:\[[^\[\]\n]{1,40}\]\s*)+[.!?]?$")
_ABBREVIATION_TEXT = (
    "e.g i.e mr mrs ms dr st vs etc no nos fig figs approx inc ltd jr sr prof u.s u.k cf al ca est dept gen gov "
    "mt jan feb mar apr jun jul aug sep sept oct nov dec"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def _ends_sentence(line: str, start: int, match: re.Match[str]) -> bool:
    # Only the next character and the last word are read, never the rest of the line or all of it since `start`:
    # copying or searching those at every period made a 100,000-character line of "Dr. " take 97 s.
    following = _NEXT_CHARACTER.search(line, match.end())
    if following is not None and following.group(0).islower():
        return False
    if not match.group(0).startswith("."):
        return True
    begin = end = match.start()
    while begin > start and not line[begin - 1].isspace():
        begin -= 1
    if begin == end:
        return True
    token = line[begin:end].casefold().strip("(\"'“‘")
    return not (token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()))


def _split_line(line: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(line):
        if not _ends_sentence(line, start, match):
            continue
        sentence = line[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = line[start:].strip()
    if tail:
        if sentences and _CITATION_ONLY.match(tail):
            # A citation left alone after the last sentence belongs to it: "… in 1889. [1]"
            sentences[-1] = line[line.index(sentences[-1]) :].strip()
        else:
            sentences.append(tail)
    return sentences


def split_sentences(text: str) -> list[str]:
    """The text's sentences in order, each verbatim; at most MAX_SENTENCES (see `group`)."""
    return group(every_sentence(text))


def outside_code(text: str) -> Iterator[str]:
    """The text's lines, leaving out the lines of fenced code blocks and the fences themselves."""
    inside = False
    for line in text.splitlines():
        if _FENCE.match(line):
            inside = not inside
        elif not inside:
            yield line


def sentences_outside_code(text: str) -> list[str]:
    """The text's sentences, leaving out the lines of fenced code blocks and the fences themselves."""
    return split_sentences("\n".join(outside_code(text)))


def every_sentence(text: str) -> list[str]:
    """The text's sentences in order, each verbatim, however many there are."""
    sentences: list[str] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw.strip())
        if line:
            sentences += _split_line(line)
    return sentences


def group(sentences: list[str], limit: int = MAX_SENTENCES) -> list[str]:
    """At most `limit` parts: a longer answer is checked in runs of consecutive sentences, each run as one part
    (every sentence is still checked; a run is supported only when all of it is)."""
    if len(sentences) <= limit:
        return sentences
    size = -(-len(sentences) // limit)
    return [" ".join(sentences[i : i + size]) for i in range(0, len(sentences), size)]


# A sentence's leading clause is checked on its own when it says something by itself (four words or more) and
# more follows the comma: in "The capital of Australia is Sydney, its largest city." the true apposition made
# the whole sentence look supported (P 0.64) while its first claim is false.
_MIN_CLAUSE_WORDS = 4


def leading_clause(sentence: str) -> str | None:
    """The part of a sentence before its first comma, verbatim, when it is a claim of its own; else None."""
    head, comma, rest = sentence.partition(", ")
    if not comma or len(head.split()) < _MIN_CLAUSE_WORDS or len(rest.split()) < 2:
        return None
    return head.strip()


# Where one sentence joins two claims of its own: "she sleeps two hours, and she reports no sleep difficulties".
_JOINT = re.compile(r",\s+(?:and|but|yet|while|whereas|although|(?:even\s+)?though)\s+|;\s+", re.IGNORECASE)
_MIN_JOINED_WORDS = 3
_THREE_WORDS = re.compile(r"\s*\S+\s+\S+\s+\S")


def clauses(sentence: str) -> list[str]:
    """The claims one sentence joins with ', and', ', but', ';' and the like, each verbatim; the sentence alone
    when it joins none (a side under three words, as in 'sleep, mood, and appetite', is no claim of its own)."""
    parts: list[str] = []
    start = 0
    for match in _JOINT.finditer(sentence):
        head = sentence[start : match.start()].strip()
        # Whether three words follow, read from the join on: counting every word of the rest at each join made
        # 80,000 characters of "a, and b; " take 27 s.
        if len(head.split()) >= _MIN_JOINED_WORDS and _THREE_WORDS.match(sentence, match.end()):
            parts.append(head)
            start = match.end()
    if not parts:
        return [sentence]
    return [*parts, sentence[start:].strip()]
