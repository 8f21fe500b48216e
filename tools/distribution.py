"""Gavel's name on the package index, and the install hints that errors print.

The distribution is `gavel-mcp` because `gavel` on the package index is an unrelated project (asking pip for
`gavel[embedded]` installs it and warns that it has no such extra). The command and the import package stay
`gavel`. Until a release is published, the hints also name the command that works from a clone.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from functools import cache
from pathlib import Path

DISTRIBUTION = "gavel-mcp"


def install_hint(extra: str, *, reinstall: bool = False) -> str:
    """The pip command that installs `extra`, from the package index and from a clone of the repository."""
    flags = "--force-reinstall " if reinstall else ""
    return f"pip install {flags}'{DISTRIBUTION}[{extra}]' (from a clone of Gavel: pip install {flags}-e '.[{extra}]')"


@cache
def version() -> str:
    """The installed distribution's version; `0+unknown` when running from a source tree that is not installed."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@cache
def code_digest() -> str:
    """A digest of the judging code as it runs: every Python file of `gavel.tools`, by path and content.

    The ledger's key holds it, because most changes to how a verdict is made touch code, not a prompt file or a
    rubric, and the version number is neither bumped for each of them nor rewritten by `git pull` in an editable
    install: a judgment made by code that no longer exists must not be served as today's.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]
