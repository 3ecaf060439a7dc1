"""Issue 41: the jobs name their engine (``provenance``): how a job's chunk records name theirs, and
the gateway's rollout results on the session's shared platform (``shared_platform.py``: real workers
with a small net of their own, so the net they name is that file's, not a shipped one).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import pulvezar
from pulvezar.eval.provenance import file_sha256
from pulvezar.formats.sgf import read_sgf
from services.jobs.provenance import Engine, engine_of, job_engine, job_provenance

START = "4HPwATDgc/ABMA"
KEY = "e2e-key"
V4 = {"name": "pulvezar", "version": "1.0", "model": "pulvezar-v4", "model_sha256": "a" * 64}
V3 = {"name": "pulvezar", "version": "1.0", "model": "pulvezar-v3", "model_sha256": "b" * 64}


def test_a_job_names_one_net_only_when_its_chunks_agree() -> None:
    v4 = Engine(model="pulvezar-v4", model_sha256="a" * 64, version="1.0")
    assert job_engine([]) == (None, [])
    assert job_engine([None, {"engine": V4}, {"engine": V4}]) == (v4, [v4])
    # a failed chunk's record computed nothing: it names no net
    assert job_engine([{"engine": V4}, {"error": "chunk 1 failed", "failed": 1.0}]) == (v4, [v4])
    engine, engines = job_engine([{"engine": V4}, {"engine": V3}, {"engine": V4}])
    assert engine is None and [e.model for e in engines] == ["pulvezar-v4", "pulvezar-v3"]
    # the same net with another pulvezar is another engine too
    assert job_engine([{"engine": V4}, {"engine": {**V4, "version": "1.1"}}])[0] is None
    # a record written before records named their engine: an unknown one, not the other chunks' net
    engine, engines = job_engine([{"engine": V4}, {"values": ""}])
    assert engine is None and engines[1] == Engine(model=None, model_sha256=None, version="unknown")
    assert job_provenance([{"engine": V4}]) == {"provenance": v4.model_dump()}
    assert set(job_provenance([{"engine": V4}, {"engine": V3}])) == {"provenance", "engines"}


@pytest.fixture(scope="module")
def platform(shared_platform: Any) -> Any:
    shared_platform.ready(1)
    return shared_platform


@pytest.fixture(scope="module")
def http(platform: Any) -> Any:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        yield c


def _finished(http: httpx.Client, href: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = http.get(href).json()
        if body["state"] in ("done", "failed", "cancelled"):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


def _the_workers_net(platform: Any, p: dict[str, Any] | None) -> None:
    assert p is not None
    assert p["model_sha256"] == file_sha256(platform.model)
    assert p["model"] == platform.model.stem and p["version"] == pulvezar.__version__


def test_a_rollout_names_the_workers_net(platform: Any, http: httpx.Client) -> None:
    r = http.post("/v1/rollouts", json={"position": START, "trials": 72, "truncate": 2, "seed": 1})
    assert r.status_code == 202, r.text
    body = _finished(http, r.json()["href"])
    assert body["state"] == "done", body
    _the_workers_net(platform, body["provenance"])
    assert "engines" not in body
    result = http.get(r.json()["href"] + "/result").json()
    _the_workers_net(platform, result["provenance"])


TINY = Path(__file__).resolve().parent / "data" / "gnubg_roll_then_resign_1p.mat"  # 1 game of two plays


@pytest.fixture(scope="module")
def analysis(http: httpx.Client) -> dict[str, Any]:
    """A finished 0-ply analysis of a one-game match through the gateway."""
    body = {"file": TINY.read_text(), "filename": TINY.name, "level": "0ply"}
    r = http.post("/v1/analyses", json=body)
    assert r.status_code == 202, r.text
    job = _finished(http, r.headers["Location"])
    assert job["state"] == "done", job
    return job


def test_an_analysis_names_the_workers_net(platform: Any, analysis: dict[str, Any]) -> None:
    _the_workers_net(platform, analysis["provenance"])
    (match,) = analysis["matches"]
    assert match["provenance"] == analysis["provenance"] and "engines" not in analysis
    # the stored analysis's engine says the same (the summary, each game)
    stored = engine_of(match["summary"]["engine"]).model_dump()
    assert stored == analysis["provenance"]
    assert all(engine_of(g["engine"]).model_dump() == stored for g in match["games"])
    # the settings that made it, beside the net (level 0ply: no search to prune)
    assert analysis["settings"] == match["summary"]["settings"]
    assert (analysis["settings"]["level"], analysis["settings"]["ply"]) == ("0ply", 0)
    assert "prune" in analysis["settings"]


def test_an_analysis_export_names_the_net_and_settings(analysis: dict[str, Any], http: httpx.Client) -> None:
    p = analysis["provenance"]
    sgf = http.get(analysis["matches"][0]["sgf"])
    assert sgf.status_code == 200, sgf.text
    comment = read_sgf(sgf.text).tags["GC"]
    assert f"with the net {p['model']} (SHA-256 {p['model_sha256']}); level 0ply: " in comment


def test_a_job_kind_names_the_workers_net(platform: Any, http: httpx.Client) -> None:
    r = http.post("/v1/evaluations", json={"positions": [START], "ply": 0, "priority": "interactive"})
    assert r.status_code == 202, r.text
    job = _finished(http, r.headers["Location"])
    assert job["state"] == "done", job
    _the_workers_net(platform, job["provenance"])
    assert job["engines"] is None


def test_a_chunk_on_the_evaluator_service_names_the_services_net(platform: Any) -> None:
    from services.common.remote_evaluator import GrpcEvaluator
    from services.jobs.provenance import chunk_engine

    client = GrpcEvaluator(platform.evaluator.address)
    try:
        assert client.model == ""  # nothing evaluated through it yet: the engine asks the service
        engine = chunk_engine(client)
    finally:
        client.close()
    assert engine["model_sha256"] == file_sha256(platform.model) and engine["remote"] is True
    assert engine["evaluator"] == "GrpcEvaluator" and engine["version"] == pulvezar.__version__


def _puzzle(date: str, sha: str | None) -> dict[str, Any]:
    """A stored daily puzzle (the worker's shape, pulvezar.archive.daily.DailyPuzzle) made by net ``sha``."""
    play = {"play": "8/5 6/5", "position_id": "4HPwATDgc/ABMA"}
    settings: dict[str, Any] = {"trials": 324} | ({"model_sha256": sha} if sha is not None else {})
    return {
        "date": date, "kind": "position", "rules": "international", "position_id": START,
        "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "dice": [3, 1], "match_length": 0,
        "score": [0, 0], "cube_value": 1, "cube_owner": "centre", "game": 0, "move": 1,
        "position_type": {"kind": "opening", "side": None, "plan": None}, "candidates": [play],
        "answer": play, "reason": {"en": "", "de": "", "tr": ""}, "selection": {}, "settings": settings,
        "version": 1, "seed": "00",
    }  # fmt: skip


def test_a_daily_puzzle_names_the_net_that_made_it(platform: Any, http: httpx.Client) -> None:
    from pulvezar.eval.evaluator import default_model_path
    from services.store.archive import DailyRecords

    shipped = default_model_path()
    daily = DailyRecords(platform.database)
    for date, sha in (("1999-01-01", file_sha256(shipped)), ("1999-01-02", None), ("1999-01-03", "f" * 64)):
        daily.put(date, "international", "position", json.dumps(_puzzle(date, sha)))
    named = http.get("/v1/daily/1999-01-01").json()["provenance"]
    assert named == {"model": shipped.stem, "model_sha256": file_sha256(shipped), "version": "unknown"}
    # a puzzle stored without the SHA-256 names no net; one of a net this gateway has no file of, its hash
    assert http.get("/v1/daily/1999-01-02").json()["provenance"] == {
        "model": None,
        "model_sha256": None,
        "version": "unknown",
    }
    assert http.get("/v1/daily/1999-01-03").json()["provenance"]["model_sha256"] == "f" * 64
