"""The distribution's metadata: its name on the package index and the packages a wheel carries."""

from __future__ import annotations

import tomllib
from pathlib import Path

from gavel.tools.distribution import DISTRIBUTION, install_hint

REPO_ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Source directory -> the import package it becomes (pyproject's package-dir).
ROOTS = {"server": "gavel.server", "tools": "gavel.tools", "rubrics": "gavel.rubrics"}


def _shipped_dirs() -> set[str]:
    """Every directory under the package roots that holds a module or a data file, as a package name."""
    names = set()
    for root, package in ROOTS.items():
        for path in (REPO_ROOT / root).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".toml", ".js"} and "__pycache__" not in path.parts:
                relative = path.parent.relative_to(REPO_ROOT / root).parts
                names.add(".".join((package, *relative)))
    return names


def test_every_source_directory_is_a_listed_package() -> None:
    # setuptools cannot discover packages under a renamed root, so the list is by hand; a directory left
    # out of it would be missing from every wheel (and setuptools only warns).
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert _shipped_dirs() - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - _shipped_dirs() == set()


def test_the_distribution_name_is_the_one_the_install_hints_use() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION == "gavel-mcp"
    assert PYPROJECT["project"]["scripts"] == {"gavel": "gavel.server.cli.main:main"}
    assert install_hint("embedded") == (
        "pip install 'gavel-mcp[embedded]' (from a clone of Gavel: pip install -e '.[embedded]')"
    )


def test_no_install_hint_names_the_unrelated_gavel_distribution() -> None:
    # `gavel` on the package index is another project: `pip install 'gavel[...]'` installs it.
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for folder in ("server", "tools", "bench", "tests", "deploy")
        for path in (REPO_ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".md", ".toml", ".sh", ".yaml"}
        and path != Path(__file__)
        and "'gavel[" in path.read_text(encoding="utf-8", errors="replace")
    ]
    offenders += [name for name in ("README.md", "Makefile") if "'gavel[" in (REPO_ROOT / name).read_text()]
    assert offenders == []
