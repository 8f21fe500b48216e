"""`gavel calibrate` as a person runs it: a real process, the real `ollama` client against the Ollama-API test
server (the one fake: its replies, Yes with log-probabilities), a real SQLite ledger, and Ctrl-C."""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from gavel.server.cli.calibrate import progress_line
from gavel.server.cli.main import main
from gavel.tools.calibration.sets import DATA_DIR, shipped_sets
from tests.conftest import PYTHON
from tests.support.graded import PEOPLE
from tests.support.ollama_server import OllamaReply, OllamaTestServer

MODEL = "test-model:latest"
YES = [
    {
        "token": "Yes",
        "logprob": -0.1,
        "top_logprobs": [{"token": "Yes", "logprob": -0.1}, {"token": "No", "logprob": -2.4}],
    }
]
WAIT_S = 60.0


def env_for(server: OllamaTestServer, ledger: Path) -> dict[str, str]:
    return {
        **os.environ,
        "GAVEL_BACKEND": "ollama",
        "GAVEL_OLLAMA_HOST": server.url,
        "GAVEL_JUDGE_MODEL": MODEL,
        "GAVEL_LEDGER_PATH": str(ledger),
        "GAVEL_LOG_LEVEL": "WARNING",
    }


def calibrate(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "gavel.server", "calibrate", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_a_run_prints_the_table_and_show_lists_it(tmp_path: Path) -> None:
    with OllamaTestServer(responder=lambda body: OllamaReply("Yes", logprobs=YES), models=[MODEL]) as server:
        env = env_for(server, tmp_path / "ledger.sqlite3")
        run = calibrate(env, "--set", "halueval-qa", "--limit", "4")
        out, err = run.communicate(timeout=WAIT_S)
        assert run.returncode == 0, err
        shown = subprocess.run([PYTHON, "-m", "gavel.server", "calibrate", "--show"], env=env, capture_output=True,
                               text=True, timeout=WAIT_S, check=True)  # fmt: skip
    assert "of judge_rag_answer on halueval-qa: complete" in out
    assert "| balanced accuracy |" in out and "| AUROC |" in out and "| decision cut |" in out
    assert "(probability readout)" in out
    assert err.count("[") >= 4 and "[4/4]" in err  # a progress line per item
    assert "halueval-qa" in shown.stdout and "test-model:latest" in shown.stdout and "(partial)" not in shown.stdout


def test_ctrl_c_keeps_the_items_judged_and_reports_them_as_partial(tmp_path: Path) -> None:
    slow = OllamaTestServer(
        responder=lambda body: OllamaReply("Yes", logprobs=YES), models=[MODEL], fault="slow", slow_s=0.2
    )
    with slow as server:
        env = env_for(server, tmp_path / "ledger.sqlite3")
        run = calibrate(env, "--set", "halueval-qa", "--limit", "40")
        assert run.stderr is not None
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            line = run.stderr.readline()
            if line.startswith("[2/"):
                break
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=WAIT_S)
        shown = subprocess.run([PYTHON, "-m", "gavel.server", "calibrate", "--show"], env=env, capture_output=True,
                               text=True, timeout=WAIT_S, check=True)  # fmt: skip
    assert run.returncode == 130, err
    assert "PARTIAL (interrupted after" in out and "of 40 items)" in out
    assert "(partial)" in shown.stdout


def digits_by_people(body: dict[str, Any]) -> OllamaReply:
    """The people's overall rating of the judged response, as one digit with log-probabilities, or for a yes/no
    check as P(yes) = rating / 5 (a 4 for a call that judges no item, such as the backend's log-probability
    probe)."""
    content = body["messages"][-1]["content"]
    fenced = content.rsplit("<<<\n", 1)
    judged = fenced[-1].split("\n>>>", 1)[0].strip() if len(fenced) == 2 else ""
    rating = PEOPLE.get(judged, 4.0)
    if "Yes or No" in content:
        top = [
            {"token": "Yes", "logprob": math.log(rating / 5)},
            {"token": "No", "logprob": math.log(1 - rating / 5 + 1e-3)},
        ]
        return OllamaReply("Yes", logprobs=[{"token": "Yes", "logprob": top[0]["logprob"], "top_logprobs": top}])
    digit = str(round(rating))
    top = [{"token": digit, "logprob": -0.01}]
    return OllamaReply(digit, logprobs=[{"token": digit, "logprob": -0.01, "top_logprobs": top}])


def test_the_dialogue_set_runs_from_the_command_line_and_reports_spearman(tmp_path: Path) -> None:
    with OllamaTestServer(responder=digits_by_people, models=[MODEL]) as server:
        env = env_for(server, tmp_path / "ledger.sqlite3")
        run = calibrate(env, "--set", "topicalchat-usr", "--limit", "6")
        out, err = run.communicate(timeout=WAIT_S)
        assert run.returncode == 0, err
        shown = subprocess.run([PYTHON, "-m", "gavel.server", "calibrate", "--show"], env=env, capture_output=True,
                               text=True, timeout=WAIT_S, check=True)  # fmt: skip
    assert "of evaluate_assessment on topicalchat-usr: complete" in out and re.search(
        r"\| Spearman \| -?[01]\.\d\d \[", out
    )
    assert "note: graded labels only" in out and "[6/6]" in err
    header, row = shown.stdout.splitlines()[:2]
    assert "SPEARMAN" in header and "topicalchat-usr" in row


@pytest.mark.usefixtures("restore_logging")
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["calibrate"], "give --set NAME"),
        (["calibrate"], "give --set NAME (clinical-assessment, halueval-qa, topicalchat-usr)"),
        (["calibrate", "--set", "nope"], "the shipped sets are clinical-assessment, halueval-qa, topicalchat-usr"),
        (["calibrate", "--set", "halueval-qa", "--limit", "0"], "must be at least 1"),
        (["calibrate", "--show", "--ledger-path", "off"], "ledger is off"),
        (["calibrate", "--set", "halueval-qa", "--report", "/nonexistent/cal.html"], "/nonexistent does not exist"),
    ],
)
def test_bad_invocations_say_what_to_change(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) if "--limit" in argv else contextlib.nullcontext():
        code = main([*argv, *(["--ledger-path", str(tmp_path / "l.sqlite3")] if "off" not in argv else [])])
        assert code == 2
    assert message in capsys.readouterr().err


def test_a_bug_in_gavel_exits_3_with_one_line_and_the_traceback_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], restore_logging: None
) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("gavel.tools.calibration.sets.load_set", boom)
    code = main(["calibrate", "--set", "halueval-qa", "--ledger-path", str(tmp_path / "l.sqlite3")])
    err = capsys.readouterr().err
    assert code == 3
    assert "Traceback (most recent call last)" in err  # logged, so it can be reported
    assert err.splitlines()[-1].startswith("gavel: error: a bug in gavel ended 'gavel calibrate' (RuntimeError: boom)")


def test_the_help_names_every_shipped_set(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for name in shipped_sets())


def test_progress_counts_whole_items_and_a_cut_fitted_on_few_items_carries_a_caveat(tmp_path: Path) -> None:
    with OllamaTestServer(responder=lambda body: OllamaReply("Yes", logprobs=YES), models=[MODEL]) as server:
        run = calibrate(env_for(server, tmp_path / "ledger.sqlite3"), "--set", "halueval-qa", "--limit", "16")
        out, err = run.communicate(timeout=WAIT_S)
    assert run.returncode == 0, err
    assert "progress notification not sent" not in err, err[-2000:]
    counters = re.findall(r"^\[([^\]]*)\]", err, re.MULTILINE)
    assert counters and all(re.fullmatch(r"\d+(/\d+)?", c) for c in counters), sorted(set(counters))
    assert "[16/16]" in err
    assert "fitted on only 16 items" in out and "fewer than 50" in out, out


def test_an_items_id_reaches_the_terminal_on_one_line_with_no_escape_sequence() -> None:
    line = progress_line(1, 2, "x\x1b]0;PWNED\x07\x1b[2J\nfake\x9b: score 0.91")
    assert line == "[1/2] x\ufffd]0;PWNED\ufffd\ufffd[2J fake\ufffd: score 0.91"


def test_a_sets_name_reaches_the_terminal_on_one_line_with_no_escape_sequence(tmp_path: Path) -> None:
    data = tmp_path / "mine.jsonl"
    data.write_text("".join((DATA_DIR / "halueval-qa.jsonl").read_text().splitlines(True)[:2]))
    data.with_suffix(".toml").write_text('name = "x\\u001b]0;PWNED\\u0007\\nfake"\n')
    with OllamaTestServer(responder=lambda body: OllamaReply("Yes", logprobs=YES), models=[MODEL]) as server:
        env = env_for(server, tmp_path / "ledger.sqlite3")
        run = calibrate(env, "--data", str(data))
        out, err = run.communicate(timeout=WAIT_S)
        shown = subprocess.run([PYTHON, "-m", "gavel.server", "calibrate", "--show"], env=env, capture_output=True,
                               text=True, timeout=WAIT_S, check=True)  # fmt: skip
    assert run.returncode == 0, err
    assert "on x\ufffd]0;PWNED\ufffd fake: 2 items" in err and "on x\ufffd]0;PWNED\ufffd fake: complete" in out
    assert "x\ufffd]0;PWNED\ufffd fake" in shown.stdout.splitlines()[1]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out + err + shown.stdout)


def test_the_judges_model_name_reaches_the_terminal_with_no_escape_sequence(tmp_path: Path) -> None:
    model = "x\x1b]0;PWNED\x07:latest"  # a name the backend's server chose (the first model an OpenAI server lists)
    with OllamaTestServer(responder=lambda body: OllamaReply("Yes", logprobs=YES), models=[model]) as server:
        env = {**env_for(server, tmp_path / "ledger.sqlite3"), "GAVEL_JUDGE_MODEL": model}
        run = calibrate(env, "--set", "halueval-qa", "--limit", "2")
        out, err = run.communicate(timeout=WAIT_S)
        shown = subprocess.run([PYTHON, "-m", "gavel.server", "calibrate", "--show"], env=env, capture_output=True,
                               text=True, timeout=WAIT_S, check=True)  # fmt: skip
    assert run.returncode == 0, err
    assert "judge: ollama x\ufffd]0;PWNED\ufffd:latest (" in out
    assert "x\ufffd]0;PWNED\ufffd:latest" in shown.stdout.splitlines()[1]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out + shown.stdout)
