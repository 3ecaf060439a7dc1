"""Move generation and Position IDs against GNU Backgammon (PyPI ``gnubg_nn``).

The sample is every distinct position met in seeded random games from the
start (random dice, a uniformly random legal play each turn, then the turn
passes).  For each sampled position and each of the 21 rolls the set of
resulting boards must equal gnubg's.  gnubg answers ``()`` when nothing can
move; pulvezar then holds exactly one empty play that leaves the position
unchanged.
"""

from __future__ import annotations

import random

import pytest

from pulvezar import Move, Position, Rules
from pulvezar.rules.notation import format_moves

gnubg_nn = pytest.importorskip("gnubg_nn")

pytestmark = pytest.mark.oracle

SEED = 20240601
SAMPLE_SIZE = 12_000
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
INTERNATIONAL = Rules.international()


def random_positions(seed: int, n: int) -> list[Position]:
    """``n`` distinct positions (player on roll) from seeded random games."""
    rng = random.Random(seed)
    seen: dict[bytes, Position] = {}
    while len(seen) < n:
        p = Position.start()
        opening = True
        while len(seen) < n:
            seen.setdefault(p.board, p)
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            while opening and d1 == d2:  # the opening roll is never a double
                d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            opening = False
            boards = INTERNATIONAL.legal_plays(p, (d1, d2)).boards()
            after = Position.from_board(boards[rng.randrange(len(boards))])
            if INTERNATIONAL.game_result(after) is not None:
                break
            p = after.swap()
    return list(seen.values())


def gnubg_board(p: Position) -> list[list[int]]:
    """gnubg's ``[[opponent], [player on roll]]`` layout."""
    return [list(p.theirs), list(p.mine)]


def gnubg_results(p: Position, dice: tuple[int, int]) -> set[bytes]:
    """gnubg's resulting boards in pulvezar's layout (``mine + theirs``)."""
    keys = gnubg_nn.moves(gnubg_board(p), *dice)
    if not keys:
        return {p.board}
    assert len(set(keys)) == len(keys)
    return {bytes(m) + bytes(o) for o, m in map(gnubg_nn.boardfromkey, keys)}


@pytest.fixture(scope="module")
def sample() -> list[Position]:
    return random_positions(SEED, SAMPLE_SIZE)


def test_sample_covers_interesting_positions(sample: list[Position]) -> None:
    """The sample is large and holds many bar, bear-off and race positions."""
    assert len(sample) >= 10_000
    assert len({p.board for p in sample}) == len(sample)
    on_bar = sum(p.bar()[0] > 0 for p in sample)
    bearing_off = sum(sum(p.mine[6:]) == 0 for p in sample)  # all the mover's checkers home
    borne_off = sum(p.off()[0] > 0 for p in sample)
    race = sum(p.is_race() for p in sample)
    print(f"{len(sample)} positions: {on_bar} bar, {bearing_off} bear-off, {borne_off} off, {race} race")
    assert on_bar >= 2_000
    assert bearing_off >= 500
    assert borne_off >= 500
    assert race >= 700


def test_position_ids_match_gnubg(sample: list[Position]) -> None:
    for p in sample:
        pid = p.position_id
        assert pid == gnubg_nn.position_id(gnubg_board(p)), p.board
        assert Position.from_position_id(pid) == p


def _describe(p: Position, dice: tuple[int, int], ours: set[bytes], theirs: set[bytes]) -> str:
    plays = INTERNATIONAL.legal_plays(p, dice)
    only_ours = [plays[plays.index_of(Position.from_board(b))].notation or "(no move)" for b in ours - theirs]
    only_gnubg = []
    for key, steps in gnubg_nn.moves(gnubg_board(p), *dice, 1):
        o, m = gnubg_nn.boardfromkey(key)
        if bytes(m) + bytes(o) in theirs - ours:
            only_gnubg.append(format_moves(Move(a, b, False) for a, b in steps) + " (hits unmarked)")
    if not gnubg_nn.moves(gnubg_board(p), *dice) and p.board not in ours:
        only_gnubg.append("(no move)")
    return (
        f"Position ID {p.position_id} dice {dice[0]}{dice[1]}: "
        f"only pulvezar {sorted(only_ours)}; only gnubg {sorted(only_gnubg)}"
    )


def test_legal_plays_match_gnubg(sample: list[Position]) -> None:
    """Identical sets of resulting positions for every sampled position and roll."""
    mismatches: list[str] = []
    cases = 0
    for p in sample:
        for dice in ROLLS:
            plays = INTERNATIONAL.legal_plays(p, dice)
            boards = plays.boards()
            ours = set(boards)
            assert len(ours) == len(boards), f"duplicate plays at {p.position_id} {dice}"
            if ours == {p.board}:
                assert len(plays) == 1 and plays[0].moves == ()
            theirs = gnubg_results(p, dice)
            cases += 1
            if ours != theirs:
                mismatches.append(_describe(p, dice, ours, theirs))
    assert cases >= 21 * 10_000
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:20])
