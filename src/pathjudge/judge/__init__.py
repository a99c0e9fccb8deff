"""The single-criterion LLM judge: verdicts, backends, the session (backend choice, availability, budget,
cache), the runner, Message Batches and the verdict cache. anthropic/instructor load only when a
backend that needs them is built.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "AnthropicJudgeBackend": "pathjudge.judge.backends.anthropic",
    "Budget": "pathjudge.judge.runner",
    "FaithfulnessScore": "pathjudge.judge.faithfulness",
    "JudgeBackend": "pathjudge.judge.backends.base",
    "JudgeFailure": "pathjudge.judge.verdict",
    "JudgeItem": "pathjudge.judge.items",
    "JudgeJob": "pathjudge.judge.runner",
    "JudgeRun": "pathjudge.judge.runner",
    "JudgeSession": "pathjudge.judge.session",
    "LlamaBackend": "pathjudge.judge.backends.llama_inprocess",
    "OpenAICompatBackend": "pathjudge.judge.backends.openai_compat",
    "SampleVerdict": "pathjudge.judge.verdict",
    "Verdict": "pathjudge.judge.verdict",
    "VerdictCache": "pathjudge.judge.cache",
    "VerdictRecord": "pathjudge.judge.verdict",
    "judge_faithfulness": "pathjudge.judge.faithfulness",
    "judge_items": "pathjudge.judge.items",
    "judge_requests": "pathjudge.judge.runner",
    "judge_requests_sync": "pathjudge.judge.runner",
    "make_judge_backend": "pathjudge.judge.session",
    "run_batch": "pathjudge.judge.batches",
    "run_judge": "pathjudge.judge.runner",
    "run_judge_sync": "pathjudge.judge.runner",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend as AnthropicJudgeBackend
    from pathjudge.judge.backends.base import JudgeBackend as JudgeBackend
    from pathjudge.judge.backends.llama_inprocess import LlamaBackend as LlamaBackend
    from pathjudge.judge.backends.openai_compat import OpenAICompatBackend as OpenAICompatBackend
    from pathjudge.judge.batches import run_batch as run_batch
    from pathjudge.judge.cache import VerdictCache as VerdictCache
    from pathjudge.judge.faithfulness import (
        FaithfulnessScore as FaithfulnessScore,
    )
    from pathjudge.judge.faithfulness import (
        judge_faithfulness as judge_faithfulness,
    )
    from pathjudge.judge.items import (
        JudgeItem as JudgeItem,
    )
    from pathjudge.judge.items import (
        judge_items as judge_items,
    )
    from pathjudge.judge.runner import (
        Budget as Budget,
    )
    from pathjudge.judge.runner import (
        JudgeJob as JudgeJob,
    )
    from pathjudge.judge.runner import (
        JudgeRun as JudgeRun,
    )
    from pathjudge.judge.runner import (
        judge_requests as judge_requests,
    )
    from pathjudge.judge.runner import (
        judge_requests_sync as judge_requests_sync,
    )
    from pathjudge.judge.runner import (
        run_judge as run_judge,
    )
    from pathjudge.judge.runner import (
        run_judge_sync as run_judge_sync,
    )
    from pathjudge.judge.session import (
        JudgeSession as JudgeSession,
    )
    from pathjudge.judge.session import (
        make_judge_backend as make_judge_backend,
    )
    from pathjudge.judge.verdict import (
        JudgeFailure as JudgeFailure,
    )
    from pathjudge.judge.verdict import (
        SampleVerdict as SampleVerdict,
    )
    from pathjudge.judge.verdict import (
        Verdict as Verdict,
    )
    from pathjudge.judge.verdict import (
        VerdictRecord as VerdictRecord,
    )
