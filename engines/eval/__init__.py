"""Metrics and the side-by-side runner behind `olai-tui eval` and the benchmarks."""
