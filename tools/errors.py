"""One error hierarchy for the whole engine.

Every `GavelError` message is written for the caller: it says what went wrong and what to change.
The server translates these to `ToolError` exactly once, at the MCP boundary; anything that is not a
`GavelError` is an internal fault and its text never reaches the client.
"""

from __future__ import annotations


class GavelError(Exception):
    """Base class. `str(error)` is safe to show to the calling agent."""


class InvalidInput(GavelError):
    """The request itself is wrong; `field` names the offending argument when there is one."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class UnknownRubric(InvalidInput):
    def __init__(self, rubric_id: str, known: list[str]) -> None:
        self.rubric_id = rubric_id
        self.known = known
        super().__init__(
            f"unknown rubric {rubric_id!r}; known rubrics: {', '.join(known) or '(none)'}",
            field="rubric",
        )


class UnloadableRubric(UnknownRubric):
    """The rubric asked for by id is a file that could not be loaded: refused with that file's error."""

    def __init__(self, rubric_id: str, known: list[str], error: str) -> None:
        self.rubric_id = rubric_id
        self.known = known
        InvalidInput.__init__(
            self,
            f"rubric {rubric_id!r} could not be loaded, so it cannot be used: {error}. Fix the file and restart "
            f"Gavel, or use another rubric: {', '.join(known) or '(none)'}",
            field="rubric",
        )


class RubricFileError(GavelError):
    """A rubric data file does not parse or validate. `gavel rubrics` stops at it; the server skips it and refuses
    its id (`RubricRegistry.load(skip_broken=True)`)."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        super().__init__(f"rubric file {path}: {detail}")


class BackendError(GavelError):
    """A model backend failed in a way the user can fix (server down, model missing, timeout)."""


class BackendTimeout(BackendError):
    """The backend did not answer within its time bound; the rest of the tool call does not ask it again."""


class ContextTooLong(BackendError):
    """The prompt does not fit the model's context window. The request's texts are too long for this judge, so the
    call is not retried and the backend is not suspected; its message says which limit to raise. A prompt the
    server cut to fit is refused the same way: a reading of a cut prompt would be a score the judge never gave."""


class BackendUnavailable(BackendError):
    """No backend could be used at all."""


class ModelAssemblyError(BackendError):
    """The embedded default model could not be assembled or failed its checksum."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions at the bottom of `exc`'s (possibly nested) exception groups; `[exc]` for a plain one.

    Task groups wrap whatever their tasks raise, so every caller that needs the real error flattens with this.
    """
    found: list[BaseException] = []
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop(0)
        if isinstance(current, BaseExceptionGroup):
            pending[:0] = current.exceptions
        else:
            found.append(current)
    return found


def caller_errors(exc: BaseException) -> list[GavelError] | None:
    """The `GavelError`s behind `exc` when every leaf is one (so all of it is written for the caller), else None."""
    found = leaves(exc)
    errors = [leaf for leaf in found if isinstance(leaf, GavelError)]
    return errors if errors and len(errors) == len(found) else None
