"""What one phase of score_candidates reports: reasoning-log lines and warnings.

Each phase returns its own notes and the tool joins them in phase order, so the log reads in the order the
decisions were made and no phase writes into another's lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Notes:
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def warn_and_log(self, message: str) -> None:
        """A warning that is also a decision worth reading in the log, as a sentence there."""
        self.warnings.append(message)
        self.log.append(message[0].upper() + message[1:] + ".")


def joined(parts: Iterable[Notes]) -> Notes:
    out = Notes()
    for part in parts:
        out.log += part.log
        out.warnings += part.warnings
    return out
