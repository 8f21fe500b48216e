"""The source read line by line, once for all the sentences of one text: each line's content words, figures, owner
and people, and which line a sentence restates.

A line's owner is the person it opens with ("- Priya - send vinyl spec", "Action: RAJ by Fri 30 Jan"); the people it
names are read wherever it names them, with the attendees of the line it is indented under and the people the lines
indented beneath it name (roster.py reads who the people are). The line a sentence restates is the one sharing the
most content words with it, two or more and two more than any other line; where none stands out, the lines within one
word of the best (three or more) are the lines it may restate. contradicted.py and owners.py read sentences against
them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gavel.tools.engine.quantities import days, followers, quantities, source_quantities
from gavel.tools.engine.roster import (
    PARTICLE,
    WORD,
    attendees_of,
    capitalized,
    capitals,
    in_capitals,
    initialled,
    people_of,
    persons,
    writer_of,
)
from gavel.tools.engine.sentences import every_sentence, split_sentences

_STOP_WORDS = """
    the a an and or but of to in on at by for with from as is are was were be been being it its this that these those
    will would can could should may might must has have had do does did not no yes we our us you your they their them
    he she his her i me my than then there here which who whom what when where why how all any each every some more
    most other into over under about after before also just only so such per via up out off new now still yet very
    much many few one two three
"""
_STOP = frozenset(_STOP_WORDS.split())
_CALENDAR_WORDS = """
    january february march april may june july august september october november december jan feb mar apr jun jul aug
    sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri
    sat sun dr mr mrs ms prof
"""
_CALENDAR = frozenset(_CALENDAR_WORDS.split())  # titles too: "Dr Qureshi" names Qureshi
# The labels notes open a line with, which name no one: "Action: SNB by Tue 20 Jan - agree …" is nobody's action
# called "Action" (a word the text never writes in lower case is otherwise read as a name).
_LABEL_WORDS = "action actions owner owners due who next note notes status update decision decisions todo"
_LABELS = frozenset(_LABEL_WORDS.split())
_NOT_NAMES = _STOP | _CALENDAR | _LABELS
# Notes write "Fri 27 Jun" where a text writes "Friday 27 June": a month or weekday is one word either way, as the
# content words spell it ("Tues" is "tue" there already, "Thurs" "thur").
_FULL_WORDS = """
    january february march april june july august september october november december monday tuesday wednesday
    thursday friday saturday sunday
"""
# "May" beside a number is the month, a content word as every other month is, not the stop word "may": "by 19 May"
# restates "FK - letter to Shore Rd residents re longer hours - 19 May" (`fresh49`'s rock armour).
_MAY = re.compile(r"\d\s*May\b|\bMay\s*\d")
_SHORT = {full: full[:3] for full in _FULL_WORDS.split()} | {"sept": "sep", "thur": "thu"}
# A line that opens with who owns it: "- Tom - brownout runbook", "Grace: chase Bramley", "Dale Moreno (SignWorks):";
# numbered or bracketed, by initials or in capitals ("1. DE - test drive", "[MLC] workflow", "3) RAJ: risk assessment"),
# or after a label ("Action: RAJ by Fri 30 Jan - ask Cyclescheme").
_OWNER = re.compile(
    r"^[\s\-–•*|\[]*(?:\d{1,2}[.)]\s+)?(?:(?:Action|Owner)s?:\s+)?([^\W\d_a-z](?:[^\W\d_]|['’])*)"
    rf"(?:\s+(?:(?:{PARTICLE})\s+){{0,2}}[^\W\d_a-z](?:[^\W\d_]|['’])*)?\s*(?:\([^)]*\)\s*)?"
    r"(?:[\]–:|]|-(?![a-z])|\s+by\b)"
)  # not a word a hyphen joins: "- Strip-out of lean-to done" is nobody's (`fresh50`'s barn)
_NUMBER_NEXT = re.compile(r"\s*\d")
_MIN_SHARED = 2
_OWNER_SHARED = 3
_MARGIN = 2
_PROSE_LINE = 200  # characters: a longer line is an article's paragraph, restated sentence by sentence


@dataclass(frozen=True)
class Line:
    """One line of the source (a paragraph's sentence), as a restating sentence is matched and read against it."""

    words: frozenset[str]
    # Its numbers apart from a date's day, and the days it dates, each as a quantity with no unit: a count rivals no
    # date ("across the three routes" against "Sun 7 Sep"), nor a date a count.
    quantities: frozenset[tuple[str, str | None]]
    days: frozenset[tuple[str, str | None]]
    owner: str | None  # the person the line opens with, as `SourceReading.people` names them
    people: frozenset[str]
    # The attendees the line names wherever it names them ("* tell Sunbeam Clubs re access -> Aled, 11 Jul") and,
    # indented, those of the line it is indented under ("Priya" over "    - update HACCP plan").
    present: frozenset[str] = frozenset()
    prose: bool = False  # a sentence of a paragraph, which holds more figures than it lets a clause restate
    figures: frozenset[tuple[str, str]] = frozenset()  # its figures in digits with what follows each (`followers`)


@dataclass(frozen=True)
class SourceReading:
    """What a source states, read once for all the sentences of one text: its quantities, its lines, the names it
    writes, and each name's person (the longest run of names it stands in: "Priya" is "Priya Nandakumar")."""

    stated: set[tuple[str, str | None]]
    lines: tuple[Line, ...]
    names: frozenset[str]
    people: Mapping[str, str]
    sentences: tuple[str, ...]  # the text's own sentences, before a long text's are checked in runs
    attendees: frozenset[str] = frozenset()  # the people the notes' opening lines list, as `people` names them
    writer: str | None = None  # the attendee who signs the text, whom its "I" names


def read_source(source: str, text: str) -> SourceReading:
    """`source` read for the sentences of `text` (a word the text writes in lower case is no name in either)."""
    lower = frozenset(word.lower() for word in WORD.findall(f"{source} {text}") if word[0].islower())
    names = frozenset(
        word for word in set(capitalized(source))  # each word once: `_numbered` reads the whole source
        if (folded := word.lower()) not in lower and folded not in _NOT_NAMES and not _numbered(word, source)
    )  # fmt: skip
    people = people_of(source, names)
    attendees = attendees_of(source, people)
    lines = []
    headings: list[tuple[int, frozenset[str]]] = []  # the lines a later line may be indented under
    raws = [raw for raw in source.splitlines() if raw.strip()]
    spans: list[tuple[int, int]] = []  # each raw line's indent and where its lines start
    for number, raw in enumerate(raws):
        indent = len(raw) - len(raw.lstrip())
        spans.append((indent, len(lines)))
        while headings and headings[-1][0] >= indent:
            headings.pop()
        present = (named := persons(raw, people) | initialled(raw, people, attendees, lower)) & attendees
        if indent and headings:
            present |= headings[-1][1]  # "Patrick" over "take off supers + extract (Lena helping)": still Patrick's
        below = raws[number + 1] if number + 1 < len(raws) else ""
        if not present and len(below) - len(below.lstrip()) > indent:
            present = persons(below, people) & attendees  # "5. Written reply …" over "   Owner: Leanne / Due: …"
        headings.append((indent, present))
        for part in split_sentences(raw) if len(raw) > _PROSE_LINE else [raw]:
            if not part.strip():
                continue
            # The notes' title names no owner: "Northfield Hospital - Sleep Service - home testing kits rollout".
            owner = _OWNER.match(part) if number else None
            lines.append(
                Line(
                    words=content_words(part, names),
                    quantities=frozenset(quantities(part, dates=False)),
                    days=frozenset((day, None) for day in days(part)),
                    owner=_owner(owner.group(1), people, attendees) if owner else None,
                    people=named if part == raw else persons(part, people) | initialled(part, people, attendees, lower),
                    present=present if len(raw) <= _PROSE_LINE else frozenset(),
                    prose=len(raw) > _PROSE_LINE,
                    figures=frozenset(followers(part)),
                )
            )
    sentences = tuple(every_sentence(text))
    writer = writer_of(text, people, attendees)
    return SourceReading(
        source_quantities(source), _with_helpers(lines, spans), names, people, sentences, attendees, writer
    )


def _numbered(word: str, source: str) -> bool:
    """Whether the source writes `word` only right before a number, as a label and no name: "MLU – 2nd birth pool
    (Room 4)" (`fresh54`'s birth pool, whose "Room" took Claire's task in "… antenatal classes on Room 4 closure")."""
    return all(_NUMBER_NEXT.match(source, found.end()) for found in re.finditer(rf"\b{re.escape(word)}\b", source))


def _with_helpers(lines: list[Line], spans: list[tuple[int, int]]) -> tuple[Line, ...]:
    """The lines with the people the lines indented beneath them name: "Action: RT by Fri 24 Apr - water bowser on
    site" over "   - AK to confirm daily water need" is Rob's, with Ayesha helping (`fresh46`'s goat grazing).
    `spans` are each raw line's indent and its first line's index."""
    ends = [start for _, start in spans[1:]] + [len(lines)]
    helped = list(lines)
    for number, (indent, start) in enumerate(spans):
        below = number + 1
        while below < len(spans) and spans[below][0] > indent:
            below += 1
        helpers = frozenset().union(*(line.people for line in lines[ends[number] : ends[below - 1]]))
        for index in range(start, ends[number]):
            helped[index] = replace(lines[index], people=lines[index].people | helpers)
    return tuple(helped)


def _owner(opening: str, people: Mapping[str, str], attendees: frozenset[str]) -> str | None:
    return in_capitals(opening, people, attendees) if capitals(opening) else people.get(opening)


def content_words(text: str, names: frozenset[str]) -> frozenset[str]:
    words = (word.lower().rstrip("s") for word in WORD.findall(text) if word not in names)
    months = ["may"] if _MAY.search(text) else []
    return frozenset([_SHORT.get(word, word) for word in words if len(word) >= 3 and word not in _STOP] + months)


def shared_counts(part: str, reading: SourceReading) -> list[int]:
    """How many content words `part` shares with each line of the source, in the lines' order."""
    words = content_words(part, reading.names)
    return [len(words & line.words) for line in reading.lines]


def restated(shared: Sequence[int], reading: SourceReading, margin: int = _MARGIN) -> Line | None:
    """The line a part restates, from its `shared_counts`: the most content words shared, at least `_MIN_SHARED`
    and `margin` more than any other line's; None when no line stands out."""
    ranked = sorted(((count, index) for index, count in enumerate(shared)), reverse=True)
    if not ranked or ranked[0][0] < _MIN_SHARED:
        return None
    if len(ranked) > 1 and ranked[1][0] > ranked[0][0] - margin:
        return None
    return reading.lines[ranked[0][1]]


def near_lines(shared: Sequence[int], reading: SourceReading) -> list[Line]:
    """The lines a part may restate, from its `shared_counts`: every line within one content word of the most shared
    (at least `_OWNER_SHARED`); none when fewer are shared."""
    most = max(shared, default=0)
    if most < _OWNER_SHARED:
        return []
    return [line for line, count in zip(reading.lines, shared, strict=True) if count >= max(most - 1, _MIN_SHARED)]
