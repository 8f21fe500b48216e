"""The scan of frames no parser takes: the depth and where it is exceeded, the top-level id and method, and time
linear in the frame whatever it repeats."""

from __future__ import annotations

import time

import pytest

from gavel.server.frame_scan import MAX_DEPTH, FrameScan

FOUR_MB = 4_000_000
# Measured here: 0.1-0.4 s per 4 MB shape; the scan this replaced took 4.6 s on one and 93 s on 80 KB of another.
# Timed in this thread's CPU time, so the other test worker on a 2-core machine does not count against it.
BOUND_S = 2.0


def test_the_depth_and_the_path_to_where_it_first_exceeds_the_limit() -> None:
    scan = FrameScan('{"id": 6, "params": {"arguments": {"rubric": ' + '{"a": ' * 198 + "1" + "}" * 201)
    assert scan.max_depth == 201 and not scan.stopped_early
    assert scan.deep_path is not None and scan.deep_path[:3] == ["params", "arguments", "rubric"]
    assert scan.header == {"id": 6}


def test_the_id_and_method_after_a_deep_value_are_read() -> None:
    scan = FrameScan('{"params": ' + "[" * 500 + "]" * 500 + ', "method": "ping", "id": "x"}')
    assert scan.header == {"method": "ping", "id": "x"} and scan.max_depth == 501


def test_a_frame_cut_off_inside_a_string_after_a_backslash_still_yields_its_header() -> None:
    assert FrameScan('{"id": 1, "method": "x", "a": "abc\\').header == {"id": 1, "method": "x"}


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param("[" * (FOUR_MB // 2) + "]" * (FOUR_MB // 2), id="brackets"),
        pytest.param('{"a":' * (FOUR_MB // 5), id="keys"),
        pytest.param('"\\' * (FOUR_MB // 2), id="escaped-quotes"),
        pytest.param('"' * FOUR_MB, id="quotes"),
        pytest.param("[" + "1," * (FOUR_MB // 2), id="commas"),
        pytest.param("[ " * (FOUR_MB // 2), id="spaced-brackets"),
        pytest.param('{"id":' * (FOUR_MB // 6), id="header-keys"),
    ],
)
def test_a_4mb_frame_is_scanned_in_bounded_time(frame: str) -> None:
    started = time.thread_time()
    scan = FrameScan(frame)
    assert time.thread_time() - started < BOUND_S
    assert scan.max_depth <= MAX_DEPTH or scan.deep_path is not None
