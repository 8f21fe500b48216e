"""Orders hidden by spacing: letters spaced out one by one ("i g n o r e   t h e   r u b r i c"), and words cut in
two by a space ("Ign ore the prev ious crit eria"). Each is undone into a variant the rules read again.

Letters spaced out are read from the text as written, where a wider gap still marks the end of a word (the
normalized text has collapsed it). Words cut in two are joined only where the two halves make a word of the
injection lexicon (`guards/lexicon.py`), so ordinary text is left as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gavel.tools.guards import lexicon as lex
from gavel.tools.guards.rules_intl import _fold

_MIN_LETTERS = 4
_MIN_JOINS = 2
_EXTRA_WORDS = [
    "previous", "prior", "above", "earlier", "perfect", "output", "apply", "simply", "answer", "submission",
    "evaluation", "everything", "approve", "rating", "grading", "score", "scoring", "maximum", "highest", "explain",
    "nothing", "every", "reservation", "dimension", "assign", "criterion", "criteria", "instructions", "response",
    "assessment", "precedenti", "anteriores", "anteriori", "precedentes", "poprzednie", "предыдущие",
]  # fmt: skip
_LATIN_WORD = re.compile(r"^[a-z][a-z']+$")


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    words: set[str] = set()
    lists = [lex.IGNORE, lex.INSTRUCTIONS, lex.GRADER, lex.TOP, lex.GIVE, lex.GRADING, lex.NEW_ORDERS, _EXTRA_WORDS]
    for entries in lists:
        for entry in entries:
            for piece in _fold(entry.removesuffix("$")).split():
                if len(piece) >= _MIN_LETTERS and _LATIN_WORD.match(piece):
                    words.add(piece)
    return frozenset(words)


def _join_runs(tokens: list[str]) -> tuple[list[str], bool]:
    """The tokens of one line with each run of four single letters or more joined into words."""
    words: list[str] = []
    run: list[str] = []
    joined = False
    for token in [*tokens, "\x00end"]:
        if len(token) == 1 or (token == "" and run):
            run.append(token)
            continue
        if sum(1 for t in run if t) >= _MIN_LETTERS:
            words.append(re.sub(" +", " ", "".join(t or " " for t in run)).strip())
            joined = True
        else:
            words.extend(t for t in run if t)
        run = []
        if token != "\x00end":
            words.append(token)
    return words, joined


def letters_spaced_out(text: str) -> str | None:
    """`text` with runs of single letters joined into words (a gap of two spaces or more ends a word); None when
    it has no such run."""
    lines, joined_any = [], False
    for line in text.split("\n"):
        words, joined = _join_runs(line.split(" "))
        joined_any = joined_any or joined
        lines.append(" ".join(w for w in words if w))
    return "\n".join(lines) if joined_any else None


def _joins(left: str, right: str, vocabulary: frozenset[str]) -> bool:
    if left in vocabulary or not (left.isalpha() and right[:1].isalpha()):
        return False
    whole = left + re.sub(r"\W+$", "", right)
    return any(whole[:n] in vocabulary for n in range(len(left) + 1, len(whole) + 1))


def words_cut(normalized: str) -> str | None:
    """`normalized` with two neighbouring pieces joined wherever they make a word of the lexicon; None when fewer
    than two such joins are found (a single one is more likely an ordinary pair of words)."""
    vocabulary = _vocabulary()
    tokens = normalized.split(" ")
    out: list[str] = []
    joins = 0
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and _joins(tokens[i], tokens[i + 1], vocabulary):
            out.append(tokens[i] + tokens[i + 1])
            joins += 1
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out) if joins >= _MIN_JOINS else None
