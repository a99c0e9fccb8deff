"""A judge configuration's identity: what counts as the same judge for a certificate."""

from __future__ import annotations

from pathlib import Path

from pathjudge.judge.identity import identity_changes, judge_identity
from pathjudge.judge.prompt import PROMPT_TEMPLATE_VERSION
from pathjudge.judge.session import JudgeSession
from pathjudge.rubrics.criteria import get_criterion


def test_the_identity_fills_the_backend_default_and_ignores_the_base_url() -> None:
    crit = get_criterion("answer-correct")
    one = judge_identity(crit, JudgeSession.resolve(base_url="http://gateway-a"))
    other = judge_identity(crit, JudgeSession.resolve(base_url="http://gateway-b"))
    assert one == other
    assert (one.backend, one.model, one.samples) == ("anthropic", "claude-opus-4-8", 1)
    assert one.criterion_hash == crit.content_hash
    assert one.prompt_template_version == PROMPT_TEMPLATE_VERSION


def test_a_llama_model_is_named_by_its_file_not_its_folder(tmp_path: Path) -> None:
    crit = get_criterion("answer-correct")
    a = judge_identity(crit, JudgeSession.resolve(backend="llama-cpp", model="/a/smol.gguf"))
    b = judge_identity(crit, JudgeSession.resolve(backend="llama-cpp", model="/b/smol.gguf"))
    assert a == b
    assert a.model == "smol.gguf"


def test_identity_changes_names_each_change_in_order() -> None:
    crit = get_criterion("answer-correct")
    before = judge_identity(crit, JudgeSession.resolve())
    after = judge_identity(
        get_criterion("summary-faithful"), JudgeSession.resolve(model="claude-x", samples=5)
    )
    changes = identity_changes(before, after)
    assert changes[0] == "criterion changed from 'answer-correct' to 'summary-faithful'"
    assert "model changed from 'claude-opus-4-8' to 'claude-x'" in changes
    assert changes[-1] == "sample count changed from 1 to 5"
    assert identity_changes(before, before) == []
    assert before.digest != after.digest
