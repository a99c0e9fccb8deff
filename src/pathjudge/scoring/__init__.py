"""Applying rubrics to runs: grades, scorecards, variance, diffs."""
