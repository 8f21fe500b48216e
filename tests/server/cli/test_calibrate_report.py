"""`gavel calibrate --report FILE`: a real process against the Ollama-API test server (the one fake: its replies)
and a real SQLite ledger; the page opened in a real headless chromium."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import PYTHON
from tests.server.cli.test_calibrate import MODEL, WAIT_S
from tests.server.cli.test_eval import responder
from tests.support.chromium import load_page
from tests.support.ollama_server import OllamaTestServer

ITEMS = 8


def test_the_calibration_report_draws_roc_and_reliability_and_a_card_per_item(
    tmp_path: Path, clean_env: dict[str, str], chromium: Path
) -> None:
    report = tmp_path / "calibration.html"
    with OllamaTestServer(responder=responder, models=[MODEL]) as server:
        env = {**clean_env, "GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": server.url, "GAVEL_JUDGE_MODEL": MODEL,
               "GAVEL_LEDGER_PATH": str(tmp_path / "ledger.sqlite3"), "GAVEL_LOG_LEVEL": "WARNING"}  # fmt: skip
        run = subprocess.run(
            [PYTHON, "-m", "gavel.server", "calibrate", "--set", "halueval-qa", "--limit", str(ITEMS),
             "--report", str(report)],
            env=env, capture_output=True, text=True, timeout=WAIT_S, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    page = load_page(report, chromium)
    assert page.errors == []
    assert page.cards == ITEMS
    assert page.charts_drawn == page.chart_slots == 3
    assert "ROC curve (AUROC 1.000)" in page.text and "Reliability" in page.text
    html = report.read_text(encoding="utf-8")
    assert html.count('<mark class="unsupported"') == ITEMS // 2  # the hallucinated answers, from the ledger
