"""Games and matches: cube actions, session options, Crawford, Tavla openings, resignations, replay."""

import pytest

from pulvezar import IllegalPlayError, InvalidDiceError, Position, Rules
from pulvezar.match import Game, IllegalActionError, Match, MatchContext, Phase, SessionOptions

MONEY_ALL = SessionOptions(jacoby=True, beaver=True, raccoon=True, automatic_doubles=1)


def opened(context: MatchContext, d0: int = 3, d1: int = 1) -> Game:
    g = Game(context)
    g.opening_roll(d0, d1)
    return g


def test_international_opening_is_played_as_rolled_by_the_higher_die() -> None:
    g = opened(MatchContext(length=7), 2, 5)
    assert g.turn == 1 and g.dice == (5, 2) and g.phase is Phase.MOVE
    g.play("13/8 13/11")
    assert (g.turn, g.phase) == (0, Phase.ROLL)
    assert g.position.theirs != Position.start().mine  # player 1's checkers moved


def test_opening_tie_rerolls_and_money_auto_double_is_capped() -> None:
    g = Game(MatchContext(options=SessionOptions(automatic_doubles=1)))
    g.opening_roll(4, 4)
    g.opening_roll(2, 2)
    assert g.cube_value == 2 and g.cube_owner is None and g.phase is Phase.OPENING
    m = Game(MatchContext(length=5))
    m.opening_roll(4, 4)
    assert m.cube_value == 1


def test_tavla_opening_winner_rolls_again_and_previous_winner_opens_later() -> None:
    match = Match(length=3, rules=Rules.tavla())
    g = match.new_game()
    g.opening_roll(2, 6)
    assert g.turn == 1 and g.phase is Phase.ROLL and g.dice is None
    g.roll((5, 5))  # the re-roll may be a double
    assert len(g.legal_plays()) == 4
    with pytest.raises(IllegalActionError, match="without a cube"):
        Game(MatchContext(length=3, rules=Rules.tavla())).double()
    g.phase = Phase.ROLL  # shortcut to a resignation on player 1's turn
    g.resign(2)
    g.accept_resignation()
    assert g.winner == 0 and g.points == 2
    match.finish_game(g)
    g2 = match.new_game()
    assert g2.turn == 0 and g2.phase is Phase.ROLL  # the previous winner opens, no opening roll


def test_double_take_passes_cube_and_drop_loses_pre_double_value() -> None:
    g = opened(MatchContext(length=0))
    g.play("8/5 6/5")
    g.double()
    assert g.phase is Phase.DOUBLED
    g.take()
    assert (g.cube_value, g.cube_owner, g.turn, g.phase) == (2, 0, 1, Phase.ROLL)
    with pytest.raises(IllegalActionError, match="belongs to the opponent"):
        g.double()
    g.roll((6, 5))
    g.play("24/13")
    g.double()  # player 0 owns the cube: redouble to 4
    g.drop()
    assert (g.winner, g.points, g.phase) == (0, 2, Phase.OVER)


def test_no_upper_limit_on_the_cube() -> None:
    g = opened(MatchContext(length=0))
    for _ in range(8):
        g.play(g.legal_plays()[0])
        g.double()
        g.take()
        g.roll((1, 2))
    assert g.cube_value == 256


def test_beaver_and_raccoon_values_and_owners() -> None:
    g = opened(MatchContext(options=MONEY_ALL))
    g.play("8/5 6/5")  # player 1 on turn
    g.double()
    g.beaver()
    g.take()  # the doubler accepts the beaver: 4, owned by the beaverer
    assert (g.cube_value, g.cube_owner) == (4, 0)

    g = opened(MatchContext(options=MONEY_ALL))
    g.play("8/5 6/5")
    g.double()
    g.beaver()
    g.drop()  # the doubler refuses the beaver: loses the doubled value
    assert (g.winner, g.points) == (0, 2)

    g = opened(MatchContext(options=MONEY_ALL))
    g.play("8/5 6/5")
    g.double()
    g.beaver()
    g.raccoon()
    g.take()  # 8, and the cube stays with the player who took (the product's rule)
    assert (g.cube_value, g.cube_owner) == (8, 0)

    g = opened(MatchContext(options=MONEY_ALL))
    g.play("8/5 6/5")
    g.double()
    g.beaver()
    g.raccoon()
    g.drop()  # the beaverer gives up at the beaver's value
    assert (g.winner, g.points) == (1, 4)


def test_session_options_are_refused_in_matches_and_beaver_needs_the_option() -> None:
    with pytest.raises(ValueError, match="money sessions only"):
        MatchContext(length=5, options=SessionOptions(jacoby=True))
    g = opened(MatchContext(length=0))
    g.play("8/5 6/5")
    g.double()
    with pytest.raises(IllegalActionError):
        g.beaver()


def test_jacoby_counts_gammons_single_while_cube_centred() -> None:
    near_win = Position.from_points({1: 1}, {12: 15})  # one checker left, opponent has none off
    for options, expected in ((SessionOptions(jacoby=True), 1), (SessionOptions(), 2)):
        g = Game(MatchContext(options=options), position=near_win, phase=Phase.ROLL)
        g.roll((6, 5))
        g.play("1/off")
        assert g.points == expected


def test_crawford_game_exactly_once_then_post_crawford() -> None:
    m = Match(length=5)
    m.score = (4, 2)
    g = m.new_game()
    assert g.context.crawford and not g.can_double()
    with pytest.raises(IllegalActionError, match="Crawford"):
        g.double()
    g.opening_roll(3, 1)
    g.resign(1)
    g.accept_resignation()
    m.finish_game(g)
    assert m.score == (4, 3)
    g2 = m.new_game()
    assert not g2.context.crawford and m.post_crawford
    g2.opening_roll(1, 3)  # player 1 opens and may double next turn
    g2.play(g2.legal_plays()[0])
    g2.roll((1, 2))
    g2.play(g2.legal_plays()[0])
    assert g2.can_double()  # player 1's turn, cube centred


def test_resignation_levels() -> None:
    g = opened(MatchContext(length=0))
    assert g.resignation_levels() == [1, 2, 3]
    tavla = opened(MatchContext(length=5, rules=Rules.tavla()))
    tavla.roll((3, 1))
    assert tavla.resignation_levels() == [1, 2]
    borne = Game(MatchContext(), position=Position.from_points({1: 3}, {1: 15}), phase=Phase.ROLL)
    assert borne.resignation_levels() == [1]  # the resigner has borne checkers off
    match_point = Game(MatchContext(length=5, score=(0, 4)), phase=Phase.ROLL)
    assert match_point.resignation_levels() == [1]  # a single already wins the match for the opponent
    with pytest.raises(IllegalActionError):
        match_point.resign(2)


def test_bad_actions_are_typed_errors() -> None:
    g = Game(MatchContext())
    with pytest.raises(IllegalActionError):
        g.roll((3, 1))
    with pytest.raises(InvalidDiceError):
        g.opening_roll(0, 3)
    g.opening_roll(3, 1)
    with pytest.raises(IllegalPlayError):
        g.play("13/7")


def test_replay_to_any_decision_reproduces_the_state() -> None:
    g = opened(MatchContext(options=MONEY_ALL))
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.roll((6, 4))
    g.play("24/14")
    g.resign(1)
    g.reject_resignation()
    for k in range(len(g.events) + 1):
        r = g.replay(k)
        assert r.events == g.events[:k]
    full = g.replay()
    assert (full.position, full.turn, full.cube_value, full.cube_owner, full.phase) == (
        g.position,
        g.turn,
        g.cube_value,
        g.cube_owner,
        g.phase,
    )


# ---- resignation by either player ------------------------------------------------------


def test_either_player_resigns_at_any_time_and_the_other_answers() -> None:
    g = opened(MatchContext(length=7))
    g.play("8/5 6/5")  # player 1 on roll
    g.resign(2, player=0)  # player 0 resigns during player 1's turn
    assert (g.phase, g.resigner, g.resignation) == (Phase.RESIGNED, 0, 2)
    g.reject_resignation()
    assert (g.turn, g.phase) == (1, Phase.ROLL)
    g.roll((6, 4))
    g.resign(1, player=0)  # ... and after player 1 rolled
    g.accept_resignation()
    assert (g.winner, g.points) == (1, 1)
    again = g.replay()
    assert (again.winner, again.points, again.events) == (1, 1, g.events)


def test_resignation_levels_of_the_player_not_on_turn() -> None:
    g = opened(MatchContext(length=7, score=(0, 5)))
    g.play("8/5 6/5")
    assert g.resignation_levels(0) == [1, 2]  # player 1 needs 2: a gammon already wins the match
    with pytest.raises(IllegalActionError, match="level 3"):
        g.resign(3, player=0)
    g.double()
    with pytest.raises(IllegalActionError, match="no resignation now"):
        g.resign(1, player=0)


def test_one_point_match_has_no_crawford_game() -> None:
    m = Match(length=1)
    assert not m.new_game().context.crawford
    m2 = Match(length=2)
    g = m2.new_game()
    g.opening_roll(3, 1)
    g.resign(1, player=1)
    g.accept_resignation()
    m2.finish_game(g)
    assert m2.new_game().context.crawford
