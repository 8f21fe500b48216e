"""`gavel history`, `show`, `export` and the ledger line of `gavel config`, on temporary ledger files."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from gavel.server.cli.main import main
from gavel.tools.ledger import Entry, Ledger, timestamp, utc_now


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, restore_logging: None, free_port: Callable[[], int]) -> None:
    for name in list(os.environ):
        if name.startswith("GAVEL_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name)
    monkeypatch.setenv("GAVEL_OLLAMA_HOST", f"http://127.0.0.1:{free_port()}")


@pytest.fixture
def ledger_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ledger.sqlite3"
    monkeypatch.setenv("GAVEL_LEDGER_PATH", str(path))
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def entry(eid: str, *, tool: str = "judge_rag_answer", days_ago: float = 0, **extra: object) -> Entry:
    values: dict[str, object] = {
        "id": eid,
        "tool": tool,
        "created_at": timestamp(utc_now() - timedelta(days=days_ago)),
        "duration_ms": 40.0,
        "request_hash": "ab" * 32,
        "request_json": json.dumps({"question": f"question of {eid}"}),
        "result_json": json.dumps({"summary": f"summary of {eid}", "evaluation_id": eid}),
        "provenance_json": json.dumps({"backend": "ollama", "model": "qwen2.5:7b-instruct"}),
        "usage_json": json.dumps({"llm_calls": 6}),
        "headline": f"approved: answer {eid}",
        **extra,
    }
    return Entry(**values)  # type: ignore[arg-type]


@pytest.fixture
def filled(ledger_path: Path) -> Ledger:
    store = Ledger(ledger_path)
    store.record([entry("aaaa000000000001", days_ago=3, tool="evaluate_assessment")])
    store.record([entry("bbbb000000000002", days_ago=2), entry("bbbb0000000000i1", parent_id="bbbb000000000002")])
    store.record([entry("bbbb000000000003", days_ago=1, cached=True, served_from="bbbb000000000002")])
    store.close()
    return store


# -- history ----------------------------------------------------------------------------------------------------


def test_history_is_a_table_of_the_latest_calls_newest_first(
    filled: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["history"], capsys)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split() == ["ID", "TIME", "(UTC)", "TOOL", "CACHED", "HEADLINE"]
    assert [line.split()[0] for line in lines[1:]] == ["bbbb000000000003", "bbbb000000000002", "aaaa000000000001"]
    assert " yes " in lines[1] and "approved: answer bbbb000000000003" in lines[1]
    assert "bbbb0000000000i1" not in out  # batch items are not calls


def test_history_shows_escape_codes_in_a_headline_as_replacement_characters(
    ledger_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Ledger(ledger_path)
    store.record([entry("aaaa000000000001", headline="rejected \x1b]0;owned\x07\x1b[2J by the model")])
    store.close()
    code, out, _ = run(["history"], capsys)
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "rejected \ufffd]0;owned\ufffd\ufffd[2J by the model" in out


@pytest.mark.parametrize(
    ("argv", "ids"),
    [
        pytest.param(["--tool", "evaluate_assessment"], ["aaaa000000000001"], id="one-tool"),
        pytest.param(["--limit", "1"], ["bbbb000000000003"], id="limit"),
        pytest.param(["--tool", "judge_rag_answer", "--limit", "5"], ["bbbb000000000003", "bbbb000000000002"],
                     id="tool-and-limit"),
    ],
)  # fmt: skip
def test_history_filters_by_tool_and_limits_the_rows(
    filled: Ledger, capsys: pytest.CaptureFixture[str], argv: list[str], ids: list[str]
) -> None:
    code, out, _ = run(["history", *argv], capsys)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == ids


def test_history_of_an_unknown_tool_is_an_error_naming_the_tools(
    filled: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["history", "--tool", "nope"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("gavel: error: there is no tool 'nope'; the tools are calibrate_judge, evaluate_assessment, ")
    assert "refine_until_pass" in err and "score_candidates" in err and len(err.splitlines()) == 1
    # A real tool with nothing recorded is no error.
    code, out, _ = run(["history", "--tool", "score_candidates"], capsys)
    assert code == 0 and out.startswith("no evaluations recorded yet for tool 'score_candidates'")


def test_config_counts_calls_and_the_items_inside_them_as_history_does(
    filled: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["config", "--no-probe"], capsys)
    (line,) = [line for line in out.splitlines() if line.startswith("ledger:")]
    assert code == 0
    # 4 rows: 3 calls (`gavel history` lists these) and 1 batch item recorded inside one of them.
    assert "4 evaluation(s) (3 call(s), as `gavel history` lists them, and 1 batch item(s)" in line
    _, out, _ = run(["history"], capsys)
    assert len(out.splitlines()) - 1 == 3
    _, out, _ = run(["config", "--no-probe", "--json"], capsys)
    assert {k: json.loads(out)["ledger"][k] for k in ("evaluations", "calls")} == {"evaluations": 4, "calls": 3}


def test_history_of_a_ledger_not_yet_created_says_so_and_creates_nothing(
    ledger_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["history"], capsys)
    assert code == 0
    assert out.startswith("no evaluations recorded yet")
    assert not ledger_path.exists()


def test_the_ledger_path_flag_overrides_the_environment(
    filled: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = Ledger(tmp_path / "other.sqlite3")
    other.record([entry("cccc000000000009")])
    other.close()
    code, out, _ = run(["history", "--ledger-path", str(tmp_path / "other.sqlite3")], capsys)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["cccc000000000009"]


# -- show -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [pytest.param("bbbb000000000002", id="full-id"), pytest.param("BBBB000000000002", id="upper-case")],
)
def test_show_prints_the_full_record_as_json(
    filled: Ledger, ledger_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    code, out, _ = run(["show", given], capsys)
    store = Ledger(ledger_path)
    expected = store.get("bbbb000000000002")
    store.close()
    assert code == 0
    assert json.loads(out) == expected
    assert json.loads(out)["items"] == ["bbbb0000000000i1"]


def test_show_writes_del_and_c1_controls_as_json_escapes_with_the_same_value(
    ledger_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "the model said \x9b2J\x7f and \x85 café"
    store = Ledger(ledger_path)
    store.record([entry("aaaa000000000001", result_json=json.dumps({"summary": said}))])
    store.close()
    code, out, _ = run(["show", "aaaa000000000001"], capsys)
    assert code == 0 and not re.search("[\x7f-\x9f]", out)
    assert "\\u009b2J\\u007f and \\u0085 café" in out and json.loads(out)["result"]["summary"] == said


def test_show_accepts_a_unique_prefix(filled: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "aaaa"], capsys)
    assert code == 0
    assert json.loads(out)["evaluation_id"] == "aaaa000000000001"


@pytest.mark.parametrize(
    ("given", "must_mention"),
    [
        pytest.param("bbbb", "matches several evaluations", id="ambiguous-prefix"),
        pytest.param("ffff000000000000", "no evaluation 'ffff000000000000'", id="unknown-id"),
    ],
)
def test_show_of_an_unknown_or_ambiguous_id_is_a_one_line_error(
    filled: Ledger, capsys: pytest.CaptureFixture[str], given: str, must_mention: str
) -> None:
    code, out, err = run(["show", given], capsys)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1
    assert must_mention in err


# -- export -----------------------------------------------------------------------------------------------------


def test_export_writes_every_record_as_one_json_line_oldest_first(
    filled: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["export", "--format", "jsonl"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [r["evaluation_id"] for r in records] == [
        "aaaa000000000001", "bbbb000000000002", "bbbb0000000000i1", "bbbb000000000003"
    ]  # fmt: skip
    assert records[1]["request"] == {"question": "question of bbbb000000000002"}
    assert records[2]["parent_id"] == "bbbb000000000002"
    assert records[3]["served_from"] == "bbbb000000000002"


def test_export_since_a_date_leaves_out_older_records(filled: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    since = (utc_now() - timedelta(days=1, hours=12)).date().isoformat()
    code, out, _ = run(["export", "--since", since], capsys)
    ids = [json.loads(line)["evaluation_id"] for line in out.splitlines()]
    assert code == 0
    assert "aaaa000000000001" not in ids
    assert "bbbb000000000003" in ids


def test_export_refuses_a_since_that_is_not_a_date(filled: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["export", "--since", "last week"], capsys)
    assert (code, out) == (2, "")
    assert "not a date" in err


# -- off, broken, and config ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [pytest.param(["history"], id="history"), pytest.param(["show", "abcd"], id="show"),
     pytest.param(["export"], id="export")],
)  # fmt: skip
def test_reading_a_ledger_that_is_off_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    monkeypatch.setenv("GAVEL_LEDGER_PATH", "off")
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert "GAVEL_LEDGER_PATH=off" in err


def test_reading_a_corrupt_ledger_is_an_error_naming_the_problem(
    ledger_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger_path.write_bytes(b"not a database at all " * 100)
    code, out, err = run(["history"], capsys)
    assert (code, out) == (2, "")
    assert "not a database" in err


@pytest.mark.parametrize(
    ("setting", "prepare", "state", "must_mention"),
    [
        pytest.param("{dir}/ledger.sqlite3", None, "not_created", "not created yet", id="not-created"),
        pytest.param("{dir}/ledger.sqlite3", "filled", "ok", "ok, 2 evaluation(s)", id="working"),
        pytest.param("{dir}/ledger.sqlite3", "corrupt", "unavailable", "file is not a database", id="corrupt"),
        pytest.param("{dir}/a-file/ledger.sqlite3", "blocked", "unavailable", "is a file, not a directory",
                     id="unwritable"),
        pytest.param("off", None, "off", "GAVEL_LEDGER_PATH=off", id="off"),
    ],
)  # fmt: skip
def test_config_says_whether_the_ledger_works(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    setting: str,
    prepare: str | None,
    state: str,
    must_mention: str,
) -> None:
    path = Path(setting.format(dir=tmp_path))
    if prepare == "filled":
        store = Ledger(path)
        store.record([entry("a1"), entry("a2", parent_id="a1")])
        store.close()
    elif prepare == "corrupt":
        path.write_bytes(b"not a database at all " * 100)
    elif prepare == "blocked":
        (tmp_path / "a-file").write_text("a file where the ledger's directory should be")
    monkeypatch.setenv("GAVEL_LEDGER_PATH", setting.format(dir=tmp_path))
    code, out, _ = run(["config", "--no-probe"], capsys)
    ledger_line = [line for line in out.splitlines() if line.startswith("ledger:")]
    assert code == 0
    assert len(ledger_line) == 1 and must_mention in ledger_line[0]
    code, out, _ = run(["config", "--no-probe", "--json"], capsys)
    assert json.loads(out)["ledger"]["state"] == state


def test_config_says_so_when_the_file_was_overwritten_while_a_server_had_it_open(
    ledger_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server_side = Ledger(ledger_path)
    server_side.record([entry("a1")])
    ledger_path.write_bytes(b"\x00garbage\xff" * 100)  # the server's write-ahead log still holds the rows
    try:
        code, out, _ = run(["config", "--no-probe", "--json"], capsys)
    finally:
        server_side.close()
    assert code == 0
    assert json.loads(out)["ledger"]["state"] == "unavailable"
    assert "overwritten" in json.loads(out)["ledger"]["detail"]


# -- PostgreSQL -------------------------------------------------------------------------------------------------


def test_history_show_and_export_read_a_postgres_ledger_without_showing_its_password(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gavel.tools.ledger.store import PostgresStore

    monkeypatch.setenv("GAVEL_LEDGER_URL", postgres_url)
    code, out, _ = run(["history"], capsys)
    assert code == 0 and "no evaluations recorded yet" in out
    store = Ledger(store=PostgresStore(postgres_url))
    store.record([entry("aaaa000000000001", days_ago=3, tool="evaluate_assessment")])
    store.record([entry("bbbb000000000002", days_ago=1), entry("bbbb0000000000i1", parent_id="bbbb000000000002")])
    store.close()
    password = postgres_url.split(":")[2].split("@")[0]

    code, out, err = run(["history"], capsys)
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["bbbb000000000002", "aaaa000000000001"]
    code, out, _ = run(["show", "bbbb0000000000i"], capsys)  # a unique prefix, found with LIKE in PostgreSQL
    assert code == 0 and json.loads(out)["parent_id"] == "bbbb000000000002"
    code, out, _ = run(["show", "bbbb000000000002"], capsys)
    assert code == 0 and json.loads(out)["items"] == ["bbbb0000000000i1"]
    code, out, _ = run(["export", "--since", timestamp(utc_now() - timedelta(days=2))[:10]], capsys)
    assert code == 0
    assert [json.loads(line)["evaluation_id"] for line in out.splitlines()] == ["bbbb000000000002", "bbbb0000000000i1"]
    code, out, err = run(["config", "--no-probe"], capsys)
    assert code == 0 and "3 evaluation(s)" in out and password not in out + err
