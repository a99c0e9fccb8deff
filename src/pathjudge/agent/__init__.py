"""What is graded: the trajectory schema, JSONL I/O, importers, the recorder, the agent loop and Docent."""
