"""The `gavel` command: `serve` (the MCP server), `rubrics`, `config`, `demo`, and the evaluation ledger's
readers `history`, `show` and `export`.

Settings are read once, in `main`, from the environment and the flags (flags win); nothing is read at
import time. Every user error is one line on stderr and exit code 2; a bug in gavel that ends a command (any but
`serve`) is logged with its traceback on stderr and exits 3 with one line (`_reporting_bugs`).

`serve` writes nothing to stdout itself: on stdio that is the protocol channel. The other commands are
for a person and write their output to stdout; when its reader leaves early (`gavel config | head -1`), a command
ends quietly with exit code 141 (128 + SIGPIPE), as a shell's tools do. Ctrl-C ends one with a line on stderr and exit
code 130 (128 + SIGINT), no traceback; `eval` and `calibrate` first report what was done (a partial report).

The subcommands, their arguments and where each handler lives are one table, `gavel.server.cli.commands`;
a handler's module is imported only when its command runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gavel.server.cli.commands import add_commands
from gavel.server.cli.console import (
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_STDOUT_CLOSED,
    PROG,
    Handler,
    Parser,
    fail,
    positive_float,
)
from gavel.server.settings import SettingsError, load_settings
from gavel.tools.guards.text import printable

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
BACKENDS = ("auto", "openai", "ollama", "embedded", "sampling")


def _settings_parent() -> argparse.ArgumentParser:
    """Flags every command shares: each overrides the matching GAVEL_* environment variable."""
    # SUPPRESS: an absent flag sets nothing, so `rubrics --rubrics-dir X show ID` keeps X (a nested
    # subparser would otherwise overwrite it with its own default).
    parent = Parser(add_help=False, argument_default=argparse.SUPPRESS)
    group = parent.add_argument_group("settings (each overrides its environment variable)")
    group.add_argument("--backend", choices=BACKENDS, help="model backend (GAVEL_BACKEND; default auto)")
    group.add_argument("--judge-model", metavar="NAME", help="judge model name (GAVEL_JUDGE_MODEL)")
    group.add_argument(
        "--model-path", type=Path, metavar="FILE", help="GGUF file for the embedded backend (GAVEL_MODEL_PATH)"
    )
    group.add_argument(
        "--rubrics-dir",
        type=Path,
        metavar="DIR",
        help="extra rubric directory; its rubrics add to and override the built-in ones by id (GAVEL_RUBRICS_DIR)",
    )
    group.add_argument(
        "--log-level", type=str.upper, choices=LOG_LEVELS, help="log level on stderr (GAVEL_LOG_LEVEL; default INFO)"
    )
    group.add_argument(
        "--ledger-path",
        metavar="FILE",
        help="the evaluation ledger (SQLite), or 'off' (GAVEL_LEDGER_PATH; default: the user data directory; "
        "GAVEL_LEDGER_URL=postgresql://... puts it in PostgreSQL instead)",
    )
    group.add_argument(
        "--timeout-s",
        type=positive_float,
        metavar="SECONDS",
        help="per model call timeout (GAVEL_TIMEOUT_S; default 120)",
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    parent = _settings_parent()
    parser = Parser(
        prog=PROG,
        description="Gavel: an MCP server that gives any agent a judge.",
        epilog="Run 'gavel COMMAND --help' for a command's options.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_commands(commands, parent)
    parser.set_defaults(command_names=tuple(commands.choices))
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    names = (
        "backend", "judge_model", "model_path", "rubrics_dir", "log_level", "timeout_s", "auth_token", "ledger_path",
    )  # fmt: skip
    return {name: getattr(args, name, None) for name in names}


def _handler(name: str) -> Handler:
    """The function a command table row names as "module:function" in gavel.server."""
    module, function = name.split(":")
    handler: Handler = getattr(importlib.import_module(f"gavel.server.cli.{module}"), function)
    return handler


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parse(argv)
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:  # while `--help` is being written, or the parser built
        return _interrupted()
    if args.command == "serve":
        # Not caught: on stdio, stdout is the protocol channel, and the transport stops on a client that closes it
        # (run_stdio); a BrokenPipeError out of it is a failure to see, not a reader of ours that left.
        return _run(args)
    try:
        code = _run(args)
        sys.stdout.flush()  # what is still buffered is written here, where a closed pipe is caught, not at exit
    except* BrokenPipeError:  # a star: `demo` writes from inside a task group, which wraps the error in a group
        code = _stdout_closed()
    except* KeyboardInterrupt:  # eval and calibrate stop on Ctrl-C themselves (a partial report): not seen here
        code = _interrupted()
    return code


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line parsed. `--help` is written here and exits: flushed on the way out, where main catches a
    reader that left, not at the interpreter's exit."""
    try:
        return build_parser().parse_args(argv)
    finally:
        sys.stdout.flush()


def _stdout_closed() -> int:
    """The reader of stdout left early (`gavel config | head -1`): nothing more is shown, with no traceback. stdout
    is pointed at devnull, so the interpreter's flush of what is still buffered fails no more at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_STDOUT_CLOSED


def _interrupted() -> int:
    """Ctrl-C stopped the command: one line on stderr, not Python's KeyboardInterrupt traceback."""
    sys.stderr.write(f"{PROG}: interrupted\n")
    sys.stderr.flush()
    return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    if args.command is None:
        *most, last = args.command_names
        return fail(f"give a command: {', '.join(most)} or {last}")
    if args.command == "serve":
        # Not `_reporting_bugs`: a bug stays a traceback and 1 to its host (no 1 of serve's to confuse it with).
        return _with_settings(args)
    # Reading the settings and configuring logging too: a bug there is a bug in the command like any other.
    return _reporting_bugs(args.command, lambda: _with_settings(args))


def _with_settings(args: argparse.Namespace) -> int:
    """The command run with the settings; a bad setting is one line and exit 2. Logging is set up at the settings'
    level first, but for `serve`, which sets up its own, for its transport."""
    try:
        settings = load_settings(os.environ, _overrides(args))
    except SettingsError as exc:
        return fail(str(exc))
    if args.command != "serve":
        from gavel.server.logging import configure_logging

        configure_logging(settings.log_level)
    return int(_handler(args.handler)(settings, args))


def _reporting_bugs(command: str, run: Callable[[], int]) -> int:
    """`run()`, or, when an unexpected error (a bug in gavel) ends it, EXIT_INTERNAL_ERROR and one line on stderr,
    after the error's traceback is logged (to stderr) for a report, not Python's exit code 1, which `gavel eval`
    gives a run below its bar; each note on the error (`add_note`: what `eval` kept) is a line of its own after that
    one. A reader of stdout that left (BrokenPipeError) is passed on to `main`, which ends quietly on it, and so is
    Ctrl-C (KeyboardInterrupt, not an Exception), which `main` ends with 130."""
    try:
        return run()
    except Exception as exc:
        from gavel.tools.errors import leaves

        found = leaves(exc)  # a task group's error is a group: its leaves say what went wrong
        if all(isinstance(leaf, BrokenPipeError) for leaf in found):
            raise
        _log_bug(command, exc)
        what = "; ".join(dict.fromkeys(f"{type(leaf).__name__}: {leaf}" for leaf in found))
        sys.stderr.write(
            f"{PROG}: error: a bug in gavel ended '{PROG} {command}' ({printable(' '.join(what.split()))}); "
            "its traceback is logged above: please report it\n"
        )
        for note in getattr(exc, "__notes__", ()):
            sys.stderr.write(f"{PROG}: {printable(' '.join(str(note).split()))}\n")
        sys.stderr.flush()
        return EXIT_INTERNAL_ERROR


def _log_bug(command: str, exc: Exception) -> None:
    """The bug's traceback on stderr. Through the log once logging is set up; before that (a bug in reading the
    settings or in configuring logging), printed as Python would: structlog's default logger writes to stdout."""
    import structlog

    if not structlog.is_configured():
        traceback.print_exception(exc, file=sys.stderr)
        return
    from gavel.server.logging import get_logger

    get_logger(f"gavel.{command}").exception("a bug in gavel ended the command", command=command)
