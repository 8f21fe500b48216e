"""What a metric's checks count: the items (the text's sentences, or the source's statements) and the claims
each item is checked by, with the document each claim is checked against (engine/checks.py asks them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gavel.tools.engine.sentences import clauses, sentences_outside_code, split_sentences
from gavel.tools.rubric_checks import Checks

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPEAKER = re.compile(r"^\s*[A-Z][\w .'-]{0,30}:\s+")
# Speaker labels that say who asks and who answers, whatever the punctuation of their lines.
_INTERVIEWERS = frozenset({
    "interviewer", "doctor", "dr", "clinician", "therapist", "psychiatrist", "psychologist", "counselor",
    "counsellor", "nurse", "physician", "gp", "ellie", "q",
})  # fmt: skip
_PATIENTS = frozenset({"patient", "participant", "client", "pt", "a"})
# Source statements shorter than this ("Badly.", "Yes.") carry nothing an assessment could state on its own.
_MIN_STATEMENT_WORDS = 3


@dataclass(frozen=True)
class Claim:
    text: str
    document: str | None  # what the claim is checked against, for the kinds that show one


@dataclass(frozen=True)
class Item:
    """One counted item (a sentence, or a statement of the source) and the claims it is checked by: a sentence
    that joins two claims ("sleeps two hours, and reports no sleep difficulties") is checked claim by claim and
    counts as one item, as wrong as its weakest claim."""

    text: str
    claims: tuple[Claim, ...]


def source_statements(source: str) -> list[str]:
    """The source's statements: each line's text after a 'Speaker:' label, split into sentences; questions and
    fragments under three words left out (an interviewer's questions are not facts an assessment must state), and
    so is every line of a speaker who mostly asks (the interviewer's "I'm sorry to hear that." or "Tell me more.")."""
    statements = []
    asking = _askers(source)
    for line in source.splitlines():
        label = _SPEAKER.match(line)
        if label is not None and _name(label.group(0)) in asking:
            continue
        text = _SPEAKER.sub("", line, count=1)
        for sentence in split_sentences(text):
            if sentence.rstrip().endswith("?") or len(sentence.split()) < _MIN_STATEMENT_WORDS:
                continue
            statements.append(sentence)
    return statements


def _askers(source: str) -> set[str]:
    """The interviewer: a speaker labelled as one ("Interviewer", "Doctor", "Ellie", DAIC-WOZ's interviewer, whose
    transcripts often lack question marks), or one at least half of whose lines are questions, never one labelled
    as the patient; nobody when that would leave no speaker."""
    lines: dict[str, list[bool]] = {}
    for line in source.splitlines():
        if (label := _SPEAKER.match(line)) is not None:
            lines.setdefault(_name(label.group(0)), []).append(line.rstrip().endswith("?"))
    asking = {
        name for name, asks in lines.items()
        if name not in _PATIENTS and (name in _INTERVIEWERS or sum(asks) * 2 >= len(asks))
    }  # fmt: skip
    return asking if asking != set(lines) else set()


def _name(label: str) -> str:
    return label.strip().rstrip(":").strip().casefold()


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs: what blank lines separate, each stripped; a text without blank lines is one."""
    return [p.strip() for p in _BLANK_LINE.split(text) if p.strip()]


def check_items(checks: Checks, text: str, source: str | None) -> list[Item]:
    """What a metric's checks count (sentences, or the source's statements), each with the claims it is checked by."""
    sentences = split_sentences(text) or [text.strip()]
    if checks.kind == "supported":
        return [supported_item(s, source) for s in sentences]
    if checks.kind == "covered":
        return [Item(s, (Claim(s, text),)) for s in source_statements(source or "")]
    if checks.kind == "consistent":
        return [item for i in range(len(sentences)) if (item := consistent_item(sentences, i)) is not None]
    if checks.kind == "repeated":
        return [repeated_item(sentences, i) for i in range(1, len(sentences))]
    if checks.kind == "sentence":
        return [Item(s, (Claim(s, None),)) for s in sentences]
    if checks.kind == "named":
        # A text all in fenced code still has its sentences asked: it has nothing else to name.
        said = (sentences_outside_code(text) or sentences) if checks.per == "sentence" else paragraphs(text)
        return [Item(p, (Claim(p, None),)) for p in said]
    return [Item(text, (Claim(text, None),))]


def supported_item(sentence: str, source: str | None) -> Item:
    """A sentence checked against the source, claim by claim (the `supported` kind, and coherence's support)."""
    return Item(sentence, tuple(Claim(part, source) for part in sentence_claims(sentence)))


def sentence_claims(sentence: str) -> list[str]:
    """The sentence itself, then each claim it joins when it joins more than one."""
    parts = clauses(sentence)
    return [sentence, *parts] if len(parts) > 1 else [sentence]


def consistent_item(sentences: Sequence[str], index: int) -> Item | None:
    """Each claim of one sentence against everything the text says before it, its earlier sibling claims
    included; None when nothing comes before (the text's first claim). A contradiction between two claims is
    found at the later one. Each check's document is the previous check's document and claim, so the prompt
    cache evaluates each claim about twice instead of the whole rest of the text once per claim."""
    before = list(sentences[:index])
    claims = []
    for part in clauses(sentences[index]):
        if before:
            claims.append(Claim(part, " ".join(before)))
        before.append(part)
    return Item(sentences[index], tuple(claims)) if claims else None


def repeated_item(sentences: Sequence[str], index: int) -> Item:
    """One sentence (not the first: nothing comes before it) against everything the text says before it, whole:
    a sentence that only restates earlier ones adds nothing, whichever of its clauses are new. As with
    `consistent_item`, each check's document is the last one's plus a sentence, which the prompt cache reuses."""
    return Item(sentences[index], (Claim(sentences[index], " ".join(sentences[:index])),))
