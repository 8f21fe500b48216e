"""Logging for the server process: everything goes to stderr, never stdout.

On stdio, stdout is the JSON-RPC channel, so one stray line there breaks the client. structlog's default
logger prints to stdout, which is why it is routed through stdlib logging onto a single stderr handler
here, together with the SDK's, uvicorn's and httpx's loggers. Output is JSON lines unless stderr is a
terminal, where a person is reading it.

Request context (tool, rubric, call_id) is bound with contextvars so every line logged during a tool call,
including the SDK's own, carries it; the line that ends a call gives its evaluation_id, as the result does.

`gavel serve` on stdio configures structlog only when it is first needed (`structlog_ready`: a first call, or the
ledger's first use); until then its lines, the same lines, are rendered by `gavel.server.log_render`. The server's
modules log through `get_logger`, which writes either way.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from gavel.server.log_render import GAVEL_EVENT, JsonLines, gavel_event

if TYPE_CHECKING:
    from structlog.typing import EventDict, Processor, WrappedLogger

# Libraries that are chatty at INFO about things a Gavel operator does not need (every HTTP request to
# Ollama, every connection).
_QUIET_LOGGERS = ("httpx", "httpcore", "httpx2")
# uvicorn's loggers carry their own handlers when uvicorn configures logging itself; we pass
# log_config=None to uvicorn and make them propagate to the root handler here instead.
_PROPAGATING_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp")

_REDACTED = "****"

# A warning or error repeated faster than this is cut to its first lines per window: a fault that repeats per
# connection or per loop tick (asyncio's "socket.accept() out of system resource", with a traceback each) once
# grew the log by 300 MB in 35 seconds. The first line after a window says how many were left out.
REPEAT_BURST = 5
REPEAT_WINDOW_S = 10.0
_REPEAT_KEYS_MAX = 1000


class _Redactor:
    """Replaces configured secrets (the HTTP bearer token) anywhere in a log line's values."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = [s for s in secrets if s]

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            for secret in self._secrets:
                value = value.replace(secret, _REDACTED)
        return value

    def __call__(self, logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
        if not self._secrets:
            return event_dict
        return {key: self._clean(value) for key, value in event_dict.items()}


class _RepeatLimiter(logging.Filter):
    """Lets through at most REPEAT_BURST lines per REPEAT_WINDOW_S of one message from one logger, at WARNING
    and above (INFO lines, one per call, are the record of what was served and are never dropped)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._windows: dict[tuple[str, str], list[float]] = {}  # key -> [window start, lines let through, dropped]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        event = record.msg.get("event") if isinstance(record.msg, dict) else record.msg
        key = (record.name, str(event)[:200])
        now = self._clock()
        window = self._windows.get(key)
        if window is None or now - window[0] >= REPEAT_WINDOW_S:
            if len(self._windows) >= _REPEAT_KEYS_MAX:
                self._windows = {k: w for k, w in self._windows.items() if now - w[0] < REPEAT_WINDOW_S}
            self._windows[key] = [now, 1, 0]
            if window is not None and window[2]:
                _annotate(record, "repeats_dropped", int(window[2]))
            return True
        if window[1] < REPEAT_BURST:
            window[1] += 1
            return True
        window[2] += 1
        return False


def _annotate(record: logging.LogRecord, key: str, value: object) -> None:
    if isinstance(record.msg, dict):
        record.msg[key] = value
    else:
        setattr(record, key, value)


def _drop_color_message(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    # uvicorn attaches an ANSI-coloured duplicate of every message; it only adds noise to JSON lines.
    event_dict.pop("color_message", None)
    return event_dict


# The arguments of a `configure_logging(..., defer_structlog=True)` whose structlog is not configured yet.
_deferred: tuple[str, TextIO | None, tuple[str, ...]] | None = None


def configure_logging(
    level: str, *, stream: TextIO | None = None, secrets: Sequence[str] = (), defer_structlog: bool = False
) -> None:
    """Send structlog and stdlib logging to stderr at `level` ("DEBUG", "INFO", "WARNING", "ERROR").

    `stream` defaults to the current `sys.stderr`; `secrets` are masked wherever they appear in a value.
    Safe to call more than once (the last call wins). `defer_structlog`: configure structlog at `structlog_ready`,
    writing the same JSON lines without it until then (a terminal, which gets readable lines, is configured now).
    """
    global _deferred
    out = stream if stream is not None else sys.stderr
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}; use DEBUG, INFO, WARNING or ERROR")

    interactive = bool(getattr(out, "isatty", lambda: False)())
    redact = _Redactor(secrets)
    if defer_structlog and not interactive:
        _deferred = (level, stream, tuple(secrets))
        _install(out, JsonLines(lambda line: redact(None, "", line)), numeric)
        return
    _deferred = None
    import structlog

    renderer: Processor = (
        structlog.dev.ConsoleRenderer(colors=interactive) if interactive else structlog.processors.JSONRenderer()
    )
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _drop_color_message,
    ]

    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: tests reconfigure, and modules grab their loggers at import time.
        cache_logger_on_first_use=False,
    )

    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *([] if interactive else [structlog.processors.format_exc_info]),
            redact,
            renderer,
        ],
    )
    _install(out, formatter, numeric)


def structlog_ready() -> None:
    """Configure structlog now if `configure_logging` deferred it; call before code that logs through structlog
    (the engine's, the ledger's) first runs. Cheap once done, and a no-op when nothing was deferred."""
    if _deferred is not None:
        level, stream, secrets = _deferred
        configure_logging(level, stream=stream, secrets=secrets)


def _install(out: TextIO, formatter: logging.Formatter, numeric: int) -> None:
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    handler.addFilter(_RepeatLimiter())

    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(numeric)

    for name in _PROPAGATING_LOGGERS:
        lib = logging.getLogger(name)
        lib.handlers.clear()
        lib.propagate = True
        lib.setLevel(logging.NOTSET)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
    logging.captureWarnings(True)


@contextmanager
def bind_request_context(**values: Any) -> Iterator[None]:
    """Attach `values` (tool=..., rubric=..., evaluation_id=...) to every log line inside the block.

    None values are skipped so a line never claims `rubric=None` for a request that named no rubric. On
    exit the context is restored exactly, including keys added inside the block with `bind_more`.
    """
    structlog_ready()
    import structlog

    saved = structlog.contextvars.get_contextvars()
    structlog.contextvars.bind_contextvars(**{key: value for key, value in values.items() if value is not None})
    try:
        yield
    finally:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(**saved)


def bind_more(**values: Any) -> None:
    """Add keys to the current request context (e.g. the evaluation_id once a tool has made one)."""
    import structlog

    structlog.contextvars.bind_contextvars(**{k: v for k, v in values.items() if v is not None})


def current_context() -> MutableMapping[str, Any]:
    import structlog

    return structlog.contextvars.get_contextvars()


class Logger:
    """A server module's logger: `log.info("event", key=value)`, as structlog's, through structlog once it is
    configured and rendered by `gavel.server.log_render` before (a deferred start)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._structlog: Any = None

    def info(self, event: str, **values: Any) -> None:
        self._log("info", logging.INFO, event, values)

    def warning(self, event: str, **values: Any) -> None:
        self._log("warning", logging.WARNING, event, values)

    def exception(self, event: str, **values: Any) -> None:
        values.setdefault("exc_info", True)
        self._log("exception", logging.ERROR, event, values)

    def _log(self, method: str, level: int, event: str, values: dict[str, Any]) -> None:
        if _deferred is None:
            if self._structlog is None:
                import structlog

                self._structlog = structlog.get_logger(self.name)
            getattr(self._structlog, method)(event, **values)
            return
        logger = logging.getLogger(self.name)
        if logger.isEnabledFor(level):
            logger.log(level, gavel_event(self.name, method, event, values), extra={GAVEL_EVENT: True})


def get_logger(name: str) -> Logger:
    return Logger(name)
