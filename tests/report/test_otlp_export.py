"""Grades as ``gen_ai.evaluation.result`` events: an OTLP/JSON file, and a real OTLP/HTTP receiver.

The receiver is an HTTP server on 127.0.0.1 that decodes what the OpenTelemetry SDK's OTLP/HTTP
exporter sends with the generated protobuf classes of ``opentelemetry-proto`` (as a collector's
``otlp`` receiver does) and answers with an ``ExportLogsServiceResponse``; nothing is mocked.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk._logs", reason="needs pip install 'pathjudge[otel]'")

from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

from pathjudge.cli import main
from pathjudge.errors import InputError
from pathjudge.report.otlp import (
    EvaluationEvent,
    evaluation_events,
    logs_endpoint,
    send_otlp,
)
from pathjudge.scoring.grade import JudgedResult, RunGrade

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TRACE = "5b8efff798038103d269b633813fc60c"  # the first trace of otel_otlp.json
ROOT_SPAN = "a000000000000001"  # its invoke_agent span


class _Receiver(BaseHTTPRequestHandler):
    requests: list[tuple[str, logs_service_pb2.ExportLogsServiceRequest]]
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = logs_service_pb2.ExportLogsServiceRequest.FromString(body)
        self.requests.append((self.path, request))
        reply = logs_service_pb2.ExportLogsServiceResponse().SerializeToString()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[_Receiver]]]:
    handler = type("Handler", (_Receiver,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def graded(tmp_path: Path) -> tuple[Path, Path]:
    """Runs imported from the OTel fixture and their grades, as `import` and `score` write them."""
    runs, grades = tmp_path / "runs.jsonl", tmp_path / "grades.jsonl"
    otel = FIXTURES / "importers" / "otel_otlp.json"
    assert main(["import", "--from", "otel", str(otel), "-o", str(runs)]) == 0
    suite = FIXTURES / "export" / "trips-suite.yaml"
    assert main(["score", str(runs), "--suite", str(suite), "--grades", str(grades), "-q"]) == 0
    return runs, grades


def _attrs(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in record.attributes:
        kind = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, kind)
    return out


def test_the_receiver_reads_back_every_event_on_the_runs_trace(
    graded: tuple[Path, Path],
    receiver: tuple[str, type[_Receiver]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs, grades = graded
    url, handler = receiver
    capsys.readouterr()
    assert main(["export", str(grades), "--runs", str(runs), "--otlp-endpoint", url]) == 0
    assert "6 attached to their trace" in capsys.readouterr().out
    ((path, request),) = handler.requests  # one batch
    assert path == "/v1/logs"
    records = [r for rl in request.resource_logs for sl in rl.scope_logs for r in sl.log_records]
    assert len(records) == 6  # 4 for the graded trip (passed, success, tool calls, trajectory) + 2
    assert {r.event_name for r in records} == {"gen_ai.evaluation.result"}
    rome = [r for r in records if _attrs(r)["pathjudge.task_id"] == "trip-rome"]
    assert {(r.trace_id.hex(), r.span_id.hex()) for r in rome} == {(TRACE, ROOT_SPAN)}
    by_name = {_attrs(r)["gen_ai.evaluation.name"]: _attrs(r) for r in rome}
    assert set(by_name) == {
        "pathjudge.passed",
        "pathjudge.task_success",
        "pathjudge.tool_calls",
        "pathjudge.trajectory",
    }
    grade = json.loads(grades.read_text().splitlines()[0])
    assert by_name["pathjudge.tool_calls"]["gen_ai.evaluation.score.value"] == pytest.approx(
        grade["tool_calls"]
    )
    assert by_name["pathjudge.task_success"]["gen_ai.evaluation.score.label"] == grade["success"]
    assert by_name["pathjudge.passed"]["pathjudge.run_id"] == TRACE


def test_the_otlp_json_file_matches_what_is_sent(graded: tuple[Path, Path], tmp_path: Path) -> None:
    runs, grades = graded
    out = tmp_path / "events.json"
    assert main(["export", str(grades), "--runs", str(runs), "--otlp-file", str(out)]) == 0
    document = json.loads(out.read_text())
    records = [
        r for rl in document["resourceLogs"] for sl in rl["scopeLogs"] for r in sl["logRecords"]
    ]
    assert len(records) == 6
    rome = [r for r in records if r["traceId"] == TRACE]
    assert {r["spanId"] for r in rome} == {ROOT_SPAN}  # hex, as OTLP/JSON writes ids
    assert all(r["eventName"] == "gen_ai.evaluation.result" for r in records)


def test_judged_verdicts_are_events_and_runs_without_a_trace_have_none(
    graded: tuple[Path, Path],
) -> None:
    _, grades = graded
    grade = RunGrade.from_dict(json.loads(grades.read_text().splitlines()[0]))
    judged = JudgedResult("summary_faithful", "item-1", "fail", reasoning="It invents a museum.")
    events = evaluation_events([dataclasses.replace(grade, judged=(judged,))])  # no runs given
    last = events[-1]
    assert dict(last.attributes) == {
        "gen_ai.evaluation.name": "summary_faithful",
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.explanation": "It invents a museum.",
        "pathjudge.run_id": grade.run_id,
        "pathjudge.task_id": "trip-rome",
        "pathjudge.epoch": 0,
    }
    assert all(e.trace_id is None for e in events)
    assert evaluation_events([]) == []


def test_a_collector_that_refuses_is_an_error(receiver: tuple[str, type[_Receiver]]) -> None:
    url, handler = receiver
    handler.status = 400  # a client error: the exporter does not retry
    send_otlp(url, evaluation_events([]))  # nothing to send: nothing refused
    with pytest.raises(InputError, match="did not accept"):
        send_otlp(url, [EvaluationEvent({"gen_ai.evaluation.name": "x"})], timeout=5)


def test_endpoints_and_missing_destination(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert logs_endpoint("http://h:4318") == "http://h:4318/v1/logs"
    assert logs_endpoint("http://h:4318/custom/logs") == "http://h:4318/custom/logs"
    with pytest.raises(InputError, match="not an http"):
        logs_endpoint("h:4318")
    grades = tmp_path / "g.jsonl"
    grades.write_text("")
    assert main(["export", str(grades)]) == 2
    assert "no destination given" in capsys.readouterr().err


# --- hostile destinations and runs ----------------------------------------------------------------


def test_a_redirect_is_not_taken_for_delivery(receiver: tuple[str, type[_Receiver]]) -> None:
    url, handler = receiver
    handler.status = 307  # the exporter does not follow it: the events went nowhere
    with pytest.raises(InputError, match="307"):
        send_otlp(url, [EvaluationEvent({"gen_ai.evaluation.name": "x"})], timeout=5)


def test_credentials_in_the_endpoint_are_never_printed(
    graded: tuple[Path, Path], receiver: tuple[str, type[_Receiver]], repo_root: Path
) -> None:
    url, handler = receiver
    handler.status = 503  # retried, then refused: the SDK's own complaints name the URL too
    _, grades = graded
    secret = url.replace("http://", "http://ann:pw-SECRET-1@") + "/v1/logs?api_key=SECRET-2"
    refused = "http://ann:pw-SECRET-1@127.0.0.1:1/v1/logs?api_key=SECRET-2"  # connection refused
    env = {**os.environ, "PYTHONPATH": str(repo_root / "src")}
    for endpoint, message in (
        (secret, "did not accept"),
        (refused, "did not accept"),
        ("http://a:pw-SECRET-1@[::1", "http(s)"),
    ):
        done = subprocess.run(  # a process of its own: the terminal sees what logging prints
            [sys.executable, "-m", "pathjudge", "export", str(grades), "--otlp-endpoint", endpoint,
             "--timeout", "2"],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2
        assert message in done.stderr
        assert "SECRET" not in done.stdout + done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("trace_id", ["zz", "", "f" * 60, "0" * 32])
def test_a_run_with_a_broken_trace_id_is_an_error_naming_it(
    graded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], trace_id: str
) -> None:
    runs, grades = graded
    records = [json.loads(line) for line in runs.read_text().splitlines()]
    records[1]["metadata"]["source"]["trace_id"] = trace_id
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "events.json"
    out.write_text("kept")
    capsys.readouterr()
    code = main(["export", str(grades), "--runs", str(broken), "--otlp-file", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert "metadata.source.trace_id" in err
    assert str(broken) in err
    assert out.read_text() == "kept"


def test_an_otlp_file_that_is_a_folder_is_refused_before_any_work(
    graded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, grades = graded
    capsys.readouterr()
    assert main(["export", str(grades), "--otlp-file", str(tmp_path)]) == 2
    assert "--otlp-file" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*.tmp"))
