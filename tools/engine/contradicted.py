"""A sentence its source contradicts, read with no model: a certain mistake, not a likely one.

A quantity the source never states (engine/quantities.py) is often a good text's own count ("there are two risks")
or its way of writing a figure, so it costs a sentence's share and no more. It is a contradiction when the source
line the sentence restates states a rival: another number with the same unit, of the same size ("2.1 million sets"
where the article's line says "1.2 million", "due 23 July" where the notes say "16 Jul"); a count the source writes
only as a date's day or two dates' gap is read so too ("limited to 15 people" against "Sat 23 Aug, max 10 people",
where the notes date a Fri 15 Aug elsewhere). So is an action given to the wrong person: a part of the sentence
names a person of the source, and the line it restates opens with another as its owner ("Jess: send the vinyl spec"
where the notes say "- Priya - send vinyl spec + cleaning data"), or names attendees, wherever on the line, none of
them the part's ("| Kerry | Tell Sunbeam Clubs about access |" where the notes say "* tell Sunbeam Clubs (summer
club) re access -> Aled, 11 Jul"). The attendees are the people the notes' opening lines list, on one line or one to a
line under a heading that names no one, while those lines are indented or bulleted (`fresh42`); an indented line is
owned by the line it sits under too, and a task by the attendee an indented line beneath it names ("Owner: Leanne / Due:
Wed 19 Nov"). A text's "I", and a table's "| Me |", name the attendee who signs it. A label that opens a line ("Action:
SNB by Tue 20 Jan") names no one (`fresh43`), nor does the notes' title (`fresh48`). A sentence none of whose parts
settles its owner is read whole ("Clare will set up the Tuesday practices at St Mary's, Upton, with their tower captain,
by Friday 27 June" where the notes say "Martin: fix Tues practices … (due Fri 27 Jun)", `fresh38`); the line that lists
the attendees owns nothing.

The line a sentence restates is the one sharing the most content words with it, two or more and two more than any
other line; for an owner, every line within one word of the best (three or more) must name an attendee, and none the
part's. A sentence that restates no one line is read against every line within one word of the best (three or more)
for a rival figure: "Of the €412,000 budget we have committed €388,500 and paid €214,000, while the insurance quote has
risen from €9,800 to €12,600 a year" shares three words with the budget line and two with two insurance lines, and
the budget line states €196,000 paid (`fresh34`). A date's day rivals only a day the line dates, and a count only the
line's other numbers ("across the three routes" is no rival of "Sun 7 Sep"); a number the line writes bare is not
contradicted for its unit ("a 55–60 minute target" against "target 55-60", which failed `fresh29`'s good escape-room
email), nor a count the line writes as a day ("Nos 1–4 in July" against "Nos 1-4 July", `fresh40`'s almshouse). A date
with its month that the source never gives, whose day it states only as something else, is read against the days of its
lines ("until Monday 8 December" where the notes say "Closed Mondays until Mon 15 Dec" and "8 families per slot",
`fresh36`); any other day they date is its rival, whatever its size, but not one the sentence gives itself (`fresh37`).
Tuned with no model on every read user text: good status emails contradicted 0 of 251, faithfulness versions 198 of
251; summaries 0 and 5 of 43 (bench/data/README.md: `fresh20`'s and `fresh25`–`fresh52`'s rules and readings).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from gavel.tools.engine.quantities import dates, days, followers, quantities, source_quantities, unstated
from gavel.tools.engine.rivals import rivals_of
from gavel.tools.engine.roster import (
    WORD,
    attendees_of,
    capitalized,
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
# Where one part of a sentence ends and the next begins, for who does what: "Ian will submit the order, Tom will
# chase Bramley and Grace will recruit marshals"; its lines are parts too. A table row is one part whole: its owner is
# one cell and its action another ("| Jess | Run two more TAR training rounds and produce a new recall estimate |").
_PARTS = re.compile(r"[,;|\n]\s*|\s+(?:and|but|while)\s+")
# Where a figure's clause ends: "£91,500" is one number, "Subs." over "Subs stay at £85" a sentence of its own.
_CLAUSES = re.compile(r",(?!\d)\s*|[;|\n]\s*|(?<=[.!?])\s+|\s+(?:and|but|while)\s+")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
# A line that opens with who owns it: "- Tom - brownout runbook", "Grace: chase Bramley", "Dale Moreno (SignWorks):";
# numbered or bracketed, by initials or in capitals ("1. DE - test drive", "[MLC] workflow", "3) RAJ: risk assessment"),
# or after a label ("Action: RAJ by Fri 30 Jan - ask Cyclescheme").
_OWNER = re.compile(
    r"^[\s\-–•*|\[]*(?:\d{1,2}[.)]\s+)?(?:(?:Action|Owner)s?:\s+)?([A-Z][a-z]+|[A-Z]{2,10}\b|[A-Z][A-Za-z]{0,5}[A-Z]\b)"
    r"(?:\s+[A-Z][a-z]+)?\s*(?:\([^)]*\)\s*)?(?:[\]–:|]|-(?![a-z])|\s+by\b)"
)  # not a word a hyphen joins: "- Strip-out of lean-to done" is nobody's (`fresh50`'s barn)
_MIN_SHARED = 2
_OWNER_SHARED = 3
_MARGIN = 2
_PROSE_LINE = 200  # characters: a longer line is an article's paragraph, restated sentence by sentence
# A status email's "I will rebook the session", its table's "| Me |" and its list's "- Me: flyers to the library" are
# its writer's: the name on a last line.
_I = re.compile(r"\bI\b(?![.])|\|\s*Me\s*\||^[\s\-–•*]*(?:\*\*)?Me(?:\*\*)?\s*[:\-–]")  # not "let me know"


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
        word for word in capitalized(source)
        if (folded := word.lower()) not in lower and folded not in _NOT_NAMES
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
                    words=_content(part, names),
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
    return in_capitals(opening, people, attendees) if opening.isupper() else people.get(opening)


class Certain(NamedTuple):
    """What a sentence was read to get wrong with no model: quantities its source never states, and how the source
    contradicts it (each empty when nothing)."""

    unstated: list[str]
    contradicted: list[str]


def read_certain(sentence: str, reading: SourceReading) -> Certain:
    missing = unstated(sentence, reading.stated)
    # A count the source writes only as a date's day, or as two dates' gap ("limited to 15 people" against "Fri 15
    # Aug"), is often a text's own ("one reschedule"), so it is no mistake alone; a rival on its line makes it one.
    return Certain(missing, contradictions(sentence, reading, unstated(sentence, reading.stated, as_written=True)))


def contradictions(sentence: str, reading: SourceReading, unstated: Sequence[str]) -> list[str]:
    """How the source contradicts the sentence, each as 'the sentence's fact where the source states another'
    ("2.1 where it states 1.2", "Jess Whitcombe where it names Priya Nandakumar"), the same words wherever the text
    repeats the fact; [] when it does not. `unstated` are the sentence's quantities the source never states, as
    `quantities.unstated` spells them."""
    found = []
    numbers = {quantity.partition(" ")[0] for quantity in unstated}
    # A date the source never gives whose day it states as something else ("until Monday 8 December" against "8
    # families per slot" and "Closed Mondays until Mon 15 Dec").
    moved = [date for date in sorted(dates(sentence)) if date not in reading.stated and date[0] not in numbers]
    if unstated or moved:
        # The line the sentence restates; where none stands out, the lines it restates alike ("we have committed
        # €388,500 and paid €214,000, while the insurance quote has risen"), any of which may state a rival.
        shared = _shared(sentence, reading)
        line = _restated(shared, reading)
        lines = [line] if line is not None else _near_lines(shared, reading)
        dated = days(sentence)
        for day, month in moved:
            if any((day, None) in each.days | each.quantities for each in lines):
                continue  # the line gives the day, if not with this month: "Fri 15", "2025-06-17"
            # Any other day its lines date, not only one of its size as for a figure: a deadline moved from the 24th
            # to the 1st is as wrong as one moved to the 17th. Not a day the sentence gives itself.
            others = {int(d) for each in lines for d, _ in each.days if d.isdigit() and d not in dated}
            rivals = sorted(others, key=lambda other: (abs(other - int(day)), other))
            found.extend(f"{day} {month} where it states {rival}" for rival in rivals[:1])
        for quantity in unstated:
            number, _, unit = quantity.partition(" ")
            if unit and any((number, None) in each.quantities for each in lines):
                continue  # "a 55–60 minute target" where the line says "target 55-60": its unit, not its number
            if not unit and number not in dated and any((number, None) in each.days for each in lines):
                continue  # "Nos 1–4 in July" where the line says "Nos 1-4 July": the line writes it, if as a day
            rivals = [
                rival
                for each in lines
                for rival in rivals_of(number, unit or None, each.days if number in dated else each.quantities)
            ]
            found.extend(f"{quantity} where it states {rival}" for rival in rivals[:1])
    found.extend(_changed_figures(sentence, reading, [fact.partition(" ")[0] for fact in found]))
    for piece in _pieces(sentence, reading):
        read = []
        sharing: frozenset[str] = frozenset()
        for part in _parts(piece):
            # "Kenji and I: decide the van insurance excess": a part of names alone shares the next part's action.
            if not _content(part, reading.names):
                sharing |= _named(part, reading)
                continue
            if (owners := _wrong_owners(part, reading, sharing=sharing)) is not None:
                read.append(owners)
            sharing = frozenset()
        # A part too short to restate its line alone ("Clare will set up the Tuesday practices at St Mary's, Upton,
        # with their tower captain, by Friday 27 June") is read with the rest of its sentence, when no part could be.
        found.extend(owner for owners in read for owner in owners)
        if not read:
            found.extend(_wrong_owners(piece, reading, whole=True) or [])
    return found


def _named(part: str, reading: SourceReading) -> frozenset[str]:
    """The people `part` names, its "I" as the writer."""
    return persons(part, reading.people) | ({reading.writer} if reading.writer and _I.search(part) else frozenset())


def _changed_figures(sentence: str, reading: SourceReading, read: Sequence[str]) -> list[str]:
    """Figures changed to one the notes state elsewhere ("we have held three fit sessions" where its line says "Fit
    sessions w/ model: 2 done", and "3 dropped" is another's), which no unstated figure gives away: of a clause that
    restates a line of notes, its one figure the line does not give, where the line gives one the sentence does not.
    `read` are the figures already read as contradicted."""
    found = []
    given = {number for number, _ in quantities(sentence, dates=False)} | days(sentence)
    for part in _CLAUSES.split(sentence):
        line = _restated(_shared(part, reading), reading)
        if line is not None and not line.prose and (added := _added(part, line, read)) is not None:
            left = frozenset(quantity for quantity in line.quantities if quantity[0] not in given)
            # The one figure of its size the line gives that the sentence does not ("£35,000 in disposal licence
            # fees" against "£18,500" beside a "2.4 km" of the same line).
            rivals = rivals_of(added, None, left)
            found.extend(f"{added} where it states {rival}" for rival in rivals if len(rivals) == 1)
    line = _restated(_shared(sentence, reading), reading, margin=1)
    if found or line is None or line.prose or (added := _added(sentence, line, read)) is None:
        return found
    # No clause restates the figure's line alone ("the mast ... is buried to 0.9 m of its 3.0 m height" against
    # "mast buried to 1.4 m of 3.0 m"): the whole sentence may, if by a word less than a clause must stand out
    # ("September attendance was 70%, against 82% normally" by one against "Sep attendance 64% (normally 82%)"). A
    # sentence holds more figures than a clause, so its figure is only held to one the line writes with the same
    # word or sign after it ("m", "%", "students"): not "ram #2" against "ramp angle >1:12 at low tide".
    after = {word for number, word in followers(sentence) if number == added and word}
    left = frozenset((n, None) for n, word in line.figures if word in after and n not in given)
    return [f"{added} where it states {rival}" for rival in rivals_of(added, None, left)[:1]]


def _added(part: str, line: Line, read: Sequence[str]) -> str | None:
    """The one figure `part` gives that `line` does not, if one and not already `read`. Not a one, which "a year" and
    "the next one" give as often as a figure does."""
    added = {number for number, _ in quantities(part, dates=False)} - {n for n, _ in line.quantities | line.days}
    added.discard("1")
    return number if len(added) == 1 and (number := next(iter(added))) not in read else None


def _wrong_owners(
    part: str, reading: SourceReading, whole: bool = False, sharing: frozenset[str] = frozenset()
) -> list[str] | None:
    """The people `part` gives an action its source line gives to someone else, each as 'X where it names Y'; []
    when its line's owner is one it names, None when it names no one or restates no line an attendee owns. Read
    `whole`, a sentence is only held to a line an attendee owns, not one whose heading opens it ("Risk: …"). The
    people of `sharing` share the part's action."""
    named = _named(part, reading) | sharing
    if not named:
        return None
    shared = _shared(part, reading)
    owned = _restated(shared, reading)
    if owned is not None and owned.owner is not None and (not whole or owned.owner in reading.attendees):
        if owned.owner in named:
            return []
        # Naming only people the line names too ("she'll ask Mike Drury's board game club") says nothing of its owner.
        return [f"{person} where it names {owned.owner}" for person in sorted(named - owned.people)] or None
    if (listed := named & reading.attendees) and (owners := _owners(shared, reading)):
        others = " and ".join(sorted(owners))
        return [] if listed & owners else [f"{person} where it names {others}" for person in sorted(listed)]
    return None


def _parts(piece: str) -> list[str]:
    return [piece] if _ROW.match(piece) else _PARTS.split(piece)


def _pieces(sentence: str, reading: SourceReading) -> list[str]:
    """The text's own sentences a checked sentence is made of. A text of more than 40 is checked in runs of them
    joined by spaces (engine/sentences.py), and a heading line that names an owner ("Iain", over the actions that
    are his) then ends the run before it: read as part of that run's last action, it gave the action to him."""
    if sentence in reading.sentences:
        return [sentence]
    return [piece for piece in reading.sentences if piece in sentence] or [sentence]


def _content(text: str, names: frozenset[str]) -> frozenset[str]:
    words = (word.lower().rstrip("s") for word in WORD.findall(text) if word not in names)
    months = ["may"] if _MAY.search(text) else []
    return frozenset([_SHORT.get(word, word) for word in words if len(word) >= 3 and word not in _STOP] + months)


def _shared(part: str, reading: SourceReading) -> list[int]:
    """How many content words `part` shares with each line of the source, in the lines' order."""
    words = _content(part, reading.names)
    return [len(words & line.words) for line in reading.lines]


def _restated(shared: Sequence[int], reading: SourceReading, margin: int = _MARGIN) -> Line | None:
    """The line a part restates, from its `_shared` counts: the most content words shared, at least `_MIN_SHARED`
    and `margin` more than any other line's; None when no line stands out."""
    ranked = sorted(((count, index) for index, count in enumerate(shared)), reverse=True)
    if not ranked or ranked[0][0] < _MIN_SHARED:
        return None
    if len(ranked) > 1 and ranked[1][0] > ranked[0][0] - margin:
        return None
    return reading.lines[ranked[0][1]]


def _near_lines(shared: Sequence[int], reading: SourceReading) -> list[Line]:
    """The lines a part may restate, from its `_shared` counts: every line within one content word of the most shared
    (at least `_OWNER_SHARED`); none when fewer are shared."""
    most = max(shared, default=0)
    if most < _OWNER_SHARED:
        return []
    return [line for line, count in zip(reading.lines, shared, strict=True) if count >= max(most - 1, _MIN_SHARED)]


def _owners(shared: Sequence[int], reading: SourceReading) -> frozenset[str]:
    """The attendees named by the lines a part may restate (`_near_lines`), when each of them names one; empty when
    there are none, or any names none."""
    # The line that lists who was there names everyone, so it owns nothing ("Present: … Martin Greaves (tower
    # captain)" beside "Martin: fix Tues practices … with their tower captain").
    near = [line for line in _near_lines(shared, reading) if line.present != reading.attendees]
    if not near or not all(line.present for line in near):
        return frozenset()
    return frozenset().union(*(line.present for line in near))
