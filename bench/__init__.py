"""Gavel's benchmarks: programs that measure, not timed tests. Results go to bench/results/*.json."""
