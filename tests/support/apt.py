"""Installing a Debian package for the tests' real parts (PostgreSQL, Chromium), as `make test` does where missing."""

from __future__ import annotations

import os
import subprocess


def apt_install(*install: str, timeout_s: float) -> str | None:
    """`apt-get update`, then `apt-get install -y -q INSTALL...`; None when the install ran, else why it did not. A
    failed update alone is no failure: the package lists on the machine may still hold the package."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *install]):
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return f"`{' '.join(command)}` did not finish within {timeout_s:g}s"
        if done.returncode != 0 and command[1] == "install":
            return f"`{' '.join(command)}` failed: {done.stderr.strip()[-300:]}"
    return None
