"""Deep analyses of one decision as a job (``POST /v1/deep-analyses``, ``services/jobs/kinds/deep.py``; issue
30), on the session's shared platform: the search and rollout chunks fan out over the live workers, and the
report equals the library's values of the same chunks computed here, bit for bit; a small preset and a race
(its rollouts end in a few rolls) keep it to seconds (the product's is 3 ply and 6,912 trials)."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
import test_e2e_platform as e2e
from test_job_kinds import wait_for

from pulvezar import XGID
from pulvezar.rules.ogid import to_ogid
from services.jobs.errors import InvalidJob
from services.jobs.kind import checked
from services.jobs.kinds.deep import DeepAnalyses, DeepRequest, candidates_of

KEY = "kinds-key"
platform = e2e.platform
RACE = "cHfuAAC4ezcAAA"  # 88 pips against 111 (pulvezar.play.lessons.RACE): its rollouts end in a few rolls
BODY = {"position": RACE, "dice": [6, 4], "ply": 1, "trials": 144, "candidates": 3, "priority": "interactive"}

pytestmark = [pytest.mark.slow]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"dice": [0, 1]}, "dice[0]"),
        ({"dice": "77"}, "dice[0]"),
        ({"trials": 100}, "trials"),
        ({"plays": ["8/2 7/3", "24/21 1/0"]}, "plays[1]"),
        ({"position": "nonsense"}, "position"),
        ({"ply": 4}, "ply"),
        ({"candidates": 1}, "candidates"),
        ({"rules": "backgammon"}, "rules.variant"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_a_bad_request_names_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidJob) as e:
        checked(DeepRequest, {**BODY, **change})
    assert e.value.field == field


CUBE = {"position": RACE, "ply": 1, "trials": 144, "priority": "interactive"}  # no dice: the cube decision


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"plays": ["24/14"]}, "plays"),
        ({"rules": "tavla"}, "rules"),
        ({"cube": {"owner": "opponent"}}, "cube"),
        ({"cube": {"value": 3}}, "cube.value"),
        ({"cube": {"match_length": 5, "score": 4, "opponent_score": 2, "crawford": True}}, "cube"),
        ({"cube": {"colour": "red"}}, "cube.colour"),
        ({"dice": [6, 4], "cube": {"value": 2}}, "cube"),
    ],
)
def test_a_bad_cube_request_names_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidJob) as e:
        checked(DeepRequest, {**CUBE, **change})
    assert e.value.field == field


def test_a_cube_decision_takes_an_xgids_cube_and_score() -> None:
    req = checked(DeepRequest, {"position": "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10"})
    assert req.dice is None and req.cube is not None
    assert (req.cube["value"], req.cube["owner"], req.cube["match_length"]) == (2, "player", 7)
    assert (req.cube["score"], req.cube["opponent_score"]) == (3, 1)
    rolled = checked(DeepRequest, {"position": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10"})
    assert rolled.dice == (5, 2) and rolled.cube is None  # an XGID's dice: its checker play
    # an OGID of the same game is read as its XGID (issue 45): the same cube, score and dice
    x = XGID.parse("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10")
    ogid = to_ogid(x.position, cube_value=2, cube_owner="player", score=(3, 1), match_length=7)
    from_ogid_ = checked(DeepRequest, {"position": ogid})
    assert from_ogid_.cube == req.cube and from_ogid_.dice is None
    assert checked(DeepRequest, {"position": to_ogid(x.position, dice=(5, 2))}).dice in ((5, 2), (2, 5))
    with pytest.raises(InvalidJob) as e:
        checked(DeepRequest, {"position": "OGID=1:1:N0N::W"})
    assert e.value.field == "position"


def local_report(model: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """The library's values of the job's chunks here, one process, the workers' torch thread count."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.rollouts.chunks import plan_chunks

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        local = NetEvaluator.load(model, device="cpu")
        chunks = [["ply", i] for i in range(spec["candidates"])]
        chunks += [["rollout", f, n] for f, n in plan_chunks(spec["trials"], e2e.CHUNK)]
        records = [DeepAnalyses.compute(spec, c, local) for c in chunks]
        return {"report": DeepAnalyses.report(spec, records), "plays": candidates_of(spec, local)}
    finally:
        torch.set_num_threads(before)


def test_a_deep_analysis_through_the_workers(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post("/v1/deep-analyses", json=BODY)
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        assert r.json()["chunks_total"] == 3 + 2
        done = wait_for(c, href, ("done", "failed"), timeout=120)
        assert done["state"] == "done", done
        report = c.get(f"{href}/result").json()["report"]
        bad = c.post("/v1/deep-analyses", json={**BODY, "plays": ["8/2 7/3", "24/18"]})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "plays[1]"

        # sent for a player: its achievement (the job cancelled at once: the achievement stays)
        player = c.post("/v1/players", json={"name": "Deep"}).json()
        r = c.post("/v1/deep-analyses", json={**BODY, "player": player["id"]})
        assert r.status_code == 202, r.text
        assert c.delete(r.headers["Location"]).status_code == 200  # cancelled
        got = c.get(f"{player['href']}/achievements").json()["achievements"]
        assert [a["id"] for a in got if a["reached"]] == ["deep_analysis"]
        bad = c.post("/v1/deep-analyses", json={**BODY, "player": "p0123"})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "player"

    # the request's defaults, pruning included
    spec = {**BODY, "rules": {"variant": "international", "hit_and_stop": False, "must_bear_off": False},
            "plays": None, "seed": 1, "z": 2.0, "prune": True}  # fmt: skip
    here = local_report(platform.model, spec)
    assert report == here["report"]  # the same bits
    cands = report["candidates"]
    assert report["trials_done"] == 144 and len(cands) == 3
    assert {x["play"] for x in cands} == {p.notation for p in here["plays"]}
    assert [x["equity"] for x in cands] == sorted((x["equity"] for x in cands), reverse=True)
    best = cands[0]
    assert best["loss"] == 0 and best["playable"] is True
    for x in cands:
        assert x["equity"] == pytest.approx(0.5 * (x["ply_equity"] + x["rollout_equity"]))
        assert x["rollout_trials"] == 144 and len(x["halves"]) == 2 and x["noise"] > 0
        assert x["playable"] == (x["loss"] <= 2.0 * x["loss_noise"])

    # the library's deep analysis (its rollout in one piece: the same values to float32 batching noise)
    from pulvezar import Position
    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.rollouts.deep import deep_analysis

    net = NetEvaluator.load(platform.model)
    lib = deep_analysis(Position.from_position_id(RACE), (6, 4), here["plays"], net, trials=144, ply=1)
    np.testing.assert_allclose([d.equity for d in lib], [x["equity"] for x in cands], atol=1e-5)
    assert [d.notation for d in lib] == [x["play"] for x in cands]


def test_a_deep_cube_decision_through_the_workers(platform: Any) -> None:
    """No dice: the cube decision by the cube search and a cubeful rollout of no double and double/take, the
    same bits as the library's chunks here; the right actions cost nothing and are playable."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.rollouts.chunks import plan_chunks

    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        r = c.post("/v1/deep-analyses", json=CUBE)
        assert r.status_code == 202, r.text
        assert r.json()["chunks_total"] == 1 + 2
        done = wait_for(c, r.headers["Location"], ("done", "failed"), timeout=120)
        assert done["state"] == "done", done
        report = c.get(f"{r.headers['Location']}/result").json()["report"]
        bad = c.post("/v1/deep-analyses", json={**CUBE, "cube": {"owner": "opponent"}})
        assert bad.status_code == 422 and bad.headers["content-type"] == "application/problem+json"
        assert bad.json()["errors"][0]["field"] == "cube"
    spec = checked(DeepRequest, CUBE).model_dump(exclude={"priority", "player"})
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        local = NetEvaluator.load(platform.model, device="cpu")
        chunks: list[Any] = [["cube-ply"]] + [["cube-rollout", f, n] for f, n in plan_chunks(144, e2e.CHUNK)]
        here = DeepAnalyses.report(spec, [DeepAnalyses.compute(spec, ch, local) for ch in chunks])
    finally:
        torch.set_num_threads(before)
    assert report == here  # the same bits
    cube = report["cube"]
    assert report["candidates"] == [] and report["trials_done"] == 144
    assert cube["action"] and cube["cube"]["owner"] == "centre" and cube["double_pass"] == 1.0
    for branch in ("no_double", "double_take"):
        b = cube[branch]
        assert b["equity"] == pytest.approx(0.5 * (b["ply_equity"] + b["rollout_equity"]))
        assert len(b["halves"]) == 2 and b["rollout_se"] > 0
    choices = {x["action"]: x for x in cube["choices"]}
    assert set(choices) == {"no double", "double", "take", "pass"}
    right = "double" if cube["double"] else "no double"
    assert choices[right]["cost"] == 0 and choices[right]["playable"]
    assert choices[cube["response"]]["cost"] == 0 and choices[cube["response"]]["playable"]
    for x in choices.values():
        band = cube["double_noise"] if x["action"] in ("double", "no double") else cube["take_noise"]
        assert x["playable"] == (x["cost"] <= 2.0 * band)
