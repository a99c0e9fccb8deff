"""What is graded: the trajectory schema, reading runs, importers, the recorder, the agent loop, Docent
and run collection.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "AgentInfo": "pathjudge.agent.trajectory",
    "AnthropicModelBackend": "pathjudge.agent.backends",
    "ModelBackend": "pathjudge.agent.backends",
    "OpenAIModelBackend": "pathjudge.agent.backends",
    "Recorder": "pathjudge.agent.recorder",
    "Reply": "pathjudge.agent.trajectory",
    "RunOptions": "pathjudge.agent.collect",
    "RunRecord": "pathjudge.agent.trajectory",
    "SCHEMA_VERSION": "pathjudge.agent.trajectory",
    "ScriptedBackend": "pathjudge.agent.backends",
    "Step": "pathjudge.agent.trajectory",
    "TRUNCATED_STOP_REASONS": "pathjudge.agent.trajectory",
    "Timing": "pathjudge.agent.trajectory",
    "Tool": "pathjudge.agent.loop",
    "Trajectory": "pathjudge.agent.trajectory",
    "Usage": "pathjudge.agent.trajectory",
    "collect_suite": "pathjudge.agent.collect",
    "import_file": "pathjudge.agent.importers",
    "import_session": "pathjudge.agent.importers",
    "make_model_backend": "pathjudge.agent.collect",
    "read_runs": "pathjudge.agent.io",
    "resolve_run_options": "pathjudge.agent.collect",
    "run_agent": "pathjudge.agent.loop",
    "run_agent_sync": "pathjudge.agent.loop",
    "summarize_runs": "pathjudge.agent.stats",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.agent.backends import (
        AnthropicModelBackend as AnthropicModelBackend,
    )
    from pathjudge.agent.backends import (
        ModelBackend as ModelBackend,
    )
    from pathjudge.agent.backends import (
        OpenAIModelBackend as OpenAIModelBackend,
    )
    from pathjudge.agent.backends import (
        ScriptedBackend as ScriptedBackend,
    )
    from pathjudge.agent.collect import (
        RunOptions as RunOptions,
    )
    from pathjudge.agent.collect import (
        collect_suite as collect_suite,
    )
    from pathjudge.agent.collect import (
        make_model_backend as make_model_backend,
    )
    from pathjudge.agent.collect import (
        resolve_run_options as resolve_run_options,
    )
    from pathjudge.agent.importers import (
        import_file as import_file,
    )
    from pathjudge.agent.importers import (
        import_session as import_session,
    )
    from pathjudge.agent.io import read_runs as read_runs
    from pathjudge.agent.loop import (
        Tool as Tool,
    )
    from pathjudge.agent.loop import (
        run_agent as run_agent,
    )
    from pathjudge.agent.loop import (
        run_agent_sync as run_agent_sync,
    )
    from pathjudge.agent.recorder import Recorder as Recorder
    from pathjudge.agent.stats import summarize_runs as summarize_runs
    from pathjudge.agent.trajectory import (
        SCHEMA_VERSION as SCHEMA_VERSION,
    )
    from pathjudge.agent.trajectory import (
        TRUNCATED_STOP_REASONS as TRUNCATED_STOP_REASONS,
    )
    from pathjudge.agent.trajectory import (
        AgentInfo as AgentInfo,
    )
    from pathjudge.agent.trajectory import (
        Reply as Reply,
    )
    from pathjudge.agent.trajectory import (
        RunRecord as RunRecord,
    )
    from pathjudge.agent.trajectory import (
        Step as Step,
    )
    from pathjudge.agent.trajectory import (
        Timing as Timing,
    )
    from pathjudge.agent.trajectory import (
        Trajectory as Trajectory,
    )
    from pathjudge.agent.trajectory import (
        Usage as Usage,
    )
