"""Issue 41: every evaluation the gateway answers names its engine (``provenance``), and the net it names
is one ``GET /v1/models`` lists with the same SHA-256; real Rules and Evaluator services and the gateway.

Rollout, analysis and job-kind results, and the analysis's SGF, are walked on the shared platform (their
workers' own net) in test_provenance_jobs.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest

import pulvezar
from pulvezar import Position
from pulvezar.book.model import book_path
from pulvezar.eval.evaluator import default_model_path
from pulvezar.eval.provenance import EngineInfo, file_sha256

if TYPE_CHECKING:
    from conftest import GatewayProcess, ServiceProcess

KEY = "provenance-key"
START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def http(
    gateway_process: type[GatewayProcess], rules_service: ServiceProcess, start: Any
) -> Iterator[httpx.Client]:
    ev = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "1"})
    env = {"PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: {"name": "t", "rate_per_s": 1000, "burst": 1000}})}
    gw = gateway_process(env, rules=rules_service.address, evaluator=ev.address, ready="/readyz")
    with httpx.Client(base_url=gw.base, headers={"X-API-Key": KEY}, timeout=60) as c:
        yield c
    gw.stop()
    ev.terminate()


def test_models_lists_the_nets_and_the_served_one(http: httpx.Client) -> None:
    # a /v1 route: a key is required
    assert httpx.get(str(http.base_url.join("/v1/models"))).status_code == 401
    r = http.get("/v1/models")
    assert r.status_code == 200, r.text
    body = r.json()
    default = default_model_path()
    (d,) = [m for m in body["models"] if m["default"]]
    assert (d["name"], d["sha256"]) == (default.stem, file_sha256(default))
    assert body["served"]["sha256"] == d["sha256"] and d["served"] and body["version"] == pulvezar.__version__
    assert sum(m["served"] for m in body["models"]) == 1


def test_every_evaluation_names_a_listed_net(http: httpx.Client) -> None:
    listed = {m["name"]: m["sha256"] for m in http.get("/v1/models").json()["models"]}
    served = http.get("/v1/models").json()["served"]["sha256"]
    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3}).position_id
    lost = Position.from_points({6: 5}, {1: 1}).position_id
    calls = {
        "hint": http.post("/v1/hint", json={"position": START, "dice": [3, 1], "limit": 2}),
        "evaluate": http.post("/v1/evaluate", json={"positions": [START]}),
        "best-play": http.post("/v1/best-play", json={"position": START, "dice": [3, 1]}),
        "cube-decision": http.post("/v1/cube-decision", json={"position": race}),
        "resignation": http.post("/v1/resignation", json={"position": lost, "resignation": "single"}),
    }
    for route, r in calls.items():
        assert r.status_code == 200, (route, r.text)
        p = r.json()["provenance"]
        assert p["model_sha256"] == served and listed[p["model"]] == served, route
        assert p["version"] == pulvezar.__version__
        if "model" in r.json():  # the field they had before: the SHA-256
            assert r.json()["model"] == served
    for variant in ("international", "tavla"):
        for params in ({"rules": variant}, {"rules": variant, "roll": "31"}):
            r = http.get("/v1/opening-book", params=params)
            assert r.status_code == 200, r.text
            # the book file's own net (the books are made again with a new net later), not the served one
            stored = json.loads(book_path(variant).read_text())["engine"]
            p = r.json()["provenance"]
            want = EngineInfo.from_json(stored)
            assert (p["model"], p["model_sha256"]) == (want.model, want.model_sha256)
            assert listed[p["model"]] == p["model_sha256"]
