"""Hand-checked rules fixtures and a table of distinct-play counts.

Positions are built with :meth:`Position.from_points`: each side in its own
numbering, 25 = bar; the opponent's point ``k`` is the mover's ``25 - k``, so a
checker entering with die ``d`` lands on the mover's ``25 - d``.  The expected
values follow from the rules of backgammon (the counts in
``data/play_counts.tsv`` come from GNU Backgammon, see its header).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from pulvezar import (
    IllegalPlayError,
    Move,
    Outcome,
    Position,
    Rules,
    parse_play,
)

INTERNATIONAL = Rules.international()
TAVLA = Rules.tavla()
DATA = Path(__file__).with_name("data")


def notations(position: Position, dice: tuple[int, int], rules: Rules = INTERNATIONAL) -> set[str]:
    return {p.notation for p in rules.legal_plays(position, dice)}


# ---- movement rules --------------------------------------------------------


def test_opening_31_has_16_distinct_plays() -> None:
    """Start position, 3-1: 16 distinct resulting positions (also gnubg's count)."""
    plays = INTERNATIONAL.legal_plays(Position.start(), (3, 1))
    assert len(plays) == 16
    assert len(set(plays.boards())) == 16
    assert "8/5 6/5" in plays
    assert INTERNATIONAL.legal_plays(Position.start(), (1, 3)).boards() == plays.boards()


def test_pip_count_at_start_is_167() -> None:
    assert Position.start().pips() == (167, 167)


def test_bar_entry_with_the_six_when_the_four_is_closed() -> None:
    """6-4 from the bar, opponent holds their 4 point (our 21): the 4 cannot enter,
    so every play enters with the 6 (bar/19) and then plays the 4."""
    p = Position.from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 5, 4: 3})
    plays = INTERNATIONAL.legal_plays(p, (6, 4))
    assert len(plays) == 5
    for play in plays:
        assert play.moves[0] == Move(25, 19, False)
        assert len(play.moves) == 2
    assert notations(p, (6, 4)) == {"bar/15", "bar/19 24/20", "bar/19 13/9", "bar/19 8/4", "bar/19 6/2"}


def test_only_the_six_can_be_played() -> None:
    """6-5 with two on the bar and the opponent's 5 point (our 20) made: one
    checker enters with the 6, the 5 cannot be played at all."""
    p = Position.from_points({25: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 5, 5: 3})
    plays = INTERNATIONAL.legal_plays(p, (6, 5))
    assert [pl.moves for pl in plays] == [(Move(25, 19, False),)]
    assert plays[0].notation == "bar/19"


def test_larger_die_when_only_one_can_be_played() -> None:
    """A last checker on 13 with 6-5: 13/7 or 13/8 alone is possible, but the
    point 2 where both would end is blocked, so the larger die (13/7) must be played."""
    p = Position.from_points({13: 1}, {23: 2, 6: 5, 8: 3, 13: 3})
    assert notations(p, (6, 5)) == {"13/7"}
    with pytest.raises(IllegalPlayError):
        parse_play("13/8", p, (6, 5))


def test_both_dice_must_be_used_when_possible() -> None:
    """From the start, 6-4 cannot be played as 13/7 alone."""
    with pytest.raises(IllegalPlayError):
        parse_play("13/7", Position.start(), (6, 4))


@pytest.mark.parametrize(
    ("blocked", "expected"),
    [
        (19, "24/12"),  # opponent holds their 19 = our 6: two sixes only
        (13, "24/18"),  # opponent holds their 13 = our 12: one six only
        (None, "24/off"),  # open road: 24/18/12/6, then all home and 6/off
    ],
)
def test_doubles_play_as_many_as_possible(blocked: int | None, expected: str) -> None:
    """6-6 with one back checker on 24 and the rest on the ace point (which cannot
    move a six until all checkers are home)."""
    theirs = {6: 5, 8: 3} | ({blocked: 2} if blocked else {})
    p = Position.from_points({24: 1, 1: 14}, theirs)
    plays = INTERNATIONAL.legal_plays(p, (6, 6))
    assert [pl.notation for pl in plays] == [expected]
    assert len(plays[0].moves) == {19: 2, 13: 1, None: 4}[blocked]


def test_doubles_from_the_start() -> None:
    """6-6 from the start uses all four sixes in every play."""
    plays = INTERNATIONAL.legal_plays(Position.start(), (6, 6))
    assert {len(pl.moves) for pl in plays} == {4}
    assert "24/18(2) 13/7(2)" in plays


def test_no_move_is_one_empty_play() -> None:
    """Dancing against a closed board: one empty play, position unchanged."""
    p = Position.from_points({25: 1, 13: 5, 8: 4, 6: 5}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 13: 2})
    plays = INTERNATIONAL.legal_plays(p, (6, 6))
    assert len(plays) == 1
    assert plays[0].moves == ()
    assert plays[0].notation == ""
    assert plays[0].position == p
    assert parse_play("", p, (6, 6)).position == p


# ---- an opening sequence ---------------------------------------------------

OPENING = [
    ((3, 1), "8/5 6/5"),  # A makes the 5 point
    ((6, 4), "24/18/14"),  # B runs a back checker to B's 14 (A's 11)
    ((4, 2), "13/11* 24/20"),  # A hits it on A's 11, B goes to the bar (+11 pips)
    ((5, 5), ""),  # B dances: A's 5 point (B's 20) is made
    ((6, 5), "24/18/13"),  # A runs a back checker
]


def test_opening_sequence_pips() -> None:
    """A (first to move) ends on 146 pips, B on 168.

    A: 167 - 4 (31) - 6 (42) - 11 (65) = 146.  B: 167 - 10 (64) + 11 (hit) = 168.
    """
    p = Position.start()
    for turn, (dice, text) in enumerate(OPENING):
        play = parse_play(text, p, dice)
        assert INTERNATIONAL.legal_plays(p, dice).find(text) == play
        mover_pips, other_pips = play.position.pips()
        if turn == 2:
            assert play.hits == 1
            assert play.position.bar() == (0, 1)
        if turn == 3:
            assert play.moves == () and play.position == p
        p = play.position.swap()
    # B is on roll after A's 65
    assert (mover_pips, other_pips) == (146, 168)
    assert p.pips() == (168, 146)
    assert p.bar() == (1, 0)  # B is still on the bar


# ---- game results ----------------------------------------------------------


def test_game_in_progress_has_no_result() -> None:
    assert INTERNATIONAL.game_result(Position.start()) is None
    assert INTERNATIONAL.game_result(Position.from_points({1: 1}, {1: 1})) is None


@pytest.mark.parametrize(
    ("loser", "outcome", "points", "tavla_points"),
    [
        ({6: 14}, Outcome.SINGLE, 1, 1),  # the loser has borne one off
        ({6: 15}, Outcome.GAMMON, 2, 2),  # none off, none in the winner's home board
        ({6: 14, 20: 1}, Outcome.BACKGAMMON, 3, 2),  # a checker in the winner's home board
        ({6: 14, 25: 1}, Outcome.BACKGAMMON, 3, 2),  # a checker on the bar
    ],
)
def test_game_results(loser: dict[int, int], outcome: Outcome, points: int, tavla_points: int) -> None:
    """Winner bears off the last checker; Tavla counts mars (gammon and backgammon) as 2."""
    before = Position.from_points({2: 1}, loser)
    (play,) = INTERNATIONAL.legal_plays(before, (2, 1))
    assert play.notation == "2/off"
    final = play.position
    result = INTERNATIONAL.game_result(final)
    assert result is not None
    assert (result.winner, result.outcome, result.points) == ("player", outcome, points)
    seen_by_loser = INTERNATIONAL.game_result(final.swap())
    assert seen_by_loser is not None
    assert (seen_by_loser.winner, seen_by_loser.outcome) == ("opponent", outcome)
    for rules in (TAVLA, Rules.tavla(hit_and_stop=True, must_bear_off=True)):
        tavla = rules.game_result(final)
        assert tavla is not None
        assert (tavla.winner, tavla.outcome, tavla.points) == ("player", outcome, tavla_points)


# ---- distinct-play counts (GNU Backgammon's, stored) -----------------------


def _play_counts() -> dict[tuple[str, str], list[tuple[str, int]]]:
    rows: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    with (DATA / "play_counts.tsv").open() as f:
        lines = (line for line in f if not line.startswith("#"))
        for row in csv.DictReader(lines, delimiter="\t"):
            rows[row["name"], row["position_id"]].append((row["dice"], int(row["count"])))
    return rows


PLAY_COUNTS = _play_counts()


def test_play_count_table_is_complete() -> None:
    assert len(PLAY_COUNTS) >= 40
    for rows in PLAY_COUNTS.values():
        assert len(rows) == 21


@pytest.mark.parametrize(
    ("name", "position_id"), sorted(PLAY_COUNTS), ids=[n for n, _ in sorted(PLAY_COUNTS)]
)
def test_distinct_play_counts(name: str, position_id: str) -> None:
    p = Position.from_position_id(position_id)
    assert p.position_id == position_id
    got = {
        dice: len(INTERNATIONAL.legal_plays(p, (int(dice[0]), int(dice[1]))))
        for dice, _ in PLAY_COUNTS[name, position_id]
    }
    assert got == dict(PLAY_COUNTS[name, position_id]), name
