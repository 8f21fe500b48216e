"""What one phase of score_candidates reports: reasoning-log lines, warnings and failure codes.

Each phase returns its own notes and the tool joins them in phase order, so the log reads in the order the
decisions were made and no phase writes into another's lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gavel.tools.candidates.models import Failure


@dataclass
class Notes:
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    def warn_and_log(self, message: str) -> None:
        """A warning that is also a decision worth reading in the log, as a sentence there."""
        self.warnings.append(message)
        self.log.append(message[0].upper() + message[1:] + ".")

    def fail(self, failure: Failure, warning: str) -> None:
        """Something the model did not deliver: the code for machines, the warning for people."""
        self.warnings.append(warning)
        if failure not in self.failures:
            self.failures.append(failure)


def joined(parts: Iterable[Notes]) -> Notes:
    out = Notes()
    for part in parts:
        out.log += part.log
        out.warnings += part.warnings
        out.failures += [f for f in part.failures if f not in out.failures]
    return out
