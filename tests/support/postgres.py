"""A real PostgreSQL server for the tests: Debian's `postgresql` binaries, a throw-away cluster on a random
loopback port, password authentication over TCP (so the URL's password really is used).

On a fresh machine (CI runs `make test` on the same image as this one) the binaries may be missing:
`ensure_binaries()` installs the Debian package when running as root with apt-get, and `make test` calls it
first (`python -m tests.support.postgres --install`). When no server can be started, `start()` raises
`PostgresUnavailable` with the reason, and the fixtures skip with it.

initdb refuses to run as root, so as root the cluster is created and run by the `postgres` user, in a
temporary directory it owns. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.apt import apt_install

APT_TIMEOUT_S = 600.0
STEP_TIMEOUT_S = 60.0
SUPERUSER = "postgres"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why."""


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/N/bin holding initdb and pg_ctl (or GAVEL_TEST_PG_BIN)."""
    override = os.environ.get("GAVEL_TEST_PG_BIN")

    def version(path: str) -> int:
        name = Path(path).parent.name
        return int(name) if name.isdigit() else 0

    candidates = [override] if override else sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version)
    for candidate in reversed(candidates):
        path = Path(candidate)
        if (path / "initdb").is_file() and (path / "pg_ctl").is_file():
            return path
    return None


def ensure_binaries() -> tuple[Path | None, str]:
    """The binaries' directory, installing Debian's `postgresql` package first when they are missing and
    this process may (root, apt-get on PATH). (None, why) when there are none."""
    found = find_bin_dir()
    if found is not None:
        return found, ""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return (
            None,
            "PostgreSQL binaries are not installed (apt-get install postgresql) and this user cannot install them",
        )
    failed = apt_install("--no-install-recommends", "postgresql", timeout_s=APT_TIMEOUT_S)
    if failed is not None:
        return None, failed
    found = find_bin_dir()
    return (found, "") if found is not None else (None, "the postgresql package installed no initdb")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    bin_dir: Path
    root: Path
    port: int
    password: str
    as_user: list[str]

    @property
    def admin_url(self) -> str:
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"gavel_{secrets.token_hex(6)}"
        with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "server.log").read_text(errors="replace")[-3000:]
        return ""

    def stop(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            subprocess.run(
                [*self.as_user, str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate",
                 "-t", "30", "stop"],
                capture_output=True, timeout=STEP_TIMEOUT_S, check=False,
            )  # fmt: skip
        shutil.rmtree(self.root, ignore_errors=True)


def start() -> PostgresServer:
    """initdb + pg_ctl start on a random loopback port. Raises PostgresUnavailable with the reason."""
    bin_dir, why = ensure_binaries()
    if bin_dir is None:
        raise PostgresUnavailable(why)
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="gavel-pg-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            raise PostgresUnavailable("running as root without `runuser`: initdb refuses to run as root")
        as_user = [runuser, "-u", SUPERUSER, "--"]
        try:
            shutil.chown(root, SUPERUSER, SUPERUSER)
        except (LookupError, OSError) as exc:
            raise PostgresUnavailable(f"no `{SUPERUSER}` user to run PostgreSQL as ({exc})") from exc
    password = secrets.token_hex(12)
    pwfile = root / "pw"
    pwfile.write_text(password + "\n")
    if as_user:
        shutil.chown(pwfile, SUPERUSER, SUPERUSER)
    port = _free_port()
    server = PostgresServer(bin_dir, root, port, password, as_user)
    steps = [
        [*as_user, str(bin_dir / "initdb"), "-D", str(root / "data"), "-U", SUPERUSER, "--pwfile", str(pwfile),
         "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"],
        [*as_user, str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-l", str(root / "server.log"), "-w", "-t", "30",
         "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=100", "start"],
    ]  # fmt: skip
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            server.stop()
            raise PostgresUnavailable(
                f"`{Path(step[len(as_user)]).name}` did not finish in {STEP_TIMEOUT_S:g}s"
            ) from None
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip()[-500:] + "\n" + server.log()
            server.stop()
            raise PostgresUnavailable(f"`{Path(step[len(as_user)]).name}` failed: {detail}")
    return server


if __name__ == "__main__":
    # `make test` runs this first so a fresh machine gets the binaries before the suite starts.
    if "--install" in sys.argv:
        directory, reason = ensure_binaries()
        sys.stderr.write(f"postgresql: {directory}\n" if directory else f"postgresql: unavailable: {reason}\n")
