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
}  # fmt: skip
_TOKEN = re.compile(r"\d+(?:[.,]\d+)?|[a-z]+(?:\.[a-z])?", re.IGNORECASE)


def quantities(text: str) -> set[tuple[str, str | None]]:
    """Each number of the text with the unit right after it, if it has one: {("3", "week"), ("4", "clock")}."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    found: set[tuple[str, str | None]] = set()
    for index, token in enumerate(tokens):
        unit = _UNITS.get(tokens[index + 1]) if index + 1 < len(tokens) else None
        # "a year", "an hour", "three times a week": the article before a unit is the number one ("one day at a
        # time" is not a count of times).
        one = "1" if token in _ONE and unit not in (None, "time") else None
        number = token if token[0].isdigit() else _NUMBER_WORDS.get(token) or one
        if number is None:
            continue
        found.add((number.replace(",", "."), unit))
    return found


def unstated(claim: str, stated: set[tuple[str, str | None]]) -> list[str]:
    """The claim's quantities the source does not state (`stated`: the source's `quantities`, read once for all
    its claims), as 'three months' reads ('3 month'); [] when all are."""
    numbers = {number for number, _ in stated}
    missing = []
    for number, unit in sorted(quantities(claim), key=str):
        if (unit is None and number not in numbers) or (unit is not None and (number, unit) not in stated):
            missing.append(f"{number} {unit}" if unit else number)
    return missing
