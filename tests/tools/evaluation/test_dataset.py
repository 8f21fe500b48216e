"""Reading a dataset for `gavel eval`: JSONL and CSV rows become the tool's arguments, an item id and extras."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from gavel.tools.errors import InvalidInput
from gavel.tools.evaluation.dataset import load, parse_mapping
from gavel.tools.rag import JudgeRagAnswerRequest


def jsonl(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_jsonl_keys_are_arguments_id_names_the_item_and_the_rest_is_extra(tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"id": "q1", "question": "Q?", "answer": "A.", "sources": ["P."], "label": "good"})
    [item] = load(path, JudgeRagAnswerRequest)
    assert item.id == "q1" and item.line == 1
    assert item.arguments == {"question": "Q?", "answer": "A.", "sources": [{"content": "P."}]}
    assert item.extra == {"label": "good"}


def test_map_reads_an_argument_from_a_key_of_another_name(tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"question": "Q?", "answer": "A.", "context": "The passage."})
    [item] = load(path, JudgeRagAnswerRequest, parse_mapping(["sources=context"]))
    assert item.id == "line-1"
    assert item.arguments["sources"] == [{"content": "The passage."}] and item.extra == {}


def test_an_unreadable_line_is_an_item_with_its_error(tmp_path: Path) -> None:
    items = load(jsonl(tmp_path, "{oops", "[1, 2]", {"question": "Q?"}), JudgeRagAnswerRequest)
    assert [i.error is not None for i in items] == [True, True, False]
    assert "line 1 is not JSON" in str(items[0].error) and "line 2 is not a JSON object" in str(items[1].error)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        pytest.param(({"id": "a", "question": "Q1?"}, {"id": "a", "question": "Q2?"}), "id 'a' is on lines 1 and 2",
                     id="the-same-id-twice"),
        pytest.param(({"question": "Q1?"}, {"id": "line-1", "question": "Q2?"}), "id 'line-1' is on lines 1 and 2",
                     id="an-id-that-is-another-items-line"),
    ],
)  # fmt: skip
def test_two_items_with_one_id_are_refused(tmp_path: Path, rows: tuple[dict[str, str], ...], message: str) -> None:
    # The results, the report's cards and --compare find an item by its id: a second one would borrow the first's.
    with pytest.raises(InvalidInput, match=message):
        load(jsonl(tmp_path, *rows), JudgeRagAnswerRequest)


def test_a_line_with_a_lone_surrogate_escape_is_an_item_with_its_error(tmp_path: Path) -> None:
    # UTF-8 cannot write it: the run would stop at that item's results line.
    items = load(jsonl(tmp_path, '{"id": "cut \\ud83d", "question": "Q?"}', '{"question": "\\ud83d\\ude00"}'),
                 JudgeRagAnswerRequest)  # fmt: skip
    assert items[0].id == "line-1" and "lone UTF-16 surrogate escape (\\ud83d)" in str(items[0].error)
    assert items[1].error is None and items[1].arguments["question"] == "\U0001f600"  # a whole pair is a character


def test_csv_cells_are_json_where_the_argument_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer", "sources", "samples", "agent_reasoning"])
        writer.writerow(["[1] is text", "A.", "one passage", "3", "[not parsed]"])
        writer.writerow(["Q?", "A.", json.dumps(["p1", {"id": "d2", "content": "p2"}]), "", ""])
    first, second = load(path, JudgeRagAnswerRequest)
    assert first.line == 2
    assert first.arguments == {"question": "[1] is text", "answer": "A.", "sources": [{"content": "one passage"}],
                               "samples": 3, "agent_reasoning": "[not parsed]"}  # fmt: skip
    assert second.arguments["sources"] == [{"content": "p1"}, {"id": "d2", "content": "p2"}]
    assert "samples" not in second.arguments  # an empty cell is an absent argument


@pytest.mark.parametrize(
    ("name", "mapping", "message"),
    [
        ("data.txt", [], "give a .jsonl or .csv file"),
        ("data.jsonl", ["sources"], "write ARG=KEY"),
        ("data.jsonl", ["passages=context"], "'passages' is no argument of this tool"),
        ("data.jsonl", ["sources=contxt"], r"--map sources=contxt: no item has that key; the data's keys: question"),
    ],
)
def test_a_bad_dataset_or_mapping_is_refused_with_what_to_change(
    tmp_path: Path, name: str, mapping: list[str], message: str
) -> None:
    path = tmp_path / name
    path.write_text('{"question": "Q?"}\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load(path, JudgeRagAnswerRequest, parse_mapping(mapping))


def test_a_csv_saved_by_excel_with_a_byte_order_mark_reads_its_first_column(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("\ufeffquestion,answer,sources\nQ?,A.,P.\n", encoding="utf-8")
    [item] = load(path, JudgeRagAnswerRequest)
    assert item.arguments["question"] == "Q?"


def test_a_file_that_is_not_utf8_is_refused_saying_how_to_save_it(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("question,answer\nQ?,A.\n", encoding="utf-16")
    with pytest.raises(InvalidInput, match=r"is not UTF-8 text .*save it as UTF-8"):
        load(path, JudgeRagAnswerRequest)


def test_a_byte_that_is_not_utf8_is_named_by_its_line_and_its_offset_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    good = b'{"question": "Q?"}\n' * 2000
    path.write_bytes(good + b'{"question": "\xff"}\n')
    with pytest.raises(InvalidInput, match=rf"line 2001, byte {len(good) + 14} of the file"):
        load(path, JudgeRagAnswerRequest)


def test_a_long_csv_cell_and_a_deeply_nested_line_are_read_as_items(tmp_path: Path) -> None:
    # Both are the item's to refuse (over GAVEL_MAX_TEXT_CHARS, not JSON one can read), not the end of the run.
    path = tmp_path / "data.csv"
    path.write_text(f"question,answer\nQ?,{'x' * 150_000}\n", encoding="utf-8")
    [item] = load(path, JudgeRagAnswerRequest)
    assert len(item.arguments["answer"]) == 150_000
    first, second = load(jsonl(tmp_path, {"question": "Q?"}, '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                         JudgeRagAnswerRequest)  # fmt: skip
    assert first.error is None and second.error == "line 2 is nested too deeply to read; flatten its lists and objects"
