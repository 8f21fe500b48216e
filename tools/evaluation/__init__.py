"""`gavel eval`'s pure parts: reading a dataset, the figures of a run, and the diff against an earlier run."""
