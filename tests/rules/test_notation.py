"""Play notation: canonical output, tolerant input, typed errors, and a fuzz test."""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulvezar import (
    AmbiguousPlayError,
    IllegalPlayError,
    InvalidPlayError,
    NotationError,
    Play,
    Position,
    Rules,
    format_play,
    parse_play,
)
from pulvezar.rules.notation import format_moves, parse_segments

INTL = Rules.international()
START = Position.start()


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """Both sides on *my* point numbers (25 = bar)."""
    return Position.from_points(mine, {(25 if p == 25 else 25 - p): n for p, n in theirs.items()})


def texts(p: Position, dice: tuple[int, int], rules: Rules = INTL) -> set[str]:
    return {format_play(play) for play in rules.legal_plays(p, dice)}


# my 24:2 13:5 8:3 6:5; an opposing blot on my 18
BLOT_18 = pos({24: 2, 13: 5, 8: 3, 6: 5}, {18: 1, 1: 2, 12: 5, 17: 3, 19: 4})
# a checker on the bar
ON_BAR = pos({25: 1, 13: 5, 8: 3, 6: 6}, {1: 2, 12: 5, 17: 3, 19: 5})
# point:  13 12 11 10  9  8  7 | 6  5  4
# me:     10  O  .  .  .  1  . | 2  o  .        (2 more on 24)
# an opposing blot on my 5 and 7 open: 8/4 with 31 is 8/7/4 or 8/5*/4
BLOT_5 = pos({24: 2, 13: 10, 8: 1, 6: 2}, {5: 1, 19: 5, 17: 3, 12: 5, 1: 1})
BEAR_OFF = pos({6: 3, 5: 2, 4: 2}, {24: 2, 13: 13})


# ---------------------------------------------------------------------------
# canonical output
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("position", "dice", "text"),
    [
        (START, (3, 1), "8/5 6/5"),
        (START, (6, 4), "24/14"),  # one checker, both dice, nothing hit on the way
        (START, (6, 4), "24/18 13/9"),
        (START, (2, 2), "13/11(2) 6/4(2)"),
        (START, (2, 2), "24/22(2) 13/11(2)"),
        (START, (2, 2), "13/5"),
        (BLOT_18, (6, 5), "24/18*/13"),  # a hit on the way is kept
        (BLOT_18, (6, 5), "24/18* 13/8"),
        (ON_BAR, (3, 1), "bar/22 6/5"),
        (ON_BAR, (3, 1), "bar/21"),
        (BEAR_OFF, (6, 1), "6/off 5/4"),
        (BEAR_OFF, (6, 1), "6/5 6/off"),
        (BLOT_5, (3, 1), "8/5*/4"),
        (BLOT_5, (3, 1), "8/7/4"),  # spelled out: "8/4" would also fit 8/5*/4
        (BLOT_5, (3, 1), "6/3/2"),  # likewise 6/5*/2
    ],
)
def test_canonical_output(position: Position, dice: tuple[int, int], text: str) -> None:
    assert text in texts(position, dice)
    assert format_play(parse_play(text, position, dice)) == text


def test_canonical_ordering_and_counts() -> None:
    plays = INTL.legal_plays(START, (2, 2))
    for play in plays:
        text = format_play(play)
        firsts = [int(part.split("/")[0].replace("bar", "25")) for part in text.split()]
        assert firsts == sorted(firsts, reverse=True), text  # highest point first
        assert "(1)" not in text


def test_format_moves_without_the_board_joins_one_checker() -> None:
    from pulvezar import Move

    moves = [Move(24, 18, False), Move(18, 13, False)]
    assert format_moves(moves) == "24/13"
    assert format_moves([Move(24, 18, True), Move(18, 13, False)]) == "24/18*/13"
    assert format_moves([Move(13, 11, False)] * 2 + [Move(6, 4, False)] * 2) == "13/11(2) 6/4(2)"
    assert format_moves([Move(25, 22, True), Move(6, 0, False)]) == "bar/22* 6/off"
    assert format_moves([]) == ""


def test_no_move_is_the_empty_string() -> None:
    # point 19..24 made by the opponent: a checker on the bar cannot enter
    p = pos({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
    plays = INTL.legal_plays(p, (6, 5))
    assert len(plays) == 1 and format_play(plays[0]) == "" and plays[0].position == p
    for text in ("", "  ", "-", "no move", "Cannot Move"):
        assert parse_play(text, p, (6, 5)) == plays[0]


# ---------------------------------------------------------------------------
# tolerant input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("position", "dice", "variants", "canonical"),
    [
        (
            START,
            (3, 1),
            ["8/5 6/5", "6/5 8/5", "8/5,6/5", "8/5, 6/5", " 8/5   6/5 ", "8 / 5 6/ 5"],
            "8/5 6/5",
        ),
        (START, (6, 4), ["24/14", "24/18/14", "24/20/14", "24/18 18/14", "18/14 24/18"], "24/14"),
        (
            START,
            (2, 2),
            ["13/11(2) 6/4(2)", "6/4 13/11 6/4 13/11", "13/11 (2), 6/4(2)", "6/4(2) 13/11(2)"],
            None,
        ),
        (ON_BAR, (3, 1), ["bar/22 6/5", "BAR/22 6/5", "25/22 6/5", "b/22 6/5", "B/22, 6/5"], "bar/22 6/5"),
        (BLOT_18, (6, 5), ["24/18*/13", "24/18/13", "24/18*/13*", "24/18* 18/13", "24/18 18/13"], None),
        (BLOT_18, (6, 5), ["24/18* 13/8", "24/18 13/8", "13/8 24/18*", "24/18 * 13/8"], None),
        (BEAR_OFF, (6, 1), ["6/off 5/4", "6/0 5/4", "6/o 5/4", "6/OFF 5/4", "5/4 6/Off", "6/O,5/4"], None),
        (BEAR_OFF, (6, 1), ["6/5 6/off", "6/off 6/5", "6/OFF,6/5", "6/0 6/5*"], "6/5 6/off"),
    ],
)
def test_tolerant_input(
    position: Position, dice: tuple[int, int], variants: list[str], canonical: str | None
) -> None:
    plays = INTL.legal_plays(position, dice)
    found = {plays.find(v) for v in variants}
    assert len(found) == 1, variants
    (play,) = found
    if canonical is not None:
        assert format_play(play) == canonical
    assert all(v in plays for v in variants)
    assert parse_play(variants[-1], position, dice) == play


def test_parse_segments() -> None:
    assert parse_segments("bar/22* 13/11(2)") == [[25, 22], [13, 11], [13, 11]]
    assert parse_segments("24/18/14") == [[24, 18, 14]]
    assert parse_segments("6/OFF 5/o 4/0") == [[6, 0], [5, 0], [4, 0]]
    assert parse_segments("B/20") == [[25, 20]]
    assert parse_segments("") == []


def test_parse_play_with_tavla_rules() -> None:
    # 8/4 with 31: international plays include both 8/7/4 and 8/5*/4; under
    # hit and stop only 8/7/4 is legal, so "8/4" is no longer ambiguous
    with pytest.raises(AmbiguousPlayError):
        parse_play("8/4", BLOT_5, (3, 1))
    play = parse_play("8/4", BLOT_5, (3, 1), Rules.tavla(hit_and_stop=True))
    assert format_play(play) == "8/7/4"
    with pytest.raises(IllegalPlayError):
        parse_play("8/5*/4", BLOT_5, (3, 1), Rules.tavla(hit_and_stop=True))


# ---------------------------------------------------------------------------
# typed errors
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "hello",
        "13-7",
        "13/14",  # backwards
        "13/13",
        "off/3",
        "3/bar",
        "6/off/2",
        "13/11(5)",
        "13/11(0)",
        "26/20",
        "24/23/22/21/20/19",  # more than four dice
        "13/11 13/11 13/11 13/11 13/11",  # five checkers
        "13/11(3) 6/4(2)",
        "/13",
        "13/",
        "13//11",
        "13/11)",
        "1.5/1",
        "١٣/١١",  # non-ASCII digits
        "x" * 500,
    ],
)
def test_syntax_errors_are_invalid_play_errors(text: str) -> None:
    with pytest.raises(InvalidPlayError) as e:
        parse_play(text, START, (6, 4))
    assert e.value.field == "play"
    assert text not in INTL.legal_plays(START, (6, 4))


def test_not_text_is_an_invalid_play_error() -> None:
    with pytest.raises(InvalidPlayError):
        parse_play(1307, START, (6, 4))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("13/7", "uses 1 of 2 dice"),  # one die where two can be used
        ("24/20 24/20", ""),  # a 4 twice with 64
        ("6/off", ""),  # bearing off with checkers outside
        ("24/18 24/18", ""),  # a 6 twice
        ("6/1 6/2", ""),  # 5 and 4: wrong dice
        ("12/6 13/9", ""),  # no checker on 12
        ("", ""),  # no move, though there are moves
    ],
)
def test_illegal_plays_are_illegal_play_errors(text: str, why: str) -> None:
    plays = INTL.legal_plays(START, (6, 4))
    with pytest.raises(IllegalPlayError) as e:
        plays.find(text)
    assert why in str(e.value) and e.value.field == "play"


def test_illegal_onto_a_made_point() -> None:
    # the opponent holds my 5 (their 20): 8/5 with 31 is blocked
    p = pos({24: 2, 13: 5, 8: 3, 6: 5}, {5: 2, 1: 2, 12: 5, 17: 3, 19: 3})
    with pytest.raises(IllegalPlayError):
        parse_play("8/5 6/5", p, (3, 1))
    with pytest.raises(IllegalPlayError):
        parse_play("6/5 24/21", p, (3, 1))
    assert format_play(parse_play("8/4", p, (3, 1))) == "8/4"  # via 7: 5 is closed, nothing ambiguous


def test_ambiguous_intermediate_point() -> None:
    # 8/4 with 31: via 7 (empty) or via 5 (an opposing blot): two different plays
    with pytest.raises(AmbiguousPlayError) as e:
        parse_play("8/4", BLOT_5, (3, 1))
    assert "8/7/4" in str(e.value) and "8/5*/4" in str(e.value)
    assert e.value.field == "play"
    assert "8/4" not in INTL.legal_plays(BLOT_5, (3, 1))
    # the intermediate point, or the *, settles it
    assert format_play(parse_play("8/7/4", BLOT_5, (3, 1))) == "8/7/4"
    assert format_play(parse_play("8/5/4", BLOT_5, (3, 1))) == "8/5*/4"
    assert format_play(parse_play("8/5*/4", BLOT_5, (3, 1))) == "8/5*/4"
    # the notation of a play spells the intermediate point out where it matters
    notations = {p.notation for p in INTL.legal_plays(BLOT_5, (3, 1))}
    assert {"8/7/4", "8/5*/4"} <= notations and "8/4" not in notations


def test_ambiguous_entry_from_the_bar() -> None:
    # bar/20 with 41: via 24 or via 21 (an opposing blot there)
    p = pos({25: 1, 13: 5, 8: 3, 6: 6}, {21: 1, 1: 1, 12: 5, 17: 3, 19: 5})
    with pytest.raises(AmbiguousPlayError):
        parse_play("bar/20", p, (4, 1))
    assert format_play(parse_play("bar/24/20", p, (4, 1))) == "bar/24/20"
    assert format_play(parse_play("bar/21*/20", p, (4, 1))) == "bar/21*/20"


def test_errors_are_notation_errors_and_value_errors() -> None:
    for exc in (InvalidPlayError, IllegalPlayError, AmbiguousPlayError):
        assert issubclass(exc, NotationError) and issubclass(exc, ValueError)


# ---------------------------------------------------------------------------
# fuzz
# ---------------------------------------------------------------------------
@functools.cache
def _fuzz_cases() -> tuple[tuple[Position, tuple[int, int], tuple[str, ...]], ...]:
    rng = random.Random(11)
    cases = []
    p = START
    for _ in range(40):
        d = (rng.randint(1, 6), rng.randint(1, 6))
        plays = INTL.legal_plays(p, d)
        cases.append((p, d, tuple(format_play(x) for x in plays)))
        p = rng.choice(plays.positions()).swap()
        if INTL.game_result(p.swap()) is not None:
            p = START
    for q, d in ((BLOT_5, (3, 1)), (BLOT_18, (6, 5))):
        cases.append((q, d, tuple(format_play(x) for x in INTL.legal_plays(q, d))))
    return tuple(cases)


def _parse_is_typed(text: object, position: Position, dice: tuple[int, int]) -> Play | None:
    plays = INTL.legal_plays(position, dice)
    try:
        play = plays.find(text)  # type: ignore[arg-type]
    except NotationError:
        assert text not in plays
        return None
    assert text in plays
    assert play in plays
    return play


ALPHABET = "0123456789/*()bBaArRoOfF ,-x.\t\n"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.integers(0, 41))
def test_fuzz_arbitrary_text(text: str, i: int) -> None:
    cases = _fuzz_cases()
    position, dice, _ = cases[i % len(cases)]
    _parse_is_typed(text, position, dice)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=30), st.integers(0, 41))
def test_fuzz_notation_like_text(text: str, i: int) -> None:
    cases = _fuzz_cases()
    position, dice, _ = cases[i % len(cases)]
    _parse_is_typed(text, position, dice)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_fuzz_mutations_of_valid_notation(data: st.DataObject) -> None:
    position, dice, valid = data.draw(st.sampled_from(_fuzz_cases()))
    text = data.draw(st.sampled_from(valid))
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["delete", "insert", "replace", "swap", "upper"]))
        k = data.draw(st.integers(0, len(text)))
        c = data.draw(st.sampled_from(ALPHABET))
        if op == "delete":
            text = text[:k] + text[k + 1 :]
        elif op == "insert":
            text = text[:k] + c + text[k:]
        elif op == "replace":
            text = text[:k] + c + text[k + 1 :]
        elif op == "swap" and k + 1 < len(text):
            text = text[:k] + text[k + 1] + text[k] + text[k + 2 :]
        else:
            text = text.upper()
    play = _parse_is_typed(text, position, dice)
    if play is not None:  # whatever it read, it reads back the same way
        assert _parse_is_typed(format_play(play), position, dice) == play


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(range(42)))
def test_every_legal_play_reads_back(i: int) -> None:
    position, dice, valid = _fuzz_cases()[i % len(_fuzz_cases())]
    plays = INTL.legal_plays(position, dice)
    assert [plays.find(t) for t in valid] == list(plays)
