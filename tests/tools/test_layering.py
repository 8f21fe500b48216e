"""What the README's layout promises about tools/: it never imports the MCP SDK, nor the server that wraps it.

Read from the source, so an import inside a function (a lazy one) counts as much as one at the top; and once
more by importing every module of the package in a fresh interpreter, which catches an SDK import that comes
in through something else.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import gavel.tools

TOOLS_DIR = Path(gavel.tools.__file__).resolve().parent
# The SDK's packages, and the server package that is the only place allowed to use them.
FORBIDDEN = ("mcp", "mcp_types", "gavel.server")


def modules() -> list[Path]:
    return sorted(p for p in TOOLS_DIR.rglob("*.py") if "__pycache__" not in p.parts)


def forbidden(name: str) -> bool:
    return any(name == root or name.startswith(root + ".") for root in FORBIDDEN)


def imported_names(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            # `from gavel import server` names the package in the alias, not the module.
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))
            )
        ):
            yield node.lineno, node.args[0].value


def test_the_source_walk_finds_the_package() -> None:
    names = {p.relative_to(TOOLS_DIR).as_posix() for p in modules()}
    assert {"__init__.py", "engine/judge.py", "errors.py"} <= names


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(TOOLS_DIR).as_posix())
def test_no_module_under_tools_imports_mcp_or_the_server(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = [f"line {line}: {name}" for line, name in imported_names(tree) if forbidden(name)]
    assert found == [], f"tools/ stays free of MCP; move this to server/: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "import mcp",
        "import mcp.types as t",
        "from mcp.server import MCPServer",
        "from mcp_types import Tool",
        "from gavel import server",
        "from gavel.server.app import build_server",
        "def f():\n    import mcp",
        "import importlib\nimportlib.import_module('mcp.shared')",
    ],
)
def test_the_check_sees_every_way_of_importing_mcp(source: str) -> None:
    assert any(forbidden(name) for _, name in imported_names(ast.parse(source)))


def test_importing_every_tools_module_loads_no_mcp_module() -> None:
    names = [
        "gavel.tools." + ".".join(p.relative_to(TOOLS_DIR).with_suffix("").parts).removesuffix(".__init__")
        for p in modules()
    ]
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {('mcp', 'mcp_types')!r}"
        " or m.startswith('gavel.server')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
