"""``pathjudge calibrate`` end to end: table, JSON, plots, few-shot YAML, exit codes, clear errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main

from .conftest import Writer
from .test_calibrate import _labels, _verdicts


def test_table_json_plots_and_few_shot(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write("l.jsonl", _labels())
    verdicts = write("v.jsonl", _verdicts(samples=3))
    unl = write("u.jsonl", [{"item_id": f"u{i}", "verdict": "pass"} for i in range(5)])
    code = main(
        [
            "calibrate",
            "--labels", str(labels),
            "--verdicts", str(verdicts),
            "--unlabelled", str(unl),
            "--json", str(tmp_path / "out" / "report.json"),
            "--plots", str(tmp_path / "plots"),
            "--few-shot", str(tmp_path / "few.yaml"),
            "--bootstrap", "100",
        ]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code == 1  # not trusted: a missed gate is exit 1
    assert "kappa (decided)" in out.out
    assert "0.467" in out.out  # 7/15
    assert "NOT TRUSTED" in out.out
    assert "success rate: PPI++" in out.out
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["criteria"][0]["agreement"]["kappa"]["value"] == pytest.approx(7 / 15)
    for name in ("confusion-criterion.png", "reliability-criterion.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data.startswith(b"\x89PNG")
    assert "examples:" in (tmp_path / "few.yaml").read_text()
    # --report-only: same report, exit 0; --json - prints JSON only.
    code = main(
        [
            "calibrate",
            "--labels",
            str(labels),
            "--verdicts",
            str(verdicts),
            "--json",
            "-",
            "--report-only",
            "--bootstrap",
            "20",
        ]
    )
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert printed["criteria"][0]["n_labelled"] == 10


def test_trusted_judge_exits_zero(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write(
        "l.jsonl", [{"item_id": str(i), "label": "pass" if i < 60 else "fail"} for i in range(120)]
    )
    verdicts = write(
        "v.jsonl",
        [{"item_id": str(i), "verdict": "pass" if i < 60 else "fail"} for i in range(120)],
    )
    assert (
        main(
            ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "50"]
        )
        == 0
    )
    assert "TRUSTED" in capsys.readouterr().out


def test_option_errors(write: Writer, capsys: pytest.CaptureFixture[str]) -> None:
    labels = write("l.jsonl", _labels())
    assert main(["calibrate", "--labels", str(labels)]) == 2
    assert "give either --verdicts" in capsys.readouterr().err
    verdicts = write("v.jsonl", _verdicts())
    assert (
        main(
            ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--gates", "tpr=x"]
        )
        == 2
    )
    assert "not a number" in capsys.readouterr().err
    assert (
        main(["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--split", "val"])
        == 2
    )
    assert "unknown split 'val'" in capsys.readouterr().err
    assert main(["calibrate", "--labels", str(labels), "--backend", "openai-compatible"]) == 2
    assert "live judging needs --criterion" in capsys.readouterr().err


def test_bad_labels_in_a_subprocess(write: Writer, tmp_path: Path) -> None:
    labels = write(
        "l.jsonl", [{"item_id": "a", "label": "pass"}, {"item_id": "a", "label": "fail"}]
    )
    verdicts = write("v.jsonl", [{"item_id": "a", "verdict": "pass"}])
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pathjudge",
            "calibrate",
            "--labels",
            str(labels),
            "--verdicts",
            str(verdicts),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert (
        f"{labels}:2: field 'item_id': item 'a': is labelled twice (first on line 1)" in proc.stderr
    )


# -- what a new user reads: never a false green ------------------------------------------------------


def _cli(args: list[str], cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """``pathjudge ARGS`` in a subprocess, piped, at ``columns`` columns."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TERM")}
    return subprocess.run(
        [sys.executable, "-m", "pathjudge", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
        env={**env, "COLUMNS": str(columns)},
    )


def _abstaining(write: Writer) -> tuple[Path, Path]:
    """20 labelled items; the judge decides two of them (both right) and is unsure on the rest."""
    labels = write(
        "abstain-labels.jsonl",
        [{"item_id": f"a{i}", "label": "pass" if i % 2 else "fail"} for i in range(20)],
    )
    verdicts = write(
        "abstain-verdicts.jsonl",
        [
            {
                "item_id": f"a{i}",
                "verdict": ("pass" if i % 2 else "fail") if i < 2 else "unsure",
                "model": "cautious-1",
            }
            for i in range(20)
        ],
    )
    return labels, verdicts


def _pairs(write: Writer, n: int = 40) -> tuple[Path, Path]:
    """Preferences and both-orders verdicts of a judge that mostly picks the first slot."""
    prefs = write(
        "prefs.jsonl",
        [{"item_id": f"pair-{i}", "preference": "AB"[i % 2] if i % 5 else "tie"} for i in range(n)],
    )
    rows = []
    for i in range(n):
        for order in ("ab", "ba"):
            verdict = "first" if i % 4 else ("second" if order == "ab" else "unsure")
            rows.append(
                {"item_id": f"pair-{i}", "order": order, "verdict": verdict, "model": "gpt-x"}
            )
    return prefs, write("pairwise.jsonl", rows)


def test_an_abstaining_judge_report_leads_with_the_gated_numbers(
    write: Writer, tmp_path: Path
) -> None:
    labels, verdicts = _abstaining(write)
    html = tmp_path / "r.html"
    done = _cli(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "50",
         "--html", str(html)],
        tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    out = done.stdout
    rows = [line.split("  ")[0] for line in out.splitlines()[3:] if line and not line[0].isspace()]
    # the first statistics are the gated forms; every decided-only form says so
    assert rows[:4] == ["TPR (gated)", "TNR (gated)", "kappa (gated)", "unsure rate (gated)"], out
    for name in ("accuracy", "kappa", "TPR", "TNR"):
        assert f"{name} (decided)" in out
    # the ceiling line leads with the gated kappa, not the perfect decided-only one
    ceiling = next(line for line in out.splitlines() if line.startswith("ceiling:"))
    assert ceiling.startswith("ceiling: judge-human kappa -0.")
    assert "1.000 over the 2 decided items only" in ceiling
    page = html.read_text(encoding="utf-8")
    section = page[page.index('id="calibration"') :]
    first_row = section[section.index("<tbody><tr><td>") + len("<tbody><tr><td>") :]
    assert first_row.startswith("TPR, unsure counts as wrong (gated)")
    assert "<td>Accuracy</td>" not in section
    assert "<td>Cohen&#x27;s kappa</td>" not in section
    assert "Accuracy, decided items only" in section
    assert "Cohen&#x27;s kappa, decided items only" in section
    assert "judge-human kappa 1.000" not in section
    assert "Expected calibration error of the vote share over the 2 decided items only" in section


def test_the_json_schema_marks_the_decided_only_statistics() -> None:
    from pathjudge.calibration.agreement import AgreementStats

    fields = AgreementStats.model_fields
    for name in ("accuracy", "kappa", "tpr", "tnr", "judge_pass_rate", "per_class"):
        assert "DECIDED ITEMS ONLY" in (fields[name].description or ""), name


def test_counts_sample_sizes_formulas_and_the_criterion_version_read_right(
    write: Writer, tmp_path: Path
) -> None:
    labels, verdicts = _abstaining(write)
    done = _cli(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--bootstrap", "50"],
        tmp_path,
    )
    out = done.stdout
    assert "1 sample per item" in out
    assert "samples/item" not in out
    # kappa with unsure counted as wrong is over every labelled item, not "decided" ones
    assert "over 20 labelled items" in out
    assert "over 20 decided items" not in out
    # no number in the explanation column is cut to fit
    assert "shortened to fit" not in out
    assert "kappa = (po - pe) / (1 - pe) = 1.000" in " ".join(out.split())
    # pathjudge's own judge output names the criterion's version beside its hash
    from pathjudge.judge.verdict import SampleVerdict, aggregate_samples

    records = [
        aggregate_samples(
            f"a{i}",
            [
                SampleVerdict(
                    item_id=f"a{i}", sample_index=s, criterion_id="summary-faithful",
                    criterion_version="3", criterion_hash="sha256:abc123", input_hash="sha256:0",
                    backend="llama", model="smollm2", verdict="pass" if i % 2 else "fail",
                    reasoning="r",
                )
                for s in range(2)
            ],
        ).model_dump(mode="json")
        for i in range(20)
    ]  # fmt: skip
    own = write("own.jsonl", records)
    done = _cli(
        ["calibrate", "--labels", str(labels), "--verdicts", str(own), "--bootstrap", "50"],
        tmp_path,
    )
    judge = next(line for line in done.stdout.splitlines() if line.startswith("judge:"))
    assert judge == "judge: llama:smollm2 · summary-faithful v3 sha256:abc123 (40 samples)"
    assert "2 samples per item" in done.stdout


def test_pairwise_writes_html_and_plots_and_is_gated(write: Writer, tmp_path: Path) -> None:
    prefs, verdicts = _pairs(write)
    html, plots, report = tmp_path / "r.html", tmp_path / "d", tmp_path / "p.json"
    done = _cli(
        ["calibrate", "--pairwise", "--labels", str(prefs), "--verdicts", str(verdicts),
         "--html", str(html), "--plots", str(plots), "--json", str(report), "--bootstrap", "50"],
        tmp_path,
    )  # fmt: skip
    # a judge that favours the first slot is not trusted: exit 1, never a silent 0
    assert done.returncode == 1, done.stderr
    page = html.read_text(encoding="utf-8")
    assert "pairwise judge, both orders" in page
    assert "Position-consistent accuracy" in page
    assert "not trusted" in page
    assert page.count("<img") == 2  # the two orders' confusion matrices
    for order in ("ab", "ba"):
        assert (plots / f"pairwise-confusion-{order}.png").read_bytes().startswith(b"\x89PNG")
    data = json.loads(report.read_text())
    assert data["trusted"] is False
    assert {gate["name"] for gate in data["trust"]["gates"]} == {"kappa", "position bias", "unsure"}
    assert data["confusion_rows"] == ["A", "B", "tie"]  # humans never answer "unsure"
    assert data["confusion_columns"] == ["A", "B", "tie", "unsure"]
    assert sum(map(sum, data["confusion_ab"])) == 40
    for path in (html, plots / "pairwise-confusion-ab.png", report):
        assert f"wrote {path}" in done.stderr
    # `pathjudge report --calibration` reads the pairwise JSON as well as the pass/fail one
    from pathjudge.report.html import write_html_report

    again_page = write_html_report(None, tmp_path / "again.html", calibration=report)
    assert "pairwise judge, both orders" in again_page.read_text(encoding="utf-8")
    again = _cli(
        ["calibrate", "--pairwise", "--labels", str(prefs), "--verdicts", str(verdicts),
         "--bootstrap", "50", "--report-only"],
        tmp_path,
    )  # fmt: skip
    assert again.returncode == 0


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--few-shot", "f.yaml"], "--few-shot"),
        (["--unlabelled", "u.jsonl"], "--unlabelled"),
        (["--split", "test"], "--split"),
        (["--disagreements", "3"], "--disagreements"),
        (["--save-verdicts", "s.jsonl"], "--save-verdicts"),
        (["--criterion", "answer-correct"], "--criterion"),
    ],
)
def test_pairwise_refuses_an_option_it_cannot_use(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], flag: str
) -> None:
    prefs, verdicts = _pairs(write, n=8)
    code = main(
        ["calibrate", "--pairwise", "--labels", str(prefs), "--verdicts", str(verdicts), *extra]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert f"{flag} is for pass/fail calibration" in err
    assert len(err.strip().splitlines()) <= 2  # the message and its hint, no traceback
    assert not (tmp_path / extra[1]).exists()


@pytest.mark.parametrize(
    "extra",
    [
        ["--save-verdicts", "s.jsonl"],
        ["--samples", "3"],
        ["--concurrency", "4"],
        ["--cache", "c.db"],
    ],
)
def test_recorded_verdicts_refuse_the_live_judges_options(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    labels = write("l.jsonl", _labels())
    verdicts = write("v.jsonl", _verdicts())
    code = main(["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), *extra])
    assert code == 2
    assert f"{extra[0]} is for live judging" in capsys.readouterr().err
    assert not (tmp_path / extra[1]).exists()


def test_pairwise_refuses_a_gate_it_has_no_use_for(
    write: Writer, capsys: pytest.CaptureFixture[str]
) -> None:
    prefs, verdicts = _pairs(write, n=8)
    args = ["calibrate", "--pairwise", "--labels", str(prefs), "--verdicts", str(verdicts)]
    assert main([*args, "--gates", "tpr=0.9"]) == 2
    assert "gate 'tpr' has no pairwise meaning" in capsys.readouterr().err


def test_pairwise_at_80_columns_is_compact_and_names_the_judge_and_the_verdict(
    write: Writer, tmp_path: Path
) -> None:
    prefs, verdicts = _pairs(write)
    done = _cli(
        ["calibrate", "--pairwise", "--labels", str(prefs), "--verdicts", str(verdicts),
         "--bootstrap", "50"],
        tmp_path,
    )  # fmt: skip
    out = done.stdout
    lines = out.splitlines()
    assert len(lines) < 60, out
    assert not set("┏┃━│") & set(out)  # no heavy box
    assert "position-consistent accuracy" in out  # whole, never "position-consi/stent"
    assert lines[0].startswith("pairwise judge gpt-x (80 answers), both orders:")
    assert any(line.startswith("NOT TRUSTED: ") for line in lines)
    assert re.findall(r"\d\.\d{4}", out) == []  # 3 decimals, as calibrate prints them
    assert re.search(r"position-consistent accuracy +\d\.\d{3} +\[\d\.\d{3}, \d\.\d{3}\]", out)


@pytest.mark.parametrize("option", ["--few-shot", "--plots"])
def test_a_file_named_after_a_criterion_is_never_written_over_an_input(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    # two criteria, one of them named "labels": --few-shot few.jsonl would write few-labels.jsonl
    # (and few-other.jsonl); with the labels file at that very path, nothing may be written at all
    rows = _labels(criterion="labels") + [
        {**r, "item_id": f"o{r['item_id']}"} for r in _labels(criterion="other")
    ]
    verdict_rows = _verdicts("labels") + [
        {**r, "item_id": f"o{r['item_id']}"} for r in _verdicts("other")
    ]
    if option == "--few-shot":
        labels = write("few-labels.jsonl", rows)
        target = tmp_path / "few.jsonl"
    else:
        (tmp_path / "plots").mkdir()
        labels = tmp_path / "plots" / "confusion-labels.png"
        labels.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        target = tmp_path / "plots"
    verdicts = write("v.jsonl", verdict_rows)
    before = labels.read_bytes()
    report = tmp_path / "report.json"
    code = main(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), option, str(target),
         "--json", str(report), "--bootstrap", "20"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert "is also this command's input (--labels)" in err
    assert str(labels) in err
    assert labels.read_bytes() == before
    assert not report.exists()  # refused before anything was written
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        [labels.name, "v.jsonl"]
    )


def test_calibrate_reads_a_label_log_beside_a_labels_file_and_reports_stale_and_ceiling(
    write: Writer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .test_calibrate import _log

    old = write("old.jsonl", [{"item_id": "x1", "criterion": "faithful", "label": "fail"}])
    log = write("log.jsonl", _log())
    items = write(
        "items.jsonl",
        [
            {"item_id": f"i{i}", "inputs": {"text": "edited" if i == 8 else f"i{i}"}}
            for i in range(10)
        ],
    )
    verdicts = write("v.jsonl", [*_verdicts(), {"item_id": "x1", "verdict": "fail"}])
    argv = ["calibrate", "--labels", str(old), "--labels", str(log), "--verdicts", str(verdicts)]
    argv += [
        "--items",
        str(items),
        "--bootstrap",
        "50",
        "--report-only",
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "rater-rater Cohen kappa (ceiling)" in out
    assert "(stale): 'i8'" in out
    report = json.loads((tmp_path / "r.json").read_text())
    crit = report["criteria"][0]
    assert crit["stale_labels"] == ["i8"]
    assert crit["n_labelled"] == 10  # 9 log items + x1
    assert crit["rater_agreement"]["statistic"] == "cohen_kappa"
    from pathjudge.report.html import write_html_report
    from pathjudge.report.markdown import write_markdown_report

    html = write_html_report(None, tmp_path / "r.html", calibration=tmp_path / "r.json")
    assert "Rater-rater Cohen&#x27;s kappa (human ceiling)" in html.read_text()
    md = write_markdown_report(None, tmp_path / "r.md", calibration=tmp_path / "r.json")
    assert "- human ceiling: judge-human kappa" in md.read_text()
    assert "rater-rater Cohen's kappa 1.000" in md.read_text()
    assert main([*argv, "--keep-stale"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "r.json").read_text())["criteria"][0]["n_labelled"] == 11
