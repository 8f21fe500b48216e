"""Numbers with their units, read deterministically: a claim that states a quantity its source never states
("three months" where the transcript says "three weeks") is unsupported whatever a small model answers.

The 1.5B fact checker catches a changed symptom but rarely a changed number, so a `supported` check reads the
quantities first. English number words up to twenty and the tens ("twenty-three"), digits, and "a" or "an" before
a unit ("a year", "twice a week"); units folded to one spelling (kilos and kg, hrs and hours). A number the source
states with any unit, or alone, supports the same number stated alone, and a duration in days or weeks is stated by
two dates one line of the source, or the sentence itself, states ("moved back two weeks, from 24 March to 7 April").
A date's day is read as a number alone: read with its month, "17 May" was unstated where the notes wrote "Sat 17 +
Sat 31 May", which failed a good email once a certain mistake cost an anchor (bench/README.md, "A certain mistake
against its share"). A day is one written with a month, also at a range's other end ("16-18 June"), a weekday or
"th"; a time "13:00" is stated by the afternoon's "1", and "10pm" by "22:00".
"""

from __future__ import annotations

import itertools
import re

_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)  # fmt: skip
_TENS = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_WORDS)} | {
    word: str(10 * value) for value, word in enumerate(_TENS, start=3)
}
_ONE = ("a", "an")
_UNITS = {
    "second": "second", "seconds": "second", "minute": "minute", "minutes": "minute", "min": "minute",
    "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour", "day": "day", "days": "day",
    "night": "night", "nights": "night", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "year": "year", "years": "year", "kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "kilogram": "kg",
    "kilograms": "kg", "lb": "lb", "lbs": "lb", "pound": "lb", "pounds": "lb", "time": "time", "times": "time",
    "mg": "mg", "am": "clock", "a.m": "clock", "pm": "clock", "p.m": "clock",
    # Notes abbreviate: "48 h notice", "3 yrs", "~30 pages/wk".
    "h": "hour", "sec": "second", "secs": "second", "mins": "minute", "wk": "week", "wks": "week",
    "mo": "month", "mos": "month", "mth": "month", "mths": "month", "yr": "year", "yrs": "year",
}  # fmt: skip
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_MONTH = {
    **{name: name for name in _MONTHS},
    **{name[:3]: name for name in _MONTHS if name != "may"},
    "sept": "september",
}
_DAYS_BEFORE = dict(zip(_MONTHS, (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334), strict=True))
_ORDINAL = {"st", "nd", "rd", "th"}
# A duration two dates make is stated only as that duration: the 10 days of "20-30 October" state no "10 November".
_BETWEEN = "between "
_WEEKDAYS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue", "tues", "wed", "thu",
    "thur", "thurs", "fri", "sat", "sun",
}  # fmt: skip
_PRONOUN_ONE = {"no", "that", "this", "which", "any", "each", "every"}  # "no one", "that one": not a count
# "a second witness sample" is the ordinal, not one second: the article makes a number of these units only.
_NOT_AFTER_ARTICLE = {"time", "second"}
_CONNECTORS = {"to", "or", "and"}
# A clock time is one number ("8:00"); words joined by hyphens are one word ("a night-time visit" counts no nights)
# unless a number word leads them ("a two-hour brownout").
_TOKEN = re.compile(r"\d{1,2}:\d\d|\d+(?:[.,]\d+)*|[a-z]+(?:-[a-z]+)+|[a-z]+(?:\.[a-z])?", re.IGNORECASE)
_COMMA = re.compile(r"\s*,")
_PER_UNIT = re.compile(r"(?:/\s*|\bper\s+)([a-z]+)", re.IGNORECASE)
# "its highest level in a decade" states the "ten-year high" a summary writes ("two decades", "3 decades": 20, 30).
_DECADES = re.compile(r"\b(?:an?|(\d+|" + "|".join(_WORDS[1:]) + r"))\s+decades?\b", re.IGNORECASE)
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
# A figure in digits and the word or sign right after it: "0.9 m", "70%", "17 of 24".
_FIGURE = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)(?!\d)\s?([%°]|[a-z]+)?", re.IGNORECASE)


def _number(token: str) -> str:
    """A digit token as one spelling: "40,000" is forty thousand, "1,5" one and a half, "8:00", "8.00" and "08"
    eight, "8:30" as "8.30", "1.20" 1.2."""
    number = token.replace(",", "") if _THOUSANDS.match(token) else token.replace(",", ".").replace(":", ".")
    whole, point, fraction = number.partition(".")
    fraction = fraction.rstrip("0") if point and fraction.isdigit() else fraction
    whole = (whole.lstrip("0") or "0") if whole.isdigit() else whole
    return f"{whole}.{fraction}" if fraction else whole


def _thousand(number: str) -> str:
    """`number` thousands, as `_number` spells it: "$412k" is 412000."""
    value = float(number) * 1000
    return str(int(value)) if value.is_integer() else str(value)


def quantities(text: str, *, dates: bool = True) -> set[tuple[str, str | None]]:
    """Each number of the text with the unit right after it, if it has one: {("3", "week"), ("4", "clock")}. A
    date's day stands alone: notes date a day without its month ("Sat 17 + Sat 31 May"), so "17 May" is 17. Without
    `dates`, a number is left out where it is a date's day ("Android 12 ... by Wed 12 March" keeps one 12)."""
    return _as_stated([read for read in _read(_tokens(text)) if dates or read[2] not in _DAYS_BEFORE])


def followers(text: str) -> set[tuple[str, str]]:
    """Each figure `text` writes in digits, as `quantities` spells it, with the word or sign right after it ("" for
    none): ("0.9", "m") of "buried to 0.9 m", ("70", "%") of "70%", ("17", "of") of "17 of 24 panels"."""
    return {(_number(match[1]), (match[2] or "").lower()) for match in _FIGURE.finditer(text)}


def dates(text: str) -> set[tuple[str, str]]:
    """The dates of `text` whose day its month is written beside, as (day, month): "Monday 8 December" is ("8",
    "december"); a range's first day is not one ("5% | 20 June" reads as "5-20 June")."""
    tokens = _tokens(text)
    return {
        (number, unit) for index, number, unit in _read(tokens)
        if unit is not None and unit in _DAYS_BEFORE and (_month_of(tokens, index) or _month_before(tokens, index))
    }  # fmt: skip


def _month_before(tokens: list[str], index: int) -> bool:
    return index > 0 and tokens[index - 1] in _MONTH  # "April 7"


def days(text: str) -> set[str]:
    """The numbers of `text` written as a date's day ("7" of "Sun 7 Sep", "April 7th", "Friday 15"), as `quantities`
    spells them."""
    tokens = _tokens(text)
    read = _read(tokens)
    dated = _dated(tokens, read)
    return {number for index, number, _ in read if index in dated}


def _as_stated(read: list[tuple[int, str, str | None]]) -> set[tuple[str, str | None]]:
    return {(number, None if unit in _DAYS_BEFORE else unit) for _, number, unit in read}


def _tokens(text: str) -> list[str]:
    tokens = []
    lower = text.lower()
    for match in _TOKEN.finditer(lower):
        token = match.group(0)
        parts = token.split("-")
        if len(parts) == 2 and parts[0] in ("twenty", *_TENS) and parts[1] in _WORDS[1:10]:
            tokens.append(str(int(_NUMBER_WORDS[parts[0]]) + _WORDS.index(parts[1])))  # "twenty-three": 23
        else:
            tokens.extend(parts if len(parts) > 1 and parts[0] in _NUMBER_WORDS else [token])
        if token in _MONTH and _COMMA.match(lower, match.end()):
            tokens.append(",")  # "Sun mornings in Dec, 9-10am": a month a comma ends dates no day after it
    return tokens


def _day(token: str) -> bool:
    return token.isdigit() and 1 <= int(token) <= 31


def _month_of(tokens: list[str], index: int) -> str | None:
    """The month a day at `index` is dated with right after it ("7 April", "7th Apr"), or None."""
    if not _day(tokens[index]):
        return None
    after = index + 1 + (index + 1 < len(tokens) and tokens[index + 1] in _ORDINAL)
    return _MONTH[tokens[after]] if after < len(tokens) and tokens[after] in _MONTH else None


def _range_month(tokens: list[str], index: int) -> str | None:
    """The month of a range's first day, dated only at its other end ("16-18 June", "from 16 to 30 September")."""
    if not _day(tokens[index]):
        return None
    following = index + 1 + (index + 1 < len(tokens) and tokens[index + 1] in _CONNECTORS)
    return _month_of(tokens, following) if following < len(tokens) else None


def _dated(tokens: list[str], read: list[tuple[int, str, str | None]]) -> set[int]:
    """Where `read` has a date's day: dated with a month, or a weekday before it or "th" after ("Friday 15", "the
    15th")."""
    return {
        index for index, _, unit in read
        if unit in _DAYS_BEFORE
        or (unit is None and index + 1 < len(tokens) and tokens[index + 1] in _ORDINAL)
        or (unit is None and index > 0 and tokens[index - 1] in _WEEKDAYS)  # not "Saturday 10 pm"
    }  # fmt: skip


def _read(tokens: list[str], pronoun_one: bool = False) -> list[tuple[int, str, str | None]]:
    """Each number of `tokens` with its index and the unit right after it ("412k" is 412000, its unit the one after
    the k); "no one" and "every one" as one too only with `pronoun_one` (a source, read generously)."""
    found: list[tuple[int, str, str | None]] = []
    dated: set[int] = set()  # days and months already read as a date
    for index, token in enumerate(tokens):
        if index in dated:
            continue
        if token in _MONTH and index + 1 < len(tokens) and _day(tokens[index + 1]):
            found.append((index + 1, _number(tokens[index + 1]), _MONTH[token]))  # "April 7", "Apr 7th"
            dated.add(index + 1)
            continue
        if month := _month_of(tokens, index):
            found.append((index, _number(token), month))
            dated.add(index + 1 + (tokens[index + 1] in _ORDINAL))  # "1 Apr - 15 Jun": April is this day's
            continue
        if month := _range_month(tokens, index):
            found.append((index, _number(token), month))
            continue
        after = index + 1
        thousands = after < len(tokens) and tokens[after] == "k" and token[0].isdigit()
        after += thousands
        unit = _UNITS.get(tokens[after]) if after < len(tokens) else None
        # "a year", "an hour", "three times a week": the article before a unit is the number one ("one day at a
        # time" is not a count of times).
        one = "1" if token in _ONE and unit is not None and unit not in _NOT_AFTER_ARTICLE else None
        number = _number(token) if token[0].isdigit() else _NUMBER_WORDS.get(token) or one
        pronoun = token == "one" and index > 0 and tokens[index - 1] in _PRONOUN_ONE  # "no one was sure"
        if number is None or (pronoun and not pronoun_one):
            continue
        found.append((index, _thousand(number) if thousands else number, unit))
    return found


def source_quantities(source: str) -> set[tuple[str, str | None]]:
    """The quantities a source states, read generously, as notes write them: a number's unit a word or two later
    ("14 scheduled nights"), a range's unit for its other end ("from 2 days to 3", "8:00 to 8:50 a.m.", "19-21
    Dec"), a rate's one ("~$9k/yr", "per week"), a decade's ten years, a range's thousands ("$40-60k" states 40000
    too), and the days and weeks between two dates of one line. Each only lets a sentence go to the model's check;
    none marks one unsupported."""
    tokens = _tokens(source)
    read = _read(tokens, pronoun_one=True)  # "three trees for every one felled" supports a "three-for-one" rule
    found = {(number, unit) for _, number, unit in read}
    for position, (index, number, unit) in enumerate(read):
        if unit is None:
            later = [_UNITS[t] for t in tokens[index + 1 : index + 3] if t in _UNITS]
            if later:
                found.add((number, later[0]))
            earlier = read[position - 1] if position else None
            if earlier and earlier[2] and earlier[0] == index - 3 and tokens[index - 1] in _CONNECTORS:
                found.add((number, earlier[2]))
            following = read[position + 1] if position + 1 < len(read) else None
            if (
                following
                and following[2]
                and (  # "from 8:00 to 8:50 a.m.", "19-21 Dec"
                    following[0] == index + 1 or (following[0] == index + 2 and tokens[index + 1] in _CONNECTORS)
                )
            ):
                found.add((number, following[2]))
            if "k" in tokens[index + 1 : index + 3] and number.replace(".", "", 1).isdigit():
                found.add((_thousand(number), None))
    found |= {("1", _UNITS[word.lower()]) for word in _PER_UNIT.findall(source) if word.lower() in _UNITS}
    found |= {(str(10 * int(_NUMBER_WORDS.get(n.lower(), n) if n else 1)), "year") for n in _DECADES.findall(source)}
    for line in source.splitlines():
        found |= _gaps(_read(_tokens(line)))
    return found


def _gaps(read: list[tuple[int, str, str | None]]) -> set[tuple[str, str | None]]:
    """The days, and whole weeks, between any two dates of one line or sentence (`read`): the nearer way round the
    year, since notes write "Mon 4 Nov (was 28 Oct)" as often as "from 28 Oct to 4 Nov"."""
    days = [int(number) + _DAYS_BEFORE[unit] for _, number, unit in read if unit in _DAYS_BEFORE]
    found: set[tuple[str, str | None]] = set()
    for first, second in itertools.combinations(days, 2):
        gap = min(abs(first - second), 365 - abs(first - second))
        found.add((str(gap), f"{_BETWEEN}day"))
        if gap and gap % 7 == 0:
            found.add((str(gap // 7), f"{_BETWEEN}week"))
    return found


def unstated(claim: str, stated: set[tuple[str, str | None]], *, as_written: bool = False) -> list[str]:
    """The claim's quantities the source does not state (`stated`: the source's `source_quantities`, read once for
    all its claims), as 'three months' reads ('3 month'); [] when all are. A day the claim dates, with a month, a
    weekday or "th", is stated by any number the source writes. A count is stated by any number of the source, or
    `as_written` only by one it writes as a count: "limited to 15 people" is not stated by "Fri 15 Aug", nor "three
    open bugs" by the three days from "Fri 21" to "Mon 24 March"."""
    tokens = _tokens(claim)
    read = _read(tokens)
    dated = _dated(tokens, read)
    stated = stated | _gaps(read)
    numbers = {number for number, _ in stated}
    written = {number for number, unit in stated if not (unit or "").startswith(_BETWEEN)}
    counts = {n for n, unit in stated if unit not in _DAYS_BEFORE} & written if as_written else numbers
    missing: set[str] = set()
    for index, number, unit in read:
        if index in dated:
            if number not in written:
                missing.add(number)
        elif unit is None and ":" in tokens[index]:
            if not _clock_stated(number, counts, stated):
                missing.add(number)
        elif unit is None:
            if number not in counts:
                missing.add(number)
        elif unit == "clock" and _evening_stated(number, tokens[index + 1 : index + 2], numbers):
            continue
        elif (number, unit) not in stated and (number, f"{_BETWEEN}{unit}") not in stated:
            missing.add(f"{number} {unit}")
    return sorted(missing)


def _clock_stated(hour: str, counts: set[str], stated: set[tuple[str, str | None]]) -> bool:
    """Whether a time written "13:00" is stated: as 13, or as 1 where a source writes the afternoon "10-1" or
    "1pm"."""
    whole = hour.partition(".")[0]
    afternoon = str(int(whole) - 12) + hour[len(whole) :] if whole.isdigit() and int(whole) > 12 else None
    return any(h in counts or (h, "clock") in stated for h in (hour, afternoon) if h)


def _evening_stated(hour: str, after: list[str], numbers: set[str]) -> bool:
    """Whether "10pm" (`hour`, then the token `after` it) is stated by a 24-hour clock's "22:00", as the notes'
    "Sat 16 06:00 - Sun 17 22:00" state "from 6am on Saturday 16 August to 10pm on Sunday 17 August"."""
    evening = bool(after) and after[0].lower() in ("pm", "p.m")
    return evening and hour.isdigit() and 1 <= int(hour) <= 11 and str(int(hour) + 12) in numbers
