"""Property tests of the rules core against a deliberately simple reference.

The reference move generator below is plain Python written straight from the
:class:`pulvezar.Rules` docstring: it tries every die order and every checker
at every step (no pruning, no canonical move order), keeps the sequences that
use the most dice (then the most pips: the larger-die rule), and returns the
set of resulting boards.  It is slow but small enough to check by eye.

Positions come from two sources: positions reached in seeded random games
under every rule set, and random checker distributions that satisfy only the
board constraints (15 checkers a side at most, never both colours on a point),
biased towards bear-offs with opposing blots in the home board, where the
Tavla options bite.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulvezar import Position, Rules
from pulvezar.rules.notation import format_play, match_play

HIT_AND_STOP = 1
MUST_BEAR_OFF = 2

RULE_SETS = [
    Rules.international(),
    Rules.tavla(),
    Rules.tavla(hit_and_stop=True),
    Rules.tavla(must_bear_off=True),
    Rules.tavla(hit_and_stop=True, must_bear_off=True),
]
ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def flags_of(rules: Rules) -> int:
    return (HIT_AND_STOP if rules.hit_and_stop else 0) | (MUST_BEAR_OFF if rules.must_bear_off else 0)


# ---------------------------------------------------------------------------
# The reference generator.  Indices: 0..23 = points 1..24, 24 = bar, -1 = off.
# ``theirs`` is in the opponent's numbering: my point index t is their 23 - t.
# ---------------------------------------------------------------------------
State = tuple[list[int], list[int], list[int]]  # mine, theirs, frozen (hit and stop)


def ref_single_moves(
    mine: list[int],
    theirs: list[int],
    frozen: list[int],
    die: int,
    flags: int,
) -> list[tuple[int, int]]:
    """The legal moves of one checker with one die: (from index, to index or -1 for off)."""
    all_home = not any(mine[6:25])
    moves = []
    for i in range(25):
        if mine[i] - frozen[i] <= 0:  # no checker there that may still move
            continue
        if mine[24] and i != 24:  # bar checkers enter first
            continue
        t = i - die
        if t >= 0:
            if theirs[23 - t] < 2:  # not blocked
                moves.append((i, t))
        elif all_home and (t == -1 or not any(mine[i + 1 : 25])):  # exact, or from the highest point
            moves.append((i, -1))
    if flags & MUST_BEAR_OFF and all_home:
        offs = [m for m in moves if m[1] == -1]  # a frozen checker cannot bear off
        if offs:
            moves = offs
    return moves


def ref_apply(state: State, move: tuple[int, int], flags: int) -> tuple[State, bool]:
    mine, theirs, frozen = (list(x) for x in state)
    i, t = move
    mine[i] -= 1
    hit = False
    if t >= 0:
        mine[t] += 1
        if theirs[23 - t] == 1:
            theirs[23 - t] = 0
            theirs[24] += 1
            hit = True
            if flags & HIT_AND_STOP and t <= 5:
                frozen[t] += 1
    return (mine, theirs, frozen), hit


def ref_plays(board: bytes, d1: int, d2: int, flags: int) -> set[bytes]:
    """Every legal resulting board of the roll (d1, d2)."""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    ends: list[tuple[int, int, bytes]] = []  # (dice used, pips used, board)
    seen: set[tuple[bytes, tuple[int, ...], tuple[int, ...], int]] = set()

    def walk(state: State, dice: tuple[int, ...], used: int, pips: int) -> None:
        mine, theirs, frozen = state
        key = (bytes(mine + theirs), tuple(frozen), dice, used)
        if key in seen:  # only to save time: the same state reached twice
            return
        seen.add(key)
        moves = [] if used == len(dice) else ref_single_moves(*state, dice[used], flags)
        if not moves:
            ends.append((used, pips, bytes(mine + theirs)))
            return
        for m in moves:
            walk(ref_apply(state, m, flags)[0], dice, used + 1, pips + dice[used])

    for order in orders:
        walk((list(board[:25]), list(board[25:]), [0] * 25), order, 0, 0)
    best = max((u, p) for u, p, _ in ends)
    return {b for u, p, b in ends if (u, p) == best}


def ref_replays(
    start: Position, dice: tuple[int, int], moves: list[tuple[int, int, bool]], flags: int, end: Position
) -> bool:
    """Whether the moves (points: 25 = bar, 0 = off), in this order, are legal steps leading to ``end``."""
    d1, d2 = dice
    pool = [d1] * 4 if d1 == d2 else [d1, d2]

    def go(state: State, k: int, left: list[int]) -> bool:
        if k == len(moves):
            return bytes(state[0] + state[1]) == end.board
        src, dst, hit = moves[k]
        step = (src - 1, dst - 1)
        for d in set(left):
            if step in ref_single_moves(*state, d, flags):
                nstate, did_hit = ref_apply(state, step, flags)
                rest = list(left)
                rest.remove(d)
                if did_hit == hit and go(nstate, k + 1, rest):
                    return True
        return False

    b = start.board
    return go((list(b[:25]), list(b[25:]), [0] * 25), 0, pool)


def expected_plays(p: Position, dice: tuple[int, int], rules: Rules) -> set[bytes]:
    return ref_plays(p.board, *dice, flags_of(rules))


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------
@functools.cache
def _games() -> tuple[tuple[Position, ...], tuple[Position, ...]]:
    rng = random.Random(20240611)
    pool: list[Position] = []
    ends: list[Position] = []
    for g in range(40):
        rules = RULE_SETS[g % len(RULE_SETS)]
        p = rules.start_position()
        while True:
            pool.append(p)
            plays = rules.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
            p = rng.choice(plays.positions())
            if rules.game_result(p) is not None:
                ends.append(p)
                break
            p = p.swap()
    return tuple(pool), tuple(ends)


def game_pool() -> tuple[Position, ...]:
    """Positions (player on roll) reached in seeded random games under every rule set."""
    return _games()[0]


def finished_pool() -> tuple[Position, ...]:
    """The last positions of those games, seen by the winner."""
    return _games()[1]


@st.composite
def distributions(draw: st.DrawFn) -> Position:
    """Random checker distributions of a game in progress (both sides still have checkers)."""
    mode = draw(st.sampled_from(["anywhere", "bear-off", "bear-off", "contact"]))
    if mode == "bear-off":
        # mine home (a straggler or two), theirs: blots and points in my home board, the bar
        my_slots = st.one_of(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(7, 25))
        their_slots = st.one_of(st.integers(19, 25), st.integers(1, 25))
        n_mine = draw(st.integers(1, 15))
        n_theirs = draw(st.integers(1, 15))
    elif mode == "contact":
        my_slots = st.one_of(st.integers(1, 12), st.integers(13, 25))
        their_slots = st.one_of(st.integers(1, 12), st.integers(13, 25))
        n_mine = draw(st.integers(8, 15))
        n_theirs = draw(st.integers(8, 15))
    else:
        my_slots = their_slots = st.integers(1, 25)
        n_mine = draw(st.integers(1, 15))
        n_theirs = draw(st.integers(1, 15))
    mine = [0] * 25
    for point in draw(st.lists(my_slots, min_size=n_mine, max_size=n_mine)):
        mine[point - 1] += 1
    theirs = [0] * 25
    for point in draw(st.lists(their_slots, min_size=n_theirs, max_size=n_theirs)):
        # their point q is my point 25 - q; move on to a free point when taken
        while point != 25 and mine[25 - point - 1]:
            point = point % 25 + 1
        theirs[point - 1] += 1
    return Position(mine, theirs)


positions = st.one_of(st.sampled_from(game_pool()), distributions())
any_positions = st.one_of(positions, st.sampled_from(finished_pool()))
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
rule_sets = st.sampled_from(RULE_SETS)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plays_of(p: Position, d: tuple[int, int], rules: Rules) -> Iterator[Position]:
    yield from rules.legal_plays(p, d).positions()


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------
@FAST
@given(positions, dice, rule_sets)
def test_die_order_never_matters(p: Position, d: tuple[int, int], rules: Rules) -> None:
    a = rules.legal_plays(p, d)
    b = rules.legal_plays(p, (d[1], d[0]))
    assert set(a.boards()) == set(b.boards())
    assert len(a) == len(b) == len(set(a.boards()))  # distinct positions, never empty
    assert len(a) >= 1


@FAST
@given(positions, dice, rule_sets)
def test_checkers_are_conserved(p: Position, d: tuple[int, int], rules: Rules) -> None:
    start_mine, start_theirs = p.mine, p.theirs
    for play in rules.legal_plays(p, d):
        q = play.position
        assert sum(q.mine) + q.off()[0] == 15 and sum(q.theirs) + q.off()[1] == 15
        assert q.off()[1] == p.off()[1]  # the opponent bears nothing off
        assert q.off()[0] >= p.off()[0]
        # the opponent's checkers only move to the bar, and only as blots that were hit
        hit_points = [j for j in range(24) if q.theirs[j] != start_theirs[j]]
        assert all(start_theirs[j] == 1 and q.theirs[j] == 0 for j in hit_points)
        assert q.theirs[24] - start_theirs[24] == len(hit_points) == play.hits
        # my checkers only move forward: pips drop by at most the dice played
        used = len(play.moves)
        assert used <= (4 if d[0] == d[1] else 2)
        dropped = p.pips()[0] - q.pips()[0]
        assert 0 <= dropped <= (sum(d) if d[0] != d[1] else 4 * d[0])
        assert (dropped == 0) == (used == 0)
        assert sum(start_mine) >= sum(q.mine)


@FAST
@given(positions, dice, rule_sets)
def test_results_are_valid_positions(p: Position, d: tuple[int, int], rules: Rules) -> None:
    for q in plays_of(p, d, rules):
        assert Position(q.mine, q.theirs) == q  # passes full validation
        assert Position.from_board(q.board) == q
        assert Position.from_position_id(q.position_id) == q


@FAST
@given(positions, dice, rule_sets)
def test_every_play_uses_the_maximal_number_of_dice(p: Position, d: tuple[int, int], rules: Rules) -> None:
    plays = rules.legal_plays(p, d)
    assert set(plays.boards()) == expected_plays(p, d, rules)
    counts = {len(play.moves) for play in plays}
    assert len(counts) == 1  # every play uses the same (maximal) number of dice
    flags = flags_of(rules)
    for play in plays:
        steps = [(m.src, m.dst, m.hit) for m in play.moves]
        assert ref_replays(p, d, steps, flags, play.position), (
            play
        )  # the representative moves are a legal order


def test_reference_agrees_on_game_positions_for_every_rule_set() -> None:
    """Full result sets on a few hundred positions, every roll, every rule set."""
    rng = random.Random(7)
    sample = rng.sample(game_pool(), 250)
    checked = 0
    for p in sample:
        for d in ALL_ROLLS:
            for rules in RULE_SETS:
                assert set(rules.legal_plays(p, d).boards()) == expected_plays(p, d, rules), (
                    p,
                    d,
                    rules.name,
                )
                checked += 1
    assert checked > 20_000


@settings(max_examples=400, deadline=None)
@given(distributions(), st.sampled_from([r for r in ALL_ROLLS if r[0] != r[1]]), rule_sets)
def test_reference_agrees_on_random_distributions(p: Position, d: tuple[int, int], rules: Rules) -> None:
    assert set(rules.legal_plays(p, d).boards()) == expected_plays(p, d, rules)


@FAST
@given(distributions(), st.integers(1, 6), rule_sets)
def test_reference_agrees_on_random_doubles(p: Position, d: int, rules: Rules) -> None:
    assert set(rules.legal_plays(p, (d, d)).boards()) == expected_plays(p, (d, d), rules)


def test_must_bear_off_doubles_may_move_inside_before_the_last_checker_comes_home() -> None:
    # me: 8:1 5:1 2:2 (11 off); 22: 5/3 while 8 is still out, then 8/6, then the
    # last two 2s must bear off: 8/6 5/3 2/off(2).  (The kernel once tried the
    # checkers of a double only in falling order and lost this play.)
    p = Position.from_points({8: 1, 5: 1, 2: 2}, {13: 2})
    plays = Rules.tavla(must_bear_off=True).legal_plays(p, (2, 2))
    assert "8/6 5/3 2/off(2)" in plays
    assert {len(play.moves) for play in plays} == {4}
    assert set(plays.boards()) == ref_plays(p.board, 2, 2, MUST_BEAR_OFF)


def test_reference_agrees_with_must_bear_off_doubles() -> None:
    rules = Rules.tavla(must_bear_off=True)
    for p in random.Random(3).sample(game_pool(), 400):
        for n in range(1, 7):
            assert set(rules.legal_plays(p, (n, n)).boards()) == ref_plays(p.board, n, n, MUST_BEAR_OFF)


def test_frozen_checker_cannot_force_a_bear_off() -> None:
    # mine: 6:2 4:1 3:1 2:7 (4 off); opponent blots on my 5 and my 1, points on my 22..24.
    # 51: 6/5* freezes the hitter on 5; the 5 can no longer bear a checker off
    # (the only checker on 5 is frozen), so it may move inside: 6/1*.
    p = Position.from_position_id("2x0UASH+ygAAAA")
    rules = Rules.tavla(hit_and_stop=True, must_bear_off=True)
    assert "6/5* 6/1*" in rules.legal_plays(p, (5, 1))


@FAST
@given(positions, dice, rule_sets)
def test_colour_symmetry(p: Position, d: tuple[int, int], rules: Rules) -> None:
    s = p.swap()
    assert s.swap() == p
    assert s.pips() == p.pips()[::-1] and s.off() == p.off()[::-1] and s.bar() == p.bar()[::-1]
    assert s.is_contact() == p.is_contact()
    # the same board built from the other colour's point of view
    mirrored = Position.from_points(
        {i + 1: n for i, n in enumerate(p.theirs) if n}, {i + 1: n for i, n in enumerate(p.mine) if n}
    )
    assert mirrored == s and Position.from_position_id(s.position_id) == s
    assert rules.game_result(p) is None and rules.game_result(s) is None
    # the opponent's plays, generated on the swapped board, agree with the
    # reference run with the two sides exchanged, and leave my checkers alone
    # except for hits
    theirs_plays = rules.legal_plays(s, d)
    assert set(theirs_plays.boards()) == expected_plays(s, d, rules)
    for q in theirs_plays.positions():
        back = q.swap()  # my point of view again
        hit = [i for i in range(24) if back.mine[i] != p.mine[i]]
        assert all(p.mine[i] == 1 and back.mine[i] == 0 for i in hit)
        assert back.mine[24] == p.mine[24] + len(hit)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_game_results_are_colour_symmetric(rules: Rules) -> None:
    for q in finished_pool():
        won, lost = rules.game_result(q), rules.game_result(q.swap())
        assert won is not None and lost is not None
        assert (won.winner, lost.winner) == ("player", "opponent")
        assert (won.outcome, won.points) == (lost.outcome, lost.points)


@FAST
@given(any_positions)
def test_position_id_round_trip(p: Position) -> None:
    pid = p.position_id
    assert len(pid) == 14
    assert Position.from_position_id(pid) == p
    assert Position.from_position_id(f"  {pid} ") == p
    assert Position.from_position_id(p.swap().position_id) == p.swap()


@FAST
@given(positions, dice, rule_sets)
def test_notation_round_trip(p: Position, d: tuple[int, int], rules: Rules) -> None:
    plays = rules.legal_plays(p, d)
    for play in plays:
        text = format_play(play)
        assert match_play(text, plays) == play, text
        assert match_play(text.upper(), plays) == play
        assert play.notation == text
        assert plays.find(play.notation) == play
