"""pytest plugin (registered through the ``pytest11`` entry point): a suite's tasks as test items.

    pytest examples/docent/suite.yaml --pathjudge-runs examples/docent/runs.jsonl

collects exactly the suite's tasks (the suite file given as the path to collect is the suite, so the
project's own tests are not collected; without ``--pathjudge-runs`` that is a usage error saying so).
``--pathjudge-suite PATH`` names the suite explicitly; then the items are added to whatever pytest
collects (the paths named, or with none, ``testpaths`` or the current folder), even when the suite
file lies outside them. Each task is one item with the node id ``<suite file>::<task id>``, so a
failing task reruns with ``pytest 'examples/docent/suite.yaml::free-storage' --pathjudge-runs ...``;
``--pathjudge-task ID`` (repeatable) selects tasks by id whatever characters the id holds. In JUnit XML (``--junitxml``) a
task's ``classname`` is the suite's name. Or configure it in ``pytest.ini`` / ``pyproject.toml``::

    [tool.pytest.ini_options]
    pathjudge_suite = "examples/docent/suite.yaml"
    pathjudge_runs = "examples/docent/runs.jsonl"

Grading is assertion-only (fast mode: judged criteria are "not run", never pass or fail) unless
``--pathjudge-verdicts`` gives recorded verdicts. One item per task: it fails when any run of the task
failed, showing what its JUnit case shows (the runs that did not pass, the first one's reason, blockers
and alignment diff); it is skipped when the task has no runs or none could be decided. Nothing graded is
never green: a session in which no task of the suite was graded (every one skipped, or, with the suite
or runs given on the command line, none selected) exits 5 instead of 0 and says why.
``--pathjudge-strict`` also fails tasks whose runs succeeded by a poor path or repeated a call. The
assertion helpers for your own tests live in :mod:`pathjudge.testing` and are re-exported here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from pathjudge.testing import assert_path, assert_steps, assert_success, assert_tools


def __getattr__(name: str) -> Any:
    # the assertion helpers load on first use, so registering the plugin stays cheap for every pytest run
    if name in ("assert_path", "assert_steps", "assert_success", "assert_tools"):
        import pathjudge.testing

        return getattr(pathjudge.testing, name)
    raise AttributeError(f"module 'pathjudge.pytest_plugin' has no attribute {name!r}")


__all__ = [
    "PathjudgeTaskFailure",
    "TaskItem",
    "assert_path",
    "assert_steps",
    "assert_success",
    "assert_tools",
]


class PathjudgeTaskFailure(AssertionError):
    """A task of the suite failed; the message holds the reasons and the alignment diff."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pathjudge", "grade agent runs against a pathjudge suite")
    group.addoption(
        "--pathjudge-suite",
        default=None,
        help="Suite YAML: one test item per task (or give the suite file as the path to collect).",
    )
    group.addoption("--pathjudge-runs", default=None, help="Runs JSONL to grade against the suite.")
    group.addoption(
        "--pathjudge-verdicts", default=None, help="Recorded judge verdicts JSONL (optional)."
    )
    group.addoption(
        "--pathjudge-strict",
        action="store_true",
        default=None,
        help="Also fail tasks whose runs succeeded by a poor path or repeated a call.",
    )
    group.addoption(
        "--pathjudge-task",
        action="append",
        default=None,
        metavar="ID",
        help="Run only this task of the suite (repeatable); the others are deselected.",
    )
    parser.addini("pathjudge_suite", "Suite YAML for pathjudge items.", default="")
    parser.addini("pathjudge_runs", "Runs JSONL for pathjudge items.", default="")
    parser.addini("pathjudge_verdicts", "Recorded verdicts JSONL for pathjudge items.", default="")
    parser.addini("pathjudge_strict", "Fail weak paths too.", type="bool", default=False)


def _setting(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"--pathjudge-{name}")
    if value:
        return str(value)
    ini = config.getini(f"pathjudge_{name}")
    if ini:
        path = Path(str(ini))
        return str(path if path.is_absolute() else Path(str(config.rootpath)) / path)
    return None


def _resolved(path: str | Path) -> Path:
    return Path(path).expanduser().resolve()


def _explicit_paths(config: pytest.Config) -> set[Path]:
    """The files named on the command line (``a.yaml`` and ``a.yaml::task`` both name ``a.yaml``)."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return set()
    base = config.invocation_params.dir
    return {_resolved(base / arg.split("::", 1)[0]) for arg in config.args}


class _Graded:
    """The suite's grading, done once per session on first use."""

    def __init__(self, suite: Any, runs: str, verdicts: str | None) -> None:
        self.suite = suite
        self.runs = runs
        self.verdicts = verdicts
        self._done: tuple[Any, dict[str, list[Any]]] | None = None
        self._error: Exception | None = None

    def result(self) -> tuple[Any, dict[str, list[Any]]]:
        if self._error is not None:  # bad input fails every item with the one error, graded once
            raise self._error
        if self._done is None:
            from pathjudge.config import default_config
            from pathjudge.errors import PathjudgeError
            from pathjudge.scoring.pipeline import score

            # the plugin never calls a judge and reads no project configuration: recorded verdicts
            # or fast mode, and no gates (each task is its own test)
            try:
                report = score(
                    self.runs,
                    self.suite,
                    fast=self.verdicts is None,
                    verdicts=self.verdicts,
                    judge=False,
                    config=default_config(),
                    max_weak=10**9,
                )
            except PathjudgeError as exc:
                self._error = exc
                raise
            card = report.scorecard
            weak: dict[str, list[Any]] = {}
            for entry in card.weak:
                weak.setdefault(entry.task_id, []).append(entry)
            self._done = (card, weak)
        return self._done


class SuiteFile(pytest.File):
    """A suite YAML as a pytest collector: one :class:`TaskItem` per task, in suite order."""

    def collect(self) -> Any:
        from pathjudge.rubrics.suite import load_suite

        runs = _setting(self.config, "runs")
        if runs is None:
            raise pytest.UsageError(
                f"pathjudge: {self.path} is a suite, so pytest also needs --pathjudge-runs RUNS.jsonl "
                "(or the pathjudge_runs ini option)"
            )
        from pathjudge.config import resolve_config

        # callables run only as the project configuration allows (allow_callables)
        policy = resolve_config(cwd=self.config.rootpath).config.allow_callables
        suite = load_suite(self.path, allow_callables=policy)
        strict_opt = self.config.getoption("--pathjudge-strict")
        strict = (
            bool(strict_opt)
            if strict_opt is not None
            else bool(self.config.getini("pathjudge_strict"))
        )
        graded = _Graded(suite, runs, _setting(self.config, "verdicts"))
        for task in suite.tasks:
            yield TaskItem.from_parent(
                self,
                name=task.id,
                task_id=task.id,
                graded=graded,
                strict=strict,
                line=suite.task_line(task.id),
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        from pathjudge.errors import PathjudgeError

        if isinstance(excinfo.value, PathjudgeError):  # one line naming file, line and field
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TaskItem(pytest.Item):
    """One suite task as a test item (node id ``<suite file>::<task id>``)."""

    def __init__(
        self, *, task_id: str, graded: _Graded, strict: bool, line: int | None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        # marks the item's reports (also across processes), so the session can tell whether any task
        # of the suite was graded
        self.keywords[_KEYWORD] = True
        self.task_id = task_id
        self.graded = graded
        self.strict = strict
        self.line = line

    def setup(self) -> None:
        """JUnit XML: the case's ``classname`` is the suite's name (pytest would use the file path)."""
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - a pytest without the junitxml plugin
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is not None:
            xml.node_reporter(self.nodeid).add_attribute("classname", self.graded.suite.name)

    def runtest(self) -> None:
        from pathjudge.report.junit import failure_details, task_verdict

        card, weak = self.graded.result()
        row = next((r for r in card.task_rows if r.task_id == self.task_id), None)
        entries = weak.get(self.task_id, [])
        verdict = task_verdict(row, strict=self.strict)
        if verdict == "skipped":
            if row is None:
                pytest.skip("no runs for this task")
            why = "no run could be decided (judged criteria not run"
            if card.broken_checks:
                # the checks that broke (status error) leave runs undecided, never failed
                why += ", or a check broke; checks that broke: " + "; ".join(
                    f"{b.check} x{b.count} (first on run {b.example_run}): {b.reason}"
                    for b in card.broken_checks[:5]
                )
            pytest.skip(why + ")")
        if verdict == "failed":
            assert row is not None  # a task without runs is skipped above
            # the same head, blockers and diff as the task's JUnit case of `pathjudge score --junit`
            head, details = failure_details(row, entries, strict=self.strict)
            raise PathjudgeTaskFailure(f"task {self.task_id!r}: {head}\n{details}")
        for entry in entries:
            self.add_report_section("call", "weak paths", f"run {entry.run_id}: {entry.reason}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        from pathjudge.errors import PathjudgeError

        # a failed task, or bad input (one line naming file, line and field): no traceback
        if isinstance(excinfo.value, PathjudgeTaskFailure | PathjudgeError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return (
            self.graded.suite.source or "suite",
            (self.line - 1) if self.line else None,
            f"pathjudge task {self.task_id}",
        )


def _looks_like_suite(path: Path) -> bool:
    """Whether a YAML file is a pathjudge suite: a mapping with a top-level ``tasks`` key."""
    import re

    from pathjudge._yaml import load_yaml
    from pathjudge.errors import InputError

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    try:
        data, _ = load_yaml(text, file=str(path), error=InputError)
    except InputError:  # a suite with a YAML error still has its 'tasks:' line
        return re.search(r"^tasks[ \t]*:", text, re.MULTILINE) is not None
    return isinstance(data, dict) and "tasks" in data


def pytest_sessionstart(session: pytest.Session) -> None:
    """A suite file named on the command line without runs: say that --pathjudge-runs is needed
    (pytest alone would answer "not found ... no match in any of [<Dir ...>]")."""
    config = session.config
    if _setting(config, "runs") is not None or _setting(config, "suite") is not None:
        return
    for path in sorted(_explicit_paths(config)):
        if path.suffix in (".yaml", ".yml") and path.is_file() and _looks_like_suite(path):
            shown = os.path.relpath(path, config.invocation_params.dir)
            raise pytest.UsageError(
                f"pathjudge: {shown} is a pathjudge suite; to grade it, pytest needs the runs to "
                f"grade as well: pytest {shown} --pathjudge-runs RUNS.jsonl (or set the "
                "pathjudge_runs ini option)"
            )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SuiteFile | None:
    """The configured suite file, or a YAML file named on the command line with --pathjudge-runs."""
    config = parent.config
    suite = _setting(config, "suite")
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    here = _resolved(file_path)
    if suite is not None:
        wanted = here == _resolved(suite)
    else:
        wanted = _setting(config, "runs") is not None and here in _explicit_paths(config)
    if not wanted:
        return None
    return SuiteFile.from_parent(parent, path=file_path)


_KEYWORD = "pathjudge_task"
_OK = pytest.ExitCode.OK


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    suite_path = _setting(config, "suite")
    runs_path = _setting(config, "runs")
    if suite_path is None and runs_path is None:
        return
    # pytest may make a collector for the suite file while walking a folder and then drop it (the
    # folder was searched for another path): only the items it kept say the suite was collected
    suite_at = _resolved(suite_path) if suite_path is not None else None
    collected = any(
        isinstance(item, TaskItem) and (suite_at is None or _resolved(item.path) == suite_at)
        for item in items
    )
    if not collected and (suite_path is None or runs_path is None):
        raise pytest.UsageError(
            "pathjudge needs both a suite (--pathjudge-suite, or the suite file as the path to "
            "collect) and --pathjudge-runs (or the ini options)"
        )
    if not collected and suite_path is not None:
        # the suite lies outside the paths pytest searched (the paths named on the command line, or
        # testpaths): add its items, reported as collected (so "collected N items" and
        # --collect-only count them); naming a test folder never drops the suite
        if not Path(suite_path).is_file():
            raise pytest.UsageError(f"pathjudge: suite file not found: {suite_path}")
        suite_file = SuiteFile.from_parent(session, path=Path(suite_path).resolve())
        items.extend(session.genitems(suite_file))
    wanted = config.getoption("--pathjudge-task")
    if wanted:
        tasks = [item for item in items if isinstance(item, TaskItem)]
        known = {item.task_id for item in tasks}
        unknown = [task for task in wanted if task not in known]
        if unknown and tasks:
            raise pytest.UsageError(
                f"pathjudge: no task {', '.join(map(repr, unknown))} in the suite; its tasks are "
                + ", ".join(sorted(known))
            )
        keep = set(wanted)
        deselected = [item for item in tasks if item.task_id not in keep]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            drop = set(map(id, deselected))
            items[:] = [item for item in items if id(item) not in drop]


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Tally(config), "pathjudge-tally")


class _Tally:
    """Counts the outcomes of the suite's items; a session that graded none of them is not green.

    The items are known by their keyword (their reports carry it, in this process or another). When
    the plugin is in use and no task was graded (every one skipped: no runs for it, or none could be
    decided; or, with the suite or runs named on the command line, no task collected or selected), a
    session that would otherwise exit 0 exits 5 (pytest's "no tests") and says why.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.items = self.graded = self.skipped = 0
        self.message: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if _KEYWORD not in report.keywords:
            return
        if report.when == "setup":
            self.items += 1
        if report.skipped:
            self.skipped += 1
        elif report.when == "call":
            self.graded += 1  # passed or failed: the task has a verdict

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = self.config
        suite, runs = _setting(config, "suite"), _setting(config, "runs")
        if (suite is None and runs is None) or config.option.collectonly:
            return
        if self.graded or exitstatus not in (_OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            return  # something was graded, or the session already failed
        explicit = bool(
            config.getoption("--pathjudge-suite") or config.getoption("--pathjudge-runs")
        )
        if not self.items:
            if not explicit:
                return  # the ini file's suite, deselected on purpose (-k, -m) to run other tests
            self.message = (
                "none of the suite's tasks was selected (-k, -m or --deselect left out every "
                "one), so nothing was graded; select tasks with --pathjudge-task ID"
            )
        else:
            self.message = (
                f"none of the suite's {self.items} selected task(s) was graded: every one was "
                f"skipped (no run for it in {runs}, or no run could be decided); check that "
                "--pathjudge-runs holds this suite's runs (and --pathjudge-verdicts its judged "
                "criteria's verdicts)"
            )
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.message is not None:
            terminalreporter.write_sep("=", "pathjudge: nothing graded", red=True, bold=True)
            terminalreporter.write_line(f"pathjudge: {self.message} (exit status 5)")
