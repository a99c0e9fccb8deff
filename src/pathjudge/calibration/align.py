"""Search for a better judge configuration on train and dev labels, then evaluate it ONCE on test.

:func:`align` starts from a criterion and its labels (``split`` train / dev / test) and tries, within
a budget of judge calls (``max_calls``):

1. **few-shot selection**, greedy forward: each round adds the one train item (as a
   :class:`~pathjudge.rubrics.criteria.CriterionExample`: its inputs, the human label, its
   ``rationale``) that raises the dev objective most, up to ``k`` examples; a round that raises
   nothing ends it. The candidate pool is the train items, each class shuffled with ``seed`` and the
   two interleaved (fail first), so the search is deterministic;
2. **criterion clarifications** (only with a ``proposer``): up to ``rounds`` times, the
   :class:`~pathjudge.calibration.proposer.Proposer` reads the dev disagreements of the best
   criterion so far and rewrites ``pass_means`` / ``fail_means``; the rewrite is kept when it raises
   the dev objective.

The dev objective is the lower confidence bound of min(TPR, TNR) in their gated form (unsure counted
as wrong), ties broken by the gated kappa: what the trust gates read, from
:func:`~pathjudge.calibration.calibrate.calibrate` with ``split="dev"``. A candidate is kept only
when it is strictly better. Every candidate is judged through the judge runner and its verdict
cache; a candidate's criterion content hash (examples and wording included) is part of every cache
key, so no verdict of another candidate is ever reused, and a rerun reuses all of them.

Budget: a candidate costs the samples of its dev items not yet in the cache (one judge call each;
retries not counted). Before anything is judged, :func:`plan_budget` counts the worst case (every
candidate uncached, plus the test evaluation) and shrinks the few-shot pool until it fits
``max_calls``; a search that cannot fit even one candidate is refused (:class:`ConfigError`). While
searching, a candidate that would pass ``max_calls`` (keeping the test evaluation's calls in
reserve) is not judged and the search ends there.

Test items are never judged during the search (nor shown to the proposer). The chosen criterion is
judged once on test and calibrated with ``split="test"``; the report records it with the criterion
hash it used. Before that evaluation, ``test_use`` (the CLI passes the test-split ledger's
:func:`~pathjudge.calibration.test_use.record_test_use`) sees the chosen judge's identity: it refuses
(raises) a changed configuration on a test split another configuration already used, or records a
reuse, which the report then notes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from pathjudge._aio import run_sync
from pathjudge._records import FrozenModel
from pathjudge._yaml import dump_yaml
from pathjudge.agent.trajectory import Usage
from pathjudge.calibration.agreement import Gates
from pathjudge.calibration.calibrate import CriterionCalibration, calibrate
from pathjudge.calibration.labels import LabelledItem, LabelSet, Split
from pathjudge.calibration.live import judge_labelled, labelled_requests
from pathjudge.calibration.proposer import Clarification, ProposalCase, Proposer
from pathjudge.errors import ConfigError, InputError, LabelsError
from pathjudge.judge.backends.base import BackendCallError, cost_usd
from pathjudge.judge.identity import JudgeIdentity, identity_of
from pathjudge.judge.prompt import render_prompt
from pathjudge.judge.runner import make_jobs, sample_keys
from pathjudge.rubrics.criteria import Criterion, CriterionExample, input_text

if TYPE_CHECKING:
    from pathjudge.calibration.ledger import SplitUse
    from pathjudge.judge.backends.base import JudgeBackend
    from pathjudge.judge.cache import VerdictCache

__all__ = [
    "ALIGN_SCHEMA_VERSION",
    "AlignReport",
    "AlignResult",
    "AlignStep",
    "BudgetPlan",
    "TestEvaluation",
    "align",
    "criterion_yaml",
    "objective",
    "plan_budget",
]

ALIGN_SCHEMA_VERSION: Literal[1] = 1
OUTPUT_TOKENS_PER_CALL = 250
"""The output tokens a verdict is estimated to take (reasoning, quotes, verdict)."""
CHARS_PER_TOKEN = 4
"""The rough size of a token in characters, for the estimate before starting."""
OBJECTIVE = "lower bound of min(TPR, TNR), gated (unsure counts as wrong); ties: gated kappa"


class AlignStep(FrozenModel):
    """One candidate judged on dev (or the baseline)."""

    kind: Literal["baseline", "few-shot", "clarification"]
    description: str
    criterion_hash: str
    examples: tuple[str, ...] = Field(description="The train items shown as examples, in order.")
    objective: float | None = Field(description="Lower bound of min(TPR, TNR), gated, on dev.")
    kappa: float | None = Field(description="Gated kappa on dev (the tie-break).")
    calls: int = Field(description="Judge calls this candidate made (samples not in the cache).")
    kept: bool = Field(description="Whether the search kept it as the best so far.")


class BudgetPlan(FrozenModel):
    """The worst-case cost of the search, counted before it starts."""

    max_calls: int
    estimated_calls: int = Field(description="Worst case: every candidate's dev samples uncached.")
    estimated_input_tokens: int
    estimated_output_tokens: int
    estimated_usd: float | None = Field(description="None when the model's price is unknown.")
    n_dev: int
    n_test: int
    samples: int
    pool: int = Field(description="Train items the few-shot search considers.")
    pool_available: int = Field(description="Train items that could be examples.")
    k: int = Field(description="At most this many examples.")
    rounds: int = Field(description="Clarification rounds (0 without a proposer).")

    @property
    def shrunk(self) -> bool:
        return self.pool < self.pool_available


class TestEvaluation(FrozenModel):
    """The one evaluation on test."""

    criterion_hash: str
    calls: int
    calibration: CriterionCalibration
    test_reused: bool = Field(
        default=False,
        description="True when a changed judge configuration reused an already used test split "
        "(--reuse-test).",
    )


class AlignReport(FrozenModel):
    """What :func:`align` tried, what it chose, dev before / after, and the one test evaluation."""

    schema_version: Literal[1] = ALIGN_SCHEMA_VERSION
    labels_file: str | None
    objective: str = OBJECTIVE
    original: JudgeIdentity = Field(description="The judge configuration the search started from.")
    aligned: JudgeIdentity = Field(
        description="The chosen one (the original when none was better)."
    )
    improved: bool
    examples: tuple[str, ...] = Field(description="Train items added as few-shot examples.")
    clarification: Clarification | None
    dev_before: CriterionCalibration
    dev_after: CriterionCalibration
    test: TestEvaluation
    budget: BudgetPlan
    judge_calls: int = Field(description="Judge calls made: search and test (cached are free).")
    proposer_calls: int
    steps: tuple[AlignStep, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AlignResult:
    """The report and the chosen criterion (the original when nothing was better)."""

    report: AlignReport
    criterion: Criterion


def objective(calibration: CriterionCalibration) -> tuple[float, float]:
    """``(lower bound of min(gated TPR, gated TNR), gated kappa)``; undefined counts as -inf."""
    a = calibration.agreement
    lows = [a.tpr_unsure_as_wrong.lower, a.tnr_unsure_as_wrong.lower]
    low = min(x if x is not None else -math.inf for x in lows)
    kappa = a.kappa_unsure_as_wrong.value
    return low, kappa if kappa is not None else -math.inf


def criterion_yaml(criterion: Criterion, *, origin: JudgeIdentity | None = None) -> str:
    """The criterion as a YAML file :func:`~pathjudge.rubrics.criteria.parse_criterion` reads back
    to the same content hash; a header comment names the hash (and what it was aligned from)."""
    header = [f"# content hash {criterion.content_hash}"]
    if origin is not None:
        header.insert(
            0,
            f"# aligned by pathjudge align from {origin.criterion_id} version "
            f"{origin.criterion_version} ({origin.criterion_hash})",
        )
    body = dump_yaml(criterion.model_dump(mode="json", exclude_none=True))
    return "\n".join(header) + "\n" + body


def _items(labels: LabelSet, name: str, split: Split) -> list[LabelledItem]:
    key: str | None = name if name in labels.criteria else None
    return [item for item in labels.items(key) if item.split == split]


def _example(item: LabelledItem, criterion: Criterion, file: str | None) -> CriterionExample:
    """A train item as a few-shot example; inputs that do not fit the criterion name the line."""
    inputs = {name: input_text(value) for name, value in (item.inputs or {}).items()}
    try:
        criterion.check_inputs(inputs, item_id=item.item_id)
    except InputError as exc:
        raise LabelsError(
            exc.message, file=file, line=item.line, field="inputs", hint=exc.hint
        ) from None
    reasoning = item.rationale or f"Expert annotators judged this '{item.label}'."
    return CriterionExample(inputs=inputs, verdict=item.label, reasoning=reasoning)


def _pool(train: Sequence[LabelledItem], seed: int) -> list[LabelledItem]:
    """Train items, each class shuffled with ``seed``, interleaved fail, pass, fail, ..."""
    rng = random.Random(seed)
    by_class = {label: [i for i in train if i.label == label] for label in ("fail", "pass")}
    for items in by_class.values():
        rng.shuffle(items)
    fails, passes = by_class["fail"], by_class["pass"]
    out: list[LabelledItem] = []
    for index in range(max(len(fails), len(passes))):
        out += [group[index] for group in (fails, passes) if index < len(group)]
    return out


def _few_shot_calls(pool: int, k: int, per_candidate: int) -> int:
    """Worst-case calls of greedy forward selection: round r tries the pool less r items."""
    return sum(pool - r for r in range(min(k, pool))) * per_candidate


def plan_budget(
    *,
    max_calls: int,
    baseline_calls: int,
    n_dev: int,
    n_test: int,
    samples: int,
    pool_available: int,
    k: int,
    rounds: int,
    chars_per_call: float,
    backend: str,
    model: str,
) -> BudgetPlan:
    """The largest few-shot pool whose worst case fits ``max_calls`` (see the module docstring).

    Raises :class:`ConfigError` when not even one candidate fits.
    """
    per = n_dev * samples
    reserve = n_test * samples

    def total(pool: int) -> int:
        return baseline_calls + _few_shot_calls(pool, k, per) + rounds * per + reserve

    pool = pool_available
    while pool > 1 and total(pool) > max_calls:
        pool -= 1
    if total(pool) > max_calls:
        raise ConfigError(
            f"align needs at least {total(pool)} judge calls (baseline {baseline_calls}, {per} "
            f"per candidate on dev, {reserve} for the test evaluation) but --max-calls is "
            f"{max_calls}",
            field="--max-calls",
            hint="raise --max-calls, judge fewer samples, or label fewer dev items",
        )
    calls = total(pool)
    tokens_in = math.ceil(calls * chars_per_call / CHARS_PER_TOKEN)
    tokens_out = calls * OUTPUT_TOKENS_PER_CALL
    usd = cost_usd(backend, model, Usage(input_tokens=tokens_in, output_tokens=tokens_out))
    return BudgetPlan(
        max_calls=max_calls,
        estimated_calls=calls,
        estimated_input_tokens=tokens_in,
        estimated_output_tokens=tokens_out,
        estimated_usd=usd,
        n_dev=n_dev,
        n_test=n_test,
        samples=samples,
        pool=pool,
        pool_available=pool_available,
        k=min(k, pool),
        rounds=rounds,
    )


class _OutOfCalls(Exception):
    """The next candidate would pass ``max_calls``."""


@dataclass
class _Judge:
    """Judges a candidate criterion on one split through the runner and its cache, counting calls."""

    labels: LabelSet
    name: str
    backend: JudgeBackend
    cache: VerdictCache | None
    samples: int
    concurrency: int
    gates: Gates
    confidence: float
    n_bootstrap: int
    seed: int
    spent: int = 0
    scored: dict[str, CriterionCalibration] = field(default_factory=dict)

    def uncached(self, criterion: Criterion, split: Split) -> int:
        """The judge calls ``criterion`` needs on ``split``: its samples not in the cache."""
        requests = labelled_requests(self.labels, self.name, split=split)
        jobs = make_jobs(requests, criteria={self.name: criterion})
        keys = [k for job in jobs for k in sample_keys(job, self.backend, self.samples)]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        return len(keys) - len(found)

    def run(self, criterion: Criterion, split: Split) -> tuple[CriterionCalibration, int]:
        """Judge and calibrate ``criterion`` on ``split``; returns the calibration and its calls."""
        calls = self.uncached(criterion, split)
        verdicts, _ = judge_labelled(
            self.labels,
            self.name,
            backend=self.backend,
            samples=self.samples,
            cache=self.cache,
            concurrency=self.concurrency,
            split=split,
            resolved=criterion,
        )
        self.spent += calls
        report = calibrate(
            self.labels,
            verdicts,
            criterion=self.name,
            split=split,
            gates=self.gates,
            confidence=self.confidence,
            n_bootstrap=self.n_bootstrap,
            seed=self.seed,
        )
        return report.criteria[0], calls


@dataclass
class _Search:
    """The state of one search: the best candidate so far and every step."""

    judge: _Judge
    limit: int
    """The calls the search may spend (``max_calls`` less the test evaluation's reserve)."""
    on_step: Callable[[AlignStep], None] | None
    best: Criterion
    best_dev: CriterionCalibration | None = None
    examples: list[str] = field(default_factory=list)
    steps: list[AlignStep] = field(default_factory=list)

    def beats(self, dev: CriterionCalibration) -> bool:
        """Whether ``dev`` is strictly better than the best so far (anything beats nothing)."""
        return self.best_dev is None or objective(dev) > objective(self.best_dev)

    def score(
        self, kind: Literal["baseline", "few-shot", "clarification"], what: str, cand: Criterion,
        examples: Sequence[str],
    ) -> CriterionCalibration:  # fmt: skip
        """Judge ``cand`` on dev (free when already scored) and record the step; raises
        :class:`_OutOfCalls` when its uncached calls would pass the limit."""
        key = cand.content_hash
        calls = 0
        dev = self.judge.scored.get(key)
        if dev is None:
            if self.judge.spent + self.judge.uncached(cand, "dev") > self.limit:
                raise _OutOfCalls
            dev, calls = self.judge.run(cand, "dev")
            self.judge.scored[key] = dev
        low, kappa = objective(dev)
        step = AlignStep(
            kind=kind,
            description=what,
            criterion_hash=key,
            examples=tuple(examples),
            objective=low if math.isfinite(low) else None,
            kappa=kappa if math.isfinite(kappa) else None,
            calls=calls,
            kept=False,
        )
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return dev

    def keep(self, cand: Criterion, dev: CriterionCalibration) -> None:
        """Make ``cand`` the best so far and mark its latest step kept."""
        self.best, self.best_dev = cand, dev
        for index in range(len(self.steps) - 1, -1, -1):
            if self.steps[index].criterion_hash == cand.content_hash:
                self.steps[index] = self.steps[index].model_copy(update={"kept": True})
                break


def _aligned_version(criterion: Criterion) -> str:
    return (
        criterion.version if criterion.version.endswith("+align") else f"{criterion.version}+align"
    )


def _few_shot(
    search: _Search, base: Criterion, pool: Sequence[LabelledItem], k: int, file: str | None
) -> None:
    """Greedy forward selection of at most ``k`` examples from ``pool`` (see the module docstring)."""
    chosen: list[LabelledItem] = []
    for _ in range(min(k, len(pool))):
        round_best: tuple[Criterion, CriterionCalibration, LabelledItem] | None = None
        for item in pool:
            if item in chosen:
                continue
            picked = [*chosen, item]
            cand = base.model_copy(
                update={
                    "version": _aligned_version(base),
                    "examples": (*base.examples, *(_example(i, base, file) for i in picked)),
                }
            )
            dev = search.score(
                "few-shot", f"examples {', '.join(i.item_id for i in picked)}", cand,
                [i.item_id for i in picked],
            )  # fmt: skip
            if round_best is None or objective(dev) > objective(round_best[1]):
                round_best = (cand, dev, item)
        if round_best is None or not search.beats(round_best[1]):
            return
        chosen.append(round_best[2])
        search.keep(round_best[0], round_best[1])
        search.examples = [i.item_id for i in chosen]


def _cases(
    dev: CriterionCalibration, labels: LabelSet, name: str, limit: int = 20
) -> list[ProposalCase]:
    """The dev disagreements of ``dev`` as proposer cases (their inputs from the labels)."""
    items = {item.item_id: item for item in _items(labels, name, "dev")}
    cases = []
    for d in dev.disagreements[:limit]:
        inputs = items[d.item_id].inputs or {}
        cases.append(
            ProposalCase(
                item_id=d.item_id,
                inputs={key: input_text(value) for key, value in inputs.items()},
                human=d.human,
                judge=d.judge,
                judge_reasoning=d.judge_reasoning,
            )
        )
    return cases


def _clarify(
    search: _Search, proposer: Proposer, rounds: int, notes: list[str]
) -> tuple[Clarification | None, int]:
    """Up to ``rounds`` proposer rewrites of pass / fail, each kept when it raises the dev objective."""
    kept: Clarification | None = None
    calls = 0
    for round_no in range(1, rounds + 1):
        assert search.best_dev is not None
        cases = _cases(search.best_dev, search.judge.labels, search.judge.name)
        if not cases:
            notes.append(f"clarification round {round_no}: no dev disagreement left to learn from")
            break
        calls += 1
        try:
            proposal = run_sync(proposer.propose(search.best, cases))
        except BackendCallError as exc:
            notes.append(f"clarification round {round_no}: the proposer failed ({exc.message})")
            continue
        cand = search.best.model_copy(
            update={
                "version": _aligned_version(search.best),
                "pass_means": proposal.pass_means,
                "fail_means": proposal.fail_means,
            }
        )
        dev = search.score(
            "clarification", f"clarification {round_no} from {len(cases)} dev disagreement(s)",
            cand, search.examples,
        )  # fmt: skip
        if search.beats(dev):
            search.keep(cand, dev)
            kept = proposal
    return kept, calls


def _check_splits(
    labels: LabelSet, name: str, *, searchable: bool
) -> tuple[list[LabelledItem], int, int]:
    """The train items, and how many dev and test items; refuse what align cannot use (no train
    items is nothing to search unless ``searchable``: a proposer is configured)."""
    dev = _items(labels, name, "dev")
    test = _items(labels, name, "test")
    for split, items in (("dev", dev), ("test", test)):
        if not items:
            raise LabelsError(
                f"align needs labelled {split} items for criterion {name!r}, and there are none",
                file=labels.file,
                field="split",
                hint='mark items "split": "train", "dev" or "test" (dev scores the search, test '
                "is evaluated once at the end)",
            )
    if len({item.label for item in dev}) < 2:
        raise LabelsError(
            f"the dev items of criterion {name!r} are all '{dev[0].label}': the search scores "
            "min(TPR, TNR), which needs both classes",
            file=labels.file,
            line=dev[0].line,
            field="label",
            hint="move labelled items of the other class into the dev split",
        )
    train = _items(labels, name, "train")
    if not train and not searchable:
        raise LabelsError(
            f"align has nothing to search for criterion {name!r}: no train items to choose "
            "few-shot examples from, and no proposer",
            file=labels.file,
            field="split",
            hint='mark some labelled items "split": "train", or configure a proposer',
        )
    return train, len(dev), len(test)


def _chars_per_call(criterion: Criterion, labels: LabelSet, name: str, k: int) -> float:
    """Prompt characters of one call: the rubric, ``k`` examples of average size, an average item."""
    requests = labelled_requests(labels, name, split="dev")
    users = [len(render_prompt(criterion, r.inputs).user) for r in requests]
    system = len(render_prompt(criterion, requests[0].inputs).system)
    per_example = sum(users) / len(users) + 60
    return system + k * per_example + sum(users) / len(users)


def align(
    labels: LabelSet,
    criterion: Criterion,
    *,
    name: str,
    backend: JudgeBackend,
    max_calls: int,
    cache: VerdictCache | None = None,
    samples: int = 1,
    concurrency: int = 4,
    k: int = 4,
    proposer: Proposer | None = None,
    rounds: int = 2,
    gates: Gates | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    n_bootstrap: int = 2000,
    on_plan: Callable[[BudgetPlan], None] | None = None,
    on_step: Callable[[AlignStep], None] | None = None,
    identity: JudgeIdentity | None = None,
    test_use: Callable[[JudgeIdentity], SplitUse | None] | None = None,
) -> AlignResult:
    """Search few-shot examples (and, with ``proposer``, clarifications) on dev, then test once.

    ``name`` is the criterion as the labels name it (its id or the path given). ``on_plan`` sees
    the budget before anything is judged; ``on_step`` each candidate as it is scored. ``identity``
    is the judge's identity on ``criterion`` (:func:`~pathjudge.judge.identity.judge_identity` of its
    session; default: read off ``backend``); ``test_use`` sees the chosen judge's identity before
    the test evaluation and may refuse it by raising. See the module docstring for the search,
    the objective, the budget and the test evaluation.
    """
    gates = gates or Gates()
    train, n_dev, n_test = _check_splits(labels, name, searchable=proposer is not None)
    pool = _pool(train, seed)
    for item in pool:
        _example(item, criterion, labels.file)  # refuse unusable train items before judging
    judge = _Judge(labels, name, backend, cache, samples, concurrency, gates, confidence,
                   n_bootstrap, seed)  # fmt: skip
    rounds = rounds if proposer is not None else 0
    plan = plan_budget(
        max_calls=max_calls, baseline_calls=judge.uncached(criterion, "dev"), n_dev=n_dev,
        n_test=n_test, samples=samples, pool_available=len(pool), k=k, rounds=rounds,
        chars_per_call=_chars_per_call(criterion, labels, name, k), backend=backend.name,
        model=backend.model,
    )  # fmt: skip
    if on_plan is not None:
        on_plan(plan)
    notes: list[str] = []
    if plan.shrunk:
        notes.append(f"the few-shot pool was shrunk from {plan.pool_available} to {plan.pool} "
                     "train items to fit --max-calls")  # fmt: skip
    search = _Search(judge, max_calls - n_test * samples, on_step, criterion)
    dev_before = search.score("baseline", "the criterion as given", criterion, [])
    search.keep(criterion, dev_before)
    clarification, proposer_calls = None, 0
    try:
        _few_shot(search, criterion, pool[: plan.pool], k, labels.file)
        if proposer is not None:
            clarification, proposer_calls = _clarify(search, proposer, rounds, notes)
    except _OutOfCalls:
        notes.append(f"the search stopped at --max-calls {max_calls} (the test evaluation's "
                     f"{n_test * samples} calls kept in reserve)")  # fmt: skip
    if identity is None:
        identity = identity_of(
            criterion, backend=backend.name, model=backend.model, samples=samples
        )
    found = _Found(criterion, dev_before, plan, clarification, proposer_calls)
    return _finish(search, found, identity, test_use, notes)


@dataclass(frozen=True)
class _Found:
    """What the search started from and found, for the report."""

    original: Criterion
    dev_before: CriterionCalibration
    plan: BudgetPlan
    clarification: Clarification | None
    proposer_calls: int


def _finish(
    search: _Search,
    found: _Found,
    identity: JudgeIdentity,
    test_use: Callable[[JudgeIdentity], SplitUse | None] | None,
    notes: list[str],
) -> AlignResult:
    """The one test evaluation of the chosen criterion (recorded by ``test_use`` first), and the
    report."""
    from pathjudge.calibration.test_use import reuse_note

    judge = search.judge
    assert search.best_dev is not None
    search_calls = judge.spent
    chosen = identity.judging(search.best)
    use = test_use(chosen) if test_use is not None else None
    if (note := reuse_note(use)) is not None:
        notes.append(note)
    test, test_calls = judge.run(search.best, "test")
    original = found.original
    improved = search.best.content_hash != original.content_hash
    if not improved:
        notes.append("no candidate beat the criterion as given on dev: it is kept unchanged")
    train = {item.item_id: item for item in _items(judge.labels, judge.name, "train")}
    missing = [i for i in search.examples if not train[i].rationale]
    if missing:
        notes.append(f"{len(missing)} chosen example(s) have no 'rationale' in the labels, so "
                     "their reasoning only names the human label: write one and rerun")  # fmt: skip
    report = AlignReport(
        labels_file=judge.labels.file,
        original=identity.judging(original),
        aligned=chosen,
        improved=improved,
        examples=tuple(search.examples),
        clarification=found.clarification,
        dev_before=found.dev_before,
        dev_after=search.best_dev,
        test=TestEvaluation(
            criterion_hash=search.best.content_hash,
            calls=test_calls,
            calibration=test,
            test_reused=use is not None and use.reused,
        ),
        budget=found.plan,
        judge_calls=search_calls + test_calls,
        proposer_calls=found.proposer_calls,
        steps=tuple(search.steps),
        notes=tuple(notes),
    )
    return AlignResult(report=report, criterion=search.best)
