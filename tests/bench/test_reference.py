"""bench/reference.py --smoke end to end on the scripted model: it judges each pair with the right answer as the
reference, writes its JSON, and says plainly that the right answer is judged against itself."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import PYTHON, REPO_ROOT


def test_the_smoke_run_writes_correctness_auroc_and_states_the_self_judged_caveat(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    completed = subprocess.run(
        [PYTHON, "-m", "bench.reference", "--smoke", "--out", str(tmp_path)],
        cwd=REPO_ROOT, env=clean_env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-4000:]
    document = json.loads((tmp_path / "reference.json").read_text(encoding="utf-8"))
    assert document["smoke"] is True and len(document["items"]) == 2
    correctness = document["summary"]["answer_correctness"]
    assert {"auroc", "pairwise_accuracy", "unscored_rate"} <= set(correctness)
    assert all(item["correctness_hallucinated"] is not None for item in document["items"])
    assert "judged against itself" in document["caveat"] and "hallucinated side only" in correctness["caveat"]
    assert "judged against itself" in completed.stdout
