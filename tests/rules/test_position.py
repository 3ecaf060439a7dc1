"""Position: construction, validation errors, views and the turn swap."""

import pickle

import numpy as np
import pytest

from pulvezar import InvalidIdError, InvalidPositionError, Position, Rules

START_ID = "4HPwATDgc/ABMA"  # GNU Backgammon manual: the Position ID of the starting position


def test_start_position():
    p = Position.start()
    assert p.position_id == START_ID
    assert p.pips() == (167, 167)
    assert p.off() == (0, 0)
    assert p.bar() == (0, 0)
    assert p.swap() == p
    assert p.is_contact()


def test_nackgammon_start():
    p = Position.start("nackgammon")
    assert sum(p.mine) == 15
    assert p.mine[22] == 2 and p.mine[23] == 2
    assert p.pips()[0] == 2 * 24 + 2 * 23 + 4 * 13 + 3 * 8 + 4 * 6


def test_swap_passes_the_turn():
    p = Position.from_points({25: 1, 6: 5}, {24: 2, 1: 3})
    q = p.swap()
    assert q.mine == p.theirs and q.theirs == p.mine
    assert q.swap() == p
    assert q.pips() == tuple(reversed(p.pips()))


@pytest.mark.parametrize(
    ("mine", "theirs", "field", "words"),
    [
        ([0] * 24, [0] * 25, "mine", "25 counts"),
        ([16] + [0] * 24, [0] * 25, "mine", "16 checkers"),
        ([0] * 25, [-1] + [0] * 24, "theirs", "non-negative"),
        ([1] + [0] * 24, [0] * 23 + [1, 0], "board", "both colours on point 1"),
        ([0] * 25, [0] * 25, "board", "borne off"),
    ],
)
def test_invalid_positions_have_typed_readable_errors(mine, theirs, field, words):
    with pytest.raises(InvalidPositionError) as e:
        Position(mine, theirs)
    assert e.value.field == field
    assert words in str(e.value)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "////////////", 17])
def test_invalid_position_ids(bad):
    with pytest.raises(InvalidIdError):
        Position.from_position_id(bad)


def test_contact_and_race():
    race = Position.from_points({6: 5, 5: 5}, {6: 5, 2: 5})
    assert race.is_race() and not race.is_contact()
    bar = Position.from_points({6: 5}, {25: 1, 6: 4})
    assert bar.is_contact()


def test_hash_eq_pickle_repr():
    p = Position.from_points({25: 1, 6: 5}, {24: 2})
    assert {p: 1}[Position(p.mine, p.theirs)] == 1
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), {"Position": Position}) == p


def test_generate_many_is_generate_for_each_board_and_refuses_bad_input() -> None:
    """The batch move generator of the rollouts: every board's plays in generate()'s order."""
    from pulvezar.rules import _kernel

    rng = np.random.default_rng(7)
    rules, pos, boards, dice = Rules.international(), Position.start(), [], []
    while len(boards) < 200:
        roll = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        boards.append(pos.board)
        dice.append(roll)
        plays = rules.legal_plays(pos, roll)
        after = plays[int(rng.integers(len(plays)))].position
        pos = after.swap() if rules.game_result(after) is None else Position.start()
    for flags in (0, _kernel.HIT_AND_STOP | _kernel.MUST_BEAR_OFF):
        out, counts = _kernel.generate_many(b"".join(boards), bytes(d for r in dice for d in r), flags)
        want = [_kernel.generate(b, d1, d2, flags) for b, (d1, d2) in zip(boards, dice, strict=True)]
        assert np.frombuffer(counts, dtype=np.int64).tolist() == [len(w) // _kernel.REC for w in want]
        assert out == b"".join(w[i : i + 50] for w in want for i in range(0, len(w), _kernel.REC))
    with pytest.raises(ValueError, match=r"dice must be 1\.\.6"):
        _kernel.generate_many(boards[0], bytes([7, 1]), 0)
    with pytest.raises(ValueError, match="2 bytes per board"):
        _kernel.generate_many(boards[0], bytes([3]), 0)
    with pytest.raises(ValueError, match="multiple of 50"):
        _kernel.generate_many(boards[0][:49], b"", 0)
    assert _kernel.generate_many(b"", b"", 0) == (b"", b"")
