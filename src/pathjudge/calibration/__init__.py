"""Can the judge be trusted: labels, agreement, pairwise consistency, prediction-powered inference."""
