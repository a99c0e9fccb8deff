"""The labelling page's app, ordering, assignment and adjudication, without a browser (TestClient)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from pathjudge.calibration.label_app import (
    CSP,
    LabelSession,
    allowed_hosts,
    assign_items,
    create_app,
    find_disagreements,
    next_items,
    read_label_items,
)
from pathjudge.calibration.label_store import (
    LabelEvent,
    append_label,
    current_labels,
    item_content_hash,
    read_events,
)
from pathjudge.cli import main
from pathjudge.errors import InputError
from pathjudge.rubrics.criteria import get_criterion

CRITERION = get_criterion("summary-faithful")
HOST = "127.0.0.1:8765"


def write_items(path: Path, count: int, **extra: Any) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            line = {
                "item_id": f"item-{i}",
                "inputs": {"source": f"source text {i}", "summary": f"summary {i}"},
                "slice": {"domain": "news" if i % 2 else "science"},
                **extra,
            }
            handle.write(json.dumps(line) + "\n")
    return path


def session_for(
    tmp_path: Path, count: int = 6, *, order: str = "file", **options: Any
) -> LabelSession:
    items = read_label_items(write_items(tmp_path / "items.jsonl", count), CRITERION)
    placed, used = next_items(items, order=order, seed=0)  # type: ignore[arg-type]
    session = LabelSession(
        criterion=CRITERION,
        items=placed,
        output=tmp_path / "labels.jsonl",
        rater=options.pop("rater", "ana"),
        order=used,
        seed=0 if used == "random" else None,
        **options,
    )
    session.allowed_hosts = allowed_hosts("127.0.0.1", 8765)
    return session


def client_for(session: LabelSession) -> TestClient:
    client = TestClient(create_app(session), base_url=f"http://{HOST}")
    client.cookies.set("pathjudge_label", session.token)
    return client


def test_the_page_is_served_with_its_csp_and_the_token_moves_into_a_cookie(
    tmp_path: Path,
) -> None:
    session = session_for(tmp_path)
    client = TestClient(create_app(session), base_url=f"http://{HOST}")
    first = client.get(f"/?token={session.token}", follow_redirects=False)
    assert first.status_code == 303
    assert first.headers["location"] == "/"
    assert "httponly" in first.headers["set-cookie"].lower()
    assert "samesite=strict" in first.headers["set-cookie"].lower()
    page = client.get("/")  # the cookie now carries the token
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CSP
    assert "'unsafe-inline'" not in CSP
    assert page.headers["referrer-policy"] == "no-referrer"
    assert '<script src="/assets/label.js"' in page.text
    script = client.get("/assets/label.js").text
    assert (
        re.search(r"\.(inner|outer)HTML\s*=|insertAdjacentHTML|document\.write|eval\(", script)
        is None
    )
    assert client.get("/assets/label.css").headers["content-type"].startswith("text/css")
    assert client.get("/assets/../label_app.py").status_code == 404


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/item/0", "/assets/label.js"])
def test_a_request_without_the_token_gets_403(tmp_path: Path, path: str) -> None:
    session = session_for(tmp_path)
    client = TestClient(create_app(session), base_url=f"http://{HOST}")
    assert client.get(path).status_code == 403
    client.cookies.set("pathjudge_label", "not-the-token")
    assert client.get(path).status_code == 403
    assert client.post("/api/label", json={"position": 0, "label": "pass"}).status_code == 403
    assert not session.output.exists()


def test_a_foreign_host_header_gets_403_even_with_the_token(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client = client_for(session)
    assert client.get("/api/state").status_code == 200
    for host in ("evil.example:8765", "127.0.0.1:9999", "attacker.test"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 403
        answer = client.post(
            "/api/label", json={"position": 0, "label": "pass"}, headers={"Host": host}
        )
        assert answer.status_code == 403
    assert client.get("/api/state", headers={"Host": "localhost:8765"}).status_code == 200
    assert not session.output.exists()


def test_a_write_that_is_not_json_gets_403(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client = client_for(session)
    answer = client.post(
        "/api/label",
        content="position=0&label=pass",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 403
    assert not session.output.exists()


def test_state_reports_the_criterion_progress_per_class_and_per_slice(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client = client_for(session)
    state = client.get("/api/state").json()
    assert state["criterion"]["id"] == "summary-faithful"
    assert state["criterion"]["version"] == CRITERION.version
    assert state["criterion"]["pass_means"] == CRITERION.pass_means
    assert state["total"] == 6
    assert state["labelled"] == 0
    assert state["cursor"] == 0
    assert [i["reason"] for i in state["items"]][:2] == [
        "file order (line 1)",
        "file order (line 2)",
    ]
    for position, value in [(0, "pass"), (1, "fail"), (3, "fail")]:
        assert (
            client.post("/api/label", json={"position": position, "label": value}).status_code
            == 200
        )
    state = client.get("/api/state").json()
    assert state["labelled"] == 3
    assert state["counts"] == {"pass": 1, "fail": 2, "unsure": 0}
    assert state["slices"] == {
        "domain=news": {"labelled": 2, "total": 3},
        "domain=science": {"labelled": 1, "total": 3},
    }
    assert state["cursor"] == 2  # the first unlabelled item


def test_a_label_is_appended_with_its_provenance(tmp_path: Path) -> None:
    session = session_for(tmp_path, order="random")
    client = client_for(session)
    item = client.get("/api/item/2").json()
    answer = client.post(
        "/api/label", json={"position": 2, "label": "fail", "note": " invents a date "}
    )
    assert answer.status_code == 200
    (event,) = list(read_events(session.output))
    assert event.item_id == item["item_id"]
    assert event.label == "fail"
    assert event.note == "invents a date"
    assert event.rater == "ana"
    assert event.kind == "label"
    assert event.criterion_hash == CRITERION.content_hash
    assert event.criterion_version == CRITERION.version
    assert event.order == "random"
    assert event.seed == 0
    assert event.position == 2
    assert event.reason == "random order (seed 0)"
    assert event.labelled_at.endswith("Z")
    number = int(item["item_id"].split("-")[1])
    assert event.item_hash == item_content_hash(
        {"source": f"source text {number}", "summary": f"summary {number}"}
    )
    assert event.slice == {"domain": "news" if number % 2 else "science"}


def test_a_bad_label_request_is_a_400_or_404_and_writes_nothing(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client = client_for(session)
    assert client.post("/api/label", json={"position": 0, "label": "maybe"}).status_code == 400
    assert (
        client.post("/api/label", json={"position": 0, "label": "pass", "x": 1}).status_code == 400
    )
    assert client.post("/api/label", json={"position": 99, "label": "pass"}).status_code == 404
    assert client.get("/api/item/99").status_code == 404
    assert client.get("/api/item/nope").status_code == 404
    answer = client.post(
        "/api/label",
        content=b'{"position": 0, "label": "pass", "note": "\\ud800"}',
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 400
    assert not session.output.exists()


def test_undo_reopens_a_first_label_and_restores_an_earlier_one(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client = client_for(session)
    client.post("/api/label", json={"position": 0, "label": "pass"})
    client.post("/api/label", json={"position": 0, "label": "fail"})
    client.post("/api/label", json={"position": 1, "label": "unsure"})
    assert client.post("/api/undo", json={}).json() == {"position": 1, "label": None}
    assert client.get("/api/state").json()["items"][1]["label"] is None
    assert client.post("/api/undo", json={}).json() == {"position": 0, "label": "pass"}
    current = current_labels(read_events(session.output))
    assert current[("item-0", CRITERION.id, "ana", "label")].label == "pass"  # written again
    assert client.post("/api/undo", json={}).json() == {"position": 0, "label": None}
    assert client.post("/api/undo", json={}).json() == {"position": None, "label": None}


def test_a_restart_resumes_at_the_first_unlabelled_item(tmp_path: Path) -> None:
    first = session_for(tmp_path, order="random")
    client = client_for(first)
    for position in (0, 1, 2):
        client.post("/api/label", json={"position": position, "label": "pass"})
    again = session_for(tmp_path, order="random")  # same seed: same order
    state = client_for(again).get("/api/state").json()
    assert state["labelled"] == 3
    assert state["cursor"] == 3
    other = session_for(tmp_path, order="random", rater="ben")  # another rater starts afresh
    assert client_for(other).get("/api/state").json()["labelled"] == 0


def test_an_item_edited_after_labelling_is_labelled_again(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    client_for(session).post("/api/label", json={"position": 0, "label": "pass"})
    path = tmp_path / "items.jsonl"
    lines = path.read_text().splitlines()
    changed = json.loads(lines[0])
    changed["inputs"]["summary"] = "a different summary"
    path.write_text("\n".join([json.dumps(changed), *lines[1:]]) + "\n")
    items = read_label_items(path, CRITERION)
    placed, _ = next_items(items, order="file")
    resumed = LabelSession(CRITERION, placed, session.output, "ana", "file", None)
    assert resumed.labelled_ids() == set()


def test_the_judge_verdict_stays_hidden_until_the_item_is_labelled(tmp_path: Path) -> None:
    verdicts = {f"item-{i}": "fail" for i in range(6)}
    blind = session_for(tmp_path, verdicts=verdicts)
    client = client_for(blind)
    assert client.get("/api/state").json()["blind"] is True
    client.post("/api/label", json={"position": 0, "label": "pass"})
    assert client.get("/api/item/0").json()["judge"] is None  # blind: never sent
    shown = session_for(tmp_path, verdicts=verdicts, show_judge=True)
    client = client_for(shown)
    assert client.get("/api/item/1").json()["judge"] is None  # not labelled yet
    client.post("/api/label", json={"position": 1, "label": "pass"})
    assert client.get("/api/item/1").json()["judge"] == "fail"


def test_two_text_inputs_sit_side_by_side_and_a_step_list_is_a_trajectory(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    item = client_for(session).get("/api/item/0").json()
    assert item["layout"] == "side-by-side"
    assert [i["name"] for i in item["inputs"]] == ["source", "summary"]
    steps = [{"tool": "search", "arguments": {"q": "x"}, "result": "found"}]
    path = tmp_path / "traj.jsonl"
    path.write_text(
        json.dumps({"item_id": "t", "inputs": {"source": json.dumps(steps), "summary": "s"}})
        + "\n"
        + json.dumps(
            {
                "item_id": "r",
                "inputs": {"source": {"steps": steps, "final_answer": "a"}, "summary": "s"},
            }
        )
        + "\n"
    )
    placed, _ = next_items(read_label_items(path, CRITERION), order="file")
    traj = LabelSession(CRITERION, placed, tmp_path / "l.jsonl", "ana", "file", None)
    first = traj.item(0)
    assert first["inputs"][0]["kind"] == "trajectory"
    assert first["inputs"][0]["value"] == {"steps": steps}
    assert first["layout"] == "stacked"
    assert traj.item(1)["inputs"][0]["value"]["final_answer"] == "a"


def test_an_item_that_lacks_a_criterion_input_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        json.dumps({"item_id": "a", "inputs": {"source": "s", "summary": "t"}})
        + "\n"
        + json.dumps({"item_id": "b", "inputs": {"source": "s"}})
        + "\n"
    )
    with pytest.raises(InputError) as info:
        read_label_items(path, CRITERION)
    assert info.value.line == 2
    assert "summary" in str(info.value)


def test_the_random_order_is_stable_and_seeded_and_the_file_order_is_the_files(
    tmp_path: Path,
) -> None:
    items = read_label_items(write_items(tmp_path / "items.jsonl", 40), CRITERION)
    once, _ = next_items(items, order="random", seed=0)
    twice, _ = next_items(list(reversed(items)), order="random", seed=0)
    other, _ = next_items(items, order="random", seed=1)
    ids = [p.item.item_id for p in once]
    assert ids == [p.item.item_id for p in twice]  # whatever the file order
    assert ids != [p.item.item_id for p in other]
    assert sorted(ids) == sorted(i.item_id for i in items)
    in_file, used = next_items(items, order="file")
    assert used == "file"
    assert [p.item.item_id for p in in_file] == [i.item_id for i in items]
    assert [p.position for p in in_file] == list(range(40))


def test_gates_order_without_verdicts_says_so_and_falls_back_to_random(tmp_path: Path) -> None:
    items = read_label_items(write_items(tmp_path / "items.jsonl", 5), CRITERION)
    said: list[str] = []
    placed, used = next_items(items, order="gates", seed=3, warn=said.append)
    assert used == "random"
    assert "--verdicts" in said[0]
    assert placed[0].reason == "random order (seed 3)"


def test_overlap_double_codes_a_stable_share_and_splits_the_rest(tmp_path: Path) -> None:
    items = read_label_items(write_items(tmp_path / "items.jsonl", 1000), CRITERION)
    team = ["ana", "ben", "cy"]
    shares = {r: {i.item_id for i in assign_items(items, r, team, 0.2)} for r in team}
    everyone = shares["ana"] & shares["ben"] & shares["cy"]
    assert 150 <= len(everyone) <= 250  # about 20% of 1000, by a hash
    union = shares["ana"] | shares["ben"] | shares["cy"]
    assert len(union) == 1000  # nothing left out
    for rater in team:
        for other in team:
            if other != rater:
                assert shares[rater] & shares[other] == everyone  # only the overlap is shared
    # the same split whatever order the team is given in, and on every run
    assert {i.item_id for i in assign_items(items, "ana", ["cy", "ana", "ben"], 0.2)} == shares[
        "ana"
    ]
    assert {i.item_id for i in assign_items(items, "ana", [], 0.2)} == union
    none_shared = {r: {i.item_id for i in assign_items(items, r, team, 0.0)} for r in team}
    assert sum(len(s) for s in none_shared.values()) == 1000
    with pytest.raises(InputError, match="--raters"):
        assign_items(items, "dan", team, 0.2)


def _event(item_id: str, rater: str, label: str) -> LabelEvent:
    return LabelEvent(
        item_id=item_id,
        criterion=CRITERION.id,
        criterion_version=CRITERION.version,
        criterion_hash=CRITERION.content_hash,
        label=label,  # type: ignore[arg-type]
        rater=rater,
        labelled_at="2026-12-06T20:00:00Z",
        item_hash=item_content_hash(
            {"source": f"source text {item_id[-1]}", "summary": f"summary {item_id[-1]}"}
        ),
        pathjudge_version="0",
        order="file",
    )


def test_adjudication_lists_disagreements_and_writes_a_settled_line(tmp_path: Path) -> None:
    items = read_label_items(write_items(tmp_path / "items.jsonl", 4), CRITERION)
    output = tmp_path / "labels.jsonl"
    for event in [
        _event("item-0", "ana", "pass"),
        _event("item-0", "ben", "fail"),  # rater vs rater
        _event("item-1", "ana", "pass"),
        _event("item-1", "ben", "pass"),  # agree, but the judge says fail
        _event("item-2", "ana", "fail"),
        _event("item-2", "ben", "fail"),  # agree with the judge
    ]:
        append_label(output, event)
    judge = {"item-0": "fail", "item-1": "fail", "item-2": "fail", "item-3": "pass"}
    found = find_disagreements(items, read_events(output), CRITERION.id)
    assert [d.item.item_id for d in found] == ["item-0"]
    found = find_disagreements(items, read_events(output), CRITERION.id, judge)
    assert [d.item.item_id for d in found] == ["item-0", "item-1"]
    assert found[1].reason == "ana says pass, ben says pass; the judge says fail"
    from pathjudge.calibration.label_app import Placed

    session = LabelSession(
        CRITERION,
        [Placed(d.item, i, d.reason) for i, d in enumerate(found)],
        output,
        "lead",
        "adjudication",
        None,
        verdicts=judge,
        adjudicate=True,
        disagreements={d.item.item_id: d for d in found},
    )
    session.allowed_hosts = allowed_hosts("127.0.0.1", 8765)
    client = client_for(session)
    assert client.get("/api/state").json()["mode"] == "adjudication"
    shown = client.get("/api/item/0").json()
    assert shown["judge"] == "fail"
    assert {(o["rater"], o["label"]) for o in shown["others"]} == {("ana", "pass"), ("ben", "fail")}
    client.post("/api/label", json={"position": 0, "label": "fail", "note": "the date is invented"})
    current = current_labels(read_events(output))
    settled = current[("item-0", CRITERION.id, "lead", "adjudication")]
    assert settled.order == "adjudication"
    assert settled.reason == "ana says pass, ben says fail"
    assert current[("item-0", CRITERION.id, "ana", "label")].label == "pass"  # originals kept
    assert len(current) == 7


def test_the_cli_refuses_a_bad_order_and_a_bad_overlap_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write_items(tmp_path / "items.jsonl", 2)
    base = ["label", str(items), "--criterion", "summary-faithful", "-o", str(tmp_path / "l.jsonl")]
    assert main([*base, "--rater", "ana", "--order", "best", "--no-browser"]) == 2
    assert "--order" in capsys.readouterr().err
    assert main([*base, "--rater", "ana", "--overlap", "1.5", "--no-browser"]) == 2
    assert "--overlap" in capsys.readouterr().err


def test_a_fresh_token_in_the_url_wins_over_a_stale_cookie(tmp_path: Path) -> None:
    session = session_for(tmp_path)
    session.port = 8765
    client = TestClient(create_app(session), base_url=f"http://{HOST}")
    client.cookies.set(session.cookie, "token-of-an-earlier-run")
    assert client.get("/api/state").status_code == 403
    first = client.get(f"/?token={session.token}", follow_redirects=False)
    assert first.status_code == 303
    assert first.headers["set-cookie"].startswith(f"{session.cookie}=")
    assert session.cookie == "pathjudge_label_8765"  # one cookie per port


def test_a_lan_address_accepts_only_its_own_host_header() -> None:
    assert allowed_hosts("192.168.1.5", 8000) == frozenset({"192.168.1.5:8000"})
    assert "localhost:8000" in allowed_hosts("127.0.0.1", 8000)
    assert "[::1]:8000" in allowed_hosts("::1", 8000)


def test_without_the_label_extra_the_cli_names_the_pip_command(tmp_path: Path) -> None:
    items = write_items(tmp_path / "items.jsonl", 2)
    code = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None\n"
        "from pathjudge.cli import main\n"
        f"sys.exit(main(['label', {str(items)!r}, '--criterion', 'summary-faithful', "
        f"'-o', {str(tmp_path / 'l.jsonl')!r}, '--rater', 'ana', '--no-browser']))"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
        timeout=120,
    )
    assert done.returncode == 2
    assert "pip install 'pathjudge[label]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "l.jsonl").exists()


def test_a_wildcard_host_is_refused_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = write_items(tmp_path / "items.jsonl", 2)
    args = ["label", str(items), "--criterion", "summary-faithful", "-o", str(tmp_path / "l.jsonl")]
    assert main([*args, "--rater", "ana", "--host", "0.0.0.0", "--no-browser"]) == 2
    assert "LAN address" in capsys.readouterr().err


def test_the_judges_majority_is_read_from_a_verdicts_file(tmp_path: Path) -> None:
    from pathjudge.calibration.label_app import judge_verdicts

    path = tmp_path / "verdicts.jsonl"
    lines = [
        {"item_id": "a", "verdict": "pass", "criterion": CRITERION.id, "sample": 0},
        {"item_id": "a", "verdict": "fail", "criterion": CRITERION.id, "sample": 1},
        {"item_id": "a", "verdict": "fail", "criterion": CRITERION.id, "sample": 2},
        {"item_id": "b", "verdict": "pass", "criterion": "another"},
        {"item_id": "c", "verdict": "pass"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert judge_verdicts(path, CRITERION.id) == {"a": "fail", "c": "pass"}


def test_gates_order_places_labelled_items_first_then_the_queues_order(tmp_path: Path) -> None:
    # runs where pathjudge.calibration.queue (the gates ordering) is part of the tree
    pytest.importorskip("pathjudge.calibration.queue")
    from pathjudge.calibration.label_app import judge_votes

    items = read_label_items(write_items(tmp_path / "items.jsonl", 12), CRITERION)
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(
        "".join(
            json.dumps({"item_id": i.item_id, "verdict": ("pass", "fail")[n % 2]}) + "\n"
            for n, i in enumerate(items)
        )
    )
    votes = judge_votes(verdicts, CRITERION.id)
    labels = {
        e.item_id: e
        for e in (
            _event(f"item-{n}", "ana", "pass").model_copy(update={"reason": "earlier"})
            for n in (1, 3)
        )
    }
    placed, used = next_items(items, order="gates", seed=0, verdicts=votes, labels=labels)
    assert used == "gates"
    assert [p.position for p in placed] == list(range(12))
    assert {p.item.item_id for p in placed[:2]} == {"item-1", "item-3"}
    assert {p.item.item_id for p in placed} == {i.item_id for i in items}
    assert all(p.reason for p in placed)
    # every place knows its stratum (what the judge said) and the stratum's size, and the label
    # written from that place records both, so calibrate can weigh it by its design
    # (even items: the judge says pass, slice science; odd ones: fail, news)
    assert {p.stratum for p in placed} == {
        ("judge-pass | domain=science", 6),
        ("judge-fail | domain=news", 6),
    }
    session = LabelSession(CRITERION, placed, tmp_path / "labels.jsonl", "ana", used, 0)
    session.allowed_hosts = allowed_hosts("127.0.0.1", 8765)
    client = client_for(session)
    response = client.post("/api/label", json={"position": 2, "label": "pass"})
    assert response.status_code == 200, response.text
    (event,) = read_events(tmp_path / "labels.jsonl")
    assert (event.order, event.stratum, event.stratum_size) == ("gates", *placed[2].stratum)
    assert event.reason is not None
    assert event.reason.startswith("stratum judge-")
    # a rater's share of the file records each stratum's size over the whole file, so every
    # rater's labels weigh alike
    share, _ = next_items(items[:4], order="gates", seed=0, verdicts=votes, population=items)
    assert {p.stratum for p in share} == {
        ("judge-pass | domain=science", 6),
        ("judge-fail | domain=news", 6),
    }
