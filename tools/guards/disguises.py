"""Disguised prompt injections undone: each disguise becomes a variant of the text that the rules read again.

A variant is made only when the text shows the disguise (look-alike letters, letters spaced out, digits inside
words, a base64 run, tag characters, percent-escapes, words split by hyphens or dots, markdown links, citation
brackets), except ROT13 and reversal, whose variants are read only when they hold a word the rules look for.
Every text is also read squeezed (letters only) for the core orders, which catches words split anywhere.
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from collections.abc import Callable, Iterator

from gavel.tools.guards.concepts import concept_words
from gavel.tools.guards.rules_world import HINT_WORDS
from gavel.tools.guards.spacing import letters_spaced_out, words_cut
from gavel.tools.guards.text import normalize_for_matching

# Cyrillic and Greek letters that look like Latin ones (lower case: the text is case-folded first).
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    "ʟ": "l", "ɡ": "g", "ı": "i", "ℓ": "l", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ϲ": "c", "ѵ": "v", "ԍ": "g",
})  # fmt: skip
_LOOK_ALIKE = re.compile("[" + "".join(chr(c) for c in range(0x370, 0x530)) + "ʟɡıℓ]")
# Unicode tag characters (U+E0020..U+E007E) mirror printable ASCII and render as nothing.
_TAGS = re.compile("[\U000e0020-\U000e007e]")
# Letters standing alone, separated by one space, dot, dash or the like: "i g n o r e".
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_*·|/]){3,}[^\W\d_](?![^\W\d_])")
# A word with digits or symbols standing in for letters: "1gn0r3", "pr3v10u5", "@ll".
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[a-z0-9@$!|]*[a-z])(?=[a-z0-9@$!|]*[0-9@$])[a-z0-9@$!|]{2,}(?![\w@$])")
_LEET_I = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s",
                         "!": "i", "|": "l"})  # fmt: skip
_LEET_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s",
                         "!": "i", "|": "l"})  # fmt: skip
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")
_ROT13_HINT = re.compile(
    r"\b(?:ignore|disregard|forget|instructions?|rubric|grader|judge|evaluator|marks|score|approve|answer\s+yes)\b"
)
# Squeezed (letters only) forms of the core orders, for text spaced out letter by letter with no word gaps.
SQUEEZED = re.compile(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|of|the|your|these|those|my|every){0,3}"
    r"(?:previous|prior|above|earlier|preceding|system|original)(?:instructions?|prompts?|rules?|directions?"
    r"|guidelines?|criteria)"
    r"|(?:ignore|disregard|forget|override|bypass)(?:the|your)?(?:rubric|scoringrules|gradingcriteria"
    r"|scoringcriteria|evaluationcriteria|gradingrules)"
    r"|(?:give|award|assign)(?:it|this|me)?(?:answer|response|text|assessment|idea|candidate)?(?:a|an|the)?"
    r"(?:full|perfect|maximum|max|top|highest)(?:marks|score|rating|grade|points)"
    r"|newinstructionsfor(?:the)?(?:grader|judge|evaluator|assessor|model|ai)"
)
_MAX_DECODED = 20
# Percent-escapes ("%69gnore", "ignore%20all"): the text is read URL-decoded.
_PERCENT = re.compile(r"%[0-9a-f]{2}")
_PERCENT_RUN = re.compile(r"(?:%[0-9a-f]{2})+")
# Words split inside by a hyphen, dot or the like: "ig-nore", "in.struc.tions".
_SPLIT_INSIDE = re.compile(r"(?<=[^\W\d_])[-.·_*~|]+(?=[^\W\d_])")
# Markdown links and images read as their text, reference links too; citation brackets ([1], [2, 3], [^4]) dropped.
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,300})\]\([^)\n]{0,1000}\)|\[([^\]\n]{1,300})\]\[[^\]\n]{0,40}\]")
_CITATION = re.compile(r"\s?\[\^?\d{1,3}(?:\s*[,;–-]\s*\^?\d{1,3}){0,10}\]")
# A reversed text is read when, turned back, it holds more of these than it does as written (they seldom
# appear backwards by chance).
_REVERSED_HINT = re.compile(
    r"ignore|disregard|instruction|previous|rubric|grader|evaluator|judge|approve|score|marks|criteri|grading|overrid|select|respons|"
    + HINT_WORDS
)
# Squeezed forms of the orders that no ordinary text spells letter for letter: read on every text.
SQUEEZED_ALWAYS = re.compile(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|of|the|your|these|those|my|every){0,3}"
    r"(?:previous|prior|above|earlier|preceding|system|original)(?:instructions?|prompts?|rules?|directions?"
    r"|guidelines?|criteria)"
    r"|(?:ignore|disregard|forget|override|bypass)(?:the|your)(?:rubric|scoringrules|gradingcriteria"
    r"|scoringcriteria|evaluationcriteria|gradingrules)"
    r"|newinstructionsfor(?:the)?(?:grader|judge|evaluator|assessor)"
    r"|youarenow(?:a|an)?[a-z]{0,12}(?:grader|judge|evaluator|assessor)"
)


def _spaced_joined(match: re.Match[str]) -> str:
    return re.sub(r"[ .\-_*·|/]", "", match.group(0))


def _leet(normalized: str, table: dict[int, str]) -> str:
    return _LEET_WORD.sub(lambda m: m.group(0).translate(table), normalized)


def _base64_texts(text: str) -> Iterator[str]:
    """Readable text hidden in base64 runs (standard or URL-safe): the first few runs that decode to it."""
    decoded = 0
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0)
        if not (re.search(r"[A-Z]", run) and re.search(r"[a-z]", run)):
            continue  # a word, a hex digest or a number, not base64
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None)
            plain = raw.decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        printable = sum(ch.isprintable() or ch in "\n\t" for ch in plain)
        if plain and printable / len(plain) > 0.95 and " " in plain:
            yield plain
            decoded += 1
            if decoded >= _MAX_DECODED:
                return


# A word that every rule about orders, notes, scores or verdicts needs: a variant without one is not read.
_HINT = re.compile(
    r"ignor|disregard|forget|overrid|bypass|skip|score|grad|rate|rating|mark|judg|evaluat|assess|review|approv"
    r"|accept|pass|verdict|rubric|instruction|prompt|rule|criteri|yes|note|you|act|pretend|behave|output|reply"
    r"|answer|respond|return|print|say|system|assistant|new|end|perfect|max|full|top|high|best|point|correct"
    r"|award|give|assign|select|choos|pick|winner|respons|[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]|" + HINT_WORDS
)
# Around each disguised word, this much of the text is read with the disguise undone (a whole order fits).
_WINDOW = 200


def _windows(text: str, spans: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        start, end = max(0, start - _WINDOW), min(len(text), end + _WINDOW)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _undone(text: str, spans: Iterator[tuple[int, int]], undo: Callable[[str], str]) -> str | None:
    """`undo` applied to the parts of `text` around `spans` (the disguised words), joined; None without spans
    or when the result holds no word the rules look for."""
    windows = _windows(text, spans)
    if not windows:
        return None
    variant = "\n\n".join(undo(text[start:end]) for start, end in windows)
    return variant if _HINT.search(variant) else None


def disguised(text: str, normalized: str) -> Iterator[tuple[str, str]]:
    """(how it was disguised, the text with that disguise undone), for each disguise the text shows. Only the
    text around the disguised words is undone and read, so an ordinary long text costs little more."""
    if _TAGS.search(text):
        hidden = "".join(chr(ord(ch) - 0xE0000) for ch in _TAGS.findall(text))
        yield "hidden in invisible tag characters", normalize_for_matching(hidden)
    look_alikes = [m.span() for m in _LOOK_ALIKE.finditer(normalized)]
    folded = normalized.translate(_CONFUSABLES) if look_alikes else normalized
    if look_alikes and (variant := _undone(folded, iter(look_alikes), lambda part: part)) is not None:
        yield "look-alike letters", variant
    spaced = [m.span() for m in _SPACED.finditer(folded)]
    if spaced and (variant := _undone(folded, iter(spaced), lambda part: _SPACED.sub(_spaced_joined, part))):
        yield "letters spaced out", variant
    leet = [m.span() for m in _LEET_WORD.finditer(folded)]
    for table in (_LEET_I, _LEET_L) if leet else ():
        if (variant := _undone(folded, iter(leet), lambda part, table=table: _leet(part, table))) is not None:
            yield "digits for letters", variant
    if spaced or leet:
        squeezed = _undone(
            folded, iter(sorted(spaced + leet)), lambda part: re.sub(r"[^a-z]", "", _leet(part, _LEET_I))
        )
        if squeezed is not None:
            yield "squeezed", squeezed
    rot13 = normalized.translate(_ROT13)
    if _ROT13_HINT.search(rot13):
        yield "ROT13", rot13
    yield from _plain_disguises(text, normalized)
    if (unspaced := letters_spaced_out(text)) is not None:
        yield "letters spaced out", normalize_for_matching(unspaced)
    if (joined := words_cut(normalized)) is not None:
        yield "words split by spaces", joined
    for plain in _base64_texts(text):
        yield "base64", normalize_for_matching(plain)


def _strip_links(part: str) -> str:
    return _CITATION.sub("", _MD_LINK.sub(lambda m: m.group(1) or m.group(2) or "", part))


def _join_split(part: str) -> str:
    return _SPLIT_INSIDE.sub("", part)


def _plain_disguises(text: str, normalized: str) -> Iterator[tuple[str, str]]:
    """The disguises read from the text's own characters: URL-encoding, reversal, markdown links and citation
    brackets, words split by hyphens or dots. As for the others, only the text around each disguised part is
    read, with the later disguises undone on top (an order split inside a link, or URL-encoded and split, is
    found too). Reversal works on the text as written (normalizing first would split a Hangul syllable into
    letters that no longer reverse back into it), and is read whole, only when worth it."""
    percent = [m.span() for m in _PERCENT_RUN.finditer(normalized)]
    if percent and (variant := _undone(normalized, iter(percent), _decode_then_join)) is not None:
        yield "URL-encoded", variant
    links = [m.span() for m in _MD_LINK.finditer(normalized)] + [m.span() for m in _CITATION.finditer(normalized)]
    if links and (variant := _undone(normalized, iter(sorted(links)), lambda p: _join_split(_strip_links(p)))):
        yield "markdown links or citations", variant
    split = [m.span() for m in _SPLIT_INSIDE.finditer(normalized)]
    if split and (variant := _undone(normalized, iter(split), _join_split)) is not None:
        yield "words split by hyphens or dots", variant
    hints = len(_REVERSED_HINT.findall(normalized)) + concept_words(normalized)
    backwards = normalize_for_matching(text[::-1])
    if len(_REVERSED_HINT.findall(backwards)) + concept_words(backwards) > hints:
        yield "reversed", backwards
        words = "\n".join(" ".join(w[::-1] for w in line.split(" ")) for line in text.split("\n"))
        yield "words reversed", normalize_for_matching(words)


def _decode_then_join(part: str) -> str:
    decoded = part
    for _ in range(2):  # twice, for a doubly encoded text
        decoded = urllib.parse.unquote_plus(decoded, errors="replace")
        if not _PERCENT.search(decoded.lower()):
            break
    return _join_split(_strip_links(normalize_for_matching(decoded)))


def squeezed(normalized: str) -> Iterator[re.Match[str]]:
    """The core orders found in the text with every non-letter removed (words split by spaces or anything)."""
    letters = re.sub(r"[^a-z]", "", normalized)
    return SQUEEZED_ALWAYS.finditer(letters)
