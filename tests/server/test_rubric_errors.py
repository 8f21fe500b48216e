"""A broken file in GAVEL_RUBRICS_DIR is an answer, not an exit: `gavel serve` over stdio (the official MCP client)
skips it, names it in rubric://index with its error, refuses its id with that error, and serves the other rubrics."""

from __future__ import annotations

import json
from pathlib import Path

import mcp
import pytest
from mcp import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import TextResourceContents

from tests.conftest import PYTHON
from tests.support.rubrics import HOUSE_STYLE

pytestmark = pytest.mark.slow

# No metrics: the file parses as TOML and fails validation.
BROKEN = (
    'id = "broken"\nversion = "1"\ntitle = "Broken"\ndescription = "x"\npass_threshold = 3\n[scale]\nmin = 1\nmax = 5'
)
NOT_TOML = "id = [unclosed\n"


@pytest.fixture
def params(clean_env: dict[str, str], tmp_path: Path) -> StdioServerParameters:
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    # Saved with a byte-order mark, as some Windows editors do: read as the rubric it is.
    (rubrics / "house-style.toml").write_text("\ufeff" + HOUSE_STYLE, encoding="utf-8")
    (rubrics / "broken.toml").write_text(BROKEN, encoding="utf-8")
    # Overrides a built-in: that id is refused rather than judged by the rubric the file was meant to replace.
    (rubrics / "idea-quality.toml").write_text(NOT_TOML, encoding="utf-8")
    # A symlink loop is one more broken file, not a server that cannot start.
    (rubrics / "loop.toml").symlink_to(rubrics / "loop-back.toml")
    (rubrics / "loop-back.toml").symlink_to(rubrics / "loop.toml")
    env = {**clean_env, "GAVEL_RUBRICS_DIR": str(rubrics)}
    return StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env=env)


async def _text(client: mcp.Client, uri: str) -> str:
    (content,) = (await client.read_resource(uri)).contents
    assert isinstance(content, TextResourceContents)
    return content.text


async def test_the_index_names_each_broken_file_with_its_error(params: StdioServerParameters) -> None:
    async with mcp.Client(params, read_timeout_seconds=60) as client:
        index = json.loads(await _text(client, "rubric://index"))
    served = {entry["id"] for entry in index["rubrics"]}
    assert {"house-style", "clinical-assessment", "rag-answer"} <= served
    assert not served & {"broken", "idea-quality"}
    unloadable = {entry["id"]: entry for entry in index["unloadable"]}
    assert set(unloadable) == {"broken", "idea-quality", "loop", "loop-back"}
    assert "cannot be resolved" in unloadable["loop"]["error"]
    assert unloadable["broken"]["file"].endswith("broken.toml") and "metrics" in unloadable["broken"]["error"]
    assert "not valid TOML" in unloadable["idea-quality"]["error"]


async def test_a_tool_asking_for_a_broken_rubric_is_refused_with_its_error(params: StdioServerParameters) -> None:
    async with mcp.Client(params, read_timeout_seconds=60) as client:
        result = await client.call_tool("evaluate_assessment", {"assessment": "Low mood.", "rubric": "broken"})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "'broken' could not be loaded" in text and "broken.toml" in text and "metrics" in text, text


async def test_the_other_rubrics_keep_serving(params: StdioServerParameters) -> None:
    async with mcp.Client(params, read_timeout_seconds=60) as client:
        assert json.loads(await _text(client, "rubric://house-style"))["id"] == "house-style"
        with pytest.raises(MCPError, match="could not be loaded"):
            await client.read_resource("rubric://broken")


async def test_a_rubrics_dir_that_is_not_a_directory_is_named_in_the_index(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**clean_env, "GAVEL_RUBRICS_DIR": str(tmp_path / "no-such-dir")}
    params = StdioServerParameters(command=PYTHON, args=["-m", "gavel.server", "serve"], env=env)
    async with mcp.Client(params, read_timeout_seconds=60) as client:
        index = json.loads(await _text(client, "rubric://index"))
    assert "clinical-assessment" in {entry["id"] for entry in index["rubrics"]}
    (entry,) = index["unloadable"]
    assert entry["id"] is None and "no-such-dir" in entry["file"] and "is not a directory" in entry["error"]
