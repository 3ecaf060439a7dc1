"""OGID (OpenGammon's position ID): the public examples, round trips, hostile input, and the OGXM codec.

Oracles:

* OpenGammon's own OGID/XGID pairs (its ``xgid.test.js``, "to_xgid (encode)", as
  quoted by gammonview's tests): the same position in either notation must be
  the same :class:`Position` and the same gnubg Match ID through our XGID reader.
* The reference codec (PyPI ``ogxm``): ``binary_to_json`` replays every ply of an
  OGXM match and writes ``ogid_before``/``ogid_after``.  Matches played out here
  by the match model are written as OGXM JSON by the codec's own rules (action
  ids 0..20 for the 21 rolls, 21 double, 22 take, 23 pass; colour 1 White, 0
  Black; moves as absolute pips) and every ply's OGIDs must be ours, both ways.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulvezar import XGID, InvalidIdError, Position
from pulvezar.match.game import Game, MatchContext, Phase
from pulvezar.rules.ogid import (
    MAX_OGID_LENGTH,
    OGID,
    STATES,
    IllegalOgidError,
    InvalidOgidError,
    from_ogid,
    looks_like_ogid,
    to_ogid,
)
from tests.cost import cost_ratio

ogxm = pytest.importorskip("ogxm")

START = "11ccccchhhjjjjj:66666888dddddoo"  # the start, sorted as the codec writes it


# ---- the public examples -----------------------------------------------------------
# (OGID, the XGID OpenGammon encodes it to): opengammon's xgid.test.js, "to_xgid (encode)"
OPENGAMMON_PAIRS = [
    ("11jjjjjhhhccccc:ooddddd88866666:N0N::W:C:0:0:0", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:8"),
    ("11jjjjjhhhccccc:ooddddd88866666:N0N::B:C:0:0:0", "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:8"),
    ("jjjkkklllmmnnoo:111222333445566:N0N::W:C:0:0:0", "XGID=-CCCBBB------------cccbbb-:0:0:1:00:0:0:0:0:8"),
    ("jjjkkklllmmnnoo:111222333445566:N0N::B:C:0:0:0", "XGID=-BBBCCC------------bbbccc-:0:0:-1:00:0:0:0:0:8"),
    ("00jjj:ppp66:N0N::W:C:0:0:0", "XGID=b-----B------------c-----C:0:0:1:00:0:0:0:0:8"),
    (
        "jjjkkklllmmnnoo:111222333445566:N0N:63:W:R:0:0:0",
        "XGID=-CCCBBB------------cccbbb-:0:0:1:63:0:0:0:0:8",
    ),
    ("11jjjjjhhhccccc:ooddddd88866666:W1N::W:C:0:0:0", "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:8"),
    ("11jjjjjhhhccccc:ooddddd88866666:B1N::W:C:0:0:0", "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:8"),
    ("11jjjjjhhhccccc:ooddddd88866666:N0N::W:C:3:5:7", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:3:0:7:8"),
]


@pytest.mark.parametrize(("ogid", "xgid"), OPENGAMMON_PAIRS)
def test_opengammons_pairs_are_the_same_state_as_their_xgids(ogid: str, xgid: str) -> None:
    """The same checkers, cube and scores; where White acted (Black on roll), the same position and Match ID.

    Where Black acted, OpenGammon's encoder draws White at XG's bottom and writes turn -1 (its
    "flipped + case-swapped" cases), which an XGID reader takes as Black on turn: the codec's
    replay, which these tests follow, has White on roll there (field 5 names who acted).
    """
    o, x = from_ogid(ogid), XGID.parse(xgid)
    assert {o.white, o.black} == {x.bottom, x.top}
    assert o.cube_value == x.cube_value and sorted(o.score) == sorted(x.score)
    if o.color == "B":
        return
    assert o.position == x.position
    # XG's bottom player is Black: gnubg player 1 at the bottom, White player 0
    mine, theirs = o.to_match_id(white=0), x.to_match_id(bottom=1)
    assert replace(mine, dice=tuple(sorted(mine.dice))) == replace(theirs, dice=tuple(sorted(theirs.dice)))


def test_the_start_and_its_fields() -> None:
    o = from_ogid("OGID=11jjjjjhhhccccc:ooddddd88866666:N0N::W:IW:0:0:1:0")  # OGID.md's worked example
    assert o.position == Position.start() and o.on_roll == "W" and o.state == "IW"
    assert o.match_length == 1 and o.score == (0, 0) and o.dice is None and o.cube_value == 1
    assert str(o) == START + ":N0N::W:IW:0:0:1:0"  # sorted, no prefix


def test_every_field() -> None:
    o = from_ogid("00jjj:66ppp:B3O:14:B:D:2:4:9C:17:5")
    assert o.white[24] == 2 and o.white[5] == 3  # White's bar, and pip 19 = White's 6-point
    assert o.black[24] == 3 and o.black[5] == 2  # Black's bar, and pip 6 = Black's 6-point
    assert (o.cube_owner, o.cube_value, o.cube_action) == ("B", 8, "O")
    assert (o.dice, o.color, o.state, o.score) == ((1, 4), "B", "D", (2, 4))
    assert (o.match_length, o.crawford, o.move_id, o.checkers) == (9, True, 17, 5)
    assert o.on_roll == "B"  # the doubler, in state D
    m = o.to_match_id(white=1)
    assert (m.dice_owner, m.turn, m.double_offered, m.dice) == (0, 1, True, (0, 0))
    assert (m.cube_owner, m.score, m.crawford) == (0, (4, 2), True)
    assert from_ogid("1:o:N0N::B:C:0:0:5L:0").post_crawford
    assert from_ogid("1:o:N0N::B:C:0:0:0G7:0").max_games == 7


def test_the_player_on_roll_is_the_other_than_who_acted() -> None:
    p = Position.from_points({6: 2}, {1: 1})
    for on_roll in ("W", "B"):
        for state, color_is_roller in (("R", False), ("C", False), ("A", False), ("D", True), ("IB", False)):
            o = OGID.from_position(p, on_roll=on_roll, state=state)
            assert o.on_roll == on_roll and o.position == p
            assert (o.color == on_roll) is color_is_roller


# ---- round trips -----------------------------------------------------------------
@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Random legal boards: each side 1..15 checkers, no point held by both."""
    mine, theirs = [0] * 25, [0] * 25
    for point in draw(st.lists(st.integers(1, 25), min_size=1, max_size=15)):
        mine[point - 1] += 1
    for point in draw(st.lists(st.integers(1, 25), min_size=0, max_size=15)):
        while point != 25 and mine[25 - point - 1]:  # their q is my 25 - q: move on when taken
            point = point % 25 + 1
        theirs[point - 1] += 1
    return Position(mine, theirs)


@st.composite
def ogids(draw: st.DrawFn) -> OGID:
    p = draw(positions())
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 25, 99999]))
    suffix = draw(st.sampled_from(["", "C", "L"] if length else ["", "G"]))
    on_roll = draw(st.sampled_from(["W", "B"]))
    white, black = (p.mine, p.theirs) if on_roll == "W" else (p.theirs, p.mine)
    return OGID(
        white,
        black,
        cube_value=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from(["N", "W", "B", "D", "?"])),
        cube_action=draw(st.sampled_from(["N", "O", "T", "P"])),
        dice=draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6)))),
        color=draw(st.sampled_from(["W", "B"])),
        state=draw(st.sampled_from(STATES)),
        score=(draw(st.integers(0, length or 99999)), draw(st.integers(0, length or 99999))),
        match_length=length,
        crawford=suffix == "C",
        post_crawford=suffix == "L",
        max_games=draw(st.integers(1, 99999)) if suffix == "G" else None,
        move_id=draw(st.integers(0, 99999)),
        checkers=draw(st.integers(max(sum(white), sum(black), 1), 15)),
    )


@settings(max_examples=300)
@given(ogids())
def test_round_trip(o: OGID) -> None:
    s = o.encode()
    assert from_ogid(s) == o and from_ogid("ogid=" + s) == o and str(o) == s
    assert len(s) <= MAX_OGID_LENGTH and looks_like_ogid(s)
    white, black = s.split(":")[:2]
    assert list(white) == sorted(white) and list(black) == sorted(black)
    # the checkers in any order are the same OGID
    shuffled = ":".join([white[::-1], black[::-1], *s.split(":")[2:]])
    assert from_ogid(shuffled) == o


@settings(max_examples=300)
@given(positions(), st.data())
def test_position_round_trip(p: Position, data: st.DataObject) -> None:
    on_roll = data.draw(st.sampled_from(["W", "B"]))
    dice = data.draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    owner = data.draw(st.sampled_from(["centre", "player", "opponent"]))
    score = (data.draw(st.integers(0, 6)), data.draw(st.integers(0, 6)))
    state = data.draw(st.sampled_from([None, "R", "C", "A", "D", "IB", "G"]))
    s = to_ogid(
        p,
        on_roll=on_roll,
        dice=dice,
        cube_value=4,
        cube_owner=owner,
        score=score,
        match_length=7,
        state=state,
    )
    o = from_ogid(s)
    assert o.position == p and o.on_roll == on_roll
    assert o.dice == (None if dice is None else (min(dice), max(dice)))
    mine = o.score if on_roll == "W" else o.score[::-1]
    assert mine == score and o.match_length == 7 and o.cube_value == 4
    assert (
        o.cube_owner == {"centre": "N", "player": on_roll, "opponent": "B" if on_roll == "W" else "W"}[owner]
    )
    m = o.to_match_id(white=0)
    assert m.dice_owner == (0 if on_roll == "W" else 1)


# ---- hostile input ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "text"),
        ("11ccccc:66666", "text"),
        (START + ":N0N", "text"),
        (START + ":N0N::W:IW:0:0:0:0:15:9", "text"),
        ("11ccc!c:66666888dddddoo:N0N::W", "position"),
        ("1111111111111111:66666888dddddoo:N0N::W", "position"),  # 16 characters
        ("11cccCchhhjjjjj:66666888dddddoo:N0N::W", "position"),
        (START + ":N0::W", "cube"),
        (START + ":X0N::W", "cube"),
        (START + ":N16N::W", "cube"),
        (START + ":N0Q::W", "cube"),
        (START + ":N0N:7:W", "dice"),
        (START + ":N0N:07:W", "dice"),
        (START + ":N0N:123:W", "dice"),
        (START + ":N0N::X", "color"),
        (START + ":N0N::", "color"),
        (START + ":N0N::W:ZZ", "state"),
        (START + ":N0N::W:C:-1:0", "score"),
        (START + ":N0N::W:C:123456:0", "score"),
        (START + ":N0N::W:C:0:0:7X", "match_length"),
        (START + ":N0N::W:C:0:0:7CL", "match_length"),
        (START + ":N0N::W:C:0:0:G", "match_length"),
        (START + ":N0N::W:C:0:0:7:x", "move_id"),
        (START + ":N0N::W:C:0:0:7:0:100", "checkers"),
        (" " * (MAX_OGID_LENGTH + 1), "text"),
    ],
)
def test_malformed_text_is_invalid(text: str, field: str) -> None:
    with pytest.raises(InvalidOgidError) as e:
        from_ogid(text)
    assert e.value.field == f"ogid.{field}"
    assert not isinstance(e.value, IllegalOgidError)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("1:1:N0N::W", "position"),  # White's 24-point is Black's 1-point
        ("p:66:N0N::W", "position"),  # White on Black's bar
        ("11:0:N0N::W", "position"),  # Black on White's bar
        (":" + ":N0N::W", "position"),  # nobody has a checker left
        ("1111122222333334:6:N0N::W", "position"),  # 16 is past the cap: invalid before it is illegal
        (START + ":N0N::W:C:8:0:7", "score"),
        (START + ":N0N::W:C:0:0:0C", "match_length"),
        (START + ":N0N::W:C:0:0:0L", "match_length"),
        ("1c:6d:N0N::W:C:0:0:0:0:1", "position"),  # two checkers of one allowed
        (START + ":N0N::W:C:0:0:0:0:16", "checkers"),
        (START + ":N0N::W:C:0:0:0:0:0", "checkers"),
    ],
)
def test_impossible_states_are_illegal(text: str, field: str) -> None:
    error = InvalidOgidError if text.startswith("1111122222") else IllegalOgidError
    with pytest.raises(error) as e:
        from_ogid(text)
    assert e.value.field == f"ogid.{field}" and isinstance(e.value, InvalidIdError)


def test_constructor_and_writer_arguments_are_checked() -> None:
    start = Position.start()
    with pytest.raises(InvalidOgidError):
        OGID((0,) * 24, (0,) * 25)
    with pytest.raises(InvalidOgidError):
        OGID(start.mine, start.theirs, cube_value=3)
    with pytest.raises(InvalidOgidError):
        OGID(start.mine, start.theirs, dice=(0, 7))
    with pytest.raises(IllegalOgidError):
        OGID(start.mine, start.theirs, crawford=True)  # money
    with pytest.raises(InvalidOgidError):
        to_ogid(start, on_roll="X")
    with pytest.raises(InvalidOgidError):
        to_ogid(start, cube_owner="me")
    with pytest.raises(IllegalOgidError):
        to_ogid(start, on_roll="B", state="IW")


@settings(max_examples=500)
@given(st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyzNWBDOTPRCAGMFIL?:=- ", max_size=80))
def test_any_text_parses_or_raises_a_typed_error(text: str) -> None:
    try:
        o = from_ogid(text)
    except InvalidIdError as e:
        assert isinstance(e, InvalidOgidError | IllegalOgidError) and (e.field or "").startswith("ogid.")
    else:
        assert from_ogid(o.encode()) == o


@pytest.mark.parametrize(
    "text",
    [
        "1" * 10_000_000,  # refused by its length
        ":" * 10_000_000,
        "11ccccchhhjjjjj:" * 8,  # at the cap: every field regex is anchored and bounded
        START + ":N0N::W:C:" + "9" * 60,
    ],
)
def test_hostile_input_fails_fast(text: str) -> None:
    """A hostile text costs about what a short bad one does: refused by its length, or by anchored, bounded
    patterns, never scanned (10 million characters scanned once cost thousands of times a short text)."""

    def refuse(t: str) -> None:
        with pytest.raises(InvalidOgidError):
            from_ogid(t)
        looks_like_ogid(t)  # reads the start only

    refuse(text)
    assert cost_ratio(lambda: refuse(text), lambda: refuse("11ccccchhhjjjjj:9"), loops=20) < 50


def test_looks_like_ogid_tells_the_ids_apart() -> None:
    assert looks_like_ogid(START + ":N0N::W") and looks_like_ogid("OGID=anything")
    assert not looks_like_ogid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
    assert not looks_like_ogid("-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10")
    assert not looks_like_ogid("4HPwATDgc/ABMA:cAkAAAAAAAAA") and not looks_like_ogid("4HPwATDgc/ABMA")


# ---- the OGXM codec --------------------------------------------------------------
COLOR = {0: 1, 1: 0}  # pulvezar player 0 is White (OGXM colour 1), player 1 Black (colour 0)
SIDE = {0: "W", 1: "B"}
DICE_ACTION = {(a, b): i for i, (a, b) in enumerate((a, b) for a in range(1, 7) for b in range(a, 7))}


def ogxm_steps(player: int, dice: tuple[int, int], moves: tuple[Any, ...]) -> list[dict[str, int]]:
    """A play's moves as OGXM steps: absolute ``from`` pips (White counts up from its bar, pip 0;
    Black down from its bar, pip 25) and the die each step used (bearing off with a larger die)."""
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    used = [m.src - m.dst if m.dst else 0 for m in moves]
    for d in used:
        if d:
            left.remove(d)
    steps = []
    for m, d in zip(moves, used, strict=True):
        if not d:  # borne off: the exact die, or the smallest larger one
            d = min(x for x in left if x >= m.src)
            left.remove(d)
        src = m.src if player == 1 else 25 - m.src  # the bar (25) is White's pip 0
        steps.append({"from": src, "pips": d})
    return steps


@dataclass
class Tracker:
    """What an OGID needs beyond the model game: the codec's move id, state and cube action."""

    length: int
    side: dict[int, str] = field(default_factory=lambda: dict(SIDE))  # pulvezar player -> OGID colour
    plies: list[dict[str, Any]] = field(default_factory=list)
    expected: list[tuple[str, str]] = field(default_factory=list)
    move_id: int = 0
    state: str = "IB"
    action: str = "N"

    def ogid(self, game: Game, *, state: str, on_roll: int | None = None) -> str:
        p = game.turn if on_roll is None else on_roll
        position = game.position if p == game.turn else game.position.swap()
        c, owner = game.context, game.cube_owner
        return to_ogid(
            position,
            on_roll=self.side[p],
            dice=game.dice if state in ("IB", "R") else None,
            cube_value=game.cube_value,
            cube_owner="centre" if owner is None else ("player" if owner == p else "opponent"),
            cube_action=self.action,
            score=(c.score[p], c.score[1 - p]),
            match_length=self.length,
            crawford=c.crawford,
            state=state,
            move_id=self.move_id,
        )


def play_game(game: Game, t: Tracker, rng: random.Random) -> None:
    """Play ``game`` out at random, recording each OGXM ply and the OGIDs we expect of it."""
    while True:
        a, b = rng.sample(range(1, 7), 2)
        game.opening_roll(a, b)
        if game.phase is Phase.MOVE:
            break
    while game.phase is not Phase.OVER:
        p = game.turn
        if game.phase is Phase.ROLL and game.can_double() and rng.random() < 0.1:
            before = t.ogid(game, state=t.state)
            game.double()
            t.state, t.action = "D", "O"
            after = t.ogid(game, state="D")
            t.plies.append({"color": COLOR[p], "action_id": 21})
            t.expected.append((before, after))
            take = rng.random() < 0.7
            (game.take if take else game.drop)()
            t.state, t.action = ("A", "T") if take else ("G", "P")
            answer = t.ogid(game, state=t.state, on_roll=p)
            t.plies.append({"color": COLOR[1 - p], "action_id": 22 if take else 23})
            t.expected.append((after, answer))
            continue
        if game.phase is Phase.ROLL:
            game.roll((rng.randint(1, 6), rng.randint(1, 6)))
        assert game.dice is not None
        dice = game.dice
        before = t.ogid(game, state="IB" if t.move_id == 0 else "R")
        play = rng.choice(list(game.rules.legal_plays(game.position, dice)))
        game.play(play)
        t.move_id += 1
        t.state, t.action = "C", "N"
        after = t.ogid(game, state="C", on_roll=1 - p)
        step = {"color": COLOR[p], "action_id": DICE_ACTION[(min(dice), max(dice))]}
        t.plies.append(step | {"moves": ogxm_steps(p, dice, play.moves)})
        t.expected.append((before, after))


def random_match(
    rng: random.Random, length: int, games: int
) -> tuple[dict[str, Any], list[list[tuple[str, str]]]]:
    """An OGXM JSON match of up to ``games`` random games, and the OGIDs we expect of its plies."""
    score, crawford_done, doc_games, expected = [0, 0], False, [], []
    for index in range(games):
        crawford = bool(length) and not crawford_done and length - 1 in score
        crawford_done |= crawford
        game = Game(MatchContext(length, (score[0], score[1]), crawford))
        t = Tracker(length)
        play_game(game, t, rng)
        assert game.winner is not None
        doc_games.append(
            {"game_index": index, "plies": t.plies, "winner": game.winner, "points_won": game.points}
            | ({"is_crawford": True} if crawford else {})
        )
        expected.append(t.expected)
        score[game.winner] += game.points
        if length and max(score) >= length:
            break
    doc = {"match_length": length, "player_white": "White", "player_black": "Black", "games": doc_games}
    return doc, expected


@pytest.mark.parametrize(("seed", "length"), [(1, 5), (2, 3), (3, 0), (4, 7), (5, 1)])
def test_every_ply_agrees_with_the_codec(seed: int, length: int) -> None:
    doc, expected = random_match(random.Random(seed), length, games=6)
    assert ogxm.v2_problem(doc) is None
    back = ogxm.binary_to_json(ogxm.json_to_binary(doc))
    assert back.get("replay_complete") is True, back.get("replay_failed_game")
    plies = 0
    for game, ours in zip(back["games"], expected, strict=True):
        assert len(game["plies"]) == len(ours)
        for ply, (before, after) in zip(game["plies"], ours, strict=True):
            assert (ply["ogid_before"], ply["ogid_after"]) == (before, after), ply
            for theirs, mine in ((ply["ogid_before"], before), (ply["ogid_after"], after)):
                o = from_ogid(theirs)
                assert o.encode() == theirs and o == from_ogid(mine)
            plies += 1
    assert plies > 40


def test_the_codec_reads_the_positions_back() -> None:
    """from_ogid of the codec's strings gives the model game's position, seen from the player on roll."""
    rng = random.Random(11)
    game = Game(MatchContext(5))
    t = Tracker(5)
    positions_seen = []
    while True:
        a, b = rng.sample(range(1, 7), 2)
        game.opening_roll(a, b)
        if game.phase is Phase.MOVE:
            break
    for _ in range(30):
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.ROLL:
            game.roll((rng.randint(1, 6), rng.randint(1, 6)))
        assert game.dice is not None
        dice, p = game.dice, game.turn
        positions_seen.append((game.position, SIDE[p]))
        play = rng.choice(list(game.rules.legal_plays(game.position, dice)))
        game.play(play)
        t.plies.append(
            {
                "color": COLOR[p],
                "action_id": DICE_ACTION[(min(dice), max(dice))],
                "moves": ogxm_steps(p, dice, play.moves),
            }
        )
    doc = {
        "match_length": 5,
        "player_white": "a",
        "player_black": "b",
        "games": [{"game_index": 0, "plies": t.plies}],
    }
    back = ogxm.binary_to_json(ogxm.json_to_binary(doc))
    for ply, (position, side) in zip(back["games"][0]["plies"], positions_seen, strict=True):
        o = from_ogid(ply["ogid_before"])
        assert (o.position, o.on_roll) == (position, side)


# ---- the command line --------------------------------------------------------------
def test_the_cli_reads_an_ogid_beside_the_other_ids() -> None:
    from pulvezar.cli.common import parse_any_id, parse_position

    text = "o:66:W1N:31:W:R:3:1:5:8"  # Black on roll with 31, White owns a 2-cube, 3-1 to White
    arg = parse_position(f"  {text} ")
    assert (arg.kind, arg.side, arg.dice, arg.cube_value, arg.cube_owner) == (
        "ogid",
        "B",
        (3, 1),
        2,
        "opponent",
    )
    assert (arg.score, arg.match_length, arg.has_match) == ((1, 3), 5, True)
    assert arg.position == Position.from_points({6: 2}, {1: 1}) == parse_any_id("OGID=" + text)
    assert arg.ogid == text
    assert parse_position("4HPwATDgc/ABMA").kind == "position_id"
    assert parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10").kind == "xgid"
    assert parse_position(START + ":N0N::W:C:0:0:3C:0").crawford
    with pytest.raises(InvalidOgidError, match=r"expected a Position ID.*OGID"):
        parse_position(START + ":Z0N::W")
    with pytest.raises(IllegalOgidError):
        parse_position("1:1:N0N::W")


@pytest.mark.parametrize(
    "text",
    ["4HPwATDgc/ABMA", "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:4:0:7:10", "4HPwATDgc/ABMA:cAkAAAAAAAAA"],
)
def test_show_gives_an_ogid_of_the_same_state(capsys: pytest.CaptureFixture[str], text: str) -> None:
    import json

    from pulvezar.cli import main
    from pulvezar.cli.common import parse_position

    assert main(["show", text]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("OGID: ")
    assert main(["show", "--json", text]) == 0
    shown = json.loads(capsys.readouterr().out)["ogid"]
    assert shown == line[len("OGID: ") :]
    given, back = parse_position(text), parse_position(shown)
    assert back.position == given.position and back.side == "W"
    dice = None if given.dice is None else (min(given.dice), max(given.dice))  # written low die first
    assert (back.dice, back.cube_value, back.cube_owner, back.score, back.match_length) == (
        dice,
        given.cube_value,
        given.cube_owner,
        given.score,
        given.match_length,
    )


# ---- the OGXM writer of pulvezar.formats ---------------------------------------------------------
FILES = Path(__file__).resolve().parent.parent / "formats" / "data"


def record_plies(record: Any, rec: Any, side: dict[int, str]) -> list[tuple[str, str]]:
    """The OGIDs we expect before and after each roll-and-play, double, take and drop of a recorded game."""
    from pulvezar.formats.record import apply_action

    game = record.new_game(rec)
    t = Tracker(record.length, side)
    for a in rec.actions:
        p = game.turn
        if a.kind == "play":
            before = t.ogid(game, state="IB" if t.move_id == 0 else "R")
            apply_action(game, a)
            t.move_id, t.state, t.action = t.move_id + 1, "C", "N"
            t.expected.append((before, t.ogid(game, state="C", on_roll=1 - p)))
        elif a.kind == "double":
            before = t.ogid(game, state=t.state)
            apply_action(game, a)
            t.state, t.action = "D", "O"
            t.expected.append((before, t.ogid(game, state="D")))
        elif a.kind in ("take", "drop"):
            before = t.ogid(game, state="D")
            apply_action(game, a)
            t.state, t.action = ("A", "T") if a.kind == "take" else ("G", "P")
            t.expected.append((before, t.ogid(game, state=t.state, on_roll=p)))
        elif a.kind != "win":
            apply_action(game, a)
    return t.expected


def written(name: str) -> tuple[Any, dict[str, Any], dict[int, str]]:
    """A test match written by :func:`pulvezar.formats.ogxm.to_ogxm_json`, read back through the codec, and
    each player's OGID colour (the codec's: colour 1 is the OGID's White)."""
    from pulvezar.formats.files import read_match
    from pulvezar.formats.ogxm import to_ogxm_json

    record = read_match(FILES / name)
    back = ogxm.binary_to_json(ogxm.json_to_binary(to_ogxm_json(record)))
    assert back.get("replay_complete") is True
    first = next(a.player for a in record.games[0].actions if a.kind == "play")
    colour = back["games"][0]["plies"][0]["color"]
    side = {first: "W" if colour == 1 else "B", 1 - first: "B" if colour == 1 else "W"}
    return record, back, side


def codec_plies(game: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["ogid_before"], p["ogid_after"]) for p in game["plies"] if p["action_id"] <= 23]


POSITION_FIELDS = (0, 1, 2, 3, 4, 5, 9)  # the checkers, cube, dice, colour, state and move id


@pytest.mark.parametrize(
    "name",
    ["7point.mat", "test.mat", "charlot1-charlot2_7p_2025-11-08-2305.mat", "gnubg_roll_then_resign_1p.mat"],
)
def test_formats_ogxm_positions_agree_with_the_codec(name: str) -> None:
    """Every ply of a test match written by pulvezar's OGXM writer: the codec's OGIDs are ours in every field
    of the position and the turn, and read back as our positions."""
    record, back, side = written(name)
    plies = 0
    for rec, game in zip(record.games, back["games"], strict=True):
        ours, theirs = record_plies(record, rec, side), codec_plies(game)
        assert len(ours) == len(theirs)
        for mine, codec in zip(ours, theirs, strict=True):
            for a, b in zip(mine, codec, strict=True):
                fields_a, fields_b = a.split(":"), b.split(":")
                assert [fields_a[i] for i in POSITION_FIELDS] == [fields_b[i] for i in POSITION_FIELDS], (
                    a,
                    b,
                )
                o, m = from_ogid(b), from_ogid(a)
                assert (o.position, o.on_roll, o.cube_value, o.dice) == (
                    m.position,
                    m.on_roll,
                    m.cube_value,
                    m.dice,
                )
            plies += 1
    assert plies >= 2


@pytest.mark.parametrize("name", ["7point.mat", "test.mat", "charlot1-charlot2_7p_2025-11-08-2305.mat"])
def test_formats_ogxm_agrees_with_the_codec_on_every_field(name: str) -> None:
    record, back, side = written(name)
    for rec, game in zip(record.games, back["games"], strict=True):
        assert record_plies(record, rec, side) == codec_plies(game)


@settings(max_examples=300)
@given(positions(), st.data())
def test_an_ogid_in_play_is_the_same_state_as_its_xgid(p: Position, data: st.DataObject) -> None:
    """What the gateway reads of an OGID (:meth:`OGID.to_xgid`): the board from the player on roll's
    side, the dice, the cube (value, owner from that side), the score (theirs first), length, Crawford."""
    length = data.draw(st.sampled_from([0, 1, 3, 5, 7, 25]))
    on_roll = data.draw(st.sampled_from(["W", "B"]))
    dice = data.draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    owner = data.draw(st.sampled_from(["centre", "player", "opponent"]))
    score = (data.draw(st.integers(0, max(length - 1, 0))), data.draw(st.integers(0, max(length - 1, 0))))
    crawford = bool(length) and data.draw(st.booleans())
    o = OGID.from_position(
        p, on_roll=on_roll, dice=dice, cube_value=2 if owner != "centre" else 1, cube_owner=owner,
        score=score, match_length=length, crawford=crawford,
    )  # fmt: skip
    x = o.to_xgid()
    assert x.position == p and x.rolled == (None if dice is None else (min(dice), max(dice)))
    assert x.cube_value == o.cube_value and x.match_length == length and x.crawford == crawford
    mine = x.score if x.turn == 1 else x.score[::-1]
    assert mine == score
    relative = {0: "centre", x.turn: "player", -x.turn: "opponent"}[x.cube_owner]
    assert relative == owner
    assert XGID.parse(x.encode()) == x


def test_an_ogid_not_in_play_has_no_xgid() -> None:
    over = OGID.from_position(Position.start(), state="G")
    with pytest.raises(IllegalOgidError, match="not a game in play"):
        over.to_xgid()
