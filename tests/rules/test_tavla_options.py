"""The Tavla options, "Nach Schlag Halt" (hit_and_stop) and "Auswürfelpflicht"
(must_bear_off), on hand-built positions, plus random games to the end.

Diagrams are a number line of the mover's points, not a drawn board:
``X`` are my checkers, ``o`` the opponent's, ``.`` empty.  Every position is
seen by the player on roll, who moves from 24 down to 1 and bears off from
the home board, points 1..6.
"""

from __future__ import annotations

import random

import pytest

from pulvezar import Move, Outcome, Position, Rules

INTERNATIONAL = Rules.international()
TAVLA = Rules.tavla()
HIT_AND_STOP = Rules.tavla(hit_and_stop=True)
MUST_BEAR_OFF = Rules.tavla(must_bear_off=True)
BOTH = Rules.tavla(hit_and_stop=True, must_bear_off=True)
ALL = [INTERNATIONAL, TAVLA, HIT_AND_STOP, MUST_BEAR_OFF, BOTH]


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """Both sides given on *my* point numbers (25 = bar), so diagrams read directly."""
    return Position.from_points(mine, {(25 if p == 25 else 25 - p): n for p, n in theirs.items()})


def after(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    return pos(mine, theirs)


def notations(rules: Rules, p: Position, dice: tuple[int, int]) -> set[str]:
    return {play.notation for play in rules.legal_plays(p, dice)}


# ---------------------------------------------------------------------------
# hit_and_stop
# ---------------------------------------------------------------------------
# point:  13 12 11 10  9  8  7 | 6  5  4  3  2  1
# me:      3  .  .  .  .  1  . | 2  .  .  .  .  .      (+ 9 more on 24..13 below)
# them:    .  .  .  .  .  .  . | .  o  .  .  .  .      (a blot on my 5)
MINE_A = {24: 2, 13: 10, 8: 1, 6: 2}
THEIRS_A = {5: 1, 19: 5, 17: 3, 12: 5, 1: 1}


def test_hit_and_stop_freezes_the_hitter_in_the_home_board() -> None:
    p = pos(MINE_A, THEIRS_A)
    hit_on = after({24: 2, 13: 10, 6: 2, 4: 1}, {**THEIRS_A, 5: 0, 25: 1})  # 8/5*/4
    hit_off = after({24: 2, 13: 10, 6: 2, 5: 1}, {**THEIRS_A, 5: 0, 25: 1})  # 8/5* and the 1 elsewhere
    for rules in (INTERNATIONAL, TAVLA, MUST_BEAR_OFF):
        assert hit_on in rules.legal_plays(p, (3, 1))  # hit and continue
    for rules in (HIT_AND_STOP, BOTH):
        plays = rules.legal_plays(p, (3, 1))
        assert hit_on not in plays  # the hitter stays on 5 ...
        assert hit_off not in plays  # (the 1 must still be played)
        # ... but other checkers still use the 1, and 8/7/4 (no hit; 7 spelled out) is fine
        assert {"8/5* 6/5", "24/23 8/5*", "8/7/4"} <= notations(rules, p, (3, 1))
        assert all(not (m.src == 5 and play.hits) for play in plays for m in play.moves)


def test_hit_and_stop_allows_hit_and_continue_outside_the_home_board() -> None:
    # point:  13 12 11 10  9  8  7 | 6 ...
    # me:      X  .  .  .  .  .  . | X
    # them:    .  .  .  o  .  .  o |          blots on my 10 and my 7 (outside the home board)
    p = pos({13: 2, 6: 13}, {10: 1, 7: 1, 20: 13})
    for rules in ALL:
        n = notations(rules, p, (3, 2))
        assert "13/10*/8" in n  # hit on 10, move on
        assert "13/10*/8 13/10" not in n
    q = pos({9: 1, 6: 14}, {7: 1, 20: 14})
    for rules in ALL:
        assert "9/7*/4" in notations(rules, q, (3, 2))  # point 7 is not home


def test_hit_and_stop_boundary_point_six_is_home() -> None:
    # point:  9  8  7 | 6  5  4
    # me:     X  .  . | .  .  .
    # them:   .  .  . | o  .  .     a blot on my 6
    p = pos({9: 1, 3: 14}, {6: 1, 20: 14})
    hit_and_on = after({4: 1, 3: 14}, {20: 14, 25: 1})  # 9/6*/4
    assert hit_and_on in INTERNATIONAL.legal_plays(p, (3, 2))
    assert hit_and_on not in HIT_AND_STOP.legal_plays(p, (3, 2))
    # the 2 then the 3 (9/7/4) does not hit and is legal everywhere
    for rules in ALL:
        assert after({4: 1, 3: 14}, {6: 1, 20: 14}) in rules.legal_plays(p, (3, 2))


def test_hit_and_stop_then_the_max_dice_rule_applies_to_what_remains() -> None:
    # point:  8  7 | 6  5  4  3  2  1
    # me:     X  . | .  .  .  .  .  .      one checker left, 14 off
    # them:   .  O | .  o  .  .  .  .      a point on my 7, a blot on my 5
    p = pos({8: 1}, {7: 2, 5: 1, 20: 12})
    assert notations(INTERNATIONAL, p, (3, 1)) == {"8/5*/4"}
    # the hitter may not move on and nothing else can use the 1: one die only
    assert notations(HIT_AND_STOP, p, (3, 1)) == {"8/5*"}
    assert notations(BOTH, p, (3, 1)) == {"8/5*"}


def test_hit_and_stop_with_doubles_other_checkers_pass_the_hitter() -> None:
    # point: 24 ... 21 ... 18 ... 15 ... 12 ... 9  8  7 | 6  5  4  3
    # me:    13                              2         |
    # them:       O       O       O       8            | o              a blot on my 6
    # roll 33: the 24s are blocked (21 is made), only the two checkers on 9 move
    p = pos({9: 2, 24: 13}, {6: 1, 18: 2, 15: 2, 21: 2, 12: 8})
    on_bar = {18: 2, 15: 2, 21: 2, 12: 8, 25: 1}
    assert set(INTERNATIONAL.legal_plays(p, (3, 3)).positions()) == {after({3: 2, 24: 13}, on_bar)}
    # one checker hits on 6 and stays; the other may still pass it (9/6/3),
    # and the fourth 3 cannot be played
    plays = HIT_AND_STOP.legal_plays(p, (3, 3))
    assert set(plays.positions()) == {after({6: 1, 3: 1, 24: 13}, on_bar)}
    assert len(plays[0].moves) == 3


# ---------------------------------------------------------------------------
# must_bear_off
# ---------------------------------------------------------------------------
def test_must_bear_off_forbids_moving_inside_when_the_die_bears_off() -> None:
    # point:  6  5  4  3  2  1
    # me:     1  .  2  .  2  .      all home, 10 off;  roll 21
    p = pos({6: 1, 4: 2, 2: 2}, {24: 2, 13: 13})
    assert notations(INTERNATIONAL, p, (2, 1)) == {
        "6/3",
        "6/4 2/1",
        "6/5 4/2",
        "6/5 2/off",
        "4/1",
        "4/3 4/2",
        "4/3 2/off",
        "2/1 2/off",
    }
    # the 2 can bear a checker off exactly, so the 2 must bear off; the 1 cannot, so it moves freely
    assert notations(MUST_BEAR_OFF, p, (2, 1)) == {"6/5 2/off", "4/3 2/off", "2/1 2/off"}
    assert "6/3" not in MUST_BEAR_OFF.legal_plays(p, (2, 1))


def test_must_bear_off_allows_moving_inside_when_the_die_cannot_bear_off() -> None:
    # point:  6  5  4  3  2  1
    # me:     2  2  .  .  .  .      roll 43: neither 4 nor 3 bears a checker off
    p = pos({6: 2, 5: 2}, {24: 2, 13: 13})
    intl = INTERNATIONAL.legal_plays(p, (4, 3))
    must = MUST_BEAR_OFF.legal_plays(p, (4, 3))
    assert set(must.boards()) == set(intl.boards())
    assert "6/2 6/3" in must and "6/3/off" not in must


def test_must_bear_off_some_order_of_the_dice_satisfies_it() -> None:
    # point:  6  5  4  3  2  1
    # me:     1  1  .  .  .  .      roll 52
    # 5 first: it must bear off (5/off), then the 2 moves 6/4.
    # 2 first: the 2 cannot bear off, so 5/3 is fine; then the 5 (no checker on 5,
    # one on 6 above it) cannot bear off either: 6/1.  Both plays are legal.
    p = pos({6: 1, 5: 1}, {24: 2, 13: 13})
    assert notations(MUST_BEAR_OFF, p, (5, 2)) == {"6/4 5/off", "6/1 5/3"}
    assert notations(INTERNATIONAL, p, (5, 2)) == {"6/4 5/off", "6/1 5/3"}


def test_must_bear_off_forbids_wasting_the_small_die() -> None:
    # The manual's case: moving a checker with the smaller die and wasting pips
    # while a checker could be borne off.
    # point:  6  5  4  3  2  1
    # me:     .  .  1  .  .  1      roll 51
    p = pos({4: 1, 1: 1}, {24: 2, 13: 13})
    assert notations(INTERNATIONAL, p, (5, 1)) == {"4/off 1/off", "4/off"}  # "4/off": 4/3, then the 5 from 3
    # the 1 bears off the checker on 1 exactly, the 5 the one on 4 (highest, larger die)
    assert notations(MUST_BEAR_OFF, p, (5, 1)) == {"4/off 1/off"}


def test_must_bear_off_with_the_larger_die_from_the_highest_point() -> None:
    # point:  6  5  4  3  2  1
    # me:     .  1  .  .  1  .      roll 62: the 6 bears off from 5 (highest, larger die), the 2 exactly
    p = pos({5: 1, 2: 1}, {24: 2, 13: 13})
    assert notations(INTERNATIONAL, p, (6, 2)) == {"5/off 2/off", "5/off"}  # "5/off": 5/3, then the 6 from 3
    assert notations(MUST_BEAR_OFF, p, (6, 2)) == {"5/off 2/off"}
    # a die larger than the highest point can only bear off anyway: nothing changes
    q = pos({4: 2, 3: 1}, {24: 2, 13: 13})
    for d in [(6, 5), (5, 6), (6, 6), (5, 5)]:
        assert set(MUST_BEAR_OFF.legal_plays(q, d).boards()) == set(INTERNATIONAL.legal_plays(q, d).boards())


def test_must_bear_off_only_once_all_checkers_are_home() -> None:
    # point:  8  7 | 6  5  4  3  2  1
    # me:     1  . | .  .  1  .  1  .     roll 42
    p = pos({8: 1, 4: 1, 2: 1}, {24: 2, 13: 10})
    plays = MUST_BEAR_OFF.legal_plays(p, (4, 2))
    assert notations(MUST_BEAR_OFF, p, (4, 2)) == notations(INTERNATIONAL, p, (4, 2))
    assert {"8/6 4/off", "8/4 2/off", "8/2"} == {play.notation for play in plays}
    # "8/2" (8 -> 4 and 2, 4 -> 2) is legal only as 4/2 first, while 8 is still
    # outside, then 8/4: played as 8/4 then 4/2 the 2 would have to bear off
    (eight_two,) = (play for play in plays if play.notation == "8/2")
    assert after({4: 1, 2: 2}, {24: 2, 13: 10}) == eight_two.position


def test_bar_checker_means_not_home() -> None:
    # a checker on the bar: nothing is home, nothing forced
    p = pos({25: 1, 2: 4, 1: 3}, {22: 2, 13: 13})
    for d in [(2, 1), (6, 5)]:
        assert set(MUST_BEAR_OFF.legal_plays(p, d).boards()) == set(INTERNATIONAL.legal_plays(p, d).boards())


# ---------------------------------------------------------------------------
# both options together
# ---------------------------------------------------------------------------
def test_both_options_together() -> None:
    # point:  9  8  7 | 6  5  4  3  2  1
    # me:     1  .  . | .  .  1  .  3  .     10 off;  roll 32
    # them:   .  .  . | o  .  .  .  .  .     a blot on my 6
    p = pos({9: 1, 4: 1, 2: 3}, {6: 1, 24: 2, 13: 11})
    hit_and_on = after({4: 2, 2: 3}, {24: 2, 13: 11, 25: 1})  # 9/6*/4
    hit_then_off = after({6: 1, 4: 1, 2: 2}, {24: 2, 13: 11, 25: 1})  # 9/6* 2/off
    hit_then_inside = after({6: 1, 2: 4}, {24: 2, 13: 11, 25: 1})  # 9/6* 4/2
    intl = INTERNATIONAL.legal_plays(p, (3, 2))
    assert {hit_and_on, hit_then_off, hit_then_inside} <= set(intl.positions())
    hs = set(HIT_AND_STOP.legal_plays(p, (3, 2)).positions())
    assert hit_and_on not in hs and {hit_then_off, hit_then_inside} <= hs
    mb = set(MUST_BEAR_OFF.legal_plays(p, (3, 2)).positions())
    # 9/6* first brings all home: the 2 must bear off (not 6/4);
    # 4/2 first is fine (9 is still out), then 9/6*
    assert hit_and_on not in mb and {hit_then_off, hit_then_inside} <= mb
    both = BOTH.legal_plays(p, (3, 2))
    assert {hit_then_off, hit_then_inside} <= set(both.positions())
    assert hit_and_on not in both
    assert "9/4" in both  # 9/7/4 without hitting


def test_international_is_unaffected() -> None:
    assert Rules("international") == INTERNATIONAL
    assert not INTERNATIONAL.hit_and_stop and not INTERNATIONAL.must_bear_off
    with pytest.raises(ValueError):
        Rules("international", hit_and_stop=True)
    with pytest.raises(ValueError):
        Rules("international", must_bear_off=True)
    # plain Tavla (no options) moves exactly like international backgammon
    rng = random.Random(5)
    p = Position.start()
    for _ in range(300):
        d = (rng.randint(1, 6), rng.randint(1, 6))
        a = INTERNATIONAL.legal_plays(p, d)
        assert set(a.boards()) == set(TAVLA.legal_plays(p, d).boards())
        p = rng.choice(a.positions()).swap()
        if INTERNATIONAL.game_result(p.swap()) is not None:
            p = Position.start()
    # hit and continue in the home board, and moving inside instead of bearing off
    q = pos(MINE_A, THEIRS_A)
    assert "8/5*/4" in INTERNATIONAL.legal_plays(q, (3, 1))
    r = pos({6: 1, 4: 2, 2: 2}, {24: 2, 13: 13})
    assert "6/3" in INTERNATIONAL.legal_plays(r, (2, 1))


# ---------------------------------------------------------------------------
# random games to the end
# ---------------------------------------------------------------------------
def _replay_checks(rules: Rules, p: Position, moves: tuple[Move, ...]) -> None:
    """Walk the representative moves in order and check both options on each step."""
    mine = list(p.mine)
    frozen = [0] * 25
    for m in moves:
        src, dst = m.src - 1, m.dst - 1  # indices, -1 = off
        assert mine[src] > frozen[src], "a checker frozen by hit and stop moved on"
        all_home = not any(mine[6:])
        if rules.must_bear_off and all_home and dst >= 0:
            die = src - dst
            highest = max(i for i in range(25) if mine[i])
            could_bear_off = mine[die - 1] > frozen[die - 1] or (
                highest < die - 1 and mine[highest] > frozen[highest]
            )
            assert not could_bear_off, f"moved inside with a {die} that could bear off"
        mine[src] -= 1
        if dst >= 0:
            mine[dst] += 1
            if m.hit and rules.hit_and_stop and dst <= 5:
                frozen[dst] += 1


def _check_turn(rules: Rules, p: Position, dice: tuple[int, int]) -> list[Position]:
    plays = rules.legal_plays(p, dice)
    assert len(plays) >= 1
    boards = plays.boards()
    assert len(set(boards)) == len(boards)
    assert len({len(play.moves) for play in plays}) == 1
    for play in plays:
        q = play.position
        assert Position(q.mine, q.theirs) == q
        assert sum(q.mine) + q.off()[0] == 15 and sum(q.theirs) + q.off()[1] == 15
        assert q.off()[1] == p.off()[1]
        assert q.theirs[24] - p.theirs[24] == play.hits
        _replay_checks(rules, p, play.moves)
    assert set(rules.legal_plays(p, dice[::-1]).boards()) == set(boards)
    return plays.positions()


@pytest.mark.parametrize("rules", ALL, ids=lambda r: r.name)
def test_random_games_to_the_end(rules: Rules) -> None:
    rng = random.Random(hash(rules.name) % 1000)
    points_seen: set[int] = set()
    for _ in range(60):
        p = rules.start_position()
        for _turn in range(1000):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            q = rng.choice(_check_turn(rules, p, dice))
            result = rules.game_result(q)
            if result is not None:
                assert result.winner == "player"
                assert rules.game_result(q.swap()) is not None
                assert rules.game_result(q.swap()).winner == "opponent"  # type: ignore[union-attr]
                if rules.variant == "tavla":
                    assert result.points == min(int(result.outcome), 2) <= 2
                else:
                    assert result.points == int(result.outcome)
                if result.outcome is Outcome.SINGLE:
                    assert q.off()[1] > 0
                points_seen.add(result.points)
                break
            assert rules.game_result(q.swap()) is None
            p = q.swap()
        else:
            pytest.fail("a random game did not end in 1000 turns")
    assert 3 not in points_seen or rules.variant == "international"


def test_kernel_flags_are_the_rules_options() -> None:
    """``Rules.kernel_flags``: the C generator's option bits, the one place search, rollouts, cube
    decisions and match replay take them from."""
    from pulvezar.rules import _kernel

    assert Rules.international().kernel_flags == Rules.tavla().kernel_flags == 0
    assert Rules.tavla(hit_and_stop=True).kernel_flags == _kernel.HIT_AND_STOP
    assert Rules.tavla(must_bear_off=True).kernel_flags == _kernel.MUST_BEAR_OFF
    both = Rules.tavla(hit_and_stop=True, must_bear_off=True)
    assert both.kernel_flags == _kernel.HIT_AND_STOP | _kernel.MUST_BEAR_OFF != 0
