"""Benchmarks run by hand (not part of the test suite); see README "Measured here"."""
