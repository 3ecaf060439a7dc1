"""Analysis: luck, play errors, position types and exact shot counts."""

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.analysis import (
    PLANS,
    classify,
    luck,
    play_error,
    roll_values,
    shots,
)
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.eval.nets import ValueNet

INTL = Rules.international()


@pytest.fixture(scope="module")
def small() -> NetEvaluator:
    torch.manual_seed(3)
    return NetEvaluator(ValueNet(16), ValueNet(8), device="cpu")


# ---- shots ----------------------------------------------------------------
def test_direct_six_is_17_shots() -> None:
    # the mover's blot on its 18 point (the opponent's 7), the opponent's only checker on its 13
    pos = Position.from_points({18: 1, 6: 14}, {13: 1})
    assert shots(pos).total == 17
    assert shots(pos).by_point == {18: 17}


def test_direct_one_is_11_shots() -> None:
    pos = Position.from_points({13: 1, 6: 14}, {13: 1})
    s = shots(pos)
    assert s.total == 11 and str(s) == "11/36"
    assert all(1 in r for r in s.rolls)


def test_opening_24_14_blot() -> None:
    after = INTL.legal_plays(Position.start(), (6, 4)).find("24/14").position
    s = shots(after)
    assert s.by_point[14] == 11  # 2s only: 1-1 is blocked by the mover's midpoint
    assert s.by_point[24] > 0  # the opponent may point on the ace-point blot too
    assert s.total >= 11


def test_blocked_intermediate_points_and_bar() -> None:
    # 6 away, but the mover holds the points 3 and 2 pips in front of the hitter: 6-6 via the
    # 6 still hits; 3-3, 2-2 and 4-2 via 2 are blocked; 5-1 via 1 and 4-2 via 4 still work
    pos = Position.from_points({18: 1, 15: 2, 16: 2, 6: 10}, {13: 1})
    assert shots(pos).total == 11 + 2 + 2  # any 6, 5-1, 4-2
    # a checker on the bar enters first: the blot on the mover's 5 point is 5 away from the bar;
    # the mover's 1 and 4 points block 4-1 both ways, 3-2 enters and hits
    bar = Position.from_points({5: 1, 6: 10, 1: 2, 4: 2}, {25: 1})
    assert shots(bar).total == 11 + 2


def test_tavla_hit_and_stop_is_passed_through() -> None:
    # a blot 3 away, in the hitter's home board, and the hitter's only checker: under
    # hit-and-stop a hit ends the checker's turn, so with 3-x it must play both dice past
    # the blot instead; only the rolls that cannot avoid it (or hit with the last die) remain
    pos = Position.from_points({20: 1, 6: 14}, {8: 1})
    assert shots(pos).total == 11 + 3  # any 3, 2-1, 1-1
    stop = shots(pos, Rules.tavla(hit_and_stop=True))
    assert stop.total == 4 and set(stop.rolls) == {(1, 1), (2, 1), (3, 3)}


# ---- luck -----------------------------------------------------------------
def test_luck_averages_to_zero(small: NetEvaluator) -> None:
    pos = Position.from_points({24: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 2, 6: 4, 4: 2})
    for rules in (INTL, Rules.tavla()):
        table = roll_values(pos, rules=rules, evaluator=small)
        assert len(table) == 21
        total = sum(w * luck(pos, r, rules=rules, evaluator=small).value for r, (_, w) in table.items())
        assert total == pytest.approx(0.0, abs=1e-12)
    opening = roll_values(Position.start(), opening=True, evaluator=small)
    assert len(opening) == 15 and all(a != b for a, b in opening)
    total = sum(
        w * luck(Position.start(), r, opening=True, evaluator=small).value for r, (_, w) in opening.items()
    )
    assert total == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        luck(Position.start(), (3, 3), opening=True, evaluator=small)
    assert len(roll_values(Position.start(), opening=True, rules=Rules.tavla(), evaluator=small)) == 21


def test_luck_marks_and_roll_value(small: NetEvaluator) -> None:
    # the mover on the bar against a 5-point board: only 6s enter
    pos = Position.from_points({25: 1, 13: 4, 8: 4, 6: 6}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    lk = luck(pos, (6, 6), evaluator=small)
    table = roll_values(pos, evaluator=small)
    assert lk.roll_equity == pytest.approx(table[(6, 6)][0])
    assert lk.value == pytest.approx(lk.roll_equity - sum(v * w for v, w in table.values()))
    assert luck(pos, (1, 2), evaluator=small).dice == (2, 1)


def test_luck_mark_thresholds() -> None:
    from pulvezar.analysis import Luck

    marks = [Luck((1, 1), v, 0.0, 0.0).mark for v in (0.7, 0.3, 0.1, -0.3, -0.6)]
    assert marks == ["very lucky", "lucky", "", "unlucky", "very unlucky"]


def test_opening_luck_with_the_shipped_net() -> None:
    # rollouts rank 3-1 the best opening roll and 6-2 among the weakest (e.g. bkgm.com's opening tables)
    assert luck(Position.start(), (3, 1), opening=True).value > 0
    assert luck(Position.start(), (6, 2), opening=True).value < 0


# ---- errors ---------------------------------------------------------------
def test_play_errors_with_the_shipped_net() -> None:
    start = Position.start()
    best = play_error(start, (3, 1), "8/5 6/5")
    assert best.loss == 0.0 and best.kind == "ok" and best.mark == ""
    bad = play_error(start, (3, 1), "24/21 24/23")
    assert bad.kind == "blunder" and bad.mark == "!!" and bad.loss >= 0.08
    mid = play_error(start, (2, 1), "13/11 6/5")
    assert mid.kind == "error" and mid.mark == ""


def test_screened_play_is_valued_at_the_best_ply(small: NetEvaluator) -> None:
    start = Position.start()
    worst = play_error(start, (6, 5), "13/2", ply=0, evaluator=small)
    deep = play_error(start, (6, 5), worst.played.play, ply=1, filter="tiny", evaluator=small)
    assert deep.played.ply == deep.best.ply == 1
    with pytest.raises(ValueError):
        play_error(start, (6, 5), Position.start(), evaluator=small)


def test_tavla_error_uses_mars_two(small: NetEvaluator) -> None:
    tavla = Rules.tavla()
    err = play_error(Position.start(), (4, 2), "8/4 6/4", rules=tavla, evaluator=small)
    w, wg, _, lg, _ = err.played.probs
    assert err.played.cubeless_equity == pytest.approx(2 * w - 1 + wg - lg)


# ---- position types ---------------------------------------------------------
CLASSIFIED = [
    (Position.start(), "opening", None),
    (INTL.legal_plays(Position.start(), (6, 4)).find("24/14").position.swap(), "opening", None),
    (Position.from_points({6: 5, 8: 5, 10: 5}, {6: 5, 8: 5, 10: 5}), "race", None),
    (Position.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 8: 5, 10: 5}), "bear-off", None),
    (Position.from_points({6: 5, 5: 5, 4: 5}, {24: 2, 6: 5, 8: 5, 10: 3}), "bear-off", None),
    (
        Position.from_points({24: 2, 22: 2, 13: 4, 8: 3, 6: 4}, {6: 5, 5: 4, 4: 3, 8: 3}),
        "backgame",
        "player",
    ),
    (
        Position.from_points({6: 5, 5: 4, 4: 3, 8: 3}, {24: 2, 22: 2, 13: 4, 8: 3, 6: 4}),
        "backgame",
        "opponent",
    ),
    (
        Position.from_points({6: 3, 5: 2, 4: 2, 8: 3, 13: 3, 1: 2}, {25: 1, 23: 1, 13: 5, 8: 4, 6: 4}),
        "blitz",
        "player",
    ),
    (
        Position.from_points({9: 2, 8: 2, 7: 2, 6: 2, 5: 2, 13: 3, 24: 2}, {24: 2, 13: 5, 6: 5, 8: 3}),
        "prime",
        "player",
    ),
    (
        Position.from_points({20: 2, 13: 3, 8: 3, 6: 4, 5: 3}, {13: 4, 10: 3, 8: 3, 6: 3, 3: 2}),
        "holding",
        "player",
    ),
    (
        Position.from_points(
            {24: 2, 13: 3, 11: 2, 10: 2, 8: 2, 6: 3, 4: 1}, {24: 2, 13: 4, 9: 2, 8: 3, 6: 4}
        ),
        "contact",
        None,
    ),
]


@pytest.mark.parametrize(("pos", "kind", "side"), CLASSIFIED)
def test_position_types(pos: Position, kind: str, side: str | None) -> None:
    t = classify(pos)
    assert (t.kind, t.side) == (kind, side)
    assert t.plan and t.plan.endswith(".")


def test_every_type_has_a_plan() -> None:
    assert all(v.count(".") >= 1 and "\n" not in v for v in PLANS.values())
    assert np.unique([k[0] for k in PLANS]).size == 8
