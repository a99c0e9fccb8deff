"""What good looks like: suites, deterministic assertions, reference paths, judged criteria."""
