"""How the injection detector's time grows with the text: the guard against a rule or a disguise that goes
super-linear on a long text, independent of how fast the machine running the tests is.

A bound of 5 s on the seconds alone failed on a clean-clone CI run (5.1 s CPU), on code that reads 3.2-4.7 s on
this VM: the absolute figure is reported in bench/README.md ("Reliability"), and the tests bound the growth, with
a ceiling three times the figure against a blow-up that stays linear.
"""

from __future__ import annotations

import time

from gavel.tools.guards import detect_injection

# GAVEL_MAX_TEXT_CHARS' default: the longest text a tool accepts.
LONGEST = 200_000
# A tenth of it: a linear detector takes about 10 times as long on the longest text (9.5-9.9 on a 2-core AMD EPYC,
# best of two each); a quadratic one about 100 times.
TENTH = LONGEST // 10
# The most it may grow, and, against a blow-up that stays linear, the most the longest text may take.
MAX_GROWTH = 20.0
MAX_SECONDS = 15.0


def seconds_to_detect(chunk: str, length: int) -> tuple[float, list[str]]:
    """The best of two CPU times `detect_injection` takes on `chunk` repeated to `length` characters, and its
    findings."""
    text = (chunk * (length // len(chunk)))[:length]
    times, findings = [], []
    for _ in range(2):
        started = time.process_time()
        findings = detect_injection(text)
        times.append(time.process_time() - started)
    return min(times), findings
