"""Match analysis jobs through the REST API on the whole platform, as real processes.

On the session's shared platform, as ``test_e2e_platform.py`` (``shared_platform.py``: Redis, the durable
store, the Rules and Evaluator services, two rollout workers with a small net and 60 ms per evaluator
call, the gateway): a short match is submitted with
``POST /v1/analyses``, polled to the end, and its JSON and annotated SGF must equal
:func:`pulvezar.analysis.match.analyse_match` run here; "analyse all" runs with server-sent events;
bad input is a 4xx problem naming the field.  Schemathesis checks the analysis endpoints for 5xx.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("celery")
pytest.importorskip("redis")

import test_e2e_platform as e2e
from procutil import wait_until

from pulvezar.analysis.match import AnalysisSettings, analyse_match, annotated_sgf
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.formats import read_mat, read_sgf

KEY = e2e.KEY
platform = e2e.platform  # the fixture: the shared platform, two live workers and empty queues

DATA = Path(__file__).resolve().parent / "data"
SHORT = DATA / "match1495872.txt"  # 1 point, 1 game
TINY = DATA / "gnubg_roll_then_resign_1p.mat"  # 1 point, 1 game of two plays
PROBLEM = "application/problem+json"

pytestmark = [pytest.mark.slow]


def reference(path: Path, model: Path) -> tuple[dict[str, Any], str]:
    """analyse_match at 0-ply here, with the workers' net and torch thread count."""
    import torch

    record = read_mat(path.read_bytes())
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ma = analyse_match(
            record, AnalysisSettings.from_level("0ply"), evaluator=NetEvaluator.load(model, device="cpu")
        )
    finally:
        torch.set_num_threads(before)
    return ma.to_json(), annotated_sgf(record, ma)


def difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (None when equal), for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in one"
            d = difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def fields(r: httpx.Response, status: int = 422) -> dict[str, str]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    body = r.json()
    assert body["status"] == status and body["title"] and body["type"].startswith("urn:pulvezar:problem:")
    return {e["field"]: e["reason"] for e in body.get("errors", [])}


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
        if "event" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_prune_false_reaches_the_workers_and_the_export(platform: Any) -> None:
    """``prune=false`` (a form field, as ``curl -F prune=false`` sends it) is recorded in the analysis's
    settings and is the library's unpruned analysis, in the JSON and the SGF's provenance line (the
    default, pruned, is the store's test: test_analysis_jobs.py)."""
    import torch

    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        files = {"file": (SHORT.name, SHORT.read_bytes())}
        r = c.post("/v1/analyses", files=files, data={"level": "1ply", "prune": "false"})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        wait_until(lambda: c.get(href, params={"games": "false"}).json()["state"] == "done", 60, "done")
        match = c.get(href).json()["matches"][0]
        sgf = c.get(match["sgf"]).text
        assert c.delete(href).status_code in (200, 204)
    assert match["summary"]["settings"]["prune"] is False and "unpruned search" in sgf
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        net = NetEvaluator.load(platform.model, device="cpu")
        want = analyse_match(
            read_mat(SHORT.read_bytes()), AnalysisSettings.from_level("1ply", prune=False), evaluator=net
        )
    finally:
        torch.set_num_threads(before)
    assert difference(match["games"], want.to_json()["games"]) is None


def test_analysis_through_the_api(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        body = {"file": SHORT.read_text(), "filename": SHORT.name, "level": "0ply"}
        r = c.post("/v1/analyses", json=body)
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        job = r.json()
        assert job["href"] == href and job["kind"] == "analysis" and job["level"] == "0ply"
        assert job["games_total"] == 1 and job["matches"][0]["players"] == ["lasse", "yuko"]
        assert job["state"] in ("queued", "running")

        seen = []
        deadline = time.monotonic() + 60
        while True:
            s = c.get(href, params={"games": "false"}).json()
            seen.append(s)
            assert s["state"] in ("queued", "running", "done"), s
            assert "games" not in s["matches"][0]
            if s["state"] == "done":
                break
            assert time.monotonic() < deadline, f"not done within 60 s: {s}"
            time.sleep(0.1)
        progress = [x["progress"] for x in seen]
        assert progress == sorted(progress) and progress[-1] == 1 and seen[-1]["eta_s"] == 0

        want_json, want_sgf = reference(SHORT, platform.model)
        final = c.get(href).json()
        match = final["matches"][0]
        assert match["state"] == "done"
        assert difference(match["games"], want_json["games"]) is None
        assert difference(match["summary"], {k: v for k, v in want_json.items() if k != "games"}) is None
        assert [p["name"] for p in match["summary"]["players"]] == ["lasse", "yuko"]
        assert c.get(f"{href}/result").json()["matches"] == final["matches"]  # the final report as a GET

        r = c.get(match["sgf"])
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-go-sgf")
        assert "match1495872-analysis.sgf" in r.headers["content-disposition"]
        assert r.text == want_sgf
        again = read_sgf(r.text)  # our reader takes it back: the same decisions in the same positions
        original = read_mat(SHORT.read_bytes())
        assert [(d.position.position_id, d.action) for d in again.replay()] == [
            (d.position.position_id, d.action) for d in original.replay()
        ]

        assert "match" in fields(c.get(f"{href}/sgf", params={"match": 3}))
        assert "job_id" in fields(c.get("/v1/analyses/0123456789abcdef01234567"), 404)
        assert c.delete(href).status_code == 204  # finished: its results are removed
        assert "job_id" in fields(c.get(href), 404)


def test_analyse_all_with_events_and_cancel(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        matches = [
            {"file": SHORT.read_text(), "filename": SHORT.name},
            {"file_base64": base64.b64encode(TINY.read_bytes()).decode(), "format": "mat"},
        ]
        r = c.post("/v1/analyses", json={"matches": matches, "level": "0ply"})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        assert r.json()["priority"] == "batch" and len(r.json()["matches"]) == 2
        with c.stream("GET", f"{href}/events", timeout=90) as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            text = "".join(s.iter_text())
        evs = events(text)
        assert evs[0][0] == "progress" and evs[-1][0] == "done", text[-2000:]
        final = evs[-1][1]
        assert final["games_done"] == final["games_total"] == 2
        assert [m["state"] for m in final["matches"]] == ["done", "done"]
        want_tiny, sgf_tiny = reference(TINY, platform.model)
        assert final["matches"][1]["summary"] == {k: v for k, v in want_tiny.items() if k != "games"}
        assert c.get(final["matches"][1]["sgf"]).text == sgf_tiny
        one = c.get(href, params={"match": 1}).json()  # only match 1's games
        assert "games" not in one["matches"][0] and len(one["matches"][1]["games"]) == 1
        assert list(fields(c.get(href, params={"match": 2}))) == ["match"]

        # a job cancelled at once stops; its state says so
        r = c.post("/v1/analyses", json={"matches": [matches[0]] * 3, "level": "0ply", "priority": "batch"})
        assert r.status_code == 202, r.text
        cancelled = r.headers["Location"]
        r = c.delete(cancelled)
        assert r.status_code == 200 and r.json()["state"] == "cancelled", r.text
        assert c.get(cancelled, params={"games": "false"}).json()["state"] == "cancelled"
        # resumed, it finishes: three times the same match, each analysed as the first job's
        r = c.post(f"{cancelled}/resume")
        assert r.status_code == 202 and r.json()["state"] in ("queued", "running"), r.text
        assert "job_id" in fields(c.post(f"{cancelled}/resume"), 409)  # already running
        wait_until(
            lambda: c.get(cancelled, params={"games": "false"}).json()["state"] == "done", 90, "resumed"
        )
        want_short, _ = reference(SHORT, platform.model)
        for m in c.get(cancelled).json()["matches"]:
            assert difference(m["games"], want_short["games"]) is None


def test_multipart_upload_as_curl_sends_it(platform: Any) -> None:
    """``curl -F file=@match.txt -F level=0ply``: the same job and analysis as the JSON body."""
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        files = {"file": (SHORT.name, SHORT.read_bytes(), "text/plain")}
        r = c.post("/v1/analyses", files=files, data={"level": "0ply", "priority": "interactive"})
        assert r.status_code == 202, r.text
        job = r.json()
        assert job["level"] == "0ply" and job["matches"][0]["players"] == ["lasse", "yuko"]
        href = r.headers["Location"]
        wait_until(
            lambda: c.get(href, params={"games": "false"}).json()["state"] == "done",
            60,
            "the upload's analysis",
        )
        want_json, want_sgf = reference(SHORT, platform.model)
        match = c.get(href).json()["matches"][0]
        assert difference(match["games"], want_json["games"]) is None
        assert c.get(match["sgf"]).text == want_sgf
        # the file as a text field (curl -F 'file=<match.txt'), its format given
        r = c.post("/v1/analyses", data={"file": TINY.read_text(), "format": "mat", "level": "0ply"})
        assert r.status_code == 202, r.text
        wait_until(
            lambda: c.get(r.headers["Location"]).json()["state"] == "done", 60, "the upload's analysis"
        )
        spec = c.get("/openapi.json").json()["paths"]["/v1/analyses"]["post"]["requestBody"]["content"]
        assert set(spec) == {"application/json", "multipart/form-data"}
        assert spec["multipart/form-data"]["schema"]["required"] == ["file"]


def test_bad_multipart_input_names_the_field(platform: Any) -> None:
    broken = b" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 77: 24/18 13/11\n"
    good = ("m.txt", SHORT.read_bytes())
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=60) as c:
        got = fields(c.post("/v1/analyses", files={"file": ("b.mat", broken)}))
        assert list(got) == ["file"] and "line 5" in got["file"]
        assert list(fields(c.post("/v1/analyses", data={"level": "0ply"}))) == ["file"]
        assert list(fields(c.post("/v1/analyses", files={"file": ("e.mat", b" ")}))) == ["file"]
        assert list(fields(c.post("/v1/analyses", files={"file": good}, data={"level": "7ply"}))) == ["level"]
        assert list(fields(c.post("/v1/analyses", files={"file": good}, data={"priority": "now"}))) == [
            "priority"
        ]
        assert list(fields(c.post("/v1/analyses", files={"file": good}, data={"colour": "red"}))) == [
            "colour"
        ]
        two = [("file", good), ("file", good)]
        assert list(fields(c.post("/v1/analyses", files=two))) == ["file"]
        as_file = {"file": good, "level": ("level.txt", b"0ply")}
        assert list(fields(c.post("/v1/analyses", files=as_file))) == ["level"]
        huge = {"file": ("big.mat", b"x" * (4 * 1024 * 1024 + 1))}
        assert list(fields(c.post("/v1/analyses", files=huge), 413)) == ["file"]
        r = c.post(
            "/v1/analyses",
            content=b"--xx\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--xx--\r\n",
            headers={"content-type": "multipart/form-data; boundary=xx"},
        )
        assert 400 <= r.status_code < 500 and r.headers["content-type"] == PROBLEM
        assert "file" in {e["field"] for e in r.json()["errors"]}
    assert platform.queues_empty()


def test_bad_input_is_a_problem_naming_the_field(platform: Any) -> None:
    broken = " 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 77: 24/18 13/11\n"
    good = SHORT.read_text()
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=60) as c:
        got = fields(c.post("/v1/analyses", json={"file": broken}))
        assert list(got) == ["file"] and "line 5, column 6" in got["file"]
        got = fields(c.post("/v1/analyses", json={"matches": [{"file": good}, {"file": broken}]}))
        assert list(got) == ["matches[1].file"] and "line 5" in got["matches[1].file"]
        assert list(fields(c.post("/v1/analyses", json={"file": good, "level": "7ply"}))) == ["level"]
        assert "level" in fields(c.post("/v1/analyses", json={"file": good, "level": "deep"}))  # not allowed
        assert list(fields(c.post("/v1/analyses", json={}))) == ["file"]
        assert list(fields(c.post("/v1/analyses", json={"file": "  "}))) == ["file"]
        assert list(fields(c.post("/v1/analyses", json={"file_base64": "###"}))) == ["file_base64"]
        assert list(fields(c.post("/v1/analyses", json={"file": good, "format": "doc"}))) == ["format"]
        both = {"file": good, "matches": [{"file": good}]}
        assert list(fields(c.post("/v1/analyses", json=both))) == ["matches"]
        assert list(fields(c.post("/v1/analyses", json={"file": good, "colour": "red"}))) == ["colour"]
        # over the upload limit (4 MiB by default): 413 naming the file, no job
        huge = "x" * (4 * 1024 * 1024 + 1)
        assert list(fields(c.post("/v1/analyses", json={"file": huge}), 413)) == ["file"]
        r = c.post("/v1/analyses", json={"file": good}, headers={"X-API-Key": "wrong"})
        assert r.status_code == 401
    assert platform.queues_empty()


def test_schemathesis_finds_no_server_errors_in_redis_backed_routes(platform: Any, tmp_path: Path) -> None:
    """The operations that need Redis or the durable store (analyses, evaluation jobs, daily puzzles, similar
    positions, the library, games, stored matches, players) with both behind them, valid and invalid
    input: no 5xx (test_gateway.py covers the rest without them)."""
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("st")
    if st is None:
        pytest.skip("schemathesis is not installed")
    cmd = [
        st, "run", f"{platform.base}/openapi.json",
        "--checks", "not_a_server_error",
        "--header", f"X-API-Key: {KEY}",
        "--include-path-regex",
        "analyses|evaluations|daily|similar|library|games|matches|players|exercises|lessons|quiz",
        # a valid deep analysis is minutes of the workers' time (its bad input: test_deep_analyses.py)
        "--exclude-path-regex", "deep-analyses",
        "--max-examples", "8",
        "--phases", "examples,coverage,fuzzing",
        "--seed", "20261129",
        "--request-timeout", "30",
        "--workers", "1",
        "--suppress-health-check", "all",
        "--report", "junit", "--report-dir", str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "SCHEMATHESIS_HOOKS": ""}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    print(out.stdout[-4000:])
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
