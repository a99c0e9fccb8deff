"""Deterministic checks over trajectories: pure functions with closed modes."""
