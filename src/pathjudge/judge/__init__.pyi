# The public names of pathjudge.judge (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.judge.backends.anthropic import AnthropicJudgeBackend as AnthropicJudgeBackend
from pathjudge.judge.backends.base import JudgeBackend as JudgeBackend
from pathjudge.judge.backends.llama_inprocess import LlamaBackend as LlamaBackend
from pathjudge.judge.backends.openai_compat import OpenAICompatBackend as OpenAICompatBackend
from pathjudge.judge.batches import run_batch as run_batch
from pathjudge.judge.cache import VerdictCache as VerdictCache
from pathjudge.judge.faithfulness import FaithfulnessScore as FaithfulnessScore
from pathjudge.judge.faithfulness import judge_faithfulness as judge_faithfulness
from pathjudge.judge.items import JudgeItem as JudgeItem
from pathjudge.judge.items import judge_items as judge_items
from pathjudge.judge.runner import Budget as Budget
from pathjudge.judge.runner import JudgeJob as JudgeJob
from pathjudge.judge.runner import JudgeRun as JudgeRun
from pathjudge.judge.runner import judge_requests as judge_requests
from pathjudge.judge.runner import judge_requests_sync as judge_requests_sync
from pathjudge.judge.runner import run_judge as run_judge
from pathjudge.judge.runner import run_judge_sync as run_judge_sync
from pathjudge.judge.session import JudgeSession as JudgeSession
from pathjudge.judge.session import make_judge_backend as make_judge_backend
from pathjudge.judge.verdict import JudgeFailure as JudgeFailure
from pathjudge.judge.verdict import SampleVerdict as SampleVerdict
from pathjudge.judge.verdict import Verdict as Verdict
from pathjudge.judge.verdict import VerdictRecord as VerdictRecord
