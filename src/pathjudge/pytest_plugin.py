"""pytest plugin (registered via the ``pytest11`` entry point); grading items are added by the scoring work."""
