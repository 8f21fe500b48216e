"""The architecture contracts in pyproject's [tool.importlinter]: kept by the tree, and broken by a cycle.

The cycle is made in a copy of tools/ (a `gavel/tools` of a scratch directory, which lint-imports puts first on
the path: `gavel` is a namespace package, so the copy is the `gavel.tools` it analyses), checked with the
project's own acyclic contract, so the test proves that contract, not one of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT

LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
CONFIG = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
ACYCLIC = next(c for c in CONFIG["contracts"] if c["type"] == "acyclic_siblings")


def lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def _ini(values: dict[str, Any]) -> str:
    lines = []
    for key, value in values.items():
        if isinstance(value, list):
            lines.append(f"{key} =" + "".join(f"\n    {item}" for item in value))
        else:
            lines.append(f"{key} = {value}")
    return "\n".join(lines)


def scratch_tools(tmp_path: Path) -> Path:
    """tools/ copied as `gavel.tools` under `tmp_path`, with a config holding the project's acyclic contract."""
    shutil.copytree(REPO_ROOT / "tools", tmp_path / "gavel" / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    contract = {k: v for k, v in ACYCLIC.items() if k != "name"}
    contract["ancestors"] = ["gavel.tools"]
    config = (
        "[importlinter]\n"
        + _ini(
            {"root_packages": ["gavel.tools"], "exclude_type_checking_imports": CONFIG["exclude_type_checking_imports"]}
        )
        + "\n\n[importlinter:contract:acyclic]\nname = "
        + ACYCLIC["name"]
        + "\n"
        + _ini(contract)
        + "\n"
    )
    (tmp_path / ".importlinter").write_text(config, encoding="utf-8")
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    done = lint_imports(REPO_ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_copy_of_tools_without_a_new_cycle_passes(tmp_path: Path) -> None:
    done = lint_imports(scratch_tools(tmp_path), ".importlinter")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "KEPT" in done.stdout


def test_a_deliberate_cycle_fails_lint_imports(tmp_path: Path) -> None:
    root = scratch_tools(tmp_path)
    rows = root / "gavel" / "tools" / "ledger" / "rows.py"
    # ledger.py imports rows; rows importing ledger closes a circle between the two siblings.
    rows.write_text(
        rows.read_text(encoding="utf-8") + "\nfrom gavel.tools.ledger import ledger as _circle  # noqa: E402\n",
        encoding="utf-8",
    )
    done = lint_imports(root, ".importlinter")
    assert done.returncode != 0, done.stdout[-3000:]
    assert "No cycles are allowed in gavel.tools.ledger" in done.stdout
