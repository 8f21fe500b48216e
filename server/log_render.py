"""Gavel's JSON log lines, rendered without structlog: what a stdio start writes before structlog is configured.

Importing structlog (with what it pulls in: rich's tracebacks, pygments, greenlet) was a fifth of Gavel's share of a
start, and a start writes one line ("serving"). Until a first call needs structlog (see
`gavel.server.logging.structlog_ready`), lines are rendered here exactly as `configure_logging`'s structlog pipeline
renders them (tests/server/test_log_render.py compares the two): the same keys in the same order, for Gavel's own
lines (`gavel.server.logging.get_logger`) and for the standard library's (the SDK's).
"""

from __future__ import annotations

import datetime
import json
import logging
import sys
import traceback
from collections.abc import Callable, Mapping
from io import StringIO
from types import TracebackType
from typing import Any

# What a structlog line's dict carries, so this formatter knows it from another library's message.
GAVEL_EVENT = "_gavel_event"
# The attributes every LogRecord has: anything else on a record came from `extra=` and is added to the line.
_RECORD_KEYS = logging.LogRecord("name", 0, "pathname", 0, "msg", (), None).__dict__.keys()

Redact = Callable[[dict[str, Any]], dict[str, Any]]


def _level(method: str) -> str:
    return {"warn": "warning", "exception": "error"}.get(method, method)


def _timestamp() -> str:
    return datetime.datetime.now(tz=datetime.UTC).isoformat().replace("+00:00", "Z")


def gavel_event(name: str, method: str, event: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A Gavel line as structlog's processors leave it for the formatter: the values, the event, level, logger, time."""
    line = {**values, "event": event, "level": _level(method), "logger": name, "timestamp": _timestamp()}
    line.pop("color_message", None)
    return line


def _foreign_event(record: logging.LogRecord) -> dict[str, Any]:
    line: dict[str, Any] = {"event": record.getMessage()}
    if record.exc_info:
        line["exc_info"] = record.exc_info
    if record.stack_info:
        line["stack_info"] = record.stack_info
    line.update(level=_level(record.levelname.lower()), logger=record.name, timestamp=_timestamp())
    line.pop("color_message", None)
    line.update({key: value for key, value in record.__dict__.items() if key not in _RECORD_KEYS})
    return line


def _exc_info(value: Any) -> tuple[type[BaseException], BaseException, TracebackType | None] | None:
    if isinstance(value, BaseException):
        return (value.__class__, value, value.__traceback__)
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], BaseException):
        return value  # type: ignore[return-value]
    if value:
        info = sys.exc_info()
        return None if info[1] is None else info  # type: ignore[return-value]
    return None


def _format_exception(info: tuple[type[BaseException], BaseException, TracebackType | None]) -> str:
    out = StringIO()
    traceback.print_exception(info[0], info[1], info[2], None, out)
    text = out.getvalue()
    return text[:-1] if text.endswith("\n") else text


def _fallback(value: Any) -> Any:
    try:
        return value.__structlog__()
    except AttributeError:
        return repr(value)


class JsonLines(logging.Formatter):
    """One JSON object per record, as structlog's `ProcessorFormatter` with `JSONRenderer` writes it."""

    def __init__(self, redact: Redact) -> None:
        super().__init__()
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        if isinstance(record.msg, dict) and getattr(record, GAVEL_EVENT, False):
            line = dict(record.msg)
        else:
            line = _foreign_event(record)
        info = _exc_info(line.pop("exc_info", None))
        if info:
            line["exception"] = _format_exception(info)
        return json.dumps(self._redact(line), default=_fallback)
