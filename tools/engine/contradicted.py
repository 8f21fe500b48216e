"""A sentence its source contradicts, read with no model: a certain mistake, not a likely one.

A quantity the source never states (engine/quantities.py) is often a good text's own count ("there are two risks") or
its way of writing a figure, so it costs a sentence's share and no more. It is a contradiction when the source line
the sentence restates states a rival: another number with the same unit, of the same size ("2.1 million sets" where
the article's line says "1.2 million", "due 23 July" where the notes say "16 Jul"); a count the source writes only as
a date's day or two dates' gap is read so too ("limited to 15 people" against "Sat 23 Aug, max 10 people", where the
notes date a Fri 15 Aug elsewhere). So is an action given to the wrong person (owners.py): a part of the sentence
names a person of the source, and the line it restates opens with another as its owner ("Jess: send the vinyl spec"
where the notes say "- Priya - send vinyl spec + cleaning data"), or names attendees, wherever on the line, none of
them the part's ("| Kerry | Tell Sunbeam Clubs about access |" where the notes say "* tell Sunbeam Clubs (summer club)
re access -> Aled, 11 Jul"). The attendees are the people the notes' opening lines list, on one line or one to a line
under a heading that names no one, while those lines are indented or bulleted (`fresh42`); an indented line is owned
by the line it sits under too, and a task by the attendee an indented line beneath it names ("Owner: Leanne / Due: Wed
19 Nov"). A text's "I", and a table's "| Me |", name the attendee who signs it. A label that opens a line ("Action:
SNB by Tue 20 Jan") names no one (`fresh43`), nor does the notes' title (`fresh48`). A sentence none of whose parts
settles its owner is read whole ("Clare will set up the Tuesday practices at St Mary's, Upton, with their tower
captain, by Friday 27 June" where the notes say "Martin: fix Tues practices … (due Fri 27 Jun)", `fresh38`); the line
that lists the attendees owns nothing.

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
Tuned with no model on every read user text: good status emails contradicted 1 of 275 (`fresh56`'s kiosks, a range's
count read against its first number), faithfulness versions 217 of 275; summaries 0 and 5 of 43 (bench/data/README.md:
`fresh20`'s and `fresh25`–`fresh56`'s rules and readings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from gavel.tools.engine.notes import Line, SourceReading, near_lines, restated, shared_counts
from gavel.tools.engine.owners import wrong_owners
from gavel.tools.engine.quantities import dates, days, followers, quantities, unstated
from gavel.tools.engine.rivals import rivals_of

# Where a figure's clause ends: "£91,500" is one number, "Subs." over "Subs stay at £85" a sentence of its own.
_CLAUSES = re.compile(r",(?!\d)\s*|[;|\n]\s*|(?<=[.!?])\s+|\s+(?:and|but|while)\s+")


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
        shared = shared_counts(sentence, reading)
        line = restated(shared, reading)
        lines = [line] if line is not None else near_lines(shared, reading)
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
    found.extend(wrong_owners(sentence, reading))
    return found


def _changed_figures(sentence: str, reading: SourceReading, read: Sequence[str]) -> list[str]:
    """Figures changed to one the notes state elsewhere ("we have held three fit sessions" where its line says "Fit
    sessions w/ model: 2 done", and "3 dropped" is another's), which no unstated figure gives away: of a clause that
    restates a line of notes, its one figure the line does not give, where the line gives one the sentence does not.
    `read` are the figures already read as contradicted."""
    found = []
    given = {number for number, _ in quantities(sentence, dates=False)} | days(sentence)
    for part in _CLAUSES.split(sentence):
        line = restated(shared_counts(part, reading), reading)
        if line is not None and not line.prose and (added := _added(part, line, read)) is not None:
            left = frozenset(quantity for quantity in line.quantities if quantity[0] not in given)
            # The one figure of its size the line gives that the sentence does not ("£35,000 in disposal licence
            # fees" against "£18,500" beside a "2.4 km" of the same line).
            rivals = rivals_of(added, None, left)
            found.extend(f"{added} where it states {rival}" for rival in rivals if len(rivals) == 1)
    line = restated(shared_counts(sentence, reading), reading, margin=1)
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
