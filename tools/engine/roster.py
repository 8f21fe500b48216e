"""Who the notes name: each name's person, the attendees their opening lines list, and who signs a text.

A person is the longest run of names a name stands in anywhere in the source ("Present: Priya Nandakumar (bursar)"
makes "Priya" Priya Nandakumar). The attendees are listed on one line of comma-separated entries near the top, or
one to a line under a heading that names no one, read while the lines are indented or bulleted so that the list ends
at "Apologies: …" or the next heading (`fresh41`, `fresh42`), or flush left or under no heading while each line opens
with a full name. Initials the notes give in brackets name their person however formed ("CMcA", `fresh52`).
contradicted.py reads owners against them.
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping

# Letters of any alphabet: "Siobhan Ní Bhriain" is three names and "SNB" her initials (`fresh43`'s puppet company).
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’])+")
# A run of names goes on over spaces, or over a hyphen between two names: "Mei-Ling Chua" is one person, "MLC"; and
# over a name's particles in lower case: "Rhiannon ap Gwilym" is one person, "RapG" (`fresh52`), as is "Tom de la Haye".
_PARTICLE_WORDS = "ap ab de del della da di du dos das la le van von der den ter ten zu"
_PARTICLES = frozenset(_PARTICLE_WORDS.split())
PARTICLE = "|".join(_PARTICLE_WORDS.split())  # a name's particle, as a pattern's alternatives
# A capital alone between two names is one of them too: "Tomás Ó Súilleabháin" is "TÓS" (`fresh53`'s CubeSat).
_APART = re.compile(rf"\s+(?:(?:{PARTICLE})\s+){{0,2}}(?:[^\W\d_a-z]\.?\s+)?|-")
_PARTS = re.compile(r"[\s\-]+")
_Run = tuple[list[str], str, tuple[int, int]]  # a run's names, the text it spans, and where
_LISTED_WITHIN = 8  # lines: the notes' heading, date and place come before who was there
_HEADLESS_WITHIN = 3  # lines: a list under no heading follows the title and the date, or a place too
_BRACKETED = re.compile(r"\([^)]*\)")  # "(ops mgr, chair)": a role, whose commas separate no people
_ROLL = re.compile(r"^\s*(?:present|attendees|attending|in attendance|who)\s*:?\s*$", re.IGNORECASE)
# "Revd Canon Ann Blackwood" is Ann, as the text names her
_TITLE = re.compile(r"^(?:(?:Dr|Prof|Mr|Mrs|Ms|Miss|Mx|Cllr|Revd|Rev|Canon|Pastor|Fr|Sgt|Insp|Capt|Sir|Dame)\.?\s+)+")
_LISTED = re.compile(r"^(?:\s*[-–•*]\s+|\s+)")  # a line of the list: indented or bulleted, unlike the next heading
_LABEL = re.compile(r"^[^:]{0,25}:\s*")
_ENTRIES = re.compile(r"[,;|]")  # "In room: Shauna O'Dwyer [SO'D] producer | Callum McAllister [CMcA] engine"
_GIVEN = re.compile(r"[(\[]\s*([^\W\d_](?:[^\W\d_]|['’]){1,9})\s*[,;)\]]")  # "(MLC, process eng)", "[SO'D]"
_PREFIX = 3  # letters: "RAJ" begins Rajesh, where two capitals are initials only ("CA" for Chloe Abernethy)
_SIGNED_WITHIN = 3  # lines: a sign-off, a name, a role
_SIGNATURE = 60  # characters: "Marta Kowalczyk, Curator, Birds" is a signature, a sentence is not


def capitalized(text: str) -> list[str]:
    """The words of `text` written with a capital and ending in small letters ("Priya", "Siân", "McFie", "O'Rourke",
    not "KM" or the initials "CMcA"): "Gordon McFie" unread ended `fresh49`'s list of attendees at him."""
    return [word for word in WORD.findall(text) if word[0].isupper() and word[-1].islower()]


def capitals(word: str) -> bool:
    """Whether `word` is written as initials or in capitals, in any alphabet: "MLC", "CMcA", "TdlH", "LØ", "WILF"."""
    return 2 <= len(word) <= (10 if word.isupper() else 7) and word[0].isupper() and word[-1].isupper()


def _runs(raw: str, names: Container[str]) -> list[_Run]:
    """The runs of names in `raw`, each with the text it spans and where: names apart only by spaces or a hyphen."""
    runs: list[tuple[list[str], int, int]] = []
    end = None  # where the last name ended, while the run it belongs to can go on
    for match in WORD.finditer(raw):
        if match.group(0) not in names:
            if match.group(0) not in _PARTICLES:
                end = None  # a particle keeps the run going: "Rhiannon ap Gwilym"
        elif end is not None and _APART.fullmatch(raw[end : match.start()]):
            runs[-1] = (runs[-1][0] + [match.group(0)], runs[-1][1], match.end())
            end = match.end()
        else:
            runs.append(([match.group(0)], match.start(), match.end()))
            end = match.end()
    return [(words, " ".join(raw[start:stop].split()), (start, stop)) for words, start, stop in runs]


def people_of(source: str, names: frozenset[str]) -> dict[str, str]:
    """Each name's person: the longest run of names it stands in anywhere in the source ("Present: Priya
    Nandakumar (bursar), Tom Okafor" makes "Priya" Priya Nandakumar and "Tom" Tom Okafor)."""
    people: dict[str, str] = {}
    lines = [(raw, _runs(raw, names)) for raw in source.splitlines()]
    for _, runs in lines:
        for words, person, _ in runs:
            for word in words:
                if len(person) > len(people.get(word, "")):
                    people[word] = person
    return people | _initials_given(lines, people)


def _initials_given(lines: list[tuple[str, list[_Run]]], people: Mapping[str, str]) -> dict[str, str]:
    """The initials the notes give a person in brackets after their name, however formed ("Marie-Claire Lefèvre (MLC,
    process eng)", "Dr Conor McAllister (CMcA)", "Dave O'Neill (treasurer) (DO)"), if they begin as the name does.
    `lines` are the notes' lines, each with its `_runs`."""
    given: dict[str, str] = {}
    for raw, runs in lines:
        if not runs:
            continue
        ends = [span[0] for _, _, span in runs[1:]] + [len(raw)]  # each run's brackets end where the next name starts
        for (words, _, (_, stop)), end in zip(runs, ends, strict=True):
            person = people[words[0]]
            for initials in _GIVEN.findall(raw[stop:end]):
                begins = initials[0] == _TITLE.sub("", person)[0]
                if capitals(initials) and begins and people.get(initials, person) == person:
                    given[initials] = person
    return given


def attendees_of(source: str, people: Mapping[str, str]) -> frozenset[str]:
    """The people the notes list near their top, wherever and however they are labelled ("Attendees: Morag Lindqvist
    (ops mgr, chair), Deepak Rao (marine engineer)", "On call: …", or no label): of the first lines, the one with
    the most comma-separated entries that open with a name, if it has two or more."""
    lines = [line for line in source.splitlines() if line.strip()]
    best: frozenset[str] = frozenset()
    for raw in lines[:_LISTED_WITHIN]:
        listed = _LABEL.sub("", _BRACKETED.sub("", raw), count=1)
        found = frozenset(
            people[first.group(0)] for entry in _ENTRIES.split(listed)
            if (first := WORD.match(_TITLE.sub("", entry.strip()))) is not None and first.group(0) in people
        )  # fmt: skip
        if len(found) >= 2 and len(found) > len(best):
            best = found
    column = _listed_down(lines, people)
    return column if len(column) > len(best) else best


def _listed_down(lines: list[str], people: Mapping[str, str]) -> frozenset[str]:
    """The people listed one to a line under a heading that names no one ("Present" over "  Revd Canon Ann Blackwood
    - chair", "  Martin Greer - clerk"): the run of indented or bulleted lines after the heading, up to the first
    line that is neither ("Apologies: Jo Amis", "Progress"), each read by the name it opens with after any title.
    `lines` are the notes' lines that are not blank."""
    lines = lines[: _LISTED_WITHIN + 8]
    for number, heading in enumerate(lines):
        # With no heading, indented lines under the title and date, each opening with a full name ("   Cllr Bronwen
        # Hughes-Jones (chair) (BHJ)" under "Mon 8 Sept, 7pm, back room of the shop"), are a list too (`fresh50`).
        headless = not _ROLL.match(heading)
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if headless and (number >= _HEADLESS_WITHIN or _LISTED.match(heading) or not _LISTED.match(following)):
            continue
        listed = []
        # A list flush left has no mark of where it ends but its names: it is read while each line opens with a
        # person the notes name in full ("Dr Kofi Mensah (KM) - senior scientist"), up to "Status" or "Apologies".
        flush = not _LISTED.match(following)
        for line in lines[number + 1 :]:
            first = WORD.match(_TITLE.sub("", _LISTED.sub("", line)))
            person = people.get(first.group(0)) if first is not None else None
            full = person is not None and " " in person
            if (not flush and not _LISTED.match(line)) or ((flush or headless) and not full):
                break
            if person is not None:
                listed.append(person)  # a name the reading does not spell is skipped
        if len(listed) >= 2 or not headless:
            return frozenset(listed) if len(listed) >= 2 else frozenset()
    return frozenset()


def writer_of(text: str, people: Mapping[str, str], attendees: frozenset[str]) -> str | None:
    """Who signs `text`: an attendee whose name opens one of its last lines, a short line of a name and perhaps a
    role ("Thanks,\nCallum", "Rosa Lindqvist\nHead of Collections"); None when no such line ends it."""
    for line in [line.strip() for line in text.splitlines() if line.strip()][-_SIGNED_WITHIN:][::-1]:
        first = WORD.match(line.lstrip("—–- "))
        person = people.get(first.group(0)) if first else None
        if person in attendees and len(line) <= _SIGNATURE and not line.endswith((".", ":", "?", "|")):
            return person
    return None


def persons(text: str, people: Mapping[str, str]) -> frozenset[str]:
    """The people `text` names, each as the source names them in full: a run of names is the person its first name
    stands for when that person's name holds the run ("Tom Byrne" is Tom, not Helen Byrne too, `fresh46`)."""
    named: set[str] = set()
    for words, _, _ in _runs(text, people):
        first = people[words[0]]
        if set(words) <= set(WORD.findall(first)):
            named.add(first)
        else:
            named.update(people[word] for word in words)
    return frozenset(named)


def in_capitals(word: str, people: Mapping[str, str], attendees: frozenset[str]) -> str | None:
    """The attendee a word in capitals names, if only one: their first name ("WILF"), its start ("RAJ" for Rajesh
    Menon), or their initials ("DE" for David Ellery, "PN" for Cllr Priya Nandakumar); None for any other."""
    for spelled in (word, word.capitalize()):  # initials the notes give, then a first name
        if people.get(spelled) in attendees:
            return people[spelled]
    bare = {person: _TITLE.sub("", person) for person in attendees}  # "HB" is Cllr Helen Brierley's
    named = {
        person for person in attendees
        if word in _initials(bare[person]) or (len(word) >= _PREFIX and bare[person].upper().startswith(word))
    }  # fmt: skip
    return next(iter(named)) if len(named) == 1 else None


def _initials(name: str) -> frozenset[str]:
    """The ways notes write `name` as initials: a letter a name ("TdlH", "MLC"), its capitals alone ("TH"), each
    particle whole ("RapG"), in capitals ("TDLH"), or each name to its last capital ("CMcA", "FO'R")."""
    parts = [part for part in _PARTS.split(name) if part]
    firsts = "".join(part[0] for part in parts)
    inner = "".join(_to_last_capital(part) for part in parts)
    return frozenset(
        {
            firsts,
            firsts.upper(),
            "".join(part[0] for part in parts if part[0].isupper()),
            "".join(part if part[0].islower() else part[0] for part in parts),
            inner,
        }
    )


def _to_last_capital(part: str) -> str:
    return part[: max(i for i, c in enumerate(part) if c.isupper()) + 1] if part[0].isupper() else part[0]


def initialled(
    text: str, people: Mapping[str, str], attendees: frozenset[str], lower: frozenset[str]
) -> frozenset[str]:
    """The attendees `text` names in capitals anywhere ("schedule agreed w/ GL", "RAJ for, CA against"), not by a
    word written in lower case too (`lower`: "AND", "NOT", "SEND")."""
    return frozenset(
        person for word in WORD.findall(text)
        if capitals(word) and word.lower() not in lower and (person := in_capitals(word, people, attendees)) is not None
    )  # fmt: skip
