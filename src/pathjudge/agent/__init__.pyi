# The public names of pathjudge.agent (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.agent.backends import AnthropicModelBackend as AnthropicModelBackend
from pathjudge.agent.backends import ModelBackend as ModelBackend
from pathjudge.agent.backends import OpenAIModelBackend as OpenAIModelBackend
from pathjudge.agent.backends import ScriptedBackend as ScriptedBackend
from pathjudge.agent.collect import RunOptions as RunOptions
from pathjudge.agent.collect import collect_suite as collect_suite
from pathjudge.agent.collect import make_model_backend as make_model_backend
from pathjudge.agent.collect import resolve_run_options as resolve_run_options
from pathjudge.agent.importers import import_file as import_file
from pathjudge.agent.importers import import_session as import_session
from pathjudge.agent.io import read_runs as read_runs
from pathjudge.agent.loop import Tool as Tool
from pathjudge.agent.loop import run_agent as run_agent
from pathjudge.agent.loop import run_agent_sync as run_agent_sync
from pathjudge.agent.recorder import Recorder as Recorder
from pathjudge.agent.stats import summarize_runs as summarize_runs
from pathjudge.agent.trajectory import SCHEMA_VERSION as SCHEMA_VERSION
from pathjudge.agent.trajectory import TRUNCATED_STOP_REASONS as TRUNCATED_STOP_REASONS
from pathjudge.agent.trajectory import AgentInfo as AgentInfo
from pathjudge.agent.trajectory import Reply as Reply
from pathjudge.agent.trajectory import RunRecord as RunRecord
from pathjudge.agent.trajectory import Step as Step
from pathjudge.agent.trajectory import Timing as Timing
from pathjudge.agent.trajectory import Trajectory as Trajectory
from pathjudge.agent.trajectory import Usage as Usage
