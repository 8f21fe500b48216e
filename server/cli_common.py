"""What every `gavel` command module shares: the one-line-error parser, exit codes, argument types, output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from gavel.server.settings import Settings
from gavel.tools.ledger import parse_since
from gavel.tools.rubrics import RubricRegistry

EXIT_OK = 0
EXIT_USAGE = 2
PROG = "gavel"

# A command's implementation: the settings (environment and flags) and the parsed arguments -> exit code.
Handler = Callable[[Settings, argparse.Namespace], int]
# argparse's `add_subparsers()` result; its class is private.
Subcommands = Any


class Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (the default prints the whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def add_command(
    commands: Subcommands, name: str, handler: Handler, parent: argparse.ArgumentParser, **kwargs: Any
) -> argparse.ArgumentParser:
    """A subcommand that takes the shared settings flags and runs `handler`."""
    parser: argparse.ArgumentParser = commands.add_parser(name, parents=[parent], **kwargs)
    parser.set_defaults(handler=handler)
    return parser


def fail(message: str) -> int:
    # One line: collapse any newlines a message may carry.
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    sys.stderr.flush()
    return EXIT_USAGE


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def load_registry(settings: Settings) -> RubricRegistry:
    return RubricRegistry.load([settings.rubrics_dir] if settings.rubrics_dir else None)


def port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (1-65535)")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} must be above 0")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def since(text: str) -> str:
    try:
        return parse_since(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
