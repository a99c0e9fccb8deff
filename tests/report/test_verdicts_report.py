"""``pathjudge show verdicts.jsonl`` and ``pathjudge report verdicts.jsonl -o v.html`` (issue 14, point 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import pathjudge.cli  # noqa: F401  (registers the commands)
from pathjudge._cli.app import main
from pathjudge.judge.verdict import JudgeFailure, SampleVerdict, aggregate_samples

HOSTILE = "<script>alert(1)</script> [click](http://evil.example) ![img](http://evil.example/x.png) \x1b[31mRED"


def _sample(
    item: str, verdict: str, *, evidence: tuple[str, ...], verified: bool | None
) -> SampleVerdict:
    return SampleVerdict(
        item_id=item,
        sample_index=0,
        criterion_id="summary-faithful",
        criterion_version="1",
        criterion_hash="sha256:0123456789abcdef0123",
        input_hash="sha256:feed",
        backend="openai",
        model="smollm2-360m",
        verdict=verdict,  # type: ignore[arg-type]
        reasoning=f"reasoning of {item}. {HOSTILE}",
        evidence=evidence,
        evidence_verified=verified,
        unverified_evidence=tuple(q for q in evidence if "invented" in q)
        if verified is False
        else (),
    )


def _write_judge_verdicts(path: Path) -> Path:
    records = [
        aggregate_samples("s1", [_sample("s1", "pass", evidence=("quoted text",), verified=True)]),
        aggregate_samples(
            "s2",
            [_sample("s2", "fail", evidence=("quoted text", "an invented quote"), verified=False)],
        ),
        JudgeFailure(
            item_id="s3",
            reasoning="no verdict: timeout",
            error_type="timeout",
            message="no answer within 120 s",
            criterion_id="summary-faithful",
            criterion_hash="sha256:0123456789abcdef0123",
            backend="openai",
            model="smollm2-360m",
        ),
    ]
    path.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return path


def _flat(text: str) -> str:
    """Table text without box characters and whitespace (cells fold on an 80-column terminal)."""
    return re.sub(r"[\s│┃]", "", text)


def test_show_prints_a_verdicts_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathjudge._cli.app import out_console

    monkeypatch.setattr(out_console, "width", 220)  # one line per row, so the cells read whole
    path = _write_judge_verdicts(tmp_path / "verdicts.jsonl")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    for header in ("item", "verdict", "reasoning", "evidence", "judge"):
        assert header in out
    assert "s1" in out
    assert "s2" in out
    assert "s3" in out
    assert "✗" in out
    assert "an invented quote" in out
    assert "openai:smollm2-360m·summary-faithful0123456789ab" in _flat(out)
    assert "\x1b" not in out  # control characters are shown as escapes
    assert "\\x1b" in out
    assert "1 of 2 checked verdicts cite a quote not found" in out
    # --json gives the same rows as data
    assert main(["show", str(path), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["item_id"] for row in data["verdicts"]] == ["s1", "s2", "s3"]
    assert data["verdicts"][1]["evidence_verified"] is False


def test_show_reads_generic_verdict_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text(
        json.dumps(
            {"item_id": 7, "verdict": "pass", "reasoning": "ok", "model": "gpt-x", "sample": 1}
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "gpt-x" in out
    assert "sample1" in _flat(out)
    assert "7" in out


def test_report_renders_verdicts_html_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_judge_verdicts(tmp_path / "verdicts.jsonl")
    out_html, out_md = tmp_path / "v.html", tmp_path / "v.md"
    assert main(["report", str(path), "-o", str(out_html), "--markdown", str(out_md)]) == 0
    page = out_html.read_text(encoding="utf-8")
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "http://evil.example" not in page.split("<body>")[0]  # nothing loaded from data
    assert "smollm2-360m" in page
    assert "sha256:0123456789abcdef0123" in page
    assert "an invented quote" in page
    assert 'class="bad"' in page
    md = out_md.read_text(encoding="utf-8")
    assert "](http" not in md
    assert "![" not in md
    assert "<script>" not in md
    assert "openai:smollm2-360m" in md
    assert "1 of 2 checked" in md
    # a damaged line is one clear error with file and line, exit 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "a", "verdict": "maybe"}\n', encoding="utf-8")
    assert main(["report", str(bad), "-o", str(tmp_path / "b.html")]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert not (tmp_path / "b.html").exists()


def test_calibration_reports_name_the_judge_and_show_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = _write_judge_verdicts(tmp_path / "verdicts.jsonl")
    labels = tmp_path / "labels.jsonl"
    rows = [("s1", "fail"), ("s2", "pass"), ("s3", "pass")]  # the judge disagrees on s1 and s2
    labels.write_text(
        "".join(
            json.dumps({"item_id": i, "label": lab, "criterion": "summary-faithful"}) + "\n"
            for i, lab in rows
        ),
        encoding="utf-8",
    )
    page, md, js = tmp_path / "c.html", tmp_path / "c.md", tmp_path / "c.json"
    code = main(
        ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--json", str(js),
         "--html", str(page), "--report-only", "--allow-single-class", "--bootstrap", "20"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "judge: openai:smollm2-360m · summary-faithful v1 sha256:0123456789abcdef0123" in out
    data = json.loads(js.read_text())
    judges = data["criteria"][0]["judges"]
    assert judges[0]["backend"] == "openai"
    assert judges[0]["model"] == "smollm2-360m"
    assert judges[0]["criterion_hash"] == "sha256:0123456789abcdef0123"
    assert judges[0]["criterion_version"] == "1"
    assert judges[0]["samples"] == 3
    disagreements = {d["item_id"]: d for d in data["criteria"][0]["disagreements"]}
    assert disagreements["s2"]["judge_evidence"] == ["quoted text", "an invented quote"]
    assert disagreements["s2"]["evidence_verified"] is False
    html_text = page.read_text(encoding="utf-8")
    assert "openai:smollm2-360m" in html_text
    assert "an invented quote" in html_text
    assert "NOT found in the judged inputs" in html_text
    from pathjudge.report.markdown import write_markdown_report

    write_markdown_report(None, md, calibration=js)
    assert "openai:smollm2-360m" in md.read_text(encoding="utf-8")


def test_score_reports_name_the_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docent = Path(__file__).resolve().parents[2] / "examples" / "docent"
    item = "summary-rate-limiting-e0:summary-covers-points"
    sample = SampleVerdict(
        item_id=item,
        sample_index=0,
        criterion_id="summary-covers-points",
        criterion_version="1",
        criterion_hash="sha256:abcdef0123456789",
        input_hash="sha256:feed",
        backend="anthropic",
        model="claude-opus-4-8",
        verdict="pass",
        reasoning="covers both points",
        evidence=("429",),
    )
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(
        aggregate_samples(item, [sample]).model_dump_json() + "\n", encoding="utf-8"
    )
    js, page, md = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "r.md"
    code = main(
        ["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml"),
         "--verdicts", str(verdicts), "--json", str(js), "--html", str(page), "--markdown", str(md)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert (
        "judge: anthropic:claude-opus-4-8 · summary-covers-points v1 sha256:abcdef0123456789" in out
    )
    data = json.loads(js.read_text())
    assert data["judges"][0]["model"] == "claude-opus-4-8"
    assert data["judges"][0]["criterion_hash"] == "sha256:abcdef0123456789"
    assert "claude-opus-4-8" in page.read_text(encoding="utf-8")
    assert "claude-opus-4-8" in md.read_text(encoding="utf-8")
    # without a judge the JSON has no judges key at all (reports stay as they were)
    plain = tmp_path / "plain.json"
    main(["score", str(docent / "runs.jsonl"), "--suite", str(docent / "suite.yaml"), "--fast",
          "--json", str(plain), "-q"])  # fmt: skip
    assert "judges" not in json.loads(plain.read_text())
