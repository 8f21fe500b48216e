"""Every benchmark's --smoke mode, end to end, so the benchmarks cannot rot: `python -m bench.run --smoke`.

Runs in the normal suite (no marker deselects it): tiny inputs and the scripted model only, well under two
minutes on 2 cores. It checks that each benchmark ran and wrote its JSON with the machine description, not
what the numbers are: numbers are for the benchmark programs, not for tests.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, REPO_ROOT

SMOKE_TIMEOUT_S = 120.0
BENCHMARKS = ["overhead", "scale", "cost", "agreement", "ideas"]


@pytest.fixture(scope="module")
def smoke_results(tmp_path_factory: pytest.TempPathFactory, clean_env: dict[str, str]) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("bench-results")
    completed = subprocess.run(
        [PYTHON, "-m", "bench.run", "--smoke", "--out", str(out)],
        cwd=REPO_ROOT,
        env=clean_env,
        capture_output=True,
        text=True,
        timeout=SMOKE_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 0, f"bench.run --smoke failed:\n{completed.stdout}\n{completed.stderr[-4000:]}"
    return out, completed.stdout


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in BENCHMARKS])
def test_smoke_run_writes_each_benchmarks_json_with_the_machine_and_load(
    smoke_results: tuple[Path, str], name: str
) -> None:
    out, _ = smoke_results
    document = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
    assert document["benchmark"] == name
    assert document["smoke"] is True
    assert {"cpu", "cores", "python", "commit", "when"} <= set(document["machine"])
    assert len(document["load_average_before"]) == 3 and len(document["load_average_after"]) == 3


def test_smoke_run_prints_a_table_for_every_benchmark(smoke_results: tuple[Path, str]) -> None:
    _, stdout = smoke_results
    for heading in ("## 1. Server overhead", "## 2. LLM cost", "## 3. Agreement", "## 4. Scale", "## score_candidates"):
        assert heading in stdout


def test_report_renders_the_readme_tables_from_the_smoke_results(smoke_results: tuple[Path, str]) -> None:
    from bench.report import render

    out, _ = smoke_results
    text = render(out)
    for heading in ("**1. Server overhead**", "**2. LLM cost", "**3. Agreement", "**4. Scale**"):
        assert heading in text
