"""A deferring start's lines (rendered without structlog) are the lines structlog renders, key for key."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
import structlog

from gavel.server import logging as gavel_logging
from gavel.server.logging import REPEAT_BURST, bind_request_context, configure_logging, get_logger, structlog_ready

pytestmark = pytest.mark.usefixtures("restore_logging")


class _Shown:
    def __repr__(self) -> str:
        return "<shown>"


def _emit() -> None:
    log = get_logger("gavel.test")
    log.info("serving", transport="stdio", url=None, count=3, odd=_Shown(), nested={"a": [1, 2]})
    log.warning("with the token tok-secret-1 inside", header="Bearer tok-secret-1")
    try:
        raise KeyError("boom")
    except KeyError:
        log.exception("failed", reference="r1")
        log.warning("not run as a task", exc_info=True)
        logging.getLogger("mcp.server").error("sdk failed %s", "here", exc_info=True)
    logging.getLogger("mcp.server").info("Processing %r", "tools/list", extra={"request_id": 7})
    logging.getLogger("uvicorn.error").info("colored", extra={"color_message": "\x1b[1mcolored\x1b[0m"})
    logging.getLogger("asyncio").error("accept failed", exc_info=OSError(24, "Too many open files"))
    logging.getLogger("mcp.server").debug("below the level")


def _flood(log: Callable[[], None]) -> None:
    for _ in range(REPEAT_BURST + 3):
        log()
    time.sleep(0.06)
    log()


def _lines(defer: bool, emit: Callable[[], None]) -> list[dict[str, Any]]:
    stream = io.StringIO()
    configure_logging("INFO", stream=stream, secrets=["tok-secret-1"], defer_structlog=defer)
    emit()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    for line in lines:
        stamp = line.pop("timestamp")
        assert stamp.endswith("Z") and stamp[10] == "T"
    return lines


def _keys_and_values(lines: list[dict[str, Any]]) -> list[list[tuple[str, Any]]]:
    return [list(line.items()) for line in lines]


def test_a_deferred_start_writes_the_lines_structlog_writes() -> None:
    expected = _lines(False, _emit)
    assert _keys_and_values(_lines(True, _emit)) == _keys_and_values(expected)
    assert len(expected) == 8 and "tok-secret-1" not in json.dumps(expected)


def test_a_flood_is_cut_and_counted_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gavel_logging, "REPEAT_WINDOW_S", 0.05)

    def emit() -> None:
        _flood(lambda: get_logger("gavel.test").warning("backend slow"))
        _flood(lambda: logging.getLogger("asyncio").warning("socket.accept() out of system resource"))

    expected = _lines(False, emit)
    assert _keys_and_values(_lines(True, emit)) == _keys_and_values(expected)
    assert [line.get("repeats_dropped") for line in expected].count(3) == 2


def test_a_deferred_start_imports_no_structlog_until_it_is_needed() -> None:
    import subprocess
    import sys

    script = (
        "import io, sys\n"
        "from gavel.server.logging import configure_logging, get_logger, structlog_ready\n"
        "configure_logging('INFO', stream=io.StringIO(), defer_structlog=True)\n"
        "get_logger('gavel.test').info('serving')\n"
        "before = 'structlog' in sys.modules\n"
        "structlog_ready()\n"
        "print(before, 'structlog' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_a_first_call_configures_structlog_for_the_engine_s_lines() -> None:
    stream = io.StringIO()
    configure_logging("INFO", stream=stream, defer_structlog=True)
    with bind_request_context(tool="score_candidates", call_id="c1"):
        structlog.get_logger("gavel.engine").info("model answered", tokens=3)
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert line["tokens"] == 3 and line["tool"] == "score_candidates" and line["logger"] == "gavel.engine"


def test_structlog_ready_without_a_deferral_changes_nothing() -> None:
    stream = io.StringIO()
    configure_logging("INFO", stream=stream)
    handler = logging.getLogger().handlers[0]
    structlog_ready()
    assert logging.getLogger().handlers == [handler]
