"""The reliability figures of several pytest-xdist workers merge into one table: counts add up, the slowest is
the largest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability import tally


@pytest.fixture
def empty_tally() -> Iterator[None]:
    saved = dict(tally.TALLY)
    tally.TALLY.clear()
    try:
        yield
    finally:
        tally.TALLY.clear()
        tally.TALLY.update(saved)


def test_counts_from_two_workers_add_up_and_the_slowest_is_the_larger(empty_tally: None) -> None:
    tally.merge({"injection: cases": 30, "faults: slowest call against a faulty model, s": 1.2})
    tally.merge({"injection: cases": 26, "faults: slowest call against a faulty model, s": 0.8, "limits: x": 3})
    assert tally.TALLY == {
        "injection: cases": 56,
        "faults: slowest call against a faulty model, s": 1.2,
        "limits: x": 3,
    }
