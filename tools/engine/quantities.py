"""Numbers with their units, read deterministically: a claim that states a quantity its source never states
("three months" where the transcript says "three weeks") is unsupported whatever a small model answers.

The 1.5B fact checker catches a changed symptom but rarely a changed number, so a `supported` check reads the
quantities first. English number words up to twenty, digits, and "a" or "an" before a unit ("a year", "twice a
week"); units folded to one spelling (kilos and kg, hrs and hours). A number the source states with any unit, or
alone, supports the same number stated alone.
"""

from __future__ import annotations

import re

_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)  # fmt: skip
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_WORDS)}
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
    "mo": "month", "mos": "month", "yr": "year", "yrs": "year",
}  # fmt: skip
# "a second witness sample" is the ordinal, not one second: the article makes a number of these units only.
_NOT_AFTER_ARTICLE = {"time", "second"}
_CONNECTORS = {"to", "or", "and"}
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+(?:\.[a-z])?", re.IGNORECASE)
_PER_UNIT = re.compile(r"(?:/\s*|\bper\s+)([a-z]+)", re.IGNORECASE)
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")


def _number(token: str) -> str:
    """A digit token as one spelling: "40,000" is forty thousand, "1,5" one and a half."""
    if _THOUSANDS.match(token):
        return token.replace(",", "")
    return token.replace(",", ".")


def _thousand(number: str) -> str:
    """`number` thousands, as `_number` spells it: "$412k" is 412000."""
    value = float(number) * 1000
    return str(int(value)) if value.is_integer() else str(value)


def quantities(text: str) -> set[tuple[str, str | None]]:
    """Each number of the text with the unit right after it, if it has one: {("3", "week"), ("4", "clock")}."""
    return {(number, unit) for _, number, unit in _read(_tokens(text))}


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _read(tokens: list[str]) -> list[tuple[int, str, str | None]]:
    """Each number of `tokens` with its index and the unit right after it ("412k" is 412000, its unit the one after
    the k)."""
    found = []
    for index, token in enumerate(tokens):
        after = index + 1
        thousands = after < len(tokens) and tokens[after] == "k" and token[0].isdigit()
        after += thousands
        unit = _UNITS.get(tokens[after]) if after < len(tokens) else None
        # "a year", "an hour", "three times a week": the article before a unit is the number one ("one day at a
        # time" is not a count of times).
        one = "1" if token in _ONE and unit is not None and unit not in _NOT_AFTER_ARTICLE else None
        number = _number(token) if token[0].isdigit() else _NUMBER_WORDS.get(token) or one
        if number is None:
            continue
        found.append((index, _thousand(number) if thousands else number, unit))
    return found


def source_quantities(source: str) -> set[tuple[str, str | None]]:
    """The quantities a source states, read generously, as notes write them: a number's unit a word or two later
    ("14 scheduled nights"), a range's unit for its other end ("from 2 days to 3"), a rate's one ("~$9k/yr", "per
    week") and a range's thousands ("$40-60k" states 40000 too). Each only lets a sentence go to the model's check;
    none marks one unsupported."""
    tokens = _tokens(source)
    read = _read(tokens)
    found = {(number, unit) for _, number, unit in read}
    for position, (index, number, unit) in enumerate(read):
        if unit is None:
            later = [_UNITS[t] for t in tokens[index + 1 : index + 3] if t in _UNITS]
            if later:
                found.add((number, later[0]))
            earlier = read[position - 1] if position else None
            if earlier and earlier[2] and earlier[0] == index - 3 and tokens[index - 1] in _CONNECTORS:
                found.add((number, earlier[2]))
            if "k" in tokens[index + 1 : index + 3] and number.replace(".", "", 1).isdigit():
                found.add((_thousand(number), None))
    found |= {("1", _UNITS[word.lower()]) for word in _PER_UNIT.findall(source) if word.lower() in _UNITS}
    return found


def unstated(claim: str, stated: set[tuple[str, str | None]]) -> list[str]:
    """The claim's quantities the source does not state (`stated`: the source's `source_quantities`, read once for
    all its claims), as 'three months' reads ('3 month'); [] when all are."""
    numbers = {number for number, _ in stated}
    missing = []
    for number, unit in sorted(quantities(claim), key=str):
        if (unit is None and number not in numbers) or (unit is not None and (number, unit) not in stated):
            missing.append(f"{number} {unit}" if unit else number)
    return missing
