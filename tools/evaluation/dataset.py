"""A dataset `gavel eval` judges: JSONL or CSV rows, each row one call of the chosen tool.

A row's keys (a JSONL object's keys, a CSV file's columns) are the tool's argument names. `id` names the item
(else its line: `line-N`), and no two items share one; any other key that is no argument of the tool is carried
along as `extra`, so the results can be joined back to the data. `--map ARG=KEY` reads an argument from a key of
another name (`--map sources=context` for a set with a `context` column).

CSV cells are text. A cell for an argument that is not text (a list, an object, a number, a flag) is read as
JSON when it is JSON; `sources` may also be one passage's text. An empty cell is an absent argument. In either
format a passage given as a string is a passage with that content.

A row that cannot be read (bad JSON, not an object, a lone surrogate escape) is an item with an error, never the
end of the run: the results say which line and why.
"""

from __future__ import annotations

import csv
import io
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gavel.tools.errors import InvalidInput
from gavel.tools.rag.requests import texts_as_passages

ID_KEY = "id"
# Arguments that hold passages: a bare string among them is a passage with that content.
PASSAGE_LISTS = ("sources",)
# The largest a C long holds everywhere (Windows' is 32 bits).
_CSV_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class DataItem:
    id: str
    line: int  # 1-based line of the file (a CSV's header is line 1)
    arguments: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # why the row could not be read; then it is judged by no one


def parse_mapping(pairs: list[str]) -> dict[str, str]:
    """`ARG=KEY` pairs as {argument: key}; a malformed pair is refused with what to write instead."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        argument, sep, key = pair.partition("=")
        if not sep or not argument.strip() or not key.strip():
            raise InvalidInput(f"--map {pair!r}: write ARG=KEY, e.g. --map sources=context", field="map")
        mapping[argument.strip()] = key.strip()
    return mapping


def load(path: Path, request_model: type[BaseModel], mapping: Mapping[str, str] | None = None) -> list[DataItem]:
    """Every row of `path` as an item, in file order."""
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file; give a .jsonl or .csv dataset", field="data")
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise InvalidInput(f"{path}: give a .jsonl or .csv file (one item a line or row)", field="data")
    for argument in mapping or {}:
        if argument not in request_model.model_fields:
            known = ", ".join(request_model.model_fields)
            raise InvalidInput(f"--map {argument}=...: {argument!r} is no argument of this tool ({known})", field="map")
    text = _text(path)
    rows = _jsonl_rows(text) if suffix == ".jsonl" else _csv_rows(path, text, request_model)
    keys = {key for _, row in rows if isinstance(row, dict) for key in row}
    unread = sorted(f"{argument}={key}" for argument, key in (mapping or {}).items() if key not in keys)
    if unread and keys:
        # A misspelt column would leave its argument out of every item, silently: no passages, say.
        raise InvalidInput(
            f"--map {', '.join(unread)}: no item has that key; the data's keys: {', '.join(sorted(keys))}",
            field="map",
        )
    items = [_item(row, line, request_model, mapping or {}) for line, row in rows]
    if not items:
        raise InvalidInput(f"{path}: no items in it", field="data")
    # The results, the report's cards and --compare all find an item by its id.
    seen: dict[str, int] = {}
    for item in items:
        if item.id in seen:
            raise InvalidInput(
                f"{path}: id {item.id!r} is on lines {seen[item.id]} and {item.line}; ids must be unique", field="data"
            )
        seen[item.id] = item.line
    return items


def _text(path: Path) -> str:
    """The file's text. Decoded in one piece, so a byte that is not UTF-8 is named by its offset in the file."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InvalidInput(
            f"{path}: is not UTF-8 text (line {line}, byte {exc.start} of the file cannot be read as UTF-8); save it "
            "as UTF-8 (in Excel: CSV UTF-8)",
            field="data",
        ) from None
    return text.removeprefix("\ufeff")  # a byte-order mark (Windows editors, Excel's "CSV UTF-8") is read past


def _jsonl_rows(text: str) -> list[tuple[int, dict[str, Any] | str]]:
    rows: list[tuple[int, dict[str, Any] | str]] = []
    # Lines end at \n, \r\n or \r only: U+2028 and its kind are legal inside a JSON string.
    for number, line in enumerate(io.StringIO(text, newline=None), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
            surrogate = lone_surrogate(value, number)
        except json.JSONDecodeError as exc:
            rows.append((number, f"line {number} is not JSON: {exc.msg} (column {exc.colno})"))
            continue
        except RecursionError:
            rows.append((number, f"line {number} is nested too deeply to read; flatten its lists and objects"))
            continue
        if surrogate is not None:
            rows.append((number, surrogate))
            continue
        rows.append((number, value if isinstance(value, dict) else f"line {number} is not a JSON object"))
    return rows


def _csv_rows(path: Path, text: str, request_model: type[BaseModel]) -> list[tuple[int, dict[str, Any] | str]]:
    rows: list[tuple[int, dict[str, Any] | str]] = []
    reader = csv.DictReader(io.StringIO(text, newline=""))
    # The csv module's own cap on a cell (131,072 characters) is below GAVEL_MAX_TEXT_CHARS; a cell over that
    # setting is refused with the item, by the length check every call makes.
    limit = csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        for cells in reader:
            line = reader.line_num
            if None in cells:
                rows.append((line, f"line {line} has more cells than the header has columns"))
                continue
            try:
                row = {key: _cell(key, value, request_model) for key, value in cells.items() if value not in ("", None)}
                surrogate = lone_surrogate(row, line)
            except RecursionError:
                rows.append((line, f"line {line} has a cell nested too deeply to read; flatten its lists and objects"))
                continue
            rows.append((line, surrogate or row))
    except csv.Error as exc:
        raise InvalidInput(f"{path}: line {reader.line_num} cannot be read as CSV ({exc})", field="data") from None
    finally:
        csv.field_size_limit(limit)
    return rows


def lone_surrogate(value: Any, line: int) -> str | None:
    """Why the row cannot be kept when it holds a lone surrogate escape ("\\ud83d", a cut emoji): legal JSON, but no
    character, so UTF-8 cannot write it to the results, the report or the terminal. `gavel calibrate` asks it too."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        escape = f"\\u{ord(exc.object[exc.start]):04x}"
        return (
            f"line {line} holds a lone UTF-16 surrogate escape ({escape}), which is not a Unicode character; remove "
            "it, or give the complete surrogate pair"
        )
    return None


def _is_text(annotation: Any) -> bool:
    """Whether an argument takes text only (str or str | None), so a cell is kept as it is."""
    if annotation is str:
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return _is_text(typing.get_args(annotation)[0])
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return all(arg is str or arg is type(None) for arg in typing.get_args(annotation))
    return False


def _cell(key: str, value: str, request_model: type[BaseModel]) -> Any:
    info = request_model.model_fields.get(key)
    if info is None or _is_text(info.annotation):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        # Not JSON: one passage's text, or a value validation will name as wrong.
        return [value] if key in PASSAGE_LISTS else value


def _item(row: dict[str, Any] | str, line: int, request_model: type[BaseModel], mapping: Mapping[str, str]) -> DataItem:
    if isinstance(row, str):
        return DataItem(id=f"line-{line}", line=line, error=row)
    item_id = str(row[ID_KEY]) if row.get(ID_KEY) not in (None, "") else f"line-{line}"
    taken = set(mapping.values())
    arguments = {argument: row[key] for argument, key in mapping.items() if key in row}
    for key, value in row.items():
        if key in request_model.model_fields and key not in arguments and key not in taken:
            arguments[key] = value
    extra = {key: value for key, value in row.items() if key != ID_KEY and key not in arguments and key not in taken}
    for name in PASSAGE_LISTS:
        given = arguments.get(name)
        if given is not None:
            arguments[name] = texts_as_passages([given] if isinstance(given, str) else given)
    return DataItem(id=item_id, line=line, arguments=arguments, extra=extra)


def ignored_keys(items: list[DataItem]) -> list[str]:
    """The keys carried along as `extra` (no argument of the tool), for a one-time note to the user."""
    return sorted({key for item in items for key in item.extra})


def missing_everywhere(items: list[DataItem], request_model: type[BaseModel]) -> list[str]:
    """The tool's required arguments that no readable item has: the data names them otherwise (a `--map` away), and
    judging would refuse every item alike."""
    readable = [item for item in items if item.error is None]
    if not readable:
        return []
    required = [name for name, field in request_model.model_fields.items() if field.is_required()]
    return [name for name in required if not any(name in item.arguments for item in readable)]
