"""Calibration: the judge measured on a labelled set, on this machine (`gavel calibrate`, `calibrate_judge`).

The parts: `sets` (the labelled sets, shipped in data/ or a user's own, and how an item becomes a request),
`stats` (agreement figures and bootstrap intervals, shared with the benchmarks), `measure` (a run over a
set), `models` (what `calibrate_judge` accepts and returns) and `records` (runs kept in the ledger, and the
judge's fitness read from them). Nothing is imported here, so a judging call that only reads its fitness does
not load the runner.
"""
