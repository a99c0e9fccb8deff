"""Can the judge be trusted: labels, agreement, pairwise consistency, noise, prediction-powered inference.

Modules: ``labels`` (human labels schema), ``verdicts`` (recorded verdicts of any grader, k-sample
votes), ``agreement`` (judge-human statistics, the human-human ceiling, trust gates), ``pairwise``
(position-swap consistency), ``noise`` (judge vs agent noise, vote-share reliability), ``ppi`` (PPI++
corrected success rate), ``disagreements`` (and few-shot export), ``calibrate`` (all of it per
criterion), ``live`` (run pathjudge's judge on the labelled items). Heavy dependencies (numpy,
scikit-learn) load on first use.
"""
