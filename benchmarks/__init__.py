"""Benchmarks of twinbench itself (not unit tests): they print figures, they assert nothing."""
