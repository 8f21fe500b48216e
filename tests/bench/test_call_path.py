"""bench.call_path: one judge_rag_answer, followed from the boundary to the model, enters no file more than twice."""

from __future__ import annotations

import pytest

from bench.call_path import report, trace


@pytest.mark.parametrize("readout", ["probability", "generated"])
async def test_no_file_is_entered_more_than_twice_on_the_way_to_the_model(readout: str) -> None:
    figures = report(await trace(readout))
    assert figures["model_calls"] > 0
    assert figures["longest_path"][-1] == "tools/engine/calls.py"
    assert figures["path_max_entries"] <= 2, figures["path_entries"]
