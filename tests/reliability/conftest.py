"""The reliability suite reports what it tried: cases, faults, load, injection figures, at the end of the run.

`GAVEL_FULL_RELIABILITY=1 pytest tests/reliability` runs every part at full size (see tally.FULL). The table is
printed by the root conftest (tests/conftest.py), which the pytest-xdist controller loads and this one it does not.
"""
