"""Which of a line's numbers rival a text's figure: of its size, and not one the text could have worked out from them.

contradicted.py holds a sentence's figure to its line's rivals ("2.1 million sets" against the line's "1.2 million").
"""

from __future__ import annotations

import itertools
import math

_NEAR = 3.0  # times: a rival is within this factor of the figure


def rivals_of(number: str, unit: str | None, stated: frozenset[tuple[str, str | None]]) -> list[str]:
    """The line's numbers with `unit` that rival `number`, nearest first: of its size (within a factor of 3, a year
    only against a year), and `number` not the sum or difference of two of them (a text works out "a cut of €35
    million" from €210 million and €175 million)."""
    value = _value(number)
    same = sorted({v for n, u in stated if u == unit and (v := _value(n)) is not None})
    pairs = list(itertools.combinations(same, 2))  # each (smaller, larger)
    worked_out = {a + b for a, b in pairs} | {b - a for a, b in pairs}
    if value is None or value in worked_out:
        return []
    rivals = sorted((v for v in same if v != value and _near(v, value)), key=lambda v: abs(math.log(v / value)))
    return [_spelled(v) for v in rivals]


def _value(number: str) -> float | None:
    try:
        return float(number)
    except ValueError:
        return None


def _near(a: float, b: float) -> bool:
    if _year(a) != _year(b) or a <= 0 or b <= 0:
        return False
    return 1 / _NEAR <= a / b <= _NEAR


def _year(value: float) -> bool:
    return value.is_integer() and 1900 <= value <= 2100


def _spelled(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)
