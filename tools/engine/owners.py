"""An action a sentence gives to someone its source line does not: a certain mistake, read with no model.

A part of the sentence names a person of the source, and the line it restates (notes.py) opens with another as its
owner ("Jess: send the vinyl spec" where the notes say "- Priya - send vinyl spec + cleaning data"), or names
attendees, wherever on the line, none of them the part's ("| Kerry | Tell Sunbeam Clubs about access |" where the
notes say "* tell Sunbeam Clubs (summer club) re access -> Aled, 11 Jul"). Where no line stands out, every line within
one word of the best (three or more) must name an attendee, and none the part's. contradicted.py reports these beside
the figures the source contradicts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gavel.tools.engine.notes import SourceReading, content_words, near_lines, restated, shared_counts
from gavel.tools.engine.roster import persons

# Where one part of a sentence ends and the next begins, for who does what: "Ian will submit the order, Tom will
# chase Bramley and Grace will recruit marshals"; its lines are parts too. A table row is one part whole: its owner is
# one cell and its action another ("| Jess | Run two more TAR training rounds and produce a new recall estimate |").
_PARTS = re.compile(r"[,;|\n]\s*|\s+(?:and|but|while)\s+")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
# A status email's "I will rebook the session", its table's "| Me |" and its list's "- Me: flyers to the library" are
# its writer's: the name on a last line.
_I = re.compile(r"\bI\b(?![.])|\|\s*Me\s*\||^[\s\-–•*]*(?:\*\*)?Me(?:\*\*)?\s*[:\-–]")  # not "let me know"


def wrong_owners(sentence: str, reading: SourceReading) -> list[str]:
    """The people `sentence` gives an action its source line gives to someone else, each as 'X where it names Y' ("Jess
    Whitcombe where it names Priya Nandakumar"); [] when none."""
    found: list[str] = []
    for piece in _pieces(sentence, reading):
        read = []
        sharing: frozenset[str] = frozenset()
        for part in _parts(piece):
            # "Kenji and I: decide the van insurance excess": a part of names alone shares the next part's action.
            if not content_words(part, reading.names):
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
    shared = shared_counts(part, reading)
    owned = restated(shared, reading)
    # Read whole, a sentence is held to its line only where an attendee owns it and the sentence names one: a
    # signature's "Technical Director, Northgate Opera" restates "Lotte de Vries (LdV) – technical director" and
    # gives Lotte's role to no one (`fresh52`).
    attended = owned is not None and owned.owner in reading.attendees and bool(named & reading.attendees)
    if owned is not None and owned.owner is not None and (not whole or attended):
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


def _owners(shared: Sequence[int], reading: SourceReading) -> frozenset[str]:
    """The attendees named by the lines a part may restate (`near_lines`); empty when there are none, or a line
    naming none shares as many words with the part as the best that names one. A line a word behind names no owner
    it could take from that one: "| Yusuf | Tell freight customers about the move of the 23:30 sailing |" restates
    "Fiona: tell freight customers re 23:30 move" by six words and a status line on the move by five (`fresh24`)."""
    # The line that lists who was there names everyone, so it owns nothing ("Present: … Martin Greaves (tower
    # captain)" beside "Martin: fix Tues practices … with their tower captain").
    counts = dict(zip(map(id, reading.lines), shared, strict=True))
    near = [line for line in near_lines(shared, reading) if line.present != reading.attendees]
    named = [counts[id(line)] for line in near if line.present]
    if not named or any(counts[id(line)] >= max(named) for line in near if not line.present):
        return frozenset()
    return frozenset().union(*(line.present for line in near if line.present))
