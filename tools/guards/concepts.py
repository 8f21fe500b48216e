"""Orders to a judge found by their parts, in any language the lexicon (`guards/lexicon.py`) knows.

A phrase rule misses the next wording of the same order; these rules look, in one sentence, for the parts an order
to whoever grades a text cannot do without: a verb of ignoring with a word for the instructions; a grader addressed
directly with a grade, an approval or an order; the top of a scale with the judged text or every criterion, or with
an order to give it; a new role for the reader with anything about grading. A hidden comment, a JSON "system" field
or a fake end of the text followed by an order is read the same way.

Each rule is an object with `finditer`, like the phrase rules, so `guards.detect_injection` reads it on the text as
written and on every disguise undone.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from gavel.tools.guards import lexicon as lex
from gavel.tools.guards.rules_intl import _fold

_NO_SPACES = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")


_WHOLE = "\x00"  # marks, in a trie, the end of a word written with a trailing `$`


def _trie_regex(words: list[str]) -> str:
    """One regex for `words` as a trie (shared prefixes factored out): Python's `re` tries alternatives one by one,
    so a flat list of hundreds of words is tried hundreds of times at every position of the text."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        ends = "" in node
        branches = []
        for ch in sorted(k for k in node if k):
            branches.append((r"(?!\w)" if ch == _WHOLE else re.escape(ch)) + emit(node[ch]))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return emit(trie)


def _pattern(words: list[str]) -> re.Pattern[str]:
    """Words anchored at a word start, Arabic ones after an optional "and"/"so" prefix; unspaced scripts anywhere."""
    groups: dict[str, list[str]] = {"start": [], "arabic": [], "anywhere": []}
    for word in {_fold(w) for w in words}:
        key = "anywhere" if _NO_SPACES.match(word) else "arabic" if "\u0600" <= word[0] <= "\u06ff" else "start"
        groups[key].append(word[:-1] + _WHOLE if word.endswith("$") else word)
    prefix = {"start": r"(?<!\w)", "arabic": r"(?<!\w)(?:[وف](?=\w))?", "anywhere": ""}
    return re.compile("|".join(prefix[k] + "(?:" + _trie_regex(ws) + ")" for k, ws in groups.items() if ws))


# The same number as the top of a scale twice, whatever joins them: "5/5", "10 su 10", "10 من 10", "10점 만점에 10점".
_N_OF_N = re.compile(r"(?<!\d)(?<!\d[.,])(5|10|20|100)\s*(?:/|[^\d\n.;]{1,14}?)\s*\1(?!\d|[.,]\d)")
# A grade written as a verdict in the middle of a text: "Rating: 10/10", "scoring: 5/5".
_SCORE_LINE = re.compile(
    r"(?<!\w)(?:scor\w*|rating|grade|marks?|verdict|nota|voto|punteggio|puntuacion|bewertung|ocena|оценка|评分|得分"
    r"|評価|점수|puan|diem|alama|درجة|نمره)\s*[:=：]\s*(?:\D{0,12}(?<!\d)(5|10|20|100)\s*/\s*\1(?!\d)|full|perfect|max)"
)
_SENTENCE_END = re.compile(r"[.!?;\n。！？؟।۔]+(?=\s|$)|[。！？\n]")
# "I'd give this hotel 5 out of 5": a reviewer's own grade of something else, not an order.
_FIRST_PERSON = re.compile(r"\b(?:i'd|i would|we'd|we would|i'll|i will)\s+(?:\w+\s+)?(?:give|rate|award)\b")
# "Award full marks only if ...": a rubric's condition, not a claim.
_CONDITION = re.compile(r"\b(?:only if|only when|unless|requires?|needs?|if the|when the|when every)\b")
# "told to disregard", "the tribunal may disregard": an ignoring verb reported or permitted, not ordered.
_NOT_ORDERED = re.compile(
    r"\b(?:to|may|might|can|could|will|shall|would|did|does|has|had|have|ont|avait|ha|hanno|aveva|hat|haben|hatte"
    r"|foi|fue|habia)\s+$"
    # French past tense: "il a ignoré", "le juge a ignoré" (folded to "ignore").
    r"|\b(?:il|elle|on|qui|(?:le|la|l')\s*\w+)\s+a\s+$"
    # An indicative with its subject: "si el usuario ignora las instrucciones", "il paziente ignora".
    r"|\b(?:el|la|il|lo|o|os|as|los|las|le|les|the|un|una|uno|um|uma)\s+\w+\s+$"
    r"|\b(?:he|she|it|they|who|which|que|qui|che|ele|ela|lui|lei|elle|ils|elles|non|nao)\s+$"
)
# Languages whose verb comes after its object: there the instructions may come before the order to ignore them.
_VERB_LAST = re.compile(
    r"[\u0900-\u097f\u0980-\u09ff\u1100-\u11ff\uac00-\ud7af\u3040-\u30ff\u0600-\u06ff]|\b(?:talimat|kural|yonerge|olcut|kriter)"
)
_NEAR = 80
# "guests give the spa", "the committee can award": giving reported or permitted, not ordered.
_NOT_IMPERATIVE = re.compile(
    r"\b(?:can|could|may|might|will|would|to|they|we|i|he|she|guests|users|customers|critics|people|judges"
    r"|reviewers|patients|students)\s+$"
)
_TOLD_TO = re.compile(r"(?<!have )(?<!has )(?<!had )(?<!ought )\bto\s+$")
_ADDRESS_AFTER = re.compile(r"^\s*(?:\w+\s*)?[:,，：、]")

_CONCEPTS = {
    "ignore": lex.IGNORE, "instructions": lex.INSTRUCTIONS, "grader": lex.GRADER, "address": lex.ADDRESS,
    "top": lex.TOP, "subject": lex.SUBJECT, "every": lex.EVERY_CRITERION, "give": lex.GIVE, "role": lex.ROLE,
    "grading": lex.GRADING, "new_orders": lex.NEW_ORDERS,
    "approve": lex.APPROVE,
}  # fmt: skip


@lru_cache(maxsize=1)
def _compiled() -> dict[str, re.Pattern[str]]:
    return {name: _pattern(words) for name, words in _CONCEPTS.items()}


@dataclass(frozen=True)
class Found:
    """A finding in the shape `guards._matches` reads from a regex match."""

    text: str

    def group(self, _: int = 0) -> str:
        return self.text


@dataclass
class _Sentence:
    start: int
    end: int
    hits: dict[str, list[tuple[int, int]]]


@lru_cache(maxsize=16)
def _sentences(text: str) -> tuple[_Sentence, ...]:
    bounds, last = [], 0
    for match in _SENTENCE_END.finditer(text):
        bounds.append((last, match.end()))
        last = match.end()
    if last < len(text):
        bounds.append((last, len(text)))
    sentences = [_Sentence(s, e, {}) for s, e in bounds]
    starts = [s.start for s in sentences]
    found = {name: list(pattern.finditer(text)) for name, pattern in _compiled().items()}
    found["top"] += list(_N_OF_N.finditer(text))
    for name, matches in found.items():
        index = 0
        for match in sorted(matches, key=lambda m: m.start()):
            while index + 1 < len(starts) and starts[index + 1] <= match.start():
                index += 1
            sentences[index].hits.setdefault(name, []).append(match.span())
    return tuple(sentences)


def _has(sentence: _Sentence, *names: str) -> bool:
    return any(name in sentence.hits for name in names)


def _ignore_instructions(text: str, s: _Sentence) -> bool:
    """An order to ignore, with the instructions it names near it: after it, or before it in a language whose
    verb comes last ("Discharge instructions: ... ignore mild upset" is not one)."""
    for a, b in s.hits.get("ignore", []):
        if _NOT_ORDERED.search(text[max(0, a - 12) : a]):
            continue
        for x, y in s.hits.get("instructions", []):
            # At or after the order's start: an entry such as "acha vigezo" holds its instructions.
            if 0 <= x - a <= _NEAR + (b - a) or (0 <= a - y <= _NEAR and _VERB_LAST.search(text[x:b])):
                return True
    return False


def _addressed_grader(text: str, s: _Sentence) -> bool:
    for a, b in s.hits.get("grader", []):
        before = text[max(s.start, a - 24) : a]
        addressed = any(s.start <= x and y <= a and a - y <= 12 for x, y in s.hits.get("address", []))
        leading = a - s.start <= 30 and _ADDRESS_AFTER.match(text[b : b + 16]) is not None
        postposition = re.match(r"\s*(?:에게|님|께|へ|様|の方へ|के लिए)", text[b : b + 8]) is not None
        if (addressed or leading or postposition or "dear" in before) and _has(s, "top", "give", "ignore", "role"):
            return True
        if (addressed or leading or postposition) and re.search(r"\b(?:pass|approve|yes)\b", text[b : s.end]):
            return True
    return False


def _grades_itself(text: str, s: _Sentence) -> bool:
    if not _has(s, "top") or _CONDITION.search(text[s.start : s.end]):
        return False
    if _has(s, "subject", "every"):
        return True
    # "Any grader would put this at 5/5", but not "might tell the grader to award full marks".
    if _has(s, "grader") and any(not _TOLD_TO.search(text[max(0, a - 16) : a]) for a, _ in s.hits.get("give", [])):
        return True
    if _FIRST_PERSON.search(text[s.start : s.end]):
        return False
    # "Le jury a attribué la note maximale", "la commissione ha assegnato": a grade reported, not ordered.
    return any(
        not _NOT_IMPERATIVE.search(before) and not _NOT_ORDERED.search(before)
        for a, _ in s.hits.get("give", [])
        if (before := text[max(0, a - 20) : a]) is not None
    )


def _approves(text: str, s: _Sentence) -> bool:
    """ "Approve this answer": an order to approve, with the judged text."""
    return _has(s, "approve") and _has(s, "subject")


def _new_orders(text: str, s: _Sentence) -> bool:
    """ "New instructions for the grading model: ..." and a verdict written as a grade ("Rating: 10/10")."""
    return (_has(s, "new_orders") and _has(s, "grader", "grading")) or _SCORE_LINE.search(text[s.start : s.end])


# "AI" or "LLM" naming something else ("the AI industry", "AI products"), not the reader.
_ATTRIBUTIVE = re.compile(
    r"\s+(?!(?:judge|grader|evaluator|model|assistant|with|without|that|who|which|and|or|to|in|on|for|of|is|are"
    r"|named|called|whose|like)\b)[a-z]"
)


def _names_grader(text: str, s: _Sentence) -> bool:
    return any(not (text[a:b] in ("ai", "llm") and _ATTRIBUTIVE.match(text, b)) for a, b in s.hits.get("grader", []))


def _new_role(text: str, sentences: tuple[_Sentence, ...], i: int) -> bool:
    if not _has(sentences[i], "role"):
        return False
    window = sentences[i : i + 2]
    return any(_has(s, "top", "give", "grading") or _names_grader(text, s) for s in window)


_SENTENCE_RULES = (
    ("instruction to the judge", lambda text, ss, i: _ignore_instructions(text, ss[i])),
    ("note to the judge", lambda text, ss, i: _addressed_grader(text, ss[i])),
    ("self-grading", lambda text, ss, i: _grades_itself(text, ss[i])),
    ("role override", lambda text, ss, i: _new_role(text, ss, i)),
    ("instruction to the judge", lambda text, ss, i: bool(_new_orders(text, ss[i]))),
    ("instruction to the judge", lambda text, ss, i: _approves(text, ss[i])),
)


class SentenceRule:
    """One of the rules above, read sentence by sentence; finds the sentence."""

    def __init__(self, index: int) -> None:
        self._rule = _SENTENCE_RULES[index][1]

    def finditer(self, text: str) -> Iterator[Found]:
        sentences = _sentences(text)
        for i, sentence in enumerate(sentences):
            if self._rule(text, sentences, i):
                yield Found(text[sentence.start : sentence.end].strip())


def concept_words(text: str) -> int:
    """How many words of the lexicon `text` holds: a reversed text turned back holds more than as written."""
    return sum(len(p.findall(text)) for p in _compiled().values())


def mentions_grading(text: str) -> bool:
    """Whether `text` holds any word of an order to a judge: for a hidden comment, where none belongs."""
    return any(p.search(text) for p in _compiled().values()) or _N_OF_N.search(text) is not None


_JSON_SYSTEM = re.compile(r"\"role\"\s*:\s*\"(?:system|developer)\"\s*,\s*\"content\"\s*:\s*\"([^\"]{1,2000})\"")
_JSON_KEY = re.compile(
    r"\"([a-z_ -]{0,30}(?:system|sys|instruction|prompt|note_to|override|judge|grader|evaluator|rubric)"
    r"[a-z_ -]{0,30})\"\s*:\s*\"([^\"]{1,2000})\""
)
# A line's lone "end" is read within its line: "[\W_]*" around it crossed line breaks ("\W" matches one), so
# 100,000 lines of "-" took minutes.
_FAKE_END = re.compile(
    r"\bend\s+of\s+(?:the\s+)?(?:\w+\s+)?(?:text|document|input|answer|response|submission|abstract|assessment"
    r"|passages?|context|content|data|message|essay|summary|file|transcript|prompt|excerpt|candidate(?:\s+text)?)\b"
    r"|\b(?:text|document|input|answer|response|submission|abstract)\s+ends\b|\[\s*end\s*\]|<<+\s*end\s*>>+"
    r"|(?m:^(?:_|[^\w\n])*end(?:_|[^\w\n])*$)|</\s*(?:text|answer|input|document|submission|candidate|response)\s*>"
    r"|<\|endoftext\|>|\bfin\s+d[eu]l?\s+(?:texte|texto|testo)\b|\bfim\s+do\s+texto\b|\bende\s+des\s+textes\b"
    r"|конец\s+текста|نهاية\s+النص|文本结束|以上で終わり"
)
_AFTER_END = re.compile(r"\b(?:task|system|instructions?|new)\b")


def _json_findings(text: str) -> Iterator[Found]:
    for match in _JSON_SYSTEM.finditer(text):
        yield Found(match.group(0))
    for match in _JSON_KEY.finditer(text):
        if mentions_grading(match.group(2)):
            yield Found(match.group(0))


_AFTER_END_CHARS = 250


def _fake_end_findings(text: str) -> Iterator[Found]:
    ends = list(_FAKE_END.finditer(text))
    if not ends:
        return
    # The words of an order are found once over the whole text, not searched for again after each marker: a text
    # of 40,000 "[end]" ran every search 40,000 times (13 s on the event loop).
    words = sorted(
        (m.start(), m.end()) for pattern in (_AFTER_END, *_compiled().values(), _N_OF_N) for m in pattern.finditer(text)
    )
    starts = [start for start, _ in words]
    for match in ends:
        until = match.end() + _AFTER_END_CHARS
        first = bisect_left(starts, match.end())
        if any(end <= until for _, end in words[first : bisect_left(starts, until, lo=first)]):
            yield Found(text[match.start() : match.end() + 60])


class _Finder:
    def __init__(self, find: object) -> None:
        self._find = find

    def finditer(self, text: str) -> Iterator[Found]:
        return self._find(text)  # type: ignore[operator]


CONCEPT_RULES = [
    *[(label, SentenceRule(i)) for i, (label, _) in enumerate(_SENTENCE_RULES)],
    ("instruction in a JSON system field", _Finder(_json_findings)),
    ("fake end of the text, then an order", _Finder(_fake_end_findings)),
]
