"""Cubeful hints: money cube ownership and Jacoby, match scores, games in the move phase."""

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.cubeful import CubeState
from pulvezar.cubeful.janowski import Owner, efficiency, money_cubeful
from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import EvaluatorBase, flip, swap_boards
from pulvezar.match import Game, MatchContext, SessionOptions
from pulvezar.search import Candidate, hint

# 21/13* hits and wins many gammons; 21/16 5/2 wins more often, with fewer gammons
GAMMONISH = Position.from_position_id("3xghSgF/5wIABA")
GAMMONISH_DICE = (5, 3)


def _arrays(cands: list[Candidate]) -> tuple[np.ndarray, np.ndarray]:
    probs = np.array([c.probs for c in cands])
    boards = np.frombuffer(b"".join(c.play.position.board for c in cands), dtype=np.uint8)
    return probs, efficiency(boards.reshape(-1, 50))


def _listing(cands: list[Candidate]) -> list[tuple[str, float | None]]:
    return [(c.notation, c.cubeful_equity) for c in cands]


def _by_play(cands: list[Candidate]) -> dict[bytes, Candidate]:
    return {c.play.position.board: c for c in cands}


def test_a_position_alone_stays_cubeless() -> None:
    cands = hint(Position.start(), (6, 4))
    assert all(c.cubeful_equity is None and c.equity == c.cubeless_equity for c in cands)


@pytest.mark.parametrize("ply", [0, 1])
def test_money_ownership_follows_janowski(ply: int) -> None:
    start, dice = Position.start(), (6, 4)
    owned = hint(CubeState(start, cube_value=2, cube_owner="player"), dice, ply=ply)
    probs, x = _arrays(owned)
    # the opponent cannot double: the mover's value is the owner's Janowski function
    want = money_cubeful(probs, "player", x)
    assert [c.cubeful_equity for c in owned] == pytest.approx(want.tolist(), abs=1e-9)
    # nobody cashes after an opening move: centred and opponent-owned are the formulas too
    centred = hint(CubeState(start), dice, ply=ply)
    theirs = hint(CubeState(start, cube_value=4, cube_owner="opponent"), dice, ply=ply)
    jacoby = hint(CubeState(start, jacoby=True), dice, ply=ply)
    cases: list[tuple[list[Candidate], Owner, bool]] = [
        (centred, "centre", False),
        (theirs, "opponent", False),
        (jacoby, "centre", True),
    ]
    for cands, owner, jac in cases:
        p, xs = _arrays(cands)
        want = money_cubeful(p, owner, xs, jac)
        assert [c.cubeful_equity for c in cands] == pytest.approx(want.tolist(), abs=1e-9)
    mine, middle, lost = _by_play(owned), _by_play(centred), _by_play(theirs)
    for b, c in middle.items():
        if c.ply == mine[b].ply == lost[b].ply:  # the same probabilities (screens may differ)
            assert c.probs == mine[b].probs
            assert mine[b].equity > c.equity > lost[b].equity  # owning the cube is worth something
    # ordered and losses counted by the cubeful equity
    eqs = [c.equity for c in owned if c.ply == owned[0].ply]
    assert eqs == sorted(eqs, reverse=True)
    assert all(c.loss == pytest.approx(owned[0].equity - c.equity) for c in owned)


def test_money_opponent_cashes_a_lost_race() -> None:
    # far behind in a bear-off: after any play the opponent doubles and the mover passes
    behind = Position.from_points({6: 2, 5: 2, 4: 2}, {1: 2, 2: 2, 3: 2})
    centred = hint(CubeState(behind), (2, 1))
    assert all(c.cubeful_equity == pytest.approx(-1.0) for c in centred)
    assert -0.97 < centred[0].cubeless_equity < -0.9  # cubeless: some chances left
    owned = hint(CubeState(behind, cube_owner="player", cube_value=2), (2, 1))
    probs, x = _arrays(owned)
    assert [c.cubeful_equity for c in owned] == pytest.approx(money_cubeful(probs, "player", x).tolist())
    assert owned[0].cubeful_equity is not None and owned[0].cubeful_equity > -1.0  # the owner plays on


class _Fixed(EvaluatorBase):
    """Chosen probabilities for two plays' results (the net's own view does not matter here)."""

    def __init__(self, table: dict[bytes, list[float]]) -> None:
        self.table = table

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        default = [0.3, 0.0, 0.0, 0.1, 0.0]
        mover = np.array([self.table.get(swap_boards(b[None])[0].tobytes(), default) for b in boards])
        return flip(mover)  # the boards come with the opponent on roll


def test_match_score_without_gammons_reorders_a_gammonish_pair() -> None:
    plays = Rules.international().legal_plays(GAMMONISH, GAMMONISH_DICE)
    hit_board = plays.find("21/13*").position.board
    safe_board = plays.find("21/16 5/2").position.board
    # the hit wins less often but with many more gammons; the safe play wins more, seldom a gammon
    ev = _Fixed({hit_board: [0.60, 0.35, 0.0, 0.05, 0.0], safe_board: [0.70, 0.05, 0.0, 0.05, 0.0]})
    money = hint(GAMMONISH, GAMMONISH_DICE, evaluator=ev)
    dmp = hint(CubeState(GAMMONISH, match_length=1), GAMMONISH_DICE, evaluator=ev)  # double match point
    assert money[0].notation == "21/13*"
    assert dmp[0].notation == "21/16 5/2"
    # at DMP only winning counts: the match equity is 2 W - 1 for every play
    assert [c.cubeful_equity for c in dmp] == pytest.approx([2 * c.probs[0] - 1 for c in dmp])
    assert dmp[1].loss == pytest.approx(dmp[0].equity - dmp[1].equity)
    # in a long match at 0-0 gammons count about as in money play: the hit is back on top
    long_match = hint(CubeState(GAMMONISH, match_length=7), GAMMONISH_DICE, evaluator=ev)
    assert long_match[0].notation == "21/13*"
    # at 2-away 2-away the next (centred) cube is for the match: gammons add little, the safer win is better
    two_away = hint(CubeState(GAMMONISH, match_length=3, score=(1, 1)), GAMMONISH_DICE, evaluator=ev)
    assert two_away[0].notation == "21/16 5/2"


def test_game_in_move_phase() -> None:
    g = Game(MatchContext(length=5, score=(1, 3)))
    g.opening_roll(6, 4)
    from_game = hint(g)
    want = hint(CubeState(Position.start(), match_length=5, score=(1, 3)), (6, 4))
    assert _listing(from_game) == _listing(want)
    g.play(from_game[0].play)
    g.double()  # player 1 doubles, player 0 takes and owns the cube at 2
    g.take()
    g.roll((3, 1))  # player 1 rolls: the score and cube seen from player 1
    state = CubeState(g.position, 2, "opponent", 5, (3, 1))
    got = hint(g, ply=1)
    want = hint(state, (3, 1), ply=1)
    assert _listing(got) == _listing(want)
    assert hint(g, (6, 5))[0].notation == hint(state, (6, 5))[0].notation


def test_money_game_options_and_errors() -> None:
    g = Game(MatchContext(options=SessionOptions(jacoby=True, beaver=True)))
    with pytest.raises(PulvezarError):
        hint(g)  # not rolled yet
    g.opening_roll(3, 1)
    got = hint(g)
    assert got == hint(CubeState(Position.start(), jacoby=True, beaver=True), (3, 1))
    with pytest.raises(PulvezarError):
        hint(g, rules=Rules.tavla())
    with pytest.raises(PulvezarError):
        hint(CubeState(Position.start()))  # no dice


def test_tavla_game_is_cubeless() -> None:
    g = Game(MatchContext(length=5, rules=Rules.tavla()))
    g.opening_roll(6, 4)
    g.roll((6, 4))
    cands = hint(g)
    assert cands and all(c.cubeful_equity is None for c in cands)
