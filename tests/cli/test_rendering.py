"""Every command at 80, 100 and 160 columns, piped and under a pseudo-terminal, on the examples and on a
hostile data set (escape sequences, markup, Markdown links and images in ids, tool names, answers and
judge reasoning). The output must hold:

- no literal rich markup (``[bold]…[/]``): styles come from code, never from tags printed as text;
- no id or word broken across lines (a table may cut an id to ``…`` and list it in full under a legend);
- no control character that pathjudge did not emit itself (a terminal gets SGR colours and the
  progress bar's cursor codes; data is shown as visible escapes such as ``\\x1b``).

The 80-column outputs of ``score``, ``show``, ``variance`` and ``diff`` are pinned as snapshots in
``tests/cli/snapshots/`` (regenerate with ``PATHJUDGE_UPDATE_SNAPSHOTS=1 pytest tests/cli``).

One subprocess per (width, mode) runs every command in turn (``_harness.py``), so the 6 layouts cost
6 interpreter starts, not 6 x 20.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from tests.fakes.anthropic_server import FakeAnthropic, forced_tool_policy

from .conftest import DATA_MARKUP, HOSTILE_TEXT, build_workspace, run_harness

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).parent / "snapshots"
WIDTHS = (80, 100, 160)
MODES = ("pipe", "pty")
SNAPSHOT_COMMANDS = ("score", "show", "variance", "diff")

# rich's own terminal output: SGR styles, and a progress bar's cursor/erase codes and carriage returns
_OWN_CONTROLS = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\?25[lh]|\x1b\[2K|\x1b\[1A|\x1b\[1G|\r")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_MARKUP = re.compile(
    r"\[/\]|\[/?(?:bold|dim|italic|underline|reverse|strike|red|green|yellow|blue|magenta|cyan|white)"
    r"(?: [a-z]+)*\]"
)
# the data's own markup, whole or cut to fit a column ("[red]plain[/]-t…")
_DATA_MARKUP = re.compile(
    "|".join(re.escape(m) for m in DATA_MARKUP) + r"|\[(?:red|bold)\][^\s…]*…"
)
_SPLIT = re.compile(r"[\s│┃┏┓┗┛┡┩└┘─━┳┻╇╈┼┬┴├┤]+")


def _commands(ws: Path, judge_url: str) -> list[Any]:
    docent = "docent"
    hostile = "hostile"
    return [
        ("show", ["show", f"{docent}/runs.jsonl"]),
        ("score", ["score", f"{docent}/runs.jsonl", "--suite", f"{docent}/suite.yaml",
                   "--fail-under", "success=0.99,trajectory=0.5"]),
        ("score-q", ["score", "-q", f"{docent}/runs.jsonl", "--suite", f"{docent}/suite.yaml"]),
        ("variance", ["variance", f"{docent}/runs.jsonl", "--suite", f"{docent}/suite.yaml"]),
        ("diff", ["diff", f"{docent}/runs.jsonl", f"{docent}/candidate.jsonl",
                  "--suite", f"{docent}/suite.yaml"]),
        ("mutate", ["mutate", f"{docent}/runs.jsonl", "--suite", f"{docent}/suite.yaml",
                    "--kind", "drop_step", "--kind", "refusal_answer"]),
        ("config", ["config"]),
        ("report", ["report", "out/results.json", "-o", "out/report.html",
                    "--markdown", "out/summary.md"]),
        ("import", ["import", "--from", "openai-chat", "openai_chat.json", "-o", "out/imported.jsonl",
                    "--agent-model", "gpt-4o"]),
        ("run", ["run", f"{docent}/suite.yaml", "--agent", "docent", "--backend", "scripted",
                 "--task", "rate-429", "--task", "summary-rate-limiting", "-o", "out/run.jsonl"]),
        ("judge", ["judge", f"{hostile}/items.jsonl", "--criterion", "answer-correct",
                   "--base-url", judge_url, "--cache", "out/cache.sqlite", "-o", "out/verdicts.jsonl"],
         {"ANTHROPIC_API_KEY": "sk-ant-test-0000000000"}),
        ("calibrate", ["calibrate", "--labels", f"{hostile}/labels.jsonl",
                       "--verdicts", f"{hostile}/verdicts.jsonl", "--bootstrap", "50"]),
        ("show-hostile", ["show", f"{hostile}/runs.jsonl"]),
        ("score-hostile", ["score", f"{hostile}/runs.jsonl", "--suite", f"{hostile}/suite.yaml",
                           "--markdown", "out/hostile.md", "--junit", "out/hostile.xml",
                           "--fail-under", "success=1"]),
        ("variance-hostile", ["variance", f"{hostile}/runs.jsonl", "--suite", f"{hostile}/suite.yaml"]),
        ("diff-hostile", ["diff", f"{hostile}/runs.jsonl", f"{hostile}/candidate.jsonl",
                          "--suite", f"{hostile}/suite.yaml"]),
        ("mutate-hostile", ["mutate", f"{hostile}/runs.jsonl", "--suite", f"{hostile}/suite.yaml",
                            "--kind", "refusal_answer"]),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def judge_server() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()
    server.policy = forced_tool_policy(
        lambda _r: {"reasoning": HOSTILE_TEXT, "evidence": [HOSTILE_TEXT], "verdict": "fail"}
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("render")
    build_workspace(ws)
    return ws


@pytest.fixture(scope="module")
def outputs(
    workspace: Path, judge_server: FakeAnthropic
) -> dict[tuple[int, str], dict[str, tuple[int, str]]]:
    """``{(width, mode): {command: (exit code, output)}}`` for every layout."""
    from concurrent.futures import ThreadPoolExecutor

    layouts = [(width, mode) for width in WIDTHS for mode in MODES]

    def one(layout: tuple[int, str]) -> dict[str, tuple[int, str]]:
        width, mode = layout
        # a workspace copy per layout: every command does the same work, and layouts run side by side
        ws = workspace.parent / f"{workspace.name}-{width}-{mode}"
        shutil.copytree(workspace, ws, dirs_exist_ok=True)
        (ws / "out").mkdir(exist_ok=True)
        (ws / "out" / "results.json").write_bytes((ws / "results.json").read_bytes())
        return run_harness(ws, _commands(ws, judge_server.url), width=width, pty_mode=mode == "pty")

    with ThreadPoolExecutor(max_workers=max(2, min(6, os.cpu_count() or 2))) as pool:
        return dict(zip(layouts, pool.map(one, layouts), strict=True))


def _clean(text: str) -> str:
    return _OWN_CONTROLS.sub("", text)


def test_every_command_ran(outputs: dict[tuple[int, str], dict[str, tuple[int, str]]]) -> None:
    expected = dict(_EXPECTED_CODES.items())
    for layout, results in outputs.items():
        codes = {name: code for name, (code, _) in results.items()}
        assert codes == expected, (
            layout,
            {n: results[n][1][-400:] for n in codes if codes[n] != expected.get(n)},
        )


_EXPECTED_CODES = {
    "show": 0,
    "score": 1,  # success 0.94 < 0.99: the gate line says MISSED
    "score-q": 0,
    "variance": 0,
    "diff": 1,  # the candidate lost a success: blocked
    "mutate": 0,
    "config": 0,
    "report": 0,
    "import": 0,
    "run": 0,
    "judge": 0,
    "calibrate": 1,  # 10 labels cannot make the judge trusted
    "show-hostile": 0,
    "score-hostile": 1,
    "variance-hostile": 0,
    "diff-hostile": 1,
    "mutate-hostile": 0,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", WIDTHS)
def test_no_literal_markup_and_no_control_characters(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], width: int, mode: str
) -> None:
    for name, (_, text) in outputs[(width, mode)].items():
        cleaned = _clean(text)
        # markup written in the data is printed as text, on purpose (whole, or cut to fit a column)
        cleaned = _DATA_MARKUP.sub("", cleaned)
        assert not _MARKUP.search(cleaned), (name, cleaned)
        bad = _CONTROL.search(cleaned)
        assert bad is None, (name, repr(cleaned[max(0, bad.start() - 60) : bad.end() + 20]))
    hostile = _clean(outputs[(width, mode)]["score-hostile"][1])
    assert "\\x1b" in hostile  # the escape sequences are shown, not obeyed
    assert "[red]plain[/]-task" in _clean(outputs[(width, mode)]["show-hostile"][1])
    assert "[bold]not markup[/]" in hostile


def _vocabulary(outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], name: str) -> set[str]:
    """Every whole token of a command's unwrapped output (piped, 160 columns), ids included."""
    text = _clean(outputs[(160, "pipe")][name][1])
    return {token for token in _SPLIT.split(text) if token}


def _tokens(line: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"[^\s│┃]+", line)]


def _broken(text: str, vocabulary: set[str]) -> list[str]:
    """Pairs of tokens on consecutive lines that join into one word of the vocabulary: a word cut in
    two by wrapping or by a folded table cell (same start or end column)."""
    found = []
    lines = _clean(text).splitlines()
    for upper, lower in itertools.pairwise(lines):
        top, bottom = _tokens(upper), _tokens(lower)
        if not top or not bottom:
            continue
        pairs = [(top[-1][2], bottom[0][2])]
        for start, end, word in top:
            pairs += [(word, w) for s, e, w in bottom if s == start or e == end]
        for head, tail in pairs:
            if head + tail in vocabulary and head not in vocabulary and len(head + tail) > 2:
                found.append(f"{head}|{tail}")
    return found


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", WIDTHS)
def test_no_id_or_word_broken_across_lines(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], width: int, mode: str
) -> None:
    for name, (_, text) in outputs[(width, mode)].items():
        vocabulary = _vocabulary(outputs, name)
        assert _broken(text, vocabulary) == [], (name, text)


def test_tables_fit_the_terminal(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]],
) -> None:
    """At every width a terminal's table lines fit; an id that could not fit ends in … and is named in
    full in the legend under the table."""
    for width in WIDTHS:
        for name in ("show", "score", "variance", "mutate", "config"):
            text = _clean(outputs[(width, "pty")][name][1])
            rules = [line for line in text.splitlines() if set(line.strip()) == {"─"}]
            assert rules, (name, text)
            assert all(len(line) <= width for line in rules), (name, width)
            tables = "\n".join(
                line for line in text.splitlines() if "the agent answered" not in line
            )
            for short in re.findall(r"(\S+…)", tables):
                assert f"{short} = " in text, (name, short)


def test_piped_show_is_one_line_per_task_in_natural_order(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]],
) -> None:
    text = outputs[(80, "pipe")]["show"][1]
    lines = text.splitlines()
    # the title, a header, 15 tasks and the totals: no box, no wrapped cells
    assert len(lines) == 18, text
    tasks = [line.split()[0] for line in lines[2:17]]
    assert tasks == sorted(tasks, key=_natural)
    assert "summary-rate-limiting" in tasks
    assert "│" not in text


def _natural(text: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def test_hostile_markdown_and_junit_stay_inert(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], workspace: Path
) -> None:
    """The CI surface built from hostile runs: no image or link from agent text, well-formed JUnit."""
    out = workspace.parent / f"{workspace.name}-80-pipe" / "out"
    markdown = (out / "hostile.md").read_text(encoding="utf-8")
    junit = (out / "hostile.xml").read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "evil.test" in html  # the text is there ...
    assert "<img" not in html  # ... but no image is fetched
    assert "href" not in html  # ... and no link is made
    root = ET.fromstring(junit)
    names = [case.get("name") or "" for case in root.iter("testcase")]
    assert any("\\x1b" in name for name in names)


def _snapshot_name(command: str, mode: str) -> Path:
    return SNAPSHOTS / f"{command}-80-{mode}.txt"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", SNAPSHOT_COMMANDS)
def test_80_column_snapshots(
    outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], command: str, mode: str
) -> None:
    text = re.sub(r"\x1b\[[0-9;]*m", "", outputs[(80, mode)][command][1]).replace("\r\n", "\n")
    text = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
    path = _snapshot_name(command, mode)
    if os.environ.get("PATHJUDGE_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if os.environ.get("CI") and not path.exists():
            pytest.fail(f"missing snapshot {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_json_dash_and_json_path_on_every_command(tmp_path: Path) -> None:
    """--json - prints one JSON document on stdout and nothing else, on every command that has --json;
    --json PATH writes the same document and prints the human view."""
    build_workspace(tmp_path)
    for argv in (
        ["show", "docent/runs.jsonl"],
        ["score", "docent/runs.jsonl", "--suite", "docent/suite.yaml"],
        ["variance", "docent/runs.jsonl", "--suite", "docent/suite.yaml"],
        ["diff", "docent/runs.jsonl", "docent/runs.jsonl", "--suite", "docent/suite.yaml"],
        ["mutate", "docent/runs.jsonl", "--suite", "docent/suite.yaml", "--kind", "reorder"],
        ["config"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "pathjudge", *argv, "--json", "-"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "COLUMNS": "80"},
        )
        assert done.returncode == 0, (argv, done.stderr)
        json.loads(done.stdout)  # the whole of stdout is the document
        to_file = tmp_path / f"{argv[0]}.json"
        again = subprocess.run(
            [sys.executable, "-m", "pathjudge", *argv, "--json", str(to_file)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "COLUMNS": "80"},
        )
        assert again.returncode == 0, (argv, again.stderr)
        assert json.loads(to_file.read_text()) == json.loads(done.stdout)
        assert again.stdout.strip()  # with a path, the human view is printed as usual


# -- calibrate and calibrate --pairwise, at 80 and 160 columns, piped and on a terminal ---------------

CALIBRATE_LAYOUTS = tuple((width, mode) for width in (80, 160) for mode in MODES)
_CRITERION_HASH = "sha256:0f3c9a1be27d44aa91c2e0b7"


def _calibration_workspace(ws: Path) -> None:
    """A sampling judge (pathjudge's own verdict records, 3 samples, a failure, long reasoning), an
    abstaining judge, and a pairwise judge that favours the first slot; all deterministic."""
    import random

    from pathjudge.judge.verdict import JudgeFailure, SampleVerdict, aggregate_samples

    rng = random.Random(3)
    ws.mkdir(parents=True, exist_ok=True)
    labels, verdicts = [], []
    for n in range(40):
        truth = "pass" if n % 2 else "fail"
        labels.append(
            {"item_id": f"A{n // 4}-S{n % 4}", "label": truth, "criterion": "summary-faithful",
             "split": "test", "group": f"A{n // 4}"}
        )  # fmt: skip
        if n == 7:
            verdicts.append(
                JudgeFailure(
                    item_id=f"A{n // 4}-S{n % 4}", reasoning="the judge could not be reached",
                    error_type="api_error", message="timeout", criterion_id="summary-faithful",
                    criterion_hash=_CRITERION_HASH, backend="llama", model="smollm2-135m",
                ).model_dump(mode="json")
            )  # fmt: skip
            continue
        samples = []
        for i in range(3):
            draw = rng.random()
            verdict = truth if draw < 0.7 else ("unsure" if draw < 0.8 else
                                                ("fail" if truth == "pass" else "pass"))  # fmt: skip
            samples.append(
                SampleVerdict(
                    item_id=f"A{n // 4}-S{n % 4}", sample_index=i, criterion_id="summary-faithful",
                    criterion_version="2", criterion_hash=_CRITERION_HASH, input_hash="sha256:0",
                    backend="llama", model="smollm2-135m", verdict=verdict,  # type: ignore[arg-type]
                    reasoning=f"The summary says the figure was {n}; the article gives 0.{n} and "
                    "never names the second speaker, so this claim is unsupported by the source "
                    "text and the summary is not faithful to it.",
                )
            )  # fmt: skip
        verdicts.append(aggregate_samples(f"A{n // 4}-S{n % 4}", samples).model_dump(mode="json"))
    _dump(ws / "labels.jsonl", labels)
    _dump(ws / "verdicts.jsonl", verdicts)
    _dump(
        ws / "abstain.jsonl",
        [
            {"item_id": r["item_id"], "criterion": "summary-faithful", "model": "cautious-1",
             "verdict": r["label"] if n < 2 else "unsure", "reasoning": "cannot tell"}
            for n, r in enumerate(labels)
        ],
    )  # fmt: skip
    prefs, answers = [], []
    for n in range(60):
        prefs.append({"item_id": f"pair-{n}", "preference": ("A", "B", "A", "B", "tie")[n % 5]})
        for order in ("ab", "ba"):
            draw = rng.random()
            verdict = (
                "first" if draw < 0.45 else "second" if draw < 0.8 else "tie" if draw < 0.95
                else "unsure"
            )  # fmt: skip
            answers.append(
                {"item_id": f"pair-{n}", "order": order, "verdict": verdict, "model": "gpt-4o-mini"}
            )
    _dump(ws / "prefs.jsonl", prefs)
    _dump(ws / "pairwise.jsonl", answers)


def _dump(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


_CALIBRATE_COMMANDS: list[Any] = [
    ("calibrate", ["calibrate", "--labels", "labels.jsonl", "--verdicts", "verdicts.jsonl",
                   "--bootstrap", "200"]),
    ("calibrate-abstain", ["calibrate", "--labels", "labels.jsonl", "--verdicts", "abstain.jsonl",
                           "--bootstrap", "200"]),
    ("calibrate-pairwise", ["calibrate", "--pairwise", "--labels", "prefs.jsonl", "--verdicts",
                            "pairwise.jsonl", "--bootstrap", "200"]),
]  # fmt: skip
_CALIBRATE_CODES = {"calibrate": 1, "calibrate-abstain": 1, "calibrate-pairwise": 1}


@pytest.fixture(scope="module")
def calibrate_outputs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[tuple[int, str], dict[str, tuple[int, str]]]:
    """``{(width, mode): {command: (exit code, output)}}`` for the calibrate commands."""
    ws = tmp_path_factory.mktemp("calibrate-render")
    _calibration_workspace(ws)
    return {
        (width, mode): run_harness(ws, _CALIBRATE_COMMANDS, width=width, pty_mode=mode == "pty")
        for width, mode in CALIBRATE_LAYOUTS
    }


def test_calibrate_commands_ran_with_their_exit_codes(
    calibrate_outputs: dict[tuple[int, str], dict[str, tuple[int, str]]],
) -> None:
    for layout, results in calibrate_outputs.items():
        codes = {name: code for name, (code, _) in results.items()}
        assert codes == _CALIBRATE_CODES, (layout, results)


@pytest.mark.parametrize(("width", "mode"), CALIBRATE_LAYOUTS)
def test_calibrate_output_has_no_markup_control_or_broken_word(
    calibrate_outputs: dict[tuple[int, str], dict[str, tuple[int, str]]], width: int, mode: str
) -> None:
    for name, (_, text) in calibrate_outputs[(width, mode)].items():
        cleaned = _clean(text)
        assert not _MARKUP.search(cleaned), (name, cleaned)
        assert _CONTROL.search(cleaned) is None, name
        vocabulary = set(_SPLIT.split(_clean(calibrate_outputs[(160, "pipe")][name][1])))
        assert _broken(text, vocabulary) == [], (name, text)
        assert "…" not in cleaned.split("disagreements (")[0], (name, cleaned)  # nothing cut


def test_calibrate_wrapped_lines_hang_under_their_text(
    calibrate_outputs: dict[tuple[int, str], dict[str, tuple[int, str]]],
) -> None:
    """On an 80-column terminal every line fits, and a wrapped line (next steps, gates, notes,
    disagreements) is indented under the text it continues: a line at column 0 always starts a line
    of the unwrapped (piped, 160-column) output."""
    for name in ("calibrate", "calibrate-abstain", "calibrate-pairwise"):
        lines = _clean(calibrate_outputs[(80, "pty")][name][1]).splitlines()
        assert all(len(line) <= 80 for line in lines), name
        whole = [
            " ".join(line.split())
            for line in _clean(calibrate_outputs[(160, "pipe")][name][1]).splitlines()
        ]
        for line in lines:
            if not line.strip() or line[0].isspace():
                continue
            start = " ".join(line.split())
            assert any(full.startswith(start) for full in whole), (name, line)
        entries = [line for line in lines if line.startswith("  - ")]
        assert entries, name  # the gates missed (and next steps) are listed
        for upper, lower in itertools.pairwise(lines):
            if upper.startswith("  - ") and lower.strip() and not lower.startswith("  - "):
                # an entry's continuation starts under the entry's text, or a new statement starts
                assert lower.startswith("    ") or not lower[0].isspace(), (name, lower)


def _calibrate_snapshot(command: str, width: int, mode: str) -> Path:
    return SNAPSHOTS / f"{command}-{width}-{mode}.txt"


@pytest.mark.parametrize(("width", "mode"), CALIBRATE_LAYOUTS)
@pytest.mark.parametrize("command", ["calibrate", "calibrate-pairwise"])
def test_calibrate_snapshots(
    calibrate_outputs: dict[tuple[int, str], dict[str, tuple[int, str]]],
    command: str,
    width: int,
    mode: str,
) -> None:
    text = re.sub(r"\x1b\[[0-9;]*m", "", calibrate_outputs[(width, mode)][command][1])
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").splitlines()) + "\n"
    path = _calibrate_snapshot(command, width, mode)
    if os.environ.get("PATHJUDGE_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if os.environ.get("CI") and not path.exists():
            pytest.fail(f"missing snapshot {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
