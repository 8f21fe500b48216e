"""`gavel eval` as a CI job runs it: a real process, the real `ollama` client against the Ollama-API test server
(the one fake: its Yes/No replies with log-probabilities, No for HaluEval's hallucinated answers), a real SQLite
ledger, and the report opened in a real headless chromium.

The 50 items are the first 50 of the shipped HaluEval QA dev set, with `--map sources=context`."""

from __future__ import annotations

import csv
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gavel.server.cli.eval import ProgressBar, _print_summary
from gavel.server.cli.main import main
from gavel.tools.engine.sentences import split_sentences
from gavel.tools.rag.sentence_support import claims
from tests.conftest import PYTHON, REPO_ROOT
from tests.support.chromium import load_page
from tests.support.ollama_server import OllamaReply, OllamaTestServer

HALUEVAL = REPO_ROOT / "tools" / "calibration" / "data" / "halueval-qa.jsonl"
ITEMS = 50
MODEL = "test-model:latest"
WAIT_S = 300.0
RERUN_BOUND_S = 5.0
# Load average per core above which wall-clock bounds are not checked (the CPU-time bound still is).
OVERLOADED_PER_CORE = 2.0


def _tokens(first: str, second: str) -> list[dict[str, Any]]:
    top = [{"token": first, "logprob": -0.1}, {"token": second, "logprob": -2.4}]
    return [{"token": first, "logprob": -0.1, "top_logprobs": top}]


def _hallucinated() -> list[str]:
    rows = [json.loads(line) for line in HALUEVAL.read_text(encoding="utf-8").splitlines()[:ITEMS]]
    return [row["answer"] for row in rows if row["label"] == "bad"]


BAD_ANSWERS = _hallucinated()
# A hallucinated answer of two sentences is checked one sentence at a time: each of its claims is recognised alone.
BAD_CLAIMS = {claim for answer in BAD_ANSWERS for claim in [answer, *claims(answer)]}


def responder(body: dict[str, Any]) -> OllamaReply:
    """Yes to everything about a right answer, No to anything about a hallucinated one."""
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages") or [])
    if any(claim in prompt for claim in BAD_CLAIMS):
        return OllamaReply("No", logprobs=_tokens("No", "Yes"))
    return OllamaReply("Yes", logprobs=_tokens("Yes", "No"))


@dataclass
class Done:
    code: int
    out: str
    err: str
    seconds: float


@dataclass
class EvalEnv:
    server: OllamaTestServer
    env: dict[str, str]
    first: Path  # the --out DIR of the first run over the 50 items
    first_run: Done

    def run(self, *args: str) -> Done:
        started = time.perf_counter()
        done = subprocess.run([PYTHON, "-m", "gavel.server", "eval", *args], env=self.env, capture_output=True,
                              text=True, timeout=WAIT_S, check=False)  # fmt: skip
        return Done(done.returncode, done.stdout, done.stderr, time.perf_counter() - started)

    def halueval(self, out: Path, *more: str) -> Done:
        return self.run(str(HALUEVAL), "--tool", "judge_rag_answer", "--map", "sources=context",
                        "--limit", str(ITEMS), "--out", str(out), *more)  # fmt: skip


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory, clean_env: dict[str, str]) -> Iterator[EvalEnv]:
    """One server and ledger for the module, and the first run over the 50 items (every item judged)."""
    root = tmp_path_factory.mktemp("eval")
    with OllamaTestServer(responder=responder, models=[MODEL]) as server:
        env = {**clean_env, "GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": server.url, "GAVEL_JUDGE_MODEL": MODEL,
               "GAVEL_LEDGER_PATH": str(root / "ledger.sqlite3"), "GAVEL_LOG_LEVEL": "WARNING"}  # fmt: skip
        setup = EvalEnv(server, env, root / "first", Done(0, "", "", 0.0))
        setup.first_run = setup.halueval(setup.first)
        yield setup


def rows_of(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_fifty_items_are_judged_into_results_a_summary_and_a_report(evaluated: EvalEnv) -> None:
    run = evaluated.first_run
    assert run.code == 0, run.err
    rows = rows_of(evaluated.first)
    assert len(rows) == ITEMS
    assert all(row["evaluation_id"] and row["result"]["evaluation_id"] == row["evaluation_id"] for row in rows)
    assert {row["verdict"] for row in rows} >= {"approved", "rejected"}
    assert not any(row["cached"] for row in rows)
    summary = json.loads((evaluated.first / "summary.json").read_text())
    assert summary["items"] == ITEMS and summary["figures"]["approved_rate"] == 0.5
    assert (evaluated.first / "report.html").stat().st_size > 0
    assert f"[{'#' * 30}] {ITEMS}/{ITEMS}" in run.err  # the progress bar reached the end
    assert "mean_overall" in run.out and "report:" in run.out


def judgments_asked(server: OllamaTestServer) -> int:
    """Chat requests that judge (not the backend's once-per-process log-probability probe)."""
    return sum(1 for body in server.chat_requests if "Is 2 greater than 1?" not in json.dumps(body))


def test_a_rerun_is_served_from_the_ledger_in_under_five_seconds(evaluated: EvalEnv, tmp_path: Path) -> None:
    asked = judgments_asked(evaluated.server)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = evaluated.halueval(tmp_path / "again")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert run.code == 0, run.err
    assert all(row["cached"] for row in rows_of(tmp_path / "again"))
    assert judgments_asked(evaluated.server) == asked  # no item judged again
    measured = f"the rerun took {run.seconds:.1f} s ({cpu_s:.1f} s of CPU)"
    assert cpu_s < RERUN_BOUND_S, measured
    # Wall time is the process's CPU time plus its wait for a core: on a machine whose other work keeps every core
    # busy several times over, the wait alone can pass the bound, and says nothing about the rerun.
    if os.getloadavg()[0] < OVERLOADED_PER_CORE * (os.cpu_count() or 1):
        assert run.seconds < RERUN_BOUND_S, measured


def test_fail_under_exits_1_when_the_figure_is_below_it(evaluated: EvalEnv, tmp_path: Path) -> None:
    below = evaluated.halueval(tmp_path / "below", "--fail-under", "approved_rate=0.6")
    above = evaluated.halueval(tmp_path / "above", "--fail-under", "approved_rate=0.5", "--fail-under", "error_rate=0")
    assert below.code == 1 and "approved_rate 0.5 is below 0.6" in below.err
    assert above.code == 0, above.err


def test_an_unknown_figure_is_refused_with_the_tools_figures(evaluated: EvalEnv, tmp_path: Path) -> None:
    run = evaluated.halueval(tmp_path / "x", "--fail-under", "mean_average=0.7")
    assert run.code == 2
    assert "mean_average is no figure of judge_rag_answer" in run.err and "mean_overall" in run.err


def test_data_naming_a_required_argument_otherwise_is_refused_with_the_map_to_use(
    evaluated: EvalEnv, tmp_path: Path
) -> None:
    data = tmp_path / "outputs.jsonl"
    data.write_text(json.dumps({"question": "Who?", "output": "Me.", "sources": ["Me."]}) + "\n", encoding="utf-8")
    run = evaluated.run(str(data), "--tool", "judge_rag_answer", "--out", str(tmp_path / "x"))
    assert run.code == 2
    assert "no item has answer" in run.err and "its keys: output" in run.err and "--map answer=KEY" in run.err
    assert not (tmp_path / "x").exists()


def test_an_out_directory_whose_results_file_is_the_data_is_refused_before_judging(
    evaluated: EvalEnv, tmp_path: Path
) -> None:
    data = tmp_path / "results.jsonl"
    row = {"question": "Who?", "answer": "Me.", "sources": ["Me."]}
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    run = evaluated.run(str(data), "--tool", "judge_rag_answer", "--out", str(tmp_path))
    assert run.code == 2, run.err
    assert "the data being judged" in run.err and "Traceback" not in run.err
    assert json.loads(data.read_text(encoding="utf-8")) == row, "the data is left as it was"


def test_an_output_name_taken_by_a_directory_is_refused_before_judging(evaluated: EvalEnv, tmp_path: Path) -> None:
    (tmp_path / "out" / "report.html").mkdir(parents=True)
    run = evaluated.halueval(tmp_path / "out")
    assert run.code == 2, run.err
    assert "report.html there is a directory" in run.err and "Traceback" not in run.err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_compare_lists_what_changed_since_the_earlier_run(evaluated: EvalEnv, tmp_path: Path) -> None:
    data = tmp_path / "changed.jsonl"
    lines = HALUEVAL.read_text(encoding="utf-8").splitlines()[:ITEMS]
    first = json.loads(lines[0])  # a right answer, approved; now a new answer the model finds unsupported
    lines[0] = json.dumps({**first, "answer": f"Reportedly, {BAD_ANSWERS[0]}"})  # one sentence, not item 2's twin
    data.write_text("\n".join([*lines[1:], lines[0]]) + "\n", encoding="utf-8")
    run = evaluated.run(str(data), "--tool", "judge_rag_answer", "--map", "sources=context", "--out",
                        str(tmp_path / "now"), "--compare", str(evaluated.first))  # fmt: skip
    assert run.code == 0, run.err
    assert f"1 changed, {ITEMS - 1} unchanged, 0 added, 0 removed" in run.out
    assert f"{first['id']}: approved" in run.out and "-> rejected" in run.out
    assert "approved_rate: 0.500 -> 0.480 (-0.020)" in run.out
    assert sum(1 for row in rows_of(tmp_path / "now") if not row["cached"]) == 1  # only the changed item judged


def test_an_invalid_item_is_an_error_row_and_the_run_goes_on(evaluated: EvalEnv, tmp_path: Path) -> None:
    data = tmp_path / "mixed.jsonl"
    good = json.loads(HALUEVAL.read_text(encoding="utf-8").splitlines()[0])
    data.write_text(
        json.dumps({"id": "no-answer", "question": "Who?", "sources": ["A passage."]}) + "\n"
        + "{not json\n" + json.dumps({**good, "sources": [good["context"]]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    run = evaluated.run(str(data), "--tool", "judge_rag_answer", "--out", str(tmp_path / "out"))
    rows = rows_of(tmp_path / "out")
    assert run.code == 0, run.err
    assert [row["verdict"] for row in rows] == ["error", "error", "approved"]
    assert rows[0]["error_kind"] == "invalid" and "answer: is required" in rows[0]["error"]
    assert rows[1]["error_kind"] == "unreadable" and "line 2 is not JSON" in rows[1]["error"]
    assert "context" in run.err  # the column that is no argument is named once


def test_a_csv_dataset_reads_sources_as_one_passage_or_a_json_list(evaluated: EvalEnv, tmp_path: Path) -> None:
    good = json.loads(HALUEVAL.read_text(encoding="utf-8").splitlines()[0])
    data = tmp_path / "items.csv"
    with data.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "answer", "sources"])
        writer.writerow(["plain", good["question"], good["answer"], good["context"]])
        writer.writerow(["listed", good["question"], good["answer"], json.dumps([good["context"], "More."])])
    run = evaluated.run(str(data), "--tool", "judge_rag_answer", "--out", str(tmp_path / "out"))
    rows = rows_of(tmp_path / "out")
    assert run.code == 0, run.err
    assert [row["verdict"] for row in rows] == ["approved", "approved"]
    assert [row["id"] for row in rows] == ["plain", "listed"] and "extra" not in rows[0]


def test_the_report_loads_in_chromium_with_every_item_and_no_console_error(evaluated: EvalEnv, chromium: Path) -> None:
    page = load_page(evaluated.first / "report.html", chromium)
    assert page.errors == []
    assert page.cards == ITEMS
    assert page.chart_slots >= 3 and page.charts_drawn == page.chart_slots
    assert "mean_overall" in page.text and BAD_ANSWERS[0] in page.text


def test_the_report_marks_the_unsupported_sentences(evaluated: EvalEnv) -> None:
    html = (evaluated.first / "report.html").read_text(encoding="utf-8")
    # One mark per unsupported sentence: each sentence of every hallucinated answer.
    assert html.count('<mark class="unsupported"') == sum(len(split_sentences(a)) for a in BAD_ANSWERS)


def test_the_compare_report_loads_with_its_diff(evaluated: EvalEnv, chromium: Path, tmp_path: Path) -> None:
    shutil.copytree(evaluated.first, tmp_path / "earlier")
    run = evaluated.halueval(tmp_path / "now", "--compare", str(tmp_path / "earlier"))
    assert run.code == 0, run.err
    page = load_page(tmp_path / "now" / "report.html", chromium)
    assert page.errors == [] and page.cards == ITEMS and page.charts_drawn == page.chart_slots
    assert "Changes since" in page.text


def test_the_command_lists_the_tools_and_figures_the_run_knows() -> None:
    from gavel.server.cli.commands import COMMANDS, EVAL_TOOLS
    from gavel.server.cli.eval_run import EVAL_TOOLS as RUN_TOOLS
    from gavel.tools.evaluation.figures import FIGURES, TOOLS

    assert set(EVAL_TOOLS) == set(TOOLS) == set(RUN_TOOLS) == set(FIGURES)
    described = next(c for c in COMMANDS if c.name == "eval").description
    assert all(name in described for figures in FIGURES.values() for name in figures)


def test_ctrl_c_keeps_the_items_judged_and_writes_their_report(tmp_path: Path, clean_env: dict[str, str]) -> None:
    slow = OllamaTestServer(responder=responder, models=[MODEL], fault="slow", slow_s=0.1)
    with slow as server:
        env = {**clean_env, "GAVEL_BACKEND": "ollama", "GAVEL_OLLAMA_HOST": server.url, "GAVEL_JUDGE_MODEL": MODEL,
               "GAVEL_LEDGER_PATH": str(tmp_path / "ledger.sqlite3"), "GAVEL_LOG_LEVEL": "WARNING"}  # fmt: skip
        run = subprocess.Popen(
            [PYTHON, "-m", "gavel.server", "eval", str(HALUEVAL), "--tool", "judge_rag_answer", "--map",
             "sources=context", "--out", str(tmp_path / "out")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert run.stderr is not None
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and " 2/200 " not in run.stderr.readline():
            pass
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=WAIT_S)
    assert run.returncode == 130, err
    rows = rows_of(tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert 2 <= len(rows) < 200 and summary["complete"] is False and summary["items"] == len(rows)
    assert "INTERRUPTED" in out and (tmp_path / "out" / "report.html").is_file()


def test_a_bug_in_gavel_exits_3_with_one_line_and_the_traceback_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], restore_logging: None
) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("gavel.tools.evaluation.dataset.load", boom)
    code = main(["eval", str(HALUEVAL), "--tool", "judge_rag_answer", "--out", str(tmp_path), "--ledger-path", "off"])
    err = capsys.readouterr().err
    assert code == 3
    assert "Traceback (most recent call last)" in err  # logged, so it can be reported
    assert err.splitlines()[-1].startswith("gavel: error: a bug in gavel ended 'gavel eval' (RuntimeError: boom)")


def test_a_bug_partway_says_where_the_items_judged_before_it_are(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
    free_port: Callable[[], int],
) -> None:
    judged = 0

    async def judge_then_boom(spec: object, item: Any, *args: object) -> dict[str, Any]:
        nonlocal judged
        if judged == 2:
            raise RuntimeError("boom")
        judged += 1
        return {"id": item.id, "verdict": "approved", "result": {}}

    monkeypatch.setattr("gavel.server.cli.eval_run.judge_item", judge_then_boom)
    monkeypatch.setenv("GAVEL_OLLAMA_HOST", f"http://127.0.0.1:{free_port()}")  # never asked: no item reaches it
    out = tmp_path / "out"
    code = main(["eval", str(HALUEVAL), "--tool", "judge_rag_answer", "--map", "sources=context", "--out", str(out),
                 "--backend", "ollama", "--ledger-path", "off"])  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert code == 3
    assert len(rows_of(out)) == 2
    assert err[-2].startswith("gavel: error: a bug in gavel ended 'gavel eval' (RuntimeError: boom)")
    assert err[-1] == f"gavel: the 2 items judged before the bug are kept in {out / 'results.jsonl'}"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_progress_bar_redraws_one_line() -> None:
    stream = Terminal()
    bar = ProgressBar(2, stream)
    bar.step({"id": "a", "verdict": "approved", "cached": True, "result": {}})
    bar.step({"id": "b", "verdict": "error"})
    text = stream.getvalue()
    assert text.count("\r\x1b[2K") == 2 and text.count("\n") == 1 and text.endswith("\n")
    assert "2/2" in text and "1 from the ledger, 1 errors | b: error" in text


def test_an_id_reaches_the_terminal_on_one_line_with_no_escape_sequence() -> None:
    stream = io.StringIO()
    ProgressBar(1, stream).step({"id": "x\x1b]0;PWNED\x07\x1b[2J\rfake: approved\x9b", "verdict": "error"})
    assert stream.getvalue().endswith("| x\ufffd]0;PWNED\ufffd\ufffd[2J fake: approved\ufffd: error\n")


def test_the_judges_model_name_reaches_the_terminal_with_no_escape_sequence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = {"complete": True, "items": 1, "from_ledger": 0, "errors": 0, "figures": {},
               "judge": "openai x\x1b]0;PWNED\x07 (probability)"}  # fmt: skip
    _print_summary(summary, None, "judge_rag_answer", tmp_path, None)
    assert "; judge openai x\ufffd]0;PWNED\ufffd (probability)\n" in capsys.readouterr().out
