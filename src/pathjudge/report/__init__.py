"""Renderers only: terminal, JSON, Markdown, JUnit XML, HTML, plots."""
