"""Scale-out on Ray Data: the same report as one process, bad records placed exactly, shards, Parquet.

Every test here runs on one local Ray runtime (two CPUs) shared by the module; they are marked ``ray``
and skipped when the ``ray`` extra is not installed (CI installs it).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathjudge.cli import main

ray = pytest.importorskip("ray", reason="needs the ray extra: pip install 'pathjudge[ray]'")

pytestmark = [
    pytest.mark.ray,
    pytest.mark.slow,
    # Ray's own deprecation notices about its internal settings are not ours to fix
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray"),
    pytest.mark.filterwarnings("ignore::UserWarning:ray"),
]

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "docent"
PAIRS = [
    ("runs.jsonl", "suite.yaml"),
    ("capstone-runs.jsonl", "capstone-suite.yaml"),
    ("support-runs.jsonl", "support-suite.yaml"),
]


@pytest.fixture(scope="module", autouse=True)
def runtime() -> Iterator[None]:
    from pathjudge.ray import init_runtime

    started = not ray.is_initialized()
    init_runtime(None, workers=2)
    yield
    if started:
        ray.shutdown()


@pytest.fixture
def small_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut files into many small byte ranges, so records land on several workers and range edges."""
    import pathjudge.ray as module

    monkeypatch.setattr(module, "_MIN_RANGE", 512)
    monkeypatch.setattr(module, "_MAX_RANGE", 2048)


def _call(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("runs", "suite"), PAIRS)
def test_ray_report_is_byte_identical_on_the_examples(
    runs: str, suite: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    local_runs = tmp_path / runs
    shutil.copy(EXAMPLES / runs, local_runs)
    outputs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.json"
        code, _, err = _call(
            capsys,
            "score",
            local_runs,
            "--suite",
            EXAMPLES / suite,
            "--fast",
            "--json",
            out,
            "--engine",
            engine,
            "-q",
        )
        assert code in (0, 1), err
        outputs[engine] = out.read_bytes()
    assert outputs["ray"] == outputs["local"]


def _many_runs(path: Path, copies: int) -> int:
    lines = (EXAMPLES / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as out:
        n = 0
        for k in range(copies):
            for line in lines:
                run = json.loads(line)
                run["run_id"] = f"{run['run_id']}-{k}"
                out.write(json.dumps(run) + "\n")
                n += 1
    return n


def test_glob_over_several_files_equals_their_concatenation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    folder = tmp_path / "shards"
    folder.mkdir()
    _many_runs(folder / "a.jsonl", 3)
    _many_runs(folder / "b.jsonl", 2)
    joined = tmp_path / "all.jsonl"
    joined.write_bytes((folder / "a.jsonl").read_bytes() + (folder / "b.jsonl").read_bytes())
    suite = EXAMPLES / "suite.yaml"
    local, ray_out = tmp_path / "local.json", tmp_path / "ray.json"
    _call(capsys, "score", joined, "--suite", suite, "--fast", "--json", local, "-q")
    code, _, err = _call(
        capsys,
        "score",
        f"{folder}/*.jsonl",
        "--suite",
        suite,
        "--fast",
        "--json",
        ray_out,
        "--engine",
        "ray",
        "-q",
    )
    assert code in (0, 1), err
    expected = json.loads(local.read_text())
    got = json.loads(ray_out.read_text())
    assert got.pop("runs_file") == f"{folder}/*.jsonl"
    expected.pop("runs_file")
    assert got == expected


@pytest.mark.parametrize("problem", ["bad-json", "unknown-task", "invalid-field"])
def test_a_bad_record_is_reported_with_file_and_line_exactly_as_one_process(
    problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    runs = tmp_path / "runs.jsonl"
    n = _many_runs(runs, 4)
    lines = runs.read_text(encoding="utf-8").splitlines()
    at = n * 3 // 4  # deep in a later byte range
    record = json.loads(lines[at])
    if problem == "bad-json":
        lines[at] = lines[at][: len(lines[at]) // 2]
    elif problem == "unknown-task":
        record["task_id"] = "no-such-task"
        lines[at] = json.dumps(record)
    else:
        record["steps"] = "not a list"
        lines[at] = json.dumps(record)
    runs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = EXAMPLES / "suite.yaml"
    local = _call(capsys, "score", runs, "--suite", suite, "--fast", "-q")
    on_ray = _call(capsys, "score", runs, "--suite", suite, "--fast", "-q", "--engine", "ray")
    assert local[0] == on_ray[0] == 2
    assert f"{runs}:{at + 1}" in local[2]
    assert on_ray[2] == local[2]
    assert "Traceback" not in on_ray[2]


def test_first_line_numbers_counted_here_and_in_ray_tasks_agree(
    tmp_path: Path, small_ranges: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # local files are counted by the driver; object storage by a Ray pass (forced here)
    import pathjudge.ray as module

    runs = tmp_path / "runs.jsonl"
    _many_runs(runs, 4)
    ranges = module._plan_ranges([str(runs)], 8)

    def items() -> list[dict[str, object]]:
        return [
            {"file": r.file, "index": r.index, "path": r.path, "start": r.start, "end": r.end}
            for r in ranges
        ]

    here = items()
    module._first_lines(ray, here)
    monkeypatch.setattr(module, "_is_local", lambda path: False)
    there = items()
    module._first_lines(ray, there)
    data = runs.read_bytes()
    expected = [data.count(b"\n", 0, int(str(item["start"]))) + 1 for item in here]
    assert len(here) > 2
    assert [item["first_line"] for item in here] == expected
    assert [item["first_line"] for item in there] == expected


def test_several_bad_records_report_the_first_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    runs = tmp_path / "runs.jsonl"
    n = _many_runs(runs, 4)
    lines = runs.read_text(encoding="utf-8").splitlines()
    for at in (n // 3, n // 2, n - 1):
        lines[at] = "{not json"
    runs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = _call(
        capsys, "score", runs, "--suite", EXAMPLES / "suite.yaml", "--fast", "--engine", "ray"
    )
    assert code == 2
    assert f"{runs}:{n // 3 + 1}" in err
    assert "3 bad records in all" in err


def test_grades_shards_and_manifest_feed_pathjudge_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    runs = tmp_path / "runs.jsonl"
    n = _many_runs(runs, 3)
    suite = EXAMPLES / "suite.yaml"
    single = tmp_path / "single.jsonl"
    _call(capsys, "score", runs, "--suite", suite, "--fast", "--grades", single, "-q")
    shards = tmp_path / "grades"
    report = tmp_path / "report.json"
    code, _, err = _call(
        capsys,
        "score",
        runs,
        "--suite",
        suite,
        "--fast",
        "--engine",
        "ray",
        "--grades",
        shards,
        "--json",
        report,
        "-q",
    )
    assert code in (0, 1), err
    manifest = json.loads((shards / "manifest.json").read_text())
    assert manifest["kind"] == "pathjudge.grades"
    assert manifest["runs"] == n
    assert len(manifest["shards"]) > 1
    assert sum(s["runs"] for s in manifest["shards"]) == n
    shard_lines = [
        line
        for shard in manifest["shards"]
        for line in (shards / shard["path"]).read_text().splitlines()
    ]
    assert shard_lines == single.read_text().splitlines()  # same grades, same order
    html = tmp_path / "r.html"
    code, _, err = _call(capsys, "report", report, "-o", html, "--grades", shards, "--runs", runs)
    assert code == 0, err
    assert html.stat().st_size > 0
    from pathjudge._cli.report import read_grades

    assert [g.run_id for g in read_grades(str(shards))] == [
        json.loads(line)["run_id"] for line in single.read_text().splitlines()
    ]


def test_a_second_run_into_the_same_grades_folder_replaces_it_and_a_failed_one_leaves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    suite = EXAMPLES / "suite.yaml"
    shards = tmp_path / "grades"
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    _many_runs(big, 3)
    n = _many_runs(small, 1)

    def run(runs: Path) -> tuple[int, str]:
        code, _, err = _call(
            capsys, "score", runs, "--suite", suite, "--fast", "--engine", "ray", "--grades",
            shards, "-q",
        )  # fmt: skip
        return code, err

    assert run(big)[0] in (0, 1)
    first = {p.name: p.read_bytes() for p in shards.iterdir()}
    assert len(first) > 2
    code, err = run(small)  # before: refused, "is a folder; this option needs a file path"
    assert code in (0, 1), err
    second = {p.name: p.read_bytes() for p in shards.iterdir()}
    manifest = json.loads(second["manifest.json"])
    assert manifest["runs"] == n
    # only this run's shards are left: the earlier run's extra shards are gone
    assert sorted(second) == sorted(["manifest.json", *(s["path"] for s in manifest["shards"])])
    from pathjudge._cli.report import read_grades

    assert len(read_grades(str(shards))) == n
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(big.read_bytes() + b"{not json\n")
    code, err = run(broken)
    assert code == 2
    assert f"{broken}:" in err
    assert {p.name: p.read_bytes() for p in shards.iterdir()} == second  # left as it was


def test_gzipped_runs_are_graded_as_one_process_grades_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], small_ranges: None
) -> None:
    import gzip

    plain = tmp_path / "runs.jsonl"
    _many_runs(plain, 3)
    packed = tmp_path / "runs.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    suite = EXAMPLES / "suite.yaml"
    outputs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.json"
        code, _, err = _call(
            capsys, "score", packed, "--suite", suite, "--fast", "--json", out, "--engine", engine,
            "-q",
        )  # fmt: skip
        assert code in (0, 1), err
        outputs[engine] = out.read_bytes()
    assert outputs["ray"] == outputs["local"]  # before: every line "not valid UTF-8" on Ray
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(plain.read_bytes())  # not gzip, though its name says so
    errors = [
        _call(capsys, "score", fake, "--suite", suite, "--fast", "-q", "--engine", engine)
        for engine in ("local", "ray")
    ]
    assert errors[0][0] == errors[1][0] == 2
    assert f"{fake}:1: is not a gzip file" in errors[0][2]
    assert errors[1][2].splitlines()[-1] == errors[0][2].splitlines()[-1]


def test_parquet_layout_round_trips_and_scores_like_jsonl(tmp_path: Path) -> None:
    from pathjudge._parquet import record_from_row, row_from_record, write_runs_parquet
    from pathjudge.agent.io import read_runs
    from pathjudge.ray import score_dataset
    from pathjudge.report.json_report import dumps_report
    from pathjudge.rubrics.suite import load_suite
    from pathjudge.scoring.chunk import grade_records_chunk
    from pathjudge.scoring.scorecard import evaluate_gates

    runs = EXAMPLES / "runs.jsonl"
    records = list(read_runs(runs))
    assert [record_from_row(row_from_record(r)) for r in records] == records
    parquet = tmp_path / "runs.parquet"
    assert write_runs_parquet(records, parquet) == len(records)
    suite = load_suite(EXAMPLES / "suite.yaml")
    ds = ray.data.read_parquet(str(parquet))
    got = score_dataset(ds, suite, fast=True, suite_file="s", runs_file="r")

    from pathjudge.scoring.pipeline import ScoreReport

    partial = grade_records_chunk(
        (("", number, record) for number, record in enumerate(records, 1)), suite, fast=True
    )
    card = partial.finish(suite)
    expected = ScoreReport(
        suite_file="s",
        runs_file="r",
        fast=True,
        judge="fast",
        scorecard=card,
        gates=tuple(evaluate_gates(card, {})),
        passed=True,
    )
    assert dumps_report(got) == dumps_report(expected)


def test_engine_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs, suite = EXAMPLES / "runs.jsonl", EXAMPLES / "suite.yaml"
    code, _, err = _call(capsys, "score", runs, "--suite", suite, "--address", "auto")
    assert code == 2
    assert "--engine ray" in err
    code, _, err = _call(
        capsys, "score", runs, "--suite", suite, "--engine", "ray", "--html", tmp_path / "x.html"
    )
    assert code == 2
    code, _, err = _call(
        capsys, "score", tmp_path / "missing-*.jsonl", "--suite", suite, "--engine", "ray"
    )
    assert code == 2
    assert "no runs file matches" in err


def test_expand_runs_reads_paths_globs_folders_and_file_uris(tmp_path: Path) -> None:
    from pathjudge.errors import RecordError
    from pathjudge.ray import expand_runs

    (tmp_path / "b.jsonl").write_text("{}\n")
    (tmp_path / "a.jsonl").write_text("{}\n")
    (tmp_path / "notes.txt").write_text("x")
    both = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    assert expand_runs(str(tmp_path)) == both
    assert expand_runs(f"{tmp_path}/*.jsonl") == both
    assert expand_runs(f"file://{tmp_path}/a.jsonl") == both[:1]
    with pytest.raises(RecordError, match="no runs file matches"):
        expand_runs(f"{tmp_path}/*.parquet")


def test_the_runtime_scope_stops_only_a_runtime_started_inside_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import pathjudge.ray as module

    with module.runtime_scope():  # the module's runtime was up before: left alone
        code, _, _ = _call(
            capsys,
            "score",
            EXAMPLES / "runs.jsonl",
            "--suite",
            EXAMPLES / "suite.yaml",
            "--engine",
            "ray",
            "--fast",
            "-q",
        )
    assert code in (0, 1)
    assert ray.is_initialized()
    ray.shutdown()
    module._STARTED.clear()
    try:
        with module.runtime_scope():
            module.init_runtime(None, workers=1)
            assert ray.is_initialized()
        assert not ray.is_initialized()
        module.shutdown_runtime()  # nothing left to stop: a no-op
    finally:
        module.init_runtime(None, workers=2)  # the module's runtime, for the other tests
