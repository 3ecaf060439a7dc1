"""The CLI's ``--json`` uses the REST API's names (docs/cli.md); old names stay one release beside them."""

import json
from pathlib import Path

import pytest

from pulvezar.cli import main

START = "4HPwATDgc/ABMA"
DATA = Path(__file__).parents[1] / "formats" / "data"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_hint_candidates_are_named_as_in_post_v1_hint(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "hint", START, "--dice", "31", "--top", "2")
    assert out["legal_plays"] == 16 and out["count"] == out["legal_plays"]  # count: deprecated
    for c in out["candidates"]:
        # the fields of POST /v1/hint's candidates (services/gateway/routers/plays.py, Candidate)
        assert {"notation", "position_id", "probabilities", "equity", "cubeful_equity", "loss", "ply"} <= set(
            c
        )
        assert c["play"] == c["notation"]  # deprecated
    assert out["candidates"][0]["notation"] == "8/5 6/5"


def test_cube_decision_is_named_as_in_post_v1_cube(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "cube", START)
    rest = {"action", "double", "taker_response", "equities", "mwc", "costs", "take_point", "gammon_price"}
    assert rest | {"probabilities", "cubeless_equity", "ply", "notes"} <= set(out)
    assert out["taker_response"] == out["response"] == "take"
    gp = out["gammon_price"]
    assert set(gp) == {"player", "opponent", "me", "opp"}
    assert (gp["me"], gp["opp"]) == (gp["player"], gp["opponent"])
    assert set(out["equities"]) == {"no_double", "double_take", "double_pass", "value"}


def test_met_is_named_as_in_get_v1_met(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "met", "--length", "7", "--score", "2", "4")
    rest = {"table", "length", "away", "cube_value", "crawford", "post_crawford", "mwc", "take_point"}
    assert rest | {"gammon_price", "notes"} <= set(out)
    assert out["cube_value"] == out["cube"] == 1 and out["away"] == [5, 3]
    assert out["gammon_price"]["player"] == out["gammon_price"]["me"]
    assert out["gammon_price"]["opponent"] == out["gammon_price"]["opp"]


def test_show_pips_are_named_as_in_get_v1_positions(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "show", START)
    assert out["pips"] == {"player": 167, "opponent": 167, "on_roll": 167}  # on_roll: deprecated


def test_match_show_actions_are_named_as_in_post_v1_matches(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "match", "show", str(DATA / "7point.mat"))
    decisions = [d for g in out["games"] for d in g["decisions"]]
    plays = [d for d in decisions if d["kind"] == "play"]
    assert plays and all(d["notation"] == d["play"] for d in plays)
    doubles = [d for d in decisions if d["kind"] == "double"]
    assert all(d["value"] == d["cube"] for d in doubles)


def test_rollout_cubeful_noise_is_named_as_in_the_rollout_report(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "rollout", START, "--trials", "36", "--truncate", "2", "--cubeful", "--quiet")
    assert out["cubeful_equity_se"] is not None and out["cubeful_se"] == out["cubeful_equity_se"]
    out = run_json(capsys, "rollout", START, "--trials", "36", "--truncate", "2", "--quiet")
    assert out["cubeful_equity_se"] is None and out["cubeful_se"] is None
