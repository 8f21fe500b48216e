"""Logging goes to stderr (or the given stream) as JSON lines, never to stdout, with request context."""

from __future__ import annotations

import io
import json
import logging
import time
from typing import Any

import pytest
import structlog

from gavel.server import logging as gavel_logging
from gavel.server.logging import REPEAT_BURST, bind_more, bind_request_context, configure_logging


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.usefixtures("restore_logging")
def test_default_destination_is_stderr_and_stdout_stays_empty(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("INFO")
    structlog.get_logger("gavel.test").info("from structlog")
    logging.getLogger("mcp.server").info("from the sdk")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "from structlog" in captured.err and "from the sdk" in captured.err


def test_structlog_and_stdlib_loggers_both_write_json_lines(log_stream: io.StringIO) -> None:
    structlog.get_logger("gavel.test").info("engine event", metric="accuracy")
    logging.getLogger("uvicorn.error").warning("uvicorn event %s", "x")
    by_event = {line["event"]: line for line in _lines(log_stream)}
    assert by_event["engine event"]["metric"] == "accuracy"
    assert by_event["engine event"]["level"] == "info"
    assert by_event["uvicorn event x"]["logger"] == "uvicorn.error"
    assert "timestamp" in by_event["engine event"]


def test_request_context_is_on_every_line_inside_the_block_and_gone_after(log_stream: io.StringIO) -> None:
    with bind_request_context(tool="evaluate_assessment", rubric="clinical-assessment", evaluation_id="e1"):
        structlog.get_logger("gavel.test").info("inside")
        bind_more(model="qwen")
        logging.getLogger("mcp.server").info("sdk inside")
    structlog.get_logger("gavel.test").info("outside")
    lines = {line["event"]: line for line in _lines(log_stream)}
    for event in ("inside", "sdk inside"):
        assert lines[event]["tool"] == "evaluate_assessment"
        assert lines[event]["rubric"] == "clinical-assessment"
        assert lines[event]["evaluation_id"] == "e1"
    assert lines["sdk inside"]["model"] == "qwen"
    assert "tool" not in lines["outside"] and "model" not in lines["outside"]


def test_context_values_that_are_none_are_left_out(log_stream: io.StringIO) -> None:
    with bind_request_context(tool="score_candidates", rubric=None):
        structlog.get_logger("gavel.test").info("no rubric")
    (line,) = _lines(log_stream)
    assert "rubric" not in line


@pytest.mark.usefixtures("restore_logging")
def test_configured_secret_is_masked_wherever_it_appears() -> None:
    stream = io.StringIO()
    configure_logging("INFO", stream=stream, secrets=["tok-123456"])
    structlog.get_logger("gavel.test").info("header was Bearer tok-123456", token="tok-123456")
    logging.getLogger("uvicorn.error").info("sdk saw tok-123456")
    assert "tok-123456" not in stream.getvalue()
    assert "****" in stream.getvalue()


@pytest.mark.usefixtures("restore_logging")
def test_lines_below_the_level_are_dropped() -> None:
    stream = io.StringIO()
    configure_logging("WARNING", stream=stream)
    structlog.get_logger("gavel.test").info("quiet")
    logging.getLogger("mcp.server").info("quiet too")
    structlog.get_logger("gavel.test").warning("loud")
    assert [line["event"] for line in _lines(stream)] == ["loud"]


def test_httpx_request_lines_are_quieted_even_at_debug(log_stream: io.StringIO) -> None:
    logging.getLogger("httpx").info("HTTP Request: POST http://127.0.0.1:11434/api/chat")
    logging.getLogger("httpx").warning("httpx warning")
    assert [line["event"] for line in _lines(log_stream)] == ["httpx warning"]


def test_exception_is_logged_with_its_traceback(log_stream: io.StringIO) -> None:
    try:
        raise KeyError("boom")
    except KeyError:
        structlog.get_logger("gavel.test").exception("failed")
    (line,) = _lines(log_stream)
    assert "KeyError: 'boom'" in line["exception"]


@pytest.mark.usefixtures("restore_logging")
def test_a_terminal_gets_readable_lines_instead_of_json() -> None:
    stream = _Terminal()
    configure_logging("INFO", stream=stream)
    structlog.get_logger("gavel.test").info("for a person")
    text = stream.getvalue()
    assert "for a person" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.splitlines()[0])


def test_unknown_level_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="DEBUG, INFO, WARNING or ERROR"):
        configure_logging("LOUD")


def test_a_warning_repeated_in_a_flood_is_cut_to_a_few_lines_with_its_traceback(log_stream: io.StringIO) -> None:
    error = OSError(24, "Too many open files")
    for _ in range(2_000):
        logging.getLogger("asyncio").error("socket.accept() out of system resource", exc_info=error)
    structlog.get_logger("gavel.test").warning("another warning")
    lines = _lines(log_stream)
    assert sum(line["event"] == "socket.accept() out of system resource" for line in lines) == REPEAT_BURST
    assert lines[-1]["event"] == "another warning"
    assert len(log_stream.getvalue()) < 20_000


def test_info_lines_are_never_dropped(log_stream: io.StringIO) -> None:
    for _ in range(50):
        structlog.get_logger("gavel.test").info("call done")
    assert len(_lines(log_stream)) == 50


def test_the_first_line_after_a_flood_says_how_many_were_dropped(
    log_stream: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gavel_logging, "REPEAT_WINDOW_S", 0.05)
    for _ in range(REPEAT_BURST + 7):
        structlog.get_logger("gavel.test").warning("backend slow")
    time.sleep(0.1)
    structlog.get_logger("gavel.test").warning("backend slow")
    lines = _lines(log_stream)
    assert len(lines) == REPEAT_BURST + 1
    assert lines[-1]["repeats_dropped"] == 7
