"""Match analysis (``pulvezar.analysis.match``): decisions, counting, statistics, JSON, Tavla.

Everything runs at 0 plies on short records; the hand-built records have
answers known without the engine's help: after the opening 3-1, ``6/5 6/3``
instead of making the 5-point (``8/5 6/5``) leaves a direct shot, and passing
a double right after the opening throws the game away.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Literal

import pytest

from pulvezar import Position, Rules
from pulvezar.analysis import rating
from pulvezar.analysis.decisions import BLUNDER, ERROR
from pulvezar.analysis.match import (
    AnalysisError,
    AnalysisSettings,
    GameAnalysis,
    MatchAnalysis,
    analyse_game,
    analyse_match,
    record_rules,
    summarise,
)
from pulvezar.cube.decision import cube_decision
from pulvezar.cubeful import CubeState
from pulvezar.formats import read_mat
from pulvezar.formats.record import Action, GameRecord, MatchRecord, match_id_of
from pulvezar.match.game import Game, MatchContext, Phase, SessionOptions
from pulvezar.search import searcher

DATA = Path(__file__).resolve().parents[1] / "formats" / "data"
ZERO = AnalysisSettings.from_level("0ply")


def opening_record(play: str = "6/5 6/3", *, answer: Literal["take", "drop"] = "drop") -> MatchRecord:
    """Ann opens 3-1 with ``play``; Bob doubles at once; Ann answers ``answer``."""
    actions = [
        Action(0, "roll", (3, 1)),
        Action(0, "play", notation=play),
        Action(1, "double", value=2),
        Action(0, answer),
    ]
    game = GameRecord(number=1, score=(0, 0), actions=actions)
    if answer == "drop":
        actions.append(Action(1, "win", value=1))
        game.winner, game.points = 1, 1
    return MatchRecord(length=5, players=("Ann", "Bob"), games=[game])


@pytest.fixture(scope="module")
def seven_point() -> MatchRecord:
    rec = read_mat((DATA / "7point.mat").read_bytes())
    return dataclasses.replace(rec, games=rec.games[:3])  # a short match: the first three games


# ---- settings ----------------------------------------------------------------------------


def test_levels_and_settings_json() -> None:
    plies = {lv: (AnalysisSettings.from_level(lv).ply, AnalysisSettings.from_level(lv).cube_ply) for lv in
             ("0ply", "1ply", "2ply", "3ply", "deep")}  # fmt: skip
    assert plies == {"0ply": (0, 0), "1ply": (1, 1), "2ply": (2, 2), "3ply": (3, 2), "deep": (2, 2)}
    assert AnalysisSettings() == AnalysisSettings.from_level("2ply")
    deep = AnalysisSettings.from_level("deep")
    assert deep.deep and not AnalysisSettings.from_level("3ply").deep
    assert AnalysisSettings.from_json(json.loads(json.dumps(deep.to_json()))) == deep
    with pytest.raises(AnalysisError) as e:
        AnalysisSettings.from_level("4ply")
    assert e.value.field == "level"
    with pytest.raises(AnalysisError) as e:
        AnalysisSettings.from_json({**ZERO.to_json(), "plies": 2})
    assert e.value.field == "plies"
    with pytest.raises(AnalysisError) as e:
        AnalysisSettings(ply=5)
    assert e.value.field == "ply"


# ---- a hand-built game with known answers ----------------------------------------------------


def test_blunder_wrong_double_and_wrong_pass() -> None:
    rec = opening_record()
    ga = analyse_game(rec, 0, ZERO)
    checker, double, answer = ga.decisions
    # the checker play: 6/5 6/3 leaves a direct shot where 8/5 6/5 makes the 5-point
    assert (checker.kind, checker.player, checker.dice) == ("checker", 0, (3, 1))
    assert (checker.played, checker.best) == ("6/5 6/3", "8/5 6/5")
    assert checker.loss >= BLUNDER and (checker.mark, checker.symbol) == ("blunder", "!!")
    assert checker.counts and not checker.forced
    assert checker.position_id == Position.start().position_id
    assert {"fewer_shots", "makes_point"} <= {r["code"] for r in checker.reasons}
    assert checker.explanation.startswith("8/5 6/5 is better than 6/5 6/3")
    assert checker.position_type == "opening" and checker.plan
    assert 1 <= len(checker.candidates) <= ZERO.candidates + 1
    assert checker.candidates[0].notation == "8/5 6/5" and checker.candidates[0].loss == 0.0
    losses = [c.loss for c in checker.candidates]
    assert losses == sorted(losses)
    played = next(c for c in checker.candidates if c.notation == "6/5 6/3")
    assert played.loss == pytest.approx(checker.loss)
    assert checker.luck is not None and checker.luck.ply == 0
    # the IDs are the replay's
    g = rec.new_game(rec.games[0])
    g.opening_roll(3, 1)
    assert checker.match_id == match_id_of(g).encode()
    g.play("6/5 6/3")
    # Bob's double right after the opening is wrong, Ann's pass much worse
    state = CubeState.from_game(g)
    truth = cube_decision(state, ply=0)
    assert (double.kind, double.player, double.played, double.best) == ("double", 1, "double", "no double")
    assert double.category == "wrong double" and double.counts
    assert double.loss == pytest.approx(truth.costs["double"]) and double.loss > 0
    assert double.position_id == g.position.position_id
    assert (answer.kind, answer.player, answer.played, answer.best) == ("take", 0, "pass", "take")
    assert answer.category == "wrong pass" and answer.counts
    assert answer.loss == pytest.approx(truth.costs["pass"]) and answer.loss >= BLUNDER
    assert answer.position_id == g.position.swap().position_id  # the taker's view
    # PR from rating's definition, by hand: Ann has the play and the pass, Bob the double
    ann = ga.to_json()["players"][0]
    assert ann["pr"] == pytest.approx(500 * (checker.loss + answer.loss) / 2)
    assert ann["pr"] == rating.performance_rating(ga.errors, 0)
    assert ann["error_rate"] == pytest.approx(2 * ann["pr"])
    assert (ann["decisions"], ann["blunders"]) == (2, 2)
    assert (ann["checker"]["blunders"], ann["cube"]["wrong_passes"]) == (1, 1)
    assert ann["grade"] == rating.grade(ann["pr"]) == "Awful"
    assert ann["biggest_mistake"]["played"] == "pass"
    bob = ga.to_json()["players"][1]
    assert bob["cube"]["wrong_doubles"] == 1 and bob["decisions"] == 1
    assert bob["result_points"] == 1 and ann["result_points"] == -1


def test_right_decisions_cost_nothing() -> None:
    ga = analyse_game(opening_record("8/5 6/5", answer="take"), 0, ZERO)
    checker, _double, answer = ga.decisions
    assert checker.loss == 0.0 and checker.mark == "" and checker.explanation == ""
    assert (answer.played, answer.loss, answer.category) == ("take", 0.0, "")
    assert rating.performance_rating(ga.errors, 0) == 0.0


def test_opening_luck_averages_zero() -> None:
    """Luck is the roll's value minus the average: over the 15 opening rolls it averages 0."""
    values = []
    for a in range(2, 7):
        for b in range(1, a):
            best = Game(MatchContext(length=5))
            best.opening_roll(a, b)
            play = best.legal_plays()[0].notation
            rec = MatchRecord(
                length=5,
                games=[GameRecord(1, (0, 0), [Action(0, "roll", (a, b)), Action(0, "play", notation=play)])],
            )
            luck = analyse_game(rec, 0, ZERO).decisions[0].luck
            assert luck is not None
            values.append(luck.value)
    assert len(values) == 15
    assert abs(sum(values) / 15) < 1e-9
    assert max(values) > 0.1 and min(values) < -0.01


# ---- a real match -----------------------------------------------------------------------------


def test_real_match_counts_and_forced_plays(seven_point: MatchRecord) -> None:
    ma = analyse_match(seven_point, ZERO)
    ds = ma.decisions
    plays = [a for g in seven_point.games for a in g.actions if a.kind == "play"]
    checkers = [d for d in ds if d.kind == "checker"]
    assert len(checkers) == len(plays)
    forced = [d for d in checkers if d.forced]
    assert forced and all(not d.counts and d.loss == 0 for d in forced)
    assert all(d.counts for d in checkers if not d.forced)
    for d in ds:
        assert d.loss >= 0
        assert d.mark == ("blunder" if d.loss >= BLUNDER else "error" if d.loss >= ERROR else "")
    data = ma.to_json()
    for p in (0, 1):
        s = data["players"][p]
        assert s["name"] == seven_point.players[p]
        assert s["pr"] == pytest.approx(rating.performance_rating([d.error for d in ds], p))
        mine = [d for d in ds if d.player == p and d.counts]
        assert s["decisions"] == len(mine) == s["checker"]["decisions"] + s["cube"]["decisions"]
        assert s["errors"] + s["blunders"] == sum(d.loss >= ERROR for d in mine)
        assert s["luck"]["net"] == pytest.approx(-data["players"][1 - p]["luck"]["net"])
        assert s["luck_adjusted"] == pytest.approx(s["result_points"] - s["luck"]["net_points"])
    assert data["players"][0]["result_points"] == -data["players"][1]["result_points"]
    assert set(data["engine"]) >= {"version", "model"} and data["settings"]["level"] == "0ply"
    cube = [d for d in ds if d.kind != "checker"]
    assert cube and all(d.cube is not None for d in cube)


def test_json_round_trip_and_determinism(seven_point: MatchRecord) -> None:
    ga = analyse_game(seven_point, 1, ZERO)
    again = GameAnalysis.from_json(json.loads(json.dumps(ga.to_json())))
    assert again == ga
    searcher(None, Rules.international()).cache.clear()  # the same values again, not just the cached ones
    assert analyse_game(seven_point, 1, ZERO) == ga
    ma = analyse_match(seven_point, ZERO)
    assert MatchAnalysis.from_json(json.loads(json.dumps(ma.to_json()))) == ma
    with pytest.raises(AnalysisError):
        GameAnalysis.from_json({"index": 0})


def test_summarise_any_order_equals_analyse_match(seven_point: MatchRecord) -> None:
    calls: list[tuple[int, int]] = []
    whole = analyse_match(seven_point, ZERO, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
    parts = [analyse_game(seven_point, i, ZERO) for i in (2, 0, 1)]
    assert summarise(seven_point, parts) == whole
    assert summarise(seven_point, parts).to_json() == whole.to_json()
    with pytest.raises(AnalysisError) as e:
        summarise(seven_point, [parts[0], parts[0]])
    assert e.value.field == "games"
    other = analyse_game(seven_point, 0, dataclasses.replace(ZERO, candidates=3))
    with pytest.raises(AnalysisError) as e:
        summarise(seven_point, [other, parts[0]])
    assert e.value.field == "settings"


def test_bad_game_index() -> None:
    with pytest.raises(AnalysisError) as e:
        analyse_game(opening_record(), 1, ZERO)
    assert e.value.field == "index"


def test_deep_revalues_errors() -> None:
    quick = AnalysisSettings.from_level("deep", deep_trials=72, deep_ply=0, deep_truncate=2)
    ga = analyse_game(opening_record(), 0, quick)
    checker = ga.decisions[0]
    assert checker.deep and {c.ply for c in checker.candidates} == {"deep"}
    assert checker.best == "8/5 6/5" and checker.loss >= BLUNDER
    assert not any(d.deep for d in ga.decisions[1:])


# ---- Tavla -------------------------------------------------------------------------------


def tavla_record(seed: int = 7) -> MatchRecord:
    """A Tavla game played with random dice and random legal plays through the match model."""
    rng = random.Random(seed)
    game = Game(MatchContext(length=3, rules=Rules.tavla()))
    actions = [Action(0, "roll", (5, 2))]
    game.opening_roll(5, 2)  # player 0 opens, then rolls both dice again
    while game.phase is not Phase.OVER:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        actions.append(Action(game.turn, "roll", dice))
        game.roll(dice)
        play = rng.choice(game.legal_plays())
        actions.append(Action(game.turn, "play", notation=play.notation))
        game.play(play)
    assert game.winner is not None
    actions.append(Action(game.winner, "win", value=game.points))
    rec = GameRecord(1, (0, 0), actions, winner=game.winner, points=game.points)
    return MatchRecord(length=3, players=("Ayşe", "Can"), tags={"Variation": "Tavla"}, games=[rec])


def test_tavla_record() -> None:
    rec = tavla_record()
    assert record_rules(rec).variant == "tavla"
    ga = analyse_game(rec, 0, ZERO)
    assert ga.variant == "tavla"
    assert {d.kind for d in ga.decisions} == {"checker"}
    plays = [a for a in rec.games[0].actions if a.kind == "play"]
    assert len(ga.decisions) == len(plays)
    assert all(d.luck is not None for d in ga.decisions)
    assert any(d.loss > 0 for d in ga.decisions)  # random plays make mistakes
    ma = summarise(rec, [ga])
    assert ma.variant == "tavla" and ma.to_json()["players"][0]["cube"]["decisions"] == 0


def test_money_session_with_beaver() -> None:
    actions = [
        Action(0, "roll", (3, 1)),
        Action(0, "play", notation="8/5 6/5"),
        Action(1, "double", value=2),
        Action(0, "beaver", value=4),
        Action(1, "take"),
        Action(1, "roll", (6, 5)),
        Action(1, "play", notation="24/13"),
    ]
    rec = MatchRecord(
        length=0,
        players=("Ann", "Bob"),
        options=SessionOptions(beaver=True),
        games=[GameRecord(1, (0, 0), actions)],
    )
    ga = analyse_game(rec, 0, ZERO)
    kinds = [(d.kind, d.player, d.played) for d in ga.decisions]
    # Bob's early double is wrong, Ann's beaver right; Bob's answer to the beaver is not analysed
    assert kinds == [
        ("checker", 0, "8/5 6/5"),
        ("double", 1, "double"),
        ("take", 0, "beaver"),
        ("checker", 1, "24/13"),
    ]
    double, beaver = ga.decisions[1:3]
    assert double.category == "wrong double" and double.loss > 0
    assert (beaver.best, beaver.loss, beaver.category) == ("beaver", 0.0, "")
    assert ga.decisions[3].cube_value == 4  # the beavered cube
    assert ga.to_json()["players"][0]["result_points"] == 0  # the game is not over


def test_checker_and_cube_errors_share_a_unit() -> None:
    """A play's cubeful equity is minus the opponent's cube-decision value after it: both EMG."""
    rec = opening_record("8/5 6/5", answer="take")
    checker = analyse_game(rec, 0, ZERO).decisions[0]
    g = rec.new_game(rec.games[0])
    g.opening_roll(3, 1)
    g.play("8/5 6/5")
    after = cube_decision(CubeState.from_game(g), ply=0)
    assert checker.candidates[0].equity == pytest.approx(-after.value, abs=1e-9)
