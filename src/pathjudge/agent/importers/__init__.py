"""Importers from transcript and trace formats into the trajectory schema."""
