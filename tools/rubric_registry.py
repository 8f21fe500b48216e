"""Where rubrics come from: a rubric file read and validated (`load_rubric_file`, `parse_rubric`), the built-in
directory, and the registry that serves them by id (`RubricRegistry`). The models are `gavel.tools.rubrics`.

A malformed file is an error that names the file and the field: `gavel rubrics` stops at it; the server skips it,
lists it in its index, and refuses its id with that error while the other rubrics keep serving.
"""

from __future__ import annotations

import importlib.util
import re
import stat
import tomllib
from pathlib import Path

from pydantic import ValidationError

from gavel.tools.errors import InvalidInput, RubricFileError, UnknownRubric, UnloadableRubric
from gavel.tools.field_hints import field_errors
from gavel.tools.rubrics import RUBRIC_ID_PATTERN, Rubric

_RUBRIC_ID_RE = re.compile(RUBRIC_ID_PATTERN)


def parse_rubric(data: object, *, origin: str) -> Rubric:
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        raise RubricFileError(origin, field_errors(exc, Rubric)) from exc


def load_rubric_file(path: Path) -> Rubric:
    try:
        # Reading a FIFO or a device would block start-up or never end; a link is followed to what it names.
        if not stat.S_ISREG(path.stat().st_mode):
            raise RubricFileError(str(path), "is not a regular file: replace it with a rubric's TOML file or remove it")
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # an editor's byte-order mark is no error
    except tomllib.TOMLDecodeError as exc:
        raise RubricFileError(str(path), f"not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricFileError(str(path), f"cannot be read: {exc}") from exc
    except RecursionError:
        # tomllib recurses once per nested array or table; a rubric nests a few levels deep.
        raise RubricFileError(
            str(path), "is nested too deeply to read: a rubric nests its arrays and tables a few levels deep at most"
        ) from None
    rubric = parse_rubric(data, origin=str(path))
    if rubric.id != path.stem:
        raise RubricFileError(str(path), f"field id: {rubric.id!r} does not match the file name {path.stem!r}")
    return rubric


def builtin_rubric_dir() -> Path:
    # `gavel.rubrics` is a data-only namespace package; importlib.resources cannot read those on 3.11.
    spec = importlib.util.find_spec("gavel.rubrics")
    if spec is None or not spec.submodule_search_locations:
        raise RubricFileError("gavel.rubrics", "the built-in rubric directory is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _load_listed(path: Path, directory: Path) -> Rubric:
    """A TOML file found directly inside `directory`; a symlink pointing outside it is refused unread."""
    try:
        target = path.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop: RuntimeError before Python 3.13, OSError after
        raise RubricFileError(str(path), f"cannot be resolved: {exc}") from exc
    if not target.is_relative_to(directory.resolve()):
        raise RubricFileError(str(path), "is a link to a file outside its rubric directory; refusing it")
    return load_rubric_file(path)


class RubricRegistry:
    """The loaded rubrics, by id, and the files that could not be loaded (`broken`). Immutable after start-up."""

    def __init__(
        self,
        rubrics: dict[str, Rubric],
        broken: dict[str, RubricFileError] | None = None,
        missing_dirs: list[RubricFileError] | None = None,
    ) -> None:
        self._rubrics = dict(sorted(rubrics.items()))
        # By the id the file's name gives it: a tool asking for that id is told why it is missing.
        self.broken = dict(sorted((broken or {}).items()))
        # Extra directories that could not be read at all (skipped with `skip_broken`).
        self.missing_dirs = list(missing_dirs or [])

    @classmethod
    def load(cls, extra_dirs: list[Path] | None = None, *, skip_broken: bool = False) -> RubricRegistry:
        """The built-in rubrics, then each directory's, overriding by id. A file that does not load raises its
        RubricFileError, or with `skip_broken` is left out and kept in `broken` (it overrides an earlier rubric
        of its id all the same: serving the rubric it was meant to replace would judge by the wrong one)."""
        rubrics: dict[str, Rubric] = {}
        broken: dict[str, RubricFileError] = {}
        missing_dirs: list[RubricFileError] = []
        builtin = builtin_rubric_dir()
        for directory in [builtin, *(extra_dirs or [])]:
            if not directory.is_dir():
                what = "the built-in rubric directory" if directory == builtin else "GAVEL_RUBRICS_DIR (--rubrics-dir)"
                error = RubricFileError(str(directory), f"is not a directory: check {what}")
                if not skip_broken or directory == builtin:
                    raise error
                missing_dirs.append(error)
                continue
            for path in sorted(directory.glob("*.toml")):
                try:
                    rubric = _load_listed(path, directory)
                except RubricFileError as exc:
                    if not skip_broken:
                        raise
                    rubrics.pop(path.stem, None)
                    broken[path.stem] = exc
                    continue
                rubrics[rubric.id] = rubric
                broken.pop(rubric.id, None)
        return cls(rubrics, broken, missing_dirs)

    def ids(self) -> list[str]:
        return list(self._rubrics)

    def all(self) -> list[Rubric]:
        return list(self._rubrics.values())

    def get(self, rubric_id: str) -> Rubric:
        # Ids are looked up in a dict built at start-up, never joined onto a path, so a hostile id
        # such as '../../etc/passwd' can only miss.
        rubric = self._rubrics.get(rubric_id) if _RUBRIC_ID_RE.match(rubric_id or "") else None
        if rubric is None:
            if rubric_id in self.broken:
                raise UnloadableRubric(rubric_id, self.ids(), str(self.broken[rubric_id]))
            raise UnknownRubric(rubric_id, self.ids())
        return rubric

    def resolve(self, rubric_id: str | None, custom: Rubric | None, *, default: str) -> Rubric:
        """The rubric a request asks for: an id or an inline rubric, never both."""
        if custom is not None and rubric_id is not None:
            raise InvalidInput("give either rubric (an id) or custom_rubric (inline), not both", field="rubric")
        if custom is not None:
            return custom
        return self.get(rubric_id or default)
