"""What every `gavel` command module shares: the one-line-error parser, exit codes, argument types, output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import NoReturn, TypeVar

from gavel.server.settings import Settings
from gavel.tools.guards.text import printable
from gavel.tools.ledger import parse_since
from gavel.tools.rubric_registry import RubricRegistry

EXIT_OK = 0
EXIT_USAGE = 2
# An unexpected error, a bug in gavel, ended a command (main's `_reporting_bugs`): pytest's code for an internal error,
# so a CI job tells it from 1, a run below its --fail-under bar, and from 2, a usage error.
EXIT_INTERNAL_ERROR = 3
# The shell's code for a command ended by a write to a pipe no one reads (128 + SIGPIPE), as `gavel config | head -1`
# ends it: not 1, which `gavel eval` gives a run below its threshold.
EXIT_STDOUT_CLOSED = 141
# The shell's code for a command ended by Ctrl-C (128 + SIGINT): `gavel eval` and `gavel calibrate` give it after their
# partial report, main any other command (but `serve`) it stops.
EXIT_INTERRUPTED = 130
PROG = "gavel"
N = TypeVar("N", int, float)

# A command's implementation: the settings (environment and flags) and the parsed arguments -> exit code.
Handler = Callable[[Settings, argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (the default prints the whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def fail(message: str) -> int:
    # One line: collapse any newlines a message may carry. A message may name a dataset's keys: no escape sequence.
    sys.stderr.write(f"{PROG}: error: {printable(' '.join(message.split()))}\n")
    sys.stderr.flush()
    return EXIT_USAGE


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def load_registry(settings: Settings, *, skip_broken: bool = False) -> RubricRegistry:
    """The rubrics; with `skip_broken` (the server), a file that does not load is logged and left out."""
    registry = RubricRegistry.load([settings.rubrics_dir] if settings.rubrics_dir else None, skip_broken=skip_broken)
    if registry.broken or registry.missing_dirs:
        from gavel.server.logging import get_logger

        log = get_logger("gavel.rubrics")
        for rubric_id, error in registry.broken.items():
            log.warning("rubric file skipped: it does not load; its id is refused", rubric=rubric_id, error=str(error))
        if len(registry.broken) > 1:
            # The lines above are rate-limited as repeats of one message: this one names every skipped file.
            log.warning(
                "rubric files skipped; rubric://index lists each with its error",
                count=len(registry.broken), rubrics=sorted(registry.broken),
            )  # fmt: skip
        for error in registry.missing_dirs:
            log.warning("rubric directory skipped", error=str(error))
    return registry


def _number(text: str, kind: Callable[[str], N], what: str, ok: Callable[[N], bool], rule: str) -> N:
    """`text` as a number of `kind`; argparse shows the message when it is not one or breaks the rule."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{text} {rule}")
    return value


def port(text: str) -> int:
    return _number(text, int, "a port number", lambda v: 0 < v < 65536, "is not a port number (1-65535)")


def positive_float(text: str) -> float:
    return _number(text, float, "a number", lambda v: v > 0, "must be above 0")


def positive_int(text: str) -> int:
    return _number(text, int, "a whole number", lambda v: v >= 1, "must be at least 1")


def since(text: str) -> str:
    try:
        return parse_since(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


async def until_interrupted(work: Callable[[], Awaitable[object]], notice: str) -> bool:
    """Run `work` until it ends or SIGINT/SIGTERM stops it; True when stopped (after writing `notice` to stderr), so
    the caller keeps what was done so far."""
    import signal

    import anyio

    interrupted = False
    async with anyio.create_task_group() as tg:

        async def stop_on_signal() -> None:
            nonlocal interrupted
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    interrupted = True
                    sys.stderr.write(notice + "\n")
                    tg.cancel_scope.cancel()
                    return

        tg.start_soon(stop_on_signal)
        await work()
        tg.cancel_scope.cancel()
    return interrupted
