"""Model-name normalisation and the warning when the judge grades its own twin."""

from __future__ import annotations

import re

from pathjudge.config._settings import DEFAULT_JUDGE_MODEL

_PREFIX = re.compile(r"^(?:[a-z]{2,4}\.)?anthropic\.")
_SUFFIXES = (
    re.compile(r"-v\d+(?::\d+)?$"),  # Bedrock: -v1:0
    re.compile(r"[@-]\d{8}$"),  # dated snapshot: -20251001 / Vertex @20251001
    re.compile(r"-latest$"),
)


def normalize_model(name: str) -> str:
    """A model name reduced to its identity: lower case, no provider prefix, no version/date suffix.

    ``"anthropic/Claude-Haiku-4-5-20251001"``, ``"us.anthropic.claude-haiku-4-5-20251001-v1:0"`` and
    ``"claude-haiku-4-5@20251001"`` all give ``"claude-haiku-4-5"``. An empty name stays empty.
    """
    out = name.strip().lower()
    out = out.rsplit("/", 1)[-1]
    out = _PREFIX.sub("", out)
    changed = True
    while changed:
        changed = False
        for pattern in _SUFFIXES:
            trimmed = pattern.sub("", out)
            if trimmed != out and trimmed:
                out, changed = trimmed, True
    return out


def twin_warning(judge_model: str, agent_model: str) -> str | None:
    """The warning to show when the judge and the agent under test are the same model, else None.

    Names are compared after :func:`normalize_model` (case, provider prefix and date suffix ignored).
    """
    if normalize_model(judge_model) != normalize_model(agent_model):
        return None
    other = (
        DEFAULT_JUDGE_MODEL
        if normalize_model(judge_model) != DEFAULT_JUDGE_MODEL
        else "another model family or size"
    )
    return (
        f"the judge model '{judge_model}' is the same model as the agent under test "
        f"('{agent_model}'), so the judge is grading its own twin and may favour its own kind of "
        f"answer; set judge.model to a different model (e.g. {other}), or at least give the judge a "
        "different framing and rubric than the agent's prompt and take more samples per item "
        "(--samples)"
    )
