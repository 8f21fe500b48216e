"""The `gavel` command line: rubrics, config, argument errors and help. In-process through `main(argv)`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gavel.server.cli.commands import COMMANDS, Command
from gavel.server.cli.main import _handler, main
from gavel.tools.engine.embedded import default_model_path
from gavel.tools.ledger import LedgerStatus
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric
from tests.conftest import REPO_ROOT
from tests.support.processes import GAVEL, run_gavel
from tests.support.rubrics import HOUSE_STYLE

BUILT_IN = ["clinical-assessment", "dialogue-response", "idea-quality", "music-recommendation", "rag-answer"]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, restore_logging: None, free_port: Callable[[], int]) -> None:
    for name in list(os.environ):
        if name.startswith("GAVEL_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAVEL_OLLAMA_HOST", f"http://127.0.0.1:{free_port()}")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_rubrics_prints_a_table_of_every_rubric(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rubrics"], capsys)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == ["ID", "VERSION", "TITLE", "METRICS", "SCALE"]
    assert [line.split()[0] for line in lines[1:]] == BUILT_IN
    assert "specificity, completeness" in out and "1-5" in out


def test_rubrics_includes_the_rubrics_dir_given_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "house-style.toml").write_text(HOUSE_STYLE, encoding="utf-8")
    code, out, _ = _run(["rubrics", "--rubrics-dir", str(tmp_path)], capsys)
    assert code == 0
    assert "house-style" in out and "2.1" in out


def test_rubrics_show_prints_metrics_with_their_anchors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rubrics", "show", "clinical-assessment"], capsys)
    rubric = RubricRegistry.load().get("clinical-assessment")
    assert code == 0
    assert out.startswith(f"clinical-assessment v{rubric.version}: {rubric.title}")
    for metric in rubric.metrics:
        assert f"{metric.id} - {metric.name}" in out
    assert "5: no mistakes" in out


def test_rubrics_show_json_is_the_rubric(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rubrics", "show", "rag-answer", "--json"], capsys)
    assert code == 0
    assert Rubric.model_validate_json(out) == RubricRegistry.load().get("rag-answer")


def test_rubrics_show_unknown_id_is_a_one_line_error_listing_the_known_ids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(["rubrics", "show", "nope"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "unknown rubric 'nope'" in err and "clinical-assessment" in err


def test_malformed_rubric_file_is_a_one_line_error_naming_file_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "house-style.toml").write_text(HOUSE_STYLE.replace("max = 5", "max = 0"), encoding="utf-8")
    code, _, err = _run(["rubrics", "--rubrics-dir", str(tmp_path)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "house-style.toml" in err and "scale" in err


def test_config_masks_the_auth_token(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_AUTH_TOKEN", "secret123")
    code, out, err = _run(["config", "--no-probe"], capsys)
    assert code == 0
    assert "secret123" not in out + err
    assert re.search(r"^\s+auth_token\s+\*\*\*\*$", out, re.MULTILINE)


def test_config_reports_which_backend_would_be_used(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["config", "--json"], capsys)
    report = json.loads(out)
    assert code == 0
    assert report["settings"]["backend"] == "auto"
    assert "would_use" in report["backend"], report["backend"]


def test_config_names_the_gguf_file_the_embedded_backend_loads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, out, _ = _run(["config", "--json"], capsys)
    embedded = json.loads(out)["backend"]["embedded"]
    assert code == 0
    assert embedded["model_path"] == str(default_model_path()) and embedded["model_path"].endswith(".gguf")
    assert embedded["model"].startswith("the default, qwen2.5-coder-1.5b-instruct-q4_k_m (assembled")
    monkeypatch.setenv("GAVEL_MODEL_PATH", str(tmp_path / "mine.gguf"))
    _, out, _ = _run(["config"], capsys)
    assert re.search(rf"^\s+model_path\s+{re.escape(str(tmp_path / 'mine.gguf'))}$", out, re.MULTILINE)
    assert re.search(r"^\s+model\s+GAVEL_MODEL_PATH$", out, re.MULTILINE)


def test_config_says_which_weights_layout_the_embedded_backend_takes_and_why(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out, _ = _run(["config", "--json"], capsys)
    assert re.fullmatch(
        r"(repacked|plain) \(auto: CPU vendor .+\)", json.loads(out)["backend"]["embedded"]["weights_layout"]
    )
    monkeypatch.setenv("GAVEL_EMBEDDED_REPACK", "false")
    _, out, _ = _run(["config", "--json"], capsys)
    assert json.loads(out)["backend"]["embedded"]["weights_layout"] == "plain (GAVEL_EMBEDDED_REPACK)"


def test_config_shows_the_openai_server_whether_it_answers_and_masks_its_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.openai_server import OpenAITestServer

    with OpenAITestServer(models=["served-model"], api_key="sk-local-secret") as srv:
        monkeypatch.setenv("GAVEL_OPENAI_BASE_URL", srv.url + "/")
        monkeypatch.setenv("GAVEL_OPENAI_API_KEY", "sk-local-secret")
        code, out, err = _run(["config", "--json"], capsys)
        monkeypatch.setenv("GAVEL_OPENAI_API_KEY", "sk-wrong")
        _, wrong_out, wrong_err = _run(["config", "--json"], capsys)
    report, wrong = json.loads(out), json.loads(wrong_out)
    assert code == 0
    assert "sk-local-secret" not in out + err and "sk-wrong" not in wrong_out + wrong_err
    assert report["settings"]["openai_api_key"] == "****" and report["settings"]["openai_base_url"] == srv.url
    assert report["backend"]["openai"]["answers"] is True
    assert report["backend"]["would_use"] == "openai"
    assert wrong["backend"]["openai"]["answers"] is False
    assert "GAVEL_OPENAI_API_KEY" in wrong["backend"]["openai"]["detail"]
    assert wrong["backend"]["would_use"] != "openai"


def test_config_shows_escape_codes_in_the_probe_details_as_replacement_characters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "the server said \x1b]52;c;cm0gLXJm\x07"  # an error text from a remote server: set the clipboard
    probe = {"why_not_others": f"openai: {said}", "openai": {"answers": False, "detail": said}}
    monkeypatch.setattr("gavel.server.backend_select.describe_backend", lambda settings: probe)
    code, out, _ = _run(["config"], capsys)
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert re.search(r"^\s+detail\s+the server said \ufffd]52;c;cm0gLXJm\ufffd$", out, re.MULTILINE)
    _, out, _ = _run(["config", "--json"], capsys)
    assert json.loads(out)["backend"]["openai"]["detail"] == said  # the JSON form keeps the text as it came


def test_config_shows_escape_codes_in_the_ledgers_error_as_replacement_characters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "FATAL: \x1b[2Jno such database"  # a PostgreSQL server's error text: clear the screen
    status = LedgerStatus(path="postgresql://h/db", state="unavailable", detail=said)
    monkeypatch.setattr("gavel.server.settings.Settings.ledger_status", lambda self: status)
    code, out, _ = _run(["config", "--no-probe"], capsys)
    assert code == 0 and "\x1b" not in out and "FATAL: \ufffd[2Jno such database" in out


def test_flags_override_the_environment(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_BACKEND", "ollama")
    monkeypatch.setenv("GAVEL_TIMEOUT_S", "30")
    code, out, _ = _run(["config", "--json", "--no-probe", "--backend", "embedded"], capsys)
    settings = json.loads(out)["settings"]
    assert code == 0
    assert (settings["backend"], settings["timeout_s"]) == ("embedded", 30.0)


@pytest.mark.parametrize(
    ("argv", "env", "must_mention"),
    [
        pytest.param(["serve", "--bogus"], {}, "unrecognized arguments: --bogus", id="unknown-flag"),
        pytest.param(["serve", "--transport", "carrier-pigeon"], {}, "invalid choice", id="bad-choice"),
        pytest.param(["serve", "--port", "70000"], {}, "not a port number", id="port-out-of-range"),
        pytest.param(["config", "--timeout-s", "-1"], {}, "must be above 0", id="bad-flag-value"),
        pytest.param(["config"], {"GAVEL_TIMEOUT_S": "soon"}, "GAVEL_TIMEOUT_S", id="bad-environment-value"),
        pytest.param(["config"], {"GAVEL_BACKEND": "gpt"}, "GAVEL_BACKEND", id="unknown-backend-in-env"),
        pytest.param(["serve", "--stateless"], {}, "--stateless applies to", id="stateless-on-stdio"),
        pytest.param([], {}, "give a command", id="no-command"),
        pytest.param(["frobnicate"], {}, "invalid choice", id="unknown-command"),
    ],
)
def test_user_errors_are_one_line_on_stderr_with_exit_code_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: dict[str, str],
    must_mention: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, out, err = _run(argv, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert must_mention in err


@pytest.mark.parametrize(
    ("argv", "must_mention"),
    [
        pytest.param(["--help"], "serve", id="gavel"),
        pytest.param(["serve", "--help"], "--transport", id="serve"),
        pytest.param(["rubrics", "--help"], "show", id="rubrics"),
        pytest.param(["rubrics", "show", "--help"], "--json", id="rubrics-show"),
        pytest.param(["config", "--help"], "--no-probe", id="config"),
        pytest.param(["demo", "--help"], "--backend", id="demo"),
    ],
)
def test_every_command_has_help(capsys: pytest.CaptureFixture[str], argv: list[str], must_mention: str) -> None:
    code, out, _ = _run(argv, capsys)
    assert code == 0
    assert out.startswith("usage: gavel")
    assert must_mention in out


@pytest.mark.parametrize(
    "command",
    [pytest.param(c, id=" ".join(dict.fromkeys([row.name, c.name]))) for row in COMMANDS for c in (row, *row.actions)],
)
def test_every_command_in_the_table_names_a_handler_that_exists(command: Command) -> None:
    # Named as "module:function" so that a command imports only its own module; a typo would surface only when run.
    assert callable(_handler(command.handler))


@pytest.mark.slow
def test_console_script_and_module_entry_point_run_the_same_command(clean_env: dict[str, str]) -> None:
    script = REPO_ROOT / ".venv" / "bin" / "gavel"
    if not script.exists():
        pytest.skip("the gavel console script is not installed in .venv")
    import subprocess

    via_script = subprocess.run(
        [str(script), "rubrics"], env=clean_env, capture_output=True, text=True, timeout=30, check=False
    )
    via_module = run_gavel(["rubrics"], clean_env, timeout_s=30)
    assert via_script.returncode == via_module.returncode == 0
    assert via_script.stdout == via_module.stdout


@pytest.mark.parametrize("command", ["serve", "config"])
def test_a_refused_url_setting_prints_its_password_masked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setenv("GAVEL_LEDGER_URL", "mysql://bob:hunter2@h/db")
    code, _, err = _run([command], capsys)
    assert code == 2
    assert "hunter2" not in err and "mysql://bob:****@h/db" in err


def gavel_to_a_closed_pipe(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """`gavel ARGV` with stdout a pipe no one reads, as `gavel config | head -1` once head has its line."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "wb") as closed:
        return subprocess.run([*GAVEL, *argv], env=env, stdout=closed, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=30, check=False)  # fmt: skip


@pytest.mark.parametrize("unbuffered", [True, False])
def test_a_reader_that_closes_stdout_early_ends_the_command_quietly(
    clean_env: dict[str, str], unbuffered: bool
) -> None:
    env = {k: v for k, v in clean_env.items() if unbuffered or k != "PYTHONUNBUFFERED"}
    done = gavel_to_a_closed_pipe(["config", "--no-probe"], env)
    assert (done.returncode, done.stderr) == (141, b"")


def test_help_to_a_reader_that_closed_stdout_early_ends_quietly(clean_env: dict[str, str]) -> None:
    # Buffered: the help is written at exit (unbuffered, argparse drops a failed write itself).
    done = gavel_to_a_closed_pipe(["--help"], {k: v for k, v in clean_env.items() if k != "PYTHONUNBUFFERED"})
    assert done.stderr == b""


def test_a_broken_pipe_out_of_serve_is_not_taken_for_a_reader_that_left(monkeypatch: pytest.MonkeyPatch) -> None:
    def serve(settings: object, args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("gavel.server.cli.main._handler", lambda name: serve)
    with pytest.raises(BrokenPipeError):
        main(["serve"])


@pytest.mark.parametrize(
    ("argv", "target"),
    [
        (["rubrics"], "gavel.server.cli.describe.load_registry"),
        (["config", "--no-probe"], "gavel.server.cli.describe._readable"),
    ],
)
def test_a_bug_in_gavel_exits_3_with_one_line_and_the_traceback_logged(
    argv: list[str], target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(target, boom)
    code, _, err = _run(argv, capsys)
    assert code == 3
    assert "Traceback (most recent call last)" in err  # logged, so it can be reported
    assert err.splitlines()[-1].startswith(f"gavel: error: a bug in gavel ended 'gavel {argv[0]}' (RuntimeError: boom)")


@pytest.mark.parametrize("target", ["gavel.server.cli.main.load_settings", "gavel.server.logging.configure_logging"])
def test_a_bug_in_reading_the_settings_or_configuring_logging_exits_3_with_one_line(
    target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(target, boom)
    code, out, err = _run(["rubrics"], capsys)
    assert code == 3
    assert out == ""  # logging is not set up yet: the traceback still goes to stderr, not to structlog's stdout
    assert "Traceback (most recent call last)" in err
    assert err.splitlines()[-1].startswith("gavel: error: a bug in gavel ended 'gavel rubrics' (RuntimeError: boom)")


def test_a_bug_in_reading_the_settings_of_serve_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("gavel.server.cli.main.load_settings", boom)
    with pytest.raises(RuntimeError, match="boom"):
        main(["serve"])


def test_a_bug_in_serve_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    def serve(settings: object, args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr("gavel.server.cli.main._handler", lambda name: serve)
    with pytest.raises(RuntimeError, match="boom"):
        main(["serve"])


@pytest.mark.parametrize(
    "stop", [KeyboardInterrupt(), BaseExceptionGroup("a task group's", [KeyboardInterrupt()])], ids=["bare", "group"]
)
def test_ctrl_c_ends_a_command_with_130_and_one_line_not_a_traceback(
    stop: BaseException, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object) -> None:
        raise stop

    monkeypatch.setattr("gavel.server.cli.describe._rubric_table", interrupted)
    try:
        code, _, err = _run(["rubrics"], capsys)
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:  # out of main, it would stop pytest itself
        pytest.fail(f"Ctrl-C left main: {exc!r}")
    assert code == 130
    assert err == "gavel: interrupted\n" and "Traceback" not in err


def test_ctrl_c_while_help_is_written_ends_with_130_and_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("argparse.ArgumentParser.print_help", interrupted)
    try:
        code, _, err = _run(["--help"], capsys)
    except KeyboardInterrupt as exc:  # out of main, it would stop pytest itself
        pytest.fail(f"Ctrl-C left main: {exc!r}")
    assert code == 130
    assert err == "gavel: interrupted\n" and "Traceback" not in err
