"""The prompt-template hash: every byte of prompt text and of the rubric is in it.

The ledger serves a stored judgment only to a call whose key matches, and the key carries this hash; so a
prompt edit the hash missed would serve judgments made with the old text. Nothing here is sampled from a
list of known prompt names: the tests walk whatever files tools/prompts/ holds today.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from gavel.tools.engine import prompts
from gavel.tools.rubric_registry import RubricRegistry
from gavel.tools.rubrics import Rubric

TOOLS_DIR = Path(prompts.__file__).resolve().parent.parent
RUBRIC = RubricRegistry.load().get("rag-answer")


@pytest.fixture
def prompt_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "prompts"
    shutil.copytree(prompts.PROMPTS_DIR, copy)
    return copy


def positions(size: int) -> list[int]:
    """Every byte of a short file; about 300 spread over a long one, always the first and the last."""
    step = max(1, size // 300)
    return sorted({*range(0, size, step), size - 1})


def test_the_hash_of_an_unchanged_copy_is_the_installed_hash(prompt_copy: Path) -> None:
    assert prompts.template_hash(RUBRIC, directory=prompt_copy) == prompts.template_hash(RUBRIC)
    assert prompts.template_hash(None, directory=prompt_copy) == prompts.template_hash(None)


def test_changing_any_byte_of_any_prompt_file_changes_the_hash(prompt_copy: Path) -> None:
    original = prompts.template_hash(RUBRIC, directory=prompt_copy)
    files = prompts.prompt_files(prompt_copy)
    assert [f.name for f in files if f.name == "judge.toml"], "the judge's prompts are among the files hashed"
    for path in files:
        data = path.read_bytes()
        for at in positions(len(data)):
            changed = bytearray(data)
            changed[at] ^= 0x01
            path.write_bytes(bytes(changed))
            assert prompts.template_hash(RUBRIC, directory=prompt_copy) != original, (path.name, at)
            assert prompts.template_hash(None, directory=prompt_copy) != prompts.template_hash(None), (path.name, at)
        path.write_bytes(data)
    assert prompts.template_hash(RUBRIC, directory=prompt_copy) == original


@pytest.mark.parametrize("name", ["zz-new.toml", "a.toml", "grounding/rag.toml"])
def test_a_new_prompt_file_of_any_name_is_in_the_hash(prompt_copy: Path, name: str) -> None:
    original = prompts.template_hash(RUBRIC, directory=prompt_copy)
    (prompt_copy / name).parent.mkdir(parents=True, exist_ok=True)
    (prompt_copy / name).write_text('text = "Judge kindly."\n')
    assert prompts.template_hash(RUBRIC, directory=prompt_copy) != original


def test_moving_text_between_prompt_files_changes_the_hash(prompt_copy: Path) -> None:
    (prompt_copy / "a.toml").write_text('x = "ab"\n')
    (prompt_copy / "b.toml").write_text('y = "c"\n')
    before = prompts.template_hash(None, directory=prompt_copy)
    (prompt_copy / "a.toml").write_text('x = "a"\n')
    (prompt_copy / "b.toml").write_text('y = "bc"\n')
    assert prompts.template_hash(None, directory=prompt_copy) != before
    (prompt_copy / "b.toml").rename(prompt_copy / "c.toml")
    assert prompts.template_hash(None, directory=prompt_copy) != before


def string_leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_leaves(item, (*path, index))


def with_leaf(value: Any, path: tuple[Any, ...], new: str) -> Any:
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = with_leaf(value[head], tuple(rest), new)
    return copy


def test_changing_any_text_of_the_rubric_changes_the_hash() -> None:
    original = prompts.template_hash(RUBRIC)
    dumped = RUBRIC.model_dump()
    changed_count = 0
    for path, text in string_leaves(dumped):
        try:
            edited = Rubric.model_validate(with_leaf(dumped, path, text + "x"))
        except ValidationError:
            continue  # a value the rubric's schema does not allow cannot reach a prompt either
        assert prompts.template_hash(edited) != original, path
        changed_count += 1
    assert changed_count >= 10


def test_every_prompt_file_ships_with_the_package() -> None:
    # pyproject's package data takes tools/prompts/*.toml: anything else in the directory would be hashed
    # here but missing from an installed wheel, so the two would disagree.
    files = prompts.prompt_files()
    assert files
    assert [f for f in files if f.parent != prompts.PROMPTS_DIR or f.suffix != ".toml"] == []


def test_prompt_text_data_lives_under_tools_prompts_only() -> None:
    # A prompt data file elsewhere under tools/ would be read by the judge but left out of the hash. The
    # calibration sets are not prompt text: their items are requests, judged (and keyed) as any caller's.
    calibration_data = TOOLS_DIR / "calibration" / "data"
    elsewhere = [
        p.relative_to(TOOLS_DIR).as_posix()
        for p in TOOLS_DIR.rglob("*")
        if p.is_file()
        and p.suffix in {".toml", ".txt", ".md", ".jinja", ".j2", ".yaml", ".yml", ".json"}
        and prompts.PROMPTS_DIR not in p.parents
        and calibration_data not in p.parents
    ]
    assert elsewhere == [], "put prompt text in tools/prompts/, where the prompt-template hash covers it"
