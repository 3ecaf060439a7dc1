"""The REST gateway: the real thing over HTTP (uvicorn subprocess, real Rules and Evaluator services),
in-process unit tests (fake job store, limits) and schemathesis against its OpenAPI spec."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx
import pytest
from cheap_evaluator import Cheap
from fastapi.testclient import TestClient

from pulvezar import XGID, Position, Rules
from pulvezar.i18n import LANGUAGES
from pulvezar.rules.ogid import from_ogid, to_ogid
from services.gateway.app import create_app
from services.gateway.problems import field_path, grpc_field
from services.gateway.security import TokenBucket
from services.gateway.settings import GatewaySettings

if TYPE_CHECKING:
    from conftest import GatewayProcess, ServiceProcess

    from services.jobs.kinds.rollout import Rollouts

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "formats" / "data"
START = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
KEY, TIGHT, QUOTA, SPENT = "test-key-1", "tight-key-2", "quota-key-3", "spent-key-4"
KEYS = {
    SPENT: {"name": "spent", "rate_per_s": 1000, "burst": 1000, "daily_core_s": 0},
    KEY: {"name": "tests", "rate_per_s": 10000, "burst": 10000},
    TIGHT: {"name": "tight", "rate_per_s": 0.01, "burst": 3},
    QUOTA: {"name": "quota", "rate_per_s": 1000, "burst": 1000, "daily_jobs": 2, "daily_trials": 5000},
}
PROBLEM = "application/problem+json"


def problem(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    body: dict[str, Any] = r.json()
    assert body["status"] == status and body["title"] and body["type"]
    return body


def fields(r: httpx.Response, status: int = 422) -> list[str]:
    return [e["field"] for e in problem(r, status).get("errors", [])]


# ---- the real gateway over HTTP --------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluator_service(start: Any) -> Iterator[ServiceProcess]:
    svc = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "1"})
    yield svc
    svc.terminate()


@pytest.fixture(scope="module")
def gateway(
    gateway_process: type[GatewayProcess], rules_service: ServiceProcess, evaluator_service: ServiceProcess
) -> Iterator[str]:
    env = {
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(KEYS),
        "PULVEZAR_GATEWAY_CORS_ORIGINS": json.dumps(["https://app.example"]),
        "PULVEZAR_GATEWAY_MAX_BODY_BYTES": str(64 * 1024),
        "PULVEZAR_GATEWAY_MAX_UPLOAD_BYTES": str(200 * 1024),
        "PULVEZAR_GATEWAY_MAX_HINT_PLY": "1",
        "PULVEZAR_GATEWAY_MAX_POSITIONS": "64",
    }
    gw = gateway_process(
        env, rules=rules_service.address, evaluator=evaluator_service.address, ready="/readyz"
    )
    yield gw.base
    gw.stop()


@pytest.fixture(scope="module")
def http(gateway: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway, headers={"X-API-Key": KEY}, timeout=30) as c:
        yield c


def test_keys_are_required(gateway: str) -> None:
    for headers in ({}, {"X-API-Key": "wrong"}, {"X-API-Key": ""}):
        r = httpx.get(f"{gateway}/v1/positions/{START}", headers=headers)
        assert fields(r, 401) == ["X-API-Key"]
        assert "WWW-Authenticate" in r.headers
    r = httpx.post(f"{gateway}/v1/legal-plays", json={"position": START, "dice": [3, 1]})
    problem(r, 401)
    # health, metrics and the API description are open
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"):
        assert httpx.get(f"{gateway}{path}").status_code == 200, path


def test_board_png_to_share(http: httpx.Client) -> None:
    """A PNG of a position to share (issue 30): a play's arrows, dice, cube, score and a caption."""
    import struct

    def size(r: httpx.Response) -> tuple[int, int]:
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "image/png" and r.content[:8] == b"\x89PNG\r\n\x1a\n"
        return struct.unpack(">II", r.content[16:24])

    plain = http.get(f"/v1/positions/{START}/board.png")
    with_play = http.get(f"/v1/positions/{START}/board.png", params={"play": "8/5 6/5", "dice": "31"})
    assert size(plain) == size(with_play) and plain.content != with_play.content
    captioned = http.get(
        f"/v1/positions/{START}/board.png",
        params=[("caption", "8/5 6/5 makes the 5-point"), ("caption", "x")],
    )
    assert size(captioned)[1] == size(plain)[1] + 40 and size(captioned)[0] == size(plain)[0]
    scored = http.get(f"/v1/positions/{START}:MAHgAAAAAAAA/board.png")  # a 7-point match
    assert size(scored) == size(plain) and scored.content != plain.content
    for params, field in (
        ({"play": "24/18", "dice": "31"}, "play"),  # not a play of 3-1
        ({"play": "8-5"}, "play"),
        ({"dice": "71"}, "dice"),
        ([("caption", "a"), ("caption", "b"), ("caption", "c")], "caption"),
        ({"caption": "a\x08b"}, "caption[0]"),  # no character XML refuses (was a 500 from the renderer)
    ):
        assert fields(http.get(f"/v1/positions/{START}/board.png", params=params)) == [field], params
    assert fields(http.get("/v1/positions/nonsense/board.png")) == ["position"]


def same_game(xgid: str, other: str) -> bool:
    """Two XGIDs of the same game (the dice in either order: an OGID writes the low die first)."""
    a, b = XGID.parse(xgid), XGID.parse(other)
    return replace(a, dice="".join(sorted(a.dice))) == replace(b, dice="".join(sorted(b.dice)))


def test_positions_decode_every_id_form(http: httpx.Client) -> None:
    r = http.get(f"/v1/positions/{START}")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["kind"] == "position_id" and body["position_id"] == START
    assert body["pips"] == {"player": 167, "opponent": 167}
    assert body["board"]["mine"] == list(Position.start().mine)
    assert body["xgid"] == str(XGID.from_position(Position.start()))
    assert body["gnubg_id"] is None and body["match"] is None
    assert "X: pips 167" in body["diagram"]
    assert body["position_type"]["kind"] == "opening" and body["position_type"]["plan"]

    r = http.get(f"/v1/positions/{START}:MAHgAAAAAAAA")  # a 7-point match, nothing rolled
    body = r.json()
    assert body["kind"] == "gnubg_id" and body["gnubg_id"] == f"{START}:MAHgAAAAAAAA"
    assert body["match"]["match_length"] == 7

    r = http.get(f"/v1/positions/{START_XGID}")
    body = r.json()
    assert body["kind"] == "xgid" and body["position_id"] == START and body["dice"] == [5, 2]
    assert body["xgid"] == START_XGID
    # OpenGammon's OGID: the same state as the XGID's, given and shown (issue 45)
    ogid = body["ogid"]
    assert same_game(from_ogid(ogid).to_xgid().encode(), START_XGID)
    r = http.get(f"/v1/positions/{quote(ogid, safe='')}")
    body = r.json()
    assert body["kind"] == "ogid" and body["ogid"] == ogid and same_game(body["xgid"], START_XGID)
    assert body["position_id"] == START and sorted(body["dice"]) == [2, 5]
    assert http.get(f"/v1/positions/{START}:MAHgAAAAAAAA").json()["ogid"].endswith(":0:0:7:0")
    # a Position ID's '/' and '+' may be URL-encoded
    p = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 4, 24: 2, 25: 1})
    assert (
        http.get(f"/v1/positions/{p.position_id.replace('/', '%2F').replace('+', '%2B')}").json()[
            "position_id"
        ]
        == p.position_id
    )


def test_malformed_ids_are_422_naming_the_field(http: httpx.Client) -> None:
    bad_ogids = ("11ccccchhhjjjjj:66666888dddddoo:X0N::W", "OGID=1:1:N0N::W")  # malformed, impossible
    for bad in (
        "garbage",
        "4HPwATDgc/ABMX",
        f"{START}:zzzz",
        "XGID=-b--:0:0:1:52:0:0:0:0:10",
        "x" * 150,
        *bad_ogids,
    ):
        r = http.get(f"/v1/positions/{bad}")
        assert fields(r) == ["position"], bad
        assert fields(http.get(f"/v1/positions/{bad}/board.svg")) == ["position"]


def test_board_svg_parses_as_xml_with_ids(http: httpx.Client) -> None:
    r = http.get(f"/v1/positions/{START_XGID}/board.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(r.content)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    texts = [t.text or "" for t in root.iter(f"{ns}text")]
    assert f"Position ID: {START}" in texts
    assert f"XGID: {START_XGID}" in texts
    assert any(t.startswith(f"GNUbg ID: {START}:") for t in texts)
    assert any(
        t.startswith("OGID: ") and same_game(from_ogid(t[6:]).to_xgid().encode(), START_XGID) for t in texts
    )
    checkers = [c for c in root.iter(f"{ns}circle") if c.get("r") == "16"]
    assert len(checkers) == 30
    assert len([p for p in root.iter(f"{ns}polygon") if p.get("class") == "point"]) == 24
    # a stack of more than five shows its count; borne-off checkers are drawn in the tray
    p = Position.from_points({6: 9, 5: 3}, {24: 6})  # 3 and 9 borne off
    root = ET.fromstring(http.get(f"/v1/positions/{p.position_id}/board.svg").content)
    texts = [t.text or "" for t in root.iter(f"{ns}text")]
    assert "9" in texts and "6" in texts and "On roll: pips 69, off 3" in texts


def test_legal_plays_international_and_tavla(http: httpx.Client) -> None:
    r = http.post("/v1/legal-plays", json={"position": START, "dice": [3, 1]})
    assert r.status_code == 200, r.text
    want = Rules.international().legal_plays(Position.start(), (3, 1))
    assert [p["notation"] for p in r.json()["plays"]] == [p.notation for p in want]
    assert r.json()["count"] == len(want)

    tavla = {"variant": "tavla", "hit_and_stop": True}
    board = {"mine": list(Position.start().mine), "theirs": list(Position.start().theirs)}
    for position in (START_XGID, board):
        r = http.post("/v1/legal-plays", json={"position": position, "dice": [6, 4], "rules": tavla})
        want = Rules.tavla(hit_and_stop=True).legal_plays(Position.start(), (6, 4))
        assert [p["notation"] for p in r.json()["plays"]] == [p.notation for p in want]

    r = http.post(
        "/v1/apply-play", json={"position": START, "dice": [3, 1], "notation": "8/5  6/5"}
    )  # tolerant notation
    assert r.json()["play"]["next_position_id"] == "sGfwATDgc/ABMA"


def test_hints_international_and_tavla(http: httpx.Client) -> None:
    import pulvezar

    r = http.post("/v1/hint", json={"position": START, "dice": [3, 1], "limit": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["legal_plays"] == 16 and len(body["candidates"]) == 3
    assert body["candidates"][0]["notation"] == "8/5 6/5" and body["candidates"][0]["loss"] == 0
    assert "Evaluator service" in body["engine"]
    # the position type and why the best beats the second, as analyses give them (issue 30)
    from pulvezar.analysis import classify, explain

    t = classify(Position.start())
    assert body["position_type"] == {"kind": t.kind, "side": t.side, "plan": t.plan}
    second = body["candidates"][1]["notation"]
    want_why = explain(Position.start(), (3, 1), "8/5 6/5", second, evaluator=pulvezar.default_evaluator())
    assert body["why"] == {lang: want_why.text(lang) for lang in LANGUAGES}
    assert body["reasons"] == want_why.as_dicts()
    one = http.post("/v1/hint", json={"position": START, "dice": [3, 1], "limit": 1}).json()
    assert one["why"] is None and one["position_type"]["kind"] == "opening"

    tavla = {"variant": "tavla", "must_bear_off": True}
    p = Position.from_points({1: 3, 2: 4, 4: 4, 6: 4}, {20: 5, 22: 10})
    r = http.post("/v1/hint", json={"position": p.position_id, "dice": [6, 2], "rules": tavla, "ply": 1})
    assert r.status_code == 200, r.text
    want = pulvezar.hint(p, (6, 2), ply=1, rules=Rules.tavla(must_bear_off=True))
    got = r.json()["candidates"]
    assert [c["notation"] for c in got] == [c.notation for c in want][:20]
    assert got[0]["equity"] == pytest.approx(want[0].equity) and got[0]["ply"] == 1

    assert fields(http.post("/v1/hint", json={"position": START, "dice": [3, 1], "ply": 3})) == ["ply"]
    # cubeful, via the service's CubeContext
    cube = {"value": 2, "owner": "player", "match_length": 7, "score": 2, "opponent_score": 4}
    r = http.post("/v1/hint", json={"position": START, "dice": [6, 4], "cube": cube, "limit": 1})
    assert r.status_code == 200, r.text
    want = pulvezar.hint(pulvezar.CubeState(Position.start(), 2, "player", 7, (2, 4)), (6, 4))
    got = r.json()["candidates"][0]
    assert got["notation"] == want[0].notation
    assert got["cubeful_equity"] == pytest.approx(want[0].cubeful_equity, abs=1e-6) == got["equity"]
    tavla_cube = {"position": START, "dice": [3, 1], "rules": tavla, "cube": {}}
    assert fields(http.post("/v1/hint", json=tavla_cube)) == ["cube"]


def test_answers_at_once_are_charged_their_engine_time_and_a_spent_day_refuses_them(
    http: httpx.Client,
) -> None:
    """What a request computes at once is costed too: its calls to the services' engine are charged to the
    key's core-seconds of the day (at most the request's own time), and a key whose day is spent is refused
    them with the jobs' 429, while routes that compute nothing still answer."""
    used = lambda: http.get("/v1/usage").json()["core_s"]["used"]  # noqa: E731
    before = used()
    assert used() == before  # the usage route itself costs nothing
    start = time.perf_counter()
    r = http.post("/v1/hint", json={"position": START, "dice": [3, 1], "ply": 1, "limit": 2})
    took = time.perf_counter() - start
    assert r.status_code == 200, r.text
    hinted = used()
    assert 0 < hinted - before <= took
    assert http.post("/v1/legal-plays", json={"position": START, "dice": [6, 6]}).status_code == 200
    assert used() > hinted
    metrics = http.get("/metrics").text
    assert 'pulvezar_gateway_engine_seconds_total{client="tests"}' in metrics

    spent = {"X-API-Key": SPENT}
    for path, body in (
        ("/v1/hint", {"position": START, "dice": [3, 1]}),
        ("/v1/evaluate", {"positions": [START]}),
    ):
        r = http.post(path, json=body, headers=spent)
        doc = problem(r, 429)
        assert doc["type"].endswith("quota-exceeded") and "0 core-seconds" in doc["detail"], doc
        assert doc["limit_core_s"] == 0 and int(r.headers["Retry-After"]) >= 1
    assert http.get("/v1/usage", headers=spent).json()["core_s"]["used"] == 0  # refused before computing
    assert http.get(f"/v1/positions/{quote(START, safe='')}", headers=spent).status_code == 200


def test_cube_decisions_money_and_match(http: httpx.Client) -> None:
    from pulvezar.cube import CubeState, cube_decision

    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
    r = http.post("/v1/cube-decision", json={"position": race.position_id, "ply": 1})
    assert r.status_code == 200, r.text
    body, want = r.json(), cube_decision(CubeState(race), ply=1)
    assert body["action"] == want.action and body["double"] == want.double and body["ply"] == 1
    assert body["equities"]["no_double"] == pytest.approx(want.nd, abs=1e-6)
    assert body["equities"]["double_take"] == pytest.approx(want.dt, abs=1e-6)
    assert body["mwc"] is None and body["take_point"] == 0.25 and body["taker_response"] == want.response
    assert set(body["costs"]) >= {"no double", "double", "take", "pass"}
    # a match: the player on roll 2-away, the opponent 4-away, the XGID form of the start
    cube = {"match_length": 7, "score": 5, "opponent_score": 3}
    r = http.post("/v1/cube-decision", json={"position": START_XGID, "cube": cube, "level": "hard"})
    assert r.status_code == 200, r.text
    body = r.json()
    want = cube_decision(CubeState(Position.start(), match_length=7, score=(5, 3)), ply=1)
    assert body["action"] == want.action and body["mwc"]["no_double"] == pytest.approx(want.mwc_nd, abs=1e-6)
    assert body["take_point"] == pytest.approx(want.take_point)
    assert body["gammon_price"]["player"] == pytest.approx(want.gammon_price.me)
    # problems naming the field
    assert fields(http.post("/v1/cube-decision", json={"position": START, "ply": 2})) == ["ply"]
    assert fields(http.post("/v1/cube-decision", json={"position": START, "cube": {"value": 3}})) == [
        "cube.value"
    ]
    bad_score = {"position": START, "cube": {"match_length": 5, "score": 5}}
    assert fields(http.post("/v1/cube-decision", json=bad_score)) == ["cube.score"]
    assert fields(http.post("/v1/cube-decision", json={"position": START, "cube": {"crawford": True}})) == [
        "cube.crawford"
    ]
    assert fields(http.post("/v1/cube-decision", json={"position": "nope"})) == ["position"]


def _pruning_matters() -> tuple[Position, tuple[int, int]]:
    """A decision (seeded random play) whose 1-ply hint pruning changes, found by the library."""
    import random

    import pulvezar

    rng, intl, p = random.Random(41), Rules.international(), Position.start()
    for _ in range(300):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = intl.legal_plays(p, dice)
        pruned = {c.notation: c.equity for c in pulvezar.hint(p, dice, ply=1)}
        plain = {c.notation: c.equity for c in pulvezar.hint(p, dice, ply=1, prune=False)}
        if max(abs(pruned[k] - plain[k]) for k in pruned) > 1e-3:
            return p, dice
        p = plays[rng.randrange(len(plays))].position.swap()
        if intl.game_result(p.swap()) is not None or not p.is_contact():
            p = Position.start()
    raise AssertionError("no decision where pruning changes the 1-ply hint")


def test_prune_reaches_the_evaluator_service(http: httpx.Client) -> None:
    """Hints and cube decisions prune by default; ``prune: false`` is the library's unpruned search."""
    import pulvezar
    from pulvezar.cube import CubeState, cube_decision

    p, dice = _pruning_matters()
    body = {"position": p.position_id, "dice": list(dice), "ply": 1, "limit": 1000}
    for prune in (True, False):
        r = http.post("/v1/hint", json=body if prune else {**body, "prune": False})
        assert r.status_code == 200, r.text
        want = pulvezar.hint(p, dice, ply=1, prune=prune)
        got = {c["notation"]: c["equity"] for c in r.json()["candidates"]}
        assert got == pytest.approx({c.notation: c.equity for c in want}, abs=1e-6)
        r = http.post("/v1/cube-decision", json={"position": p.position_id, "ply": 1, "prune": prune})
        assert r.status_code == 200, r.text
        nd = cube_decision(CubeState(p), ply=1, prune=prune).nd
        assert r.json()["equities"]["no_double"] == pytest.approx(nd, abs=1e-6)
    assert fields(http.post("/v1/hint", json={**body, "prune": "maybe"})) == ["prune"]


def test_resignation_on_a_bear_off_race(http: httpx.Client) -> None:
    from pulvezar.cube import CubeState, resignation_decision

    # the player on roll has 5 checkers left, the opponent 1 (off next roll): the player cannot win
    lost = Position.from_points({6: 5}, {1: 1})
    r = http.post("/v1/resignation", json={"position": lost.position_id, "resignation": "single"})
    assert r.status_code == 200, r.text
    body = r.json()
    want = resignation_decision(CubeState(lost), 1)
    assert body["decision"]["accept"] is want.accept is True
    assert body["decision"]["value"] == pytest.approx(want.value) and body["should_resign"] == "single"
    # the opponent offers a gammon in a 5-point match: the player on roll turns it down
    ahead = Position.from_points({1: 2, 2: 2}, {6: 5, 5: 5, 4: 5})
    req = {
        "position": ahead.position_id,
        "resignation": "single",
        "resigner": "opponent",
        "cube": {"match_length": 5, "score": 1, "opponent_score": 2},
    }
    body = http.post("/v1/resignation", json=req).json()
    want = resignation_decision(CubeState(ahead, match_length=5, score=(1, 2)), 1, resigner="opponent")
    assert body["decision"]["accept"] == want.accept and body["decision"]["mwc_value"] == pytest.approx(
        want.mwc_value
    )
    assert body["should_resign"] is None
    assert fields(http.post("/v1/resignation", json={"position": START, "resignation": "all"})) == [
        "resignation"
    ]
    assert fields(http.post("/v1/resignation", json={"position": START, "ply": 2})) == ["ply"]


def test_evaluate_and_best_play(http: httpx.Client) -> None:
    start_ogid = to_ogid(Position.start(), dice=(5, 2))  # a body takes an OGID too (issue 45)
    body = {"positions": [START, START_XGID, f"{START}:MAHgAAAAAAAA", start_ogid]}
    r = http.post("/v1/evaluate", json=body)
    assert r.status_code == 200, r.text
    evs = r.json()["evaluations"]
    assert len(evs) == 4 and evs[0] == evs[1] == evs[2] == evs[3]
    assert fields(http.post("/v1/evaluate", json={"positions": [START, "OGID=1:1:N0N::W"]})) == [
        "positions[1]"
    ]
    assert 0.45 < evs[0]["probabilities"]["win"] < 0.55 and len(r.json()["model"]) == 64
    r = http.post("/v1/best-play", json={"position": START, "dice": [3, 1]})
    assert r.json()["best"]["play"]["notation"] == "8/5 6/5" and r.json()["legal_plays"] == 16


def test_match_equity(http: httpx.Client) -> None:
    r = http.get("/v1/match-equity", params={"length": 7, "score": 5, "opponent_score": 3})
    assert r.status_code == 200, r.text
    assert r.json()["mwc"] == pytest.approx(0.6687) and r.json()["away"] == [2, 4]
    r = http.get("/v1/match-equity", params={"length": 5, "score": 4, "opponent_score": 3, "table": "tavla"})
    assert r.json()["take_point"] is None and r.json()["notes"]
    assert fields(http.get("/v1/match-equity", params={"length": 7, "score": 7})) == ["score"]
    assert fields(http.get("/v1/match-equity", params={"cube": 3})) == ["cube"]
    assert fields(http.get("/v1/match-equity", params={"length": "x"})) == ["length"]
    # the whole table (issue 30): the library's numbers, each score's chance, post-Crawford beside
    from pulvezar.met import MatchEquity

    met = MatchEquity.kazaross_xg2()
    t = http.get("/v1/match-equity/table", params={"length": 5}).json()
    assert (
        t["length"] == 5 and len(t["pre_crawford"]) == 5 and all(len(row) == 5 for row in t["pre_crawford"])
    )
    assert t["pre_crawford"][1][3] == met.mwc(2, 4) and t["post_crawford"][2] == met.mwc(
        1, 3, post_crawford=True
    )
    assert all(
        abs(t["pre_crawford"][i][j] + t["pre_crawford"][j][i] - 1) < 1e-9 for i in range(5) for j in range(5)
    )
    assert http.get("/v1/match-equity/table", params={"table": "tavla"}).json()["post_crawford"] is None
    assert fields(http.get("/v1/match-equity/table", params={"length": 26})) == ["length"]


def test_match_upload(http: httpx.Client) -> None:
    data = (DATA / "7point.mat").read_bytes()
    r = http.post("/v1/matches", files={"file": ("7point.mat", data)})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["format"] == "mat" and body["length"] == 7 and body["games"]
    plays = [d for d in body["decisions"] if d["kind"] == "play"]
    assert plays and all(d["gnubg_id"] == f"{d['position_id']}:{d['match_id']}" for d in plays)
    for d in plays[:20]:
        Position.from_position_id(d["position_id"])
        assert d["dice"] is not None
    # by content, whatever the name
    assert http.post("/v1/matches", files={"file": ("x.bin", data)}).json()["format"] == "mat"
    gmd = http.post("/v1/matches", files={"file": ("7point.gmd", (DATA / "7point.gmd").read_bytes())})
    assert gmd.status_code == 200 and gmd.json()["format"] == "gmd"
    # OGXM (issue 45): the same match as the .mat it was written from, by name or by its magic
    ogxm = (DATA / "ogxm" / "7point.ogxm").read_bytes()
    for name in ("7point.ogxm", "x.bin"):
        up = http.post("/v1/matches", files={"file": (name, ogxm)})
        assert up.status_code == 200 and up.json()["format"] == "ogxm", up.text

        def steps(b: dict[str, Any]) -> list[tuple[Any, ...]]:  # OGXM keeps the dice low die first
            return [
                (d["kind"], d["position_id"], d["notation"], sorted(d["dice"] or ())) for d in b["decisions"]
            ]

        assert steps(up.json()) == steps(body)
    assert fields(http.post("/v1/matches", files={"file": ("a.ogxm", ogxm[:-9])})) == ["file"]
    # BGBlitz's .bgf (the project's own test file: tests/formats/data/bgf/README.md)
    bgf = http.post("/v1/matches", files={"file": ("test.bgf", (DATA / "bgf" / "test.bgf").read_bytes())})
    assert bgf.status_code == 200 and bgf.json()["format"] == "bgf" and bgf.json()["length"] == 7, bgf.text
    # junk is the file's fault; a file over the upload limit is 413
    assert fields(http.post("/v1/matches", files={"file": ("a.xg", b"\x00garbage")})) == ["file"]
    assert fields(http.post("/v1/matches", files={"file": ("a.mat", b"")})) == ["file"]
    assert fields(http.post("/v1/matches", data={"format": "mat"})) == ["file"]
    problem(http.post("/v1/matches", files={"file": ("big.sgf", b"(;" + b" " * 300_000)}), 413)


def test_bad_bodies_are_problems_naming_the_field(http: httpx.Client) -> None:
    def post(path: str, body: Any) -> list[str]:
        return fields(http.post(path, json=body))

    assert post("/v1/legal-plays", {"position": START, "dice": [3, 7]}) == ["dice[1]"]
    assert post("/v1/legal-plays", {"position": START}) == ["dice"]
    assert post("/v1/legal-plays", {"position": START, "dice": [3, 1], "extra": 1}) == ["extra"]
    assert post("/v1/legal-plays", {"position": "4HPwATDgc/ABMX", "dice": [3, 1]}) == ["position"]
    # the Rules service's field violation, mapped to the REST field
    tavla_opt = {"position": START, "dice": [3, 1], "rules": {"hit_and_stop": True}}
    assert post("/v1/legal-plays", tavla_opt) == ["rules.hit_and_stop"]
    assert post("/v1/apply-play", {"position": START, "dice": [3, 1], "notation": "8/1"}) == ["notation"]
    assert post("/v1/evaluate", {"positions": [START, "nope"]}) == ["positions[1]"]
    assert post("/v1/evaluate", {"positions": [START] * 65}) == ["positions"]
    bad_board = {"mine": [15] * 25, "theirs": [0] * 25}
    assert post("/v1/evaluate", {"positions": [bad_board]})[0].startswith("positions[0]")
    assert post("/v1/evaluate", {"positions": [{"mine": [-1] * 25, "theirs": [0] * 25}]})[0].startswith(
        "positions[0]"
    )
    finished = Position.from_points({}, {24: 1, 20: 14}).position_id
    assert post("/v1/legal-plays", {"position": finished, "dice": [3, 1]}) == ["position"]
    assert post("/v1/hint", {"position": finished, "dice": [3, 1]}) == ["position"]
    r = http.post("/v1/legal-plays", content=b"{not json", headers={"Content-Type": "application/json"})
    problem(r, 422)
    assert problem(http.get("/v1/nothing-here"), 404)["type"].endswith("not-found")


def test_oversized_bodies_are_413(http: httpx.Client) -> None:
    big = {"positions": [START] * 5000}  # ~100 KB of JSON over a 64 KiB limit
    problem(http.post("/v1/evaluate", json=big), 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it streams in
        yield b'{"positions": ['
        for _ in range(5000):
            yield b'"4HPwATDgc/ABMA",'
        yield b'"4HPwATDgc/ABMA"]}'

    r = http.post("/v1/evaluate", content=chunks(), headers={"Content-Type": "application/json"})
    problem(r, 413)


def test_rate_limit_answers_429_with_retry_after(gateway: str) -> None:
    with httpx.Client(base_url=gateway, headers={"X-API-Key": TIGHT}) as c:
        codes = [c.get(f"/v1/positions/{START}").status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
        r = c.get(f"/v1/positions/{START}")
        problem(r, 429)
        assert int(r.headers["Retry-After"]) >= 1
    # other keys are not affected
    assert httpx.get(f"{gateway}/v1/positions/{START}", headers={"X-API-Key": KEY}).status_code == 200
    metrics = httpx.get(f"{gateway}/metrics").text
    assert 'pulvezar_gateway_rate_limited_total{client="tight"}' in metrics


def test_cors_preflight(gateway: str) -> None:
    r = httpx.options(
        f"{gateway}/v1/legal-plays",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-API-Key, Content-Type",
        },
    )
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert "x-api-key" in r.headers["access-control-allow-headers"].lower()
    r = httpx.get(f"{gateway}/v1/positions/{START}", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in r.headers


def test_health_readiness_and_metrics(http: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    ready = http.get("/readyz").json()
    assert ready["services"] == {"rules": "SERVING", "evaluator": "SERVING"}
    http.get(f"/v1/positions/{START}")
    text = http.get("/metrics").text
    assert (
        'pulvezar_http_requests_total{method="GET",route="/v1/positions/{position:path}",status="200"}'
        in text
    )
    assert "pulvezar_http_request_duration_seconds_bucket" in text
    assert "X-Request-ID".lower() in {k.lower() for k in http.get("/healthz").headers}


def test_rollouts_without_a_job_store_are_503(http: httpx.Client) -> None:
    r = http.post("/v1/rollouts", json={"position": START, "trials": 36})
    assert problem(r, 503)["type"].endswith("jobs-unavailable")


# ---- end to end: the gateway, Redis and a rollout worker ------------------------------------


@pytest.fixture(scope="module")
def jobs_gateway(
    gateway_process: type[GatewayProcess],
    rules_service: ServiceProcess,
    evaluator_service: ServiceProcess,
    redis_server: str,
) -> Iterator[str]:
    """A gateway with a job store on a fresh Redis, and one rollout worker (solo pool)."""
    pytest.importorskip("celery")
    env = {
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_server,
        "PULVEZAR_ROLLOUT_CHUNK_SIZE": "36",
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(KEYS),
        "PULVEZAR_GATEWAY_SSE_POLL_S": "0.1",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "services.rollout.worker", "--metrics-port", "-1", "--pool", "solo"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    gw = None
    try:
        gw = gateway_process(env, rules=rules_service.address, evaluator=evaluator_service.address)
        yield gw.base
    finally:
        if worker.poll() is None:
            worker.terminate()  # its warm shutdown overlaps the gateway's
        if gw is not None:
            gw.stop()
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def test_rollout_end_to_end(jobs_gateway: str) -> None:
    with httpx.Client(base_url=jobs_gateway, headers={"X-API-Key": KEY}, timeout=30) as c:
        assert c.get("/readyz").json()["jobs"] == "configured"
        r = c.post("/v1/rollouts", json={"position": START, "trials": 72, "seed": 3})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        assert r.json()["state"] in ("queued", "running") and r.json()["trials_total"] == 72
        with c.stream("GET", f"{href}/events", timeout=90) as s:
            text = "".join(s.iter_text())
        evs = events(text)
        assert evs[-1][0] == "done", text[-2000:]
        final = evs[-1][1]
        assert final["trials_done"] == 72 and final["progress"] == 1
        assert final["result"]["results"][0]["trials"] == 72
        assert -3 <= final["result"]["results"][0]["equity"] <= 3
        assert c.get(href).json()["state"] == "done"
        # the final report, also as a GET: the same numbers as the done event's
        report = c.get(f"{href}/result")
        assert report.status_code == 200 and report.json()["results"] == final["result"]["results"]
        assert "halves" in report.json()["results"][0] and report.json()["href"] == href
        assert c.delete(href).status_code == 204  # a finished job: its results are removed
        assert problem(c.get(href), 404) and problem(c.delete(href), 404)
        # the store's own validation comes back naming its field
        assert fields(
            c.post("/v1/rollouts", json={"position": START, "trials": 36, "plays": ["8/5 6/5"]})
        ) == ["plays"]
        # checked once, by the job's item: a batch's options are named as the body gives them (at the top),
        # its positions' own fields by their index
        bad_batch = {"positions": [{"position": START}], "trials": 36, "cube": {"value": 2}}
        assert fields(c.post("/v1/batch-rollouts", json=bad_batch)) == ["cube"]
        tavla = {
            "positions": [{"position": START}],
            "trials": 36,
            "cubeful": True,
            "rules": {"variant": "tavla"},
        }
        assert fields(c.post("/v1/batch-rollouts", json=tavla)) == ["cubeful"]
        same = {"position": START, "dice": [3, 1], "plays": ["8/5 6/5", "6/5 8/5"]}
        assert fields(c.post("/v1/batch-rollouts", json={"positions": [same], "trials": 36})) == [
            "positions[0].plays"
        ]
        assert fields(c.post("/v1/rollouts", json={"position": START, "kind": "cube", "dice": [3, 1]})) == [
            "dice"
        ]
        # a batch, cancelled at once
        body = {"positions": [{"position": START}, {"position": START, "dice": [3, 1]}], "trials": 360}
        r = c.post("/v1/batch-rollouts", json=body)
        assert r.status_code == 202, r.text
        assert r.json()["kind"] == "batch" and r.json()["positions"] == 2
        r = c.delete(r.headers["Location"])
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        assert problem(c.post(f"{r.json()['href']}/extend", json={"trials": 36}), 409)
        assert fields(c.get(f"{r.json()['href']}/result"), 409) == ["job_id"]  # cancelled: no final report
        assert fields(c.get("/v1/rollouts/0123456789abcdef01234567"), 404) == ["job_id"]


def test_schemathesis_finds_no_server_errors(gateway: str, tmp_path: Path) -> None:
    """Every operation of the OpenAPI spec, generated valid and invalid input: never a 5xx."""
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("st")
    if st is None:
        pytest.skip("schemathesis is not installed")
    cmd = [
        st, "run", f"{gateway}/openapi.json",
        "--checks", "not_a_server_error",
        "--header", f"X-API-Key: {KEY}",
        "--max-examples", "8",
        "--phases", "examples,coverage,fuzzing",
        "--seed", "20261129",
        "--request-timeout", "30",
        "--workers", "1",  # CPython 3.11.7's ast is not thread-safe ("AST constructor recursion depth")
        "--suppress-health-check", "all",
        # no job store (Redis) behind this gateway: the job endpoints answer 503 by design
        # (test_e2e_analyses.py runs schemathesis on them with Redis behind); the games, players and
        # stored matches have their own tests on a store: tests/services/test_games_*.py, tests/store
        "--exclude-path-regex",
        "rollouts|analyses|evaluations|daily|similar|library|opening-book/jobs|^/v1/jobs|^/v1/games|^/v1/matches/"
        "|^/v1/players|^/v1/exercises|^/v1/lessons|opening-book/quiz",
        "--exclude-name", "GET /v1/matches",
        "--report", "junit", "--report-dir", str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "SCHEMATHESIS_HOOKS": ""}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    print(out.stdout[-4000:])
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


# ---- in process: rollout jobs on the gateway's own job store, limits, helpers -------------------


@pytest.fixture
def store(redis_server: str, module_database: str) -> Iterator[Rollouts]:
    """The job store the gateway makes (:func:`~services.gateway.jobs.store_from_url`) on an empty Redis
    database and the module's database.  No worker takes its chunks: a test runs them (:func:`run_chunks`).
    The database is Redis's number 1, not the module's 0: ``jobs_gateway``'s worker, alive until the module
    ends, serves database 0 and would otherwise take these chunks (a job seen running before it ran)."""
    pytest.importorskip("celery")
    import redis

    from services.gateway.jobs import store_from_url
    from services.jobs.kinds.rollout import Rollouts

    url = redis_server.rsplit("/", 1)[0] + "/1"
    with redis.Redis.from_url(url) as r:
        r.flushdb()
    made = store_from_url(url, module_database)
    assert isinstance(made, Rollouts)
    yield made
    made.redis.close()


def run_chunks(store: Rollouts, job_id: str, count: int | None = None) -> int:
    """Run the job's next ``count`` chunks (None: all) as a worker does (services/rollout/runner.py): the
    kind's load, compute (with the pip-count evaluator) and the record written once; how many ran."""
    r, ran = store.redis, 0
    _spec, records = store.gather(job_id)
    for n, record in enumerate(records):
        if record is not None or (count is not None and ran >= count):
            continue
        loaded = store.load(r, job_id, n)
        assert loaded is not None, (job_id, n)
        spec, chunk = loaded
        started = time.time()
        r.set(store.started_key(job_id), str(started), nx=True)
        out = store.run_chunk(spec, chunk, Cheap())
        done = {**out, "seconds": time.time() - started, "started": started, "finished": time.time()}
        assert store.write_record(r, job_id, n, {**done, "worker": "test"}, store.settings.job_ttl_s)
        ran += 1
    return ran


def jobs_in_redis(store: Rollouts) -> int:
    """How many jobs the store has in Redis (their specs)."""
    return len(list(store.redis.scan_iter(store.spec_key("*"))))


@pytest.fixture
def client(store: Rollouts) -> Iterator[TestClient]:
    settings = GatewaySettings(
        api_keys=KEYS,
        sse_poll_s=0.01,
        rules_address="127.0.0.1:9",
        evaluator_address="127.0.0.1:9",
        ready_timeout_s=0.2,
    )
    with TestClient(create_app(settings, job_store=store), headers={"X-API-Key": KEY}) as c:
        yield c


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
        if "event" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_rollout_job_lifecycle(client: TestClient, store: Rollouts) -> None:
    # short trials (truncated, no variance reduction): the chunks run here, with the pip-count evaluator
    body = {"position": START, "trials": 1296, "seed": 7, "truncate": 2, "variance_reduction": False}
    r = client.post("/v1/rollouts", json=body)
    assert r.status_code == 202, r.text
    job = r.json()
    assert r.headers["Location"] == job["href"] == f"/v1/rollouts/{job['id']}"
    assert job["events"] == f"{job['href']}/events"
    assert job["state"] == "queued" and job["trials_done"] == 0 and job["trials_total"] == 1296
    spec = store.spec(job["id"])  # the job as the kind stored it, from the gateway's typed request
    (item,) = spec["items"]
    assert spec["kind"] == "rollout" and spec["priority"] == "interactive" and len(spec["chunks"]) > 2
    assert item["trials"] == 1296 and item["seed"] == 7 and item["truncate"] == 2
    assert item["rules"]["variant"] == "international" and item["luck"] == "screened"
    assert item["position_id"] == START and item["dice"] is None

    assert run_chunks(store, job["id"], 2) == 2
    status = client.get(job["href"]).json()
    assert status["state"] == "running" and 0 < status["trials_done"] < 1296
    (partial,) = status["results"]  # the results so far, without the final report's halves
    assert partial["trials"] == status["trials_done"] and "halves" not in partial
    assert partial["equity"] == store.status(job["id"])["results"][0]["equity"]
    worker = threading.Thread(target=_work_slowly, args=(store, job["id"]))
    try:
        with client.stream("GET", job["events"]) as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            worker.start()  # the other chunks while the events stream
            text = "".join(s.iter_text())
    finally:
        if worker.is_alive():
            worker.join(60)
    evs = events(text)
    assert [e for e, _ in evs[:-1]] == ["progress"] * (len(evs) - 1) and evs[-1][0] == "done"
    assert len(evs) > 2  # the progress of the chunks run meanwhile, each poll's change
    assert evs[-1][1]["result"] == store.result(job["id"])  # the final report, as the store gave it
    assert (
        evs[-1][1]["result"]["results"][0]["trials"] == 1296
        and "halves" in evs[-1][1]["result"]["results"][0]
    )
    assert client.get(f"{job['href']}/result").json()["results"] == evs[-1][1]["result"]["results"]
    assert [d["trials_done"] for _, d in evs] == sorted(d["trials_done"] for _, d in evs)

    # finished: more trials restart it; DELETE cancels a running job, then removes the finished one
    r = client.post(f"{job['href']}/extend", json={"trials": 10_000})
    assert r.status_code == 202 and r.json()["trials_total"] == 1296 + 10_000
    assert r.json()["state"] in ("queued", "running")
    r = client.delete(job["href"])
    assert r.status_code == 200 and r.json()["state"] == "cancelled"
    evs = events(client.get(job["events"]).text)
    assert [e for e, _ in evs] == ["cancelled"]
    assert client.delete(job["href"]).status_code == 204
    assert fields(client.get(job["href"]), 404) == ["job_id"]
    assert store.redis.get(store.spec_key(job["id"])) is None


def _work_slowly(store: Rollouts, job_id: str) -> None:
    """A worker's pace: one chunk, then a pause the events' polls see."""
    while run_chunks(store, job_id, 1):
        time.sleep(0.03)


def test_batch_rollouts_and_unknown_jobs(client: TestClient, store: Rollouts) -> None:
    body = {"positions": [{"position": START, "label": "a"}, {"position": START_XGID}], "trials": 72}
    r = client.post("/v1/batch-rollouts", json=body)
    assert r.status_code == 202, r.text
    assert r.headers["Location"] == f"/v1/batch-rollouts/{r.json()['id']}"
    spec = store.spec(r.json()["id"])
    assert spec["kind"] == "batch" and spec["priority"] == "batch" and len(spec["items"]) == 2
    assert [i["position_id"] for i in spec["items"]] == [START, START]
    assert [i.get("label") for i in spec["items"]] == ["a", None]
    assert client.get(r.headers["Location"]).json()["kind"] == "batch"
    for method in ("GET", "DELETE"):
        assert fields(client.request(method, "/v1/rollouts/nope"), 404) == ["job_id"]
    assert problem(client.get("/v1/rollouts/nope/events"), 404)
    bad = {"positions": [{"position": START}, {"position": "junk"}], "trials": 36}
    assert fields(client.post("/v1/batch-rollouts", json=bad)) == ["positions[1].position"]
    assert fields(client.post("/v1/rollouts", json={"position": START, "trials": 10**6 + 1})) == ["trials"]
    assert fields(client.post("/v1/rollouts", json={"position": START, "trials": 0})) == ["trials"]
    assert fields(client.post("/v1/rollouts", json={"position": START, "trials": 72, "luck": "cheap"})) == [
        "luck"
    ]


def test_job_responses_are_declared(client: TestClient) -> None:
    """The OpenAPI schema of the job responses names their fields (a rollout's results down to the
    candidates), and none of their objects allows other properties (the nested library JSON aside)."""
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]

    def resolve(schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref", "")
        return resolve(schemas[ref.rsplit("/", 1)[-1]]) if ref else schema

    def response(path: str, method: str = "get", status: str = "200") -> dict[str, Any]:
        return resolve(
            spec["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
        )

    for path in ("/v1/rollouts/{job_id}", "/v1/rollouts/{job_id}/result", "/v1/batch-rollouts/{job_id}"):
        job = response(path)
        assert {"id", "href", "events", "state", "trials_done", "eta_s", "results"} <= set(job["properties"])
        shapes = [resolve(s) for s in job["properties"]["results"]["items"]["oneOf"]]
        fields = {name: shape["properties"] for shape in shapes for name in [shape["title"]]}
        assert {"equity", "se", "probabilities", "halves", "dice", "candidates"} <= set(
            fields["PositionReport"]
        )
        assert {"action", "nd", "dt", "dp", "costs", "mwc", "cubeless"} <= set(fields["CubeReport"])
        candidate = resolve(fields["PositionReport"]["candidates"]["anyOf"][0]["items"])
        assert {"play", "equity", "difference", "difference_se", "playable"} <= set(candidate["properties"])
    assert response("/v1/rollouts", "post", "202") == response("/v1/rollouts/{job_id}")
    analysis = response("/v1/analyses/{job_id}")
    assert {"level", "games_done", "matches"} <= set(analysis["properties"])
    match = resolve(analysis["properties"]["matches"]["items"])
    assert {"filename", "players", "summary", "games", "sgf"} <= set(match["properties"])
    assert {"rolls_searched", "rollout_job", "book"} <= set(
        response("/v1/opening-book/jobs/{job_id}")["properties"]
    )

    seen: set[str] = set()

    def objects(schema: Any) -> None:  # every model a job response refers to, however deep
        if isinstance(schema, dict):
            name = schema.get("$ref", "").rsplit("/", 1)[-1]
            if name and name not in seen:
                seen.add(name)
                objects(schemas[name])
            if "properties" in schema:
                assert schema.get("additionalProperties") is False, schema.get("title")
            for value in schema.values():
                objects(value)
        elif isinstance(schema, list):
            for value in schema:
                objects(value)

    for path, operations in spec["paths"].items():
        if not path.startswith(
            ("/v1/rollouts", "/v1/batch-rollouts", "/v1/analyses", "/v1/opening-book/jobs", "/v1/jobs")
        ):
            continue
        for op in operations.values():
            for status, answer in op.get("responses", {}).items():
                if status.startswith("2"):
                    objects(answer.get("content", {}).get("application/json", {}).get("schema"))
    assert {"Job", "AnalysisJob", "BookJob", "CandidateReport", "CubeReport", "JobList"} <= seen


def test_jobs_belong_to_the_key_that_submitted_them(client: TestClient, store: Rollouts) -> None:
    r = client.post("/v1/rollouts", json={"position": START, "trials": 72})
    assert r.status_code == 202, r.text
    href = r.headers["Location"]
    other = {"X-API-Key": QUOTA}
    # another key sees no such job: not its status, events, extension or cancel
    assert fields(client.get(href, headers=other), 404) == ["job_id"]
    assert problem(client.get(f"{href}/events", headers=other), 404)
    assert fields(client.post(f"{href}/extend", json={"trials": 72}, headers=other), 404) == ["job_id"]
    assert fields(client.delete(href, headers=other), 404) == ["job_id"]
    assert client.get(href).status_code == 200  # the owner does
    assert client.delete(href).status_code in (200, 204)


def test_daily_quotas(client: TestClient, store: Rollouts) -> None:
    h = {"X-API-Key": QUOTA}
    assert client.post("/v1/rollouts", json={"position": START, "trials": 3000}, headers=h).status_code == 202
    r = client.post("/v1/rollouts", json={"position": START, "trials": 3000}, headers=h)  # 6000 > 5000 trials
    assert problem(r, 429)["type"].endswith("quota-exceeded")
    assert int(r.headers["Retry-After"]) >= 1
    assert client.post("/v1/rollouts", json={"position": START, "trials": 1000}, headers=h).status_code == 202
    r = client.post("/v1/rollouts", json={"position": START, "trials": 1}, headers=h)  # a third job
    assert "2 jobs" in problem(r, 429)["detail"]
    assert jobs_in_redis(store) == 2
    # a refused job is not charged; other keys have their own quota
    assert client.post("/v1/rollouts", json={"position": START, "trials": 3000}).status_code == 202


def test_readyz_is_503_without_the_services(client: TestClient) -> None:
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["status"] == "not ready"
    assert r.json()["jobs"] == "configured"
    # and a call that needs them is a 503 problem, not a 500
    assert problem(client.post("/v1/legal-plays", json={"position": START, "dice": [3, 1]}), 503)


def test_token_bucket() -> None:
    b = TokenBucket(rate=2.0, burst=3, stamp=100.0)
    assert [b.take(100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.take(100.0) == pytest.approx(0.5)
    assert b.take(100.5) == 0.0
    assert b.take(110.0) == 0.0 and b.tokens == pytest.approx(2.0)  # refilled to the burst, one taken


def test_field_names() -> None:
    assert field_path(("body", "positions", 2, "mine", 3)) == "positions[2].mine[3]"
    assert field_path(("query", "length")) == "length"
    assert field_path(("body",)) == "body"
    assert grpc_field("position.xgid") == "position"
    assert grpc_field("positions[3].board.mine") == "positions[3]"
    assert grpc_field("rules.hit_and_stop") == "rules.hit_and_stop"


def test_a_job_the_store_refuses_is_not_charged(
    client: TestClient, store: Rollouts, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = {"X-API-Key": QUOTA}

    def down(*_a: Any, **_k: Any) -> str:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(store, "submit", down)
    for _ in range(3):  # more jobs and trials than the day's quota: each is refunded
        assert problem(client.post("/v1/rollouts", json={"position": START, "trials": 3000}, headers=h), 503)
    monkeypatch.undo()
    for trials in (3000, 2000):  # the whole quota (2 jobs, 5000 trials) is still there
        assert (
            client.post("/v1/rollouts", json={"position": START, "trials": trials}, headers=h).status_code
            == 202
        )
    assert problem(client.post("/v1/rollouts", json={"position": START, "trials": 1}, headers=h), 429)


def test_a_rollout_of_an_ogid_rolls_out_the_same_game(client: TestClient, store: Rollouts) -> None:
    """An OGID in a job's body is stored as the XGID of the same game; a bad one is refused by its field."""
    ogid = to_ogid(Position.start(), dice=(3, 1))
    r = client.post("/v1/rollouts", json={"position": ogid, "trials": 36, "plays": ["8/5 6/5"]})
    assert r.status_code == 202, r.text
    (item,) = store.spec(r.json()["id"])["items"]
    assert XGID.parse(item["position"]).position == Position.start()
    bad = client.post("/v1/rollouts", json={"position": "OGID=1:1:N0N::W", "trials": 36})
    assert fields(bad) == ["position"] and "impossible position" in bad.json()["detail"]
