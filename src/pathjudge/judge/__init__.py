"""The single-criterion LLM judge: verdicts, backends, cache, runner."""
