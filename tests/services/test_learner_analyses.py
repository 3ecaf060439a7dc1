"""Analyses recorded for a player (issue 29): a match uploaded for a player and a game played here for one,
analysed by the live workers of the session's shared platform (``shared_platform.py``), join the player's
record: the PR trend, the archive of matches with won/lost and PR, the mistakes by position type, the
achievements, and cards made from the player's blunders, which a study round answers.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("celery")
pytest.importorskip("redis")

import test_e2e_platform as e2e
from procutil import wait_until
from test_games_api import new_game, play_out

from pulvezar.analysis.decisions import BLUNDER

KEY = e2e.KEY
platform = e2e.platform  # the fixture: the shared platform, two live workers and empty queues
SHORT = Path(__file__).resolve().parent / "data" / "match1495872.txt"  # 1 point, 1 game: lasse v yuko

pytestmark = [pytest.mark.slow]


def done(c: httpx.Client, href: str) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def finished() -> bool:
        out.update(c.get(href).json())
        assert out["state"] in ("queued", "running", "done"), out
        return bool(out["state"] == "done")

    wait_until(finished, 90, f"analysis {href}", every=0.2)
    return out


def achieved(c: httpx.Client, href: str) -> set[str]:
    return {a["id"] for a in c.get(f"{href}/achievements").json()["achievements"] if a["reached"]}


def problem_fields(r: httpx.Response, status: int = 422) -> dict[str, str]:
    assert r.status_code == status, r.text
    return {e["field"]: e["reason"] for e in r.json()["errors"]}


def test_an_uploaded_match_joins_the_players_record(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        lasse = c.post("/v1/players", json={"name": "Lasse"}).json()
        body = {"file": SHORT.read_text(), "filename": SHORT.name, "level": "0ply"}

        # which of the file's players the player is: by its name (no case), or named; else a problem
        nobody = c.post("/v1/players", json={"name": "nobody"}).json()
        assert "player_name" in problem_fields(c.post("/v1/analyses", json={**body, "player": nobody["id"]}))
        wrong = {**body, "player": lasse["id"], "player_name": "zed"}
        assert "player_name" in problem_fields(c.post("/v1/analyses", json=wrong))
        assert "player_name" in problem_fields(c.post("/v1/analyses", json={**body, "player_name": "yuko"}))
        assert "player" in problem_fields(c.post("/v1/analyses", json={**body, "player": "p0123"}))
        with httpx.Client(base_url=platform.base, headers={"X-API-Key": "store-key-1"}, timeout=30) as other:
            assert "player" in problem_fields(
                other.post("/v1/analyses", json={**body, "player": lasse["id"]})
            )

        r = c.post("/v1/analyses", json={**body, "player": lasse["id"]})
        assert r.status_code == 202, r.text
        job = done(c, r.headers["Location"])
        summary = job["matches"][0]["summary"]
        mine = summary["players"][0]
        assert mine["name"] == "lasse"

        stats = c.get(f"{lasse['href']}/statistics").json()
        assert stats["pr"]["matches"] == 1 and stats["pr"]["last"] == round(mine["pr"], 2)
        assert stats["pr"]["points"][0]["ref"] == f"job:{job['id']}:0"
        assert stats["games_played"] == 0  # games against the bots only
        archive = c.get(f"{lasse['href']}/matches").json()["matches"]
        assert len(archive) == 1 and stats["recent_matches"] == archive
        entry = archive[0]
        assert (entry["source"], entry["opponent"], entry["analysis"]) == ("import", "yuko", job["id"])
        assert entry["pr"] == round(mine["pr"], 2) and entry["filename"] == SHORT.name
        winner = job["matches"][0]["games"][0]["winner"]
        assert entry["won"] == (winner == 0)
        reached = {
            a["id"] for a in c.get(f"{lasse['href']}/achievements").json()["achievements"] if a["reached"]
        }
        assert "imported_match" in reached and "analysed_game" not in reached
        assert ("low_pr" in reached) == (mine["pr"] < 5)

        # the player's blunders became cards, due today (the small net of these tests may find none)
        blunders = [
            d
            for g in job["matches"][0]["games"]
            for d in g["decisions"]
            if d["player"] == 0 and d["counts"] and d["loss"] >= BLUNDER
        ]
        deck = c.get(f"{lasse['href']}/cards").json()
        assert (
            deck["count"] == len(blunders) == deck["due_today"]
        )  # judged: tests/store/test_player_matches.py
        for card in c.get(f"{lasse['href']}/cards/due").json()["cards"][:1]:
            decision = card["decision"]
            if decision["kind"] == "position":
                right = next(d["best"] for d in blunders if d["position_id"] == decision["position_id"])
                r = c.post(f"{lasse['href']}/cards/{card['id']}/answers", json={"notation": right})
                assert r.status_code == 200 and r.json()["correct"] is True, r.text

        # a retried analysis of the same job changes nothing; another one is a second match
        from pulvezar.analysis.match import GameAnalysis
        from services.store.player_matches import record_analysis

        spec_learner = {"player": lasse["id"], "sides": [0], "game_id": None}
        games = [GameAnalysis.from_json(g) for g in job["matches"][0]["games"]]
        assert record_analysis(platform.database, spec_learner, job["id"], 0, games, summary) is False
        assert c.get(f"{lasse['href']}/statistics").json()["pr"] == stats["pr"]

        # cards by hand: a decision of the analysis (once), a library position with dice
        chosen = next(
            d
            for g in job["matches"][0]["games"]
            for d in g["decisions"]
            if d["kind"] == "checker" and not d["forced"] and len(d["candidates"]) > 1
        )
        by_hand = {"analysis": job["id"], "game": chosen["game"], "index": chosen["index"]}
        r = c.post(f"{lasse['href']}/cards", json=by_hand)
        assert r.status_code in (200, 201), r.text  # 200: a blunder's card already
        again = c.post(f"{lasse['href']}/cards", json=by_hand)
        assert again.status_code == 200 and again.json()["id"] == r.json()["id"]
        assert r.json()["decision"]["position_id"] == chosen["position_id"]
        plays = [x["play"] for x in r.json()["decision"]["candidates"]]
        assert plays == sorted(plays) and chosen["best"] in plays  # not best first
        saved = c.post("/v1/library/positions", json={"position": "4HPwATDgc/ABMA", "name": "start"}).json()
        r = c.post(f"{lasse['href']}/cards", json={"position": saved["id"], "dice": [3, 1]})
        assert r.status_code == 201, r.text
        card = r.json()
        first = card["decision"]["candidates"][0]["play"]
        judged = c.post(f"{lasse['href']}/cards/{card['id']}/answers", json={"notation": first}).json()
        best = judged["answer"]["play"]
        assert judged["correct"] is (first == best) and judged["next_due"] > card["due"]
        again = c.post(f"{lasse['href']}/cards/{card['id']}/answers", json={"notation": best}).json()
        assert again["correct"] is True and again["loss"] == 0
        for body, field in (
            ({}, "analysis"),
            ({"analysis": job["id"], "game": 0}, "index"),
            ({"analysis": job["id"], "game": 0, "index": 99999}, "index"),
            ({"position": "nope", "dice": [3, 1]}, "position"),
            ({"analysis": job["id"], "position": saved["id"]}, "analysis"),
        ):
            assert field in problem_fields(c.post(f"{lasse['href']}/cards", json=body)), body
        with httpx.Client(base_url=platform.base, headers={"X-API-Key": "store-key-1"}, timeout=30) as other:
            assert other.post(f"{lasse['href']}/cards", json=by_hand).status_code == 404

        plan = c.get(f"{lasse['href']}/plan").json()
        assert plan["areas"] == [] and "40" in plan["reason"]
        assert c.delete(lasse["href"]).status_code == 204
        assert c.get(f"{lasse['href']}/matches").status_code == 404


def test_a_game_played_here_is_analysed_for_its_player(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=60) as c:
        ayse = c.post("/v1/players", json={"name": "Ayşe"}).json()
        st = new_game(c, {"match_length": 1, "bot": {"level": "easy"}, "player": ayse["id"]})
        st, _ = play_out(c, st, random.Random(7))
        archive = c.get(f"{ayse['href']}/matches").json()["matches"]
        assert [(m["source"], m["game_id"], m["pr"]) for m in archive] == [("game", st["id"], None)]
        assert archive[0]["won"] == (st["result"]["winner"] == 0) and archive[0]["opponent"] == "easy"

        r = c.post(f"{st['href']}/analysis", json={"level": "0ply"})
        assert r.status_code == 202, r.text
        job = done(c, r.headers["Location"])
        mine = job["matches"][0]["summary"]["players"][0]
        assert mine["name"] == "You"
        time.sleep(0.2)
        archive = c.get(f"{ayse['href']}/matches").json()["matches"]
        assert len(archive) == 1 and archive[0]["analysis"] == job["id"]  # the same entry, now analysed
        assert archive[0]["pr"] == (None if mine["pr"] is None else round(mine["pr"], 2))
        stats = c.get(f"{ayse['href']}/statistics").json()
        assert stats["pr"]["matches"] == 1 and stats["games_played"] >= 1
        reached = {
            a["id"] for a in c.get(f"{ayse['href']}/achievements").json()["achievements"] if a["reached"]
        }
        assert "analysed_game" in reached and "imported_match" not in reached
