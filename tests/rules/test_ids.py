"""Match IDs, GNUbg IDs and XGIDs: documented examples, round trips, bad input, and GNU Backgammon.

Oracles (marked ``oracle``):

* PyPI ``gnubg_nn``: Position IDs of random positions.
* PyPI ``gnubg`` 1.1: ``matchid(cubeinfo, posinfo)`` encodes Match IDs from
  fields; ``setgnubgid`` reads XGIDs and GNUbg IDs, ``positionid()`` and
  ``matchid()`` give them back.
* Debian GNU Backgammon 1.07 (``/usr/games/gnubg``): one batch command file of
  ``set gnubgid`` / ``set xgid`` + ``show board``; the IDs it then prints must be
  ours.

Neither gnubg writes XGIDs, so XGIDs are checked by what gnubg reads from them.
Known gnubg behaviours the tests allow for: it cannot hold an offered double
(it steps back to the roller before the double); it has no beaver states
(``B``/``R``); 1.07's ``set xgid`` makes the player on turn player 1 while
PyPI 1.1 makes the bottom player player 1; both store the dice they read high
die first; PyPI 1.1 drops the Jacoby bit it reads and writes no money-play
score from ``cubeinfo``.
"""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulvezar import XGID, InvalidIdError, MatchId, Position, Rules, format_gnubg_id, parse_gnubg_id
from pulvezar.rules.matchid import GameState, Resignation

RULES = Rules.international()
GNUBG_CLI = "/usr/games/gnubg"


# ---- generators ------------------------------------------------------------
def random_positions(seed: int, n: int) -> list[Position]:
    """``n`` positions (player on roll) from seeded random games."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        p = Position.start()
        while len(out) < n:
            out.append(p)
            plays = RULES.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
            after = plays[rng.randrange(len(plays))].position
            if RULES.game_result(after) is not None:
                break
            p = after.swap()
    return out


def random_dice(rng: random.Random) -> tuple[int, int]:
    return (0, 0) if rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))


def random_match_id(rng: random.Random, *, live: bool = False) -> MatchId:
    """Random fields; ``live``: a game in play with no offer pending (what gnubg can hold)."""
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 17, 25, 64])
    if length:
        score = (rng.randrange(length), rng.randrange(length))
        crawford = length > 1 and length - 1 in score and rng.random() < 0.5
    else:
        score, crawford = (rng.randint(0, 99), rng.randint(0, 99)), False
    cube, owner = (1, None) if crawford else (1 << rng.randint(0, 12), rng.choice([0, 1, None]))
    if owner is None and not crawford:
        cube = 1
    mover = rng.randint(0, 1)
    doubled = not live and rng.random() < 0.2
    return MatchId(
        cube_value=cube,
        cube_owner=owner,
        dice_owner=mover,
        crawford=crawford,
        game_state=GameState.PLAYING if live else GameState(rng.randint(0, 4)),
        turn=(1 - mover if doubled else mover) if live else rng.randint(0, 1),
        double_offered=doubled,
        resignation=Resignation.NONE if live else Resignation(rng.randint(0, 3)),
        dice=(0, 0) if doubled else random_dice(rng),
        match_length=length,
        score=score,
        jacoby=rng.random() < 0.5 if not length else False,
    )


def random_xgid(rng: random.Random, position: Position, *, beavers: bool = True) -> XGID:
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 13, 25])
    if length:
        score = (rng.randrange(length), rng.randrange(length))
        cj = int(length > 1 and length - 1 in score and rng.random() < 0.5)
    else:
        score, cj = (rng.randint(0, 30), rng.randint(0, 30)), rng.randint(0, 3)
    owner = 0 if cj and length else rng.choice([-1, 0, 1])
    cube = 1 << rng.randint(1, 6) if owner else 1
    actions = ["00", "D", "B", "R"] if beavers else ["00", "D"]
    dice = rng.choice(actions) if rng.random() < 0.4 else f"{rng.randint(1, 6)}{rng.randint(1, 6)}"
    if dice != "00" and dice.isalpha() and cj and length:
        dice = "00"  # no cube action in the Crawford game
    return XGID.from_position(
        position,
        turn=rng.choice([1, -1]),
        cube_value=cube,
        cube_owner=owner,
        dice=dice,
        score=score,
        crawford_jacoby=cj,
        match_length=length,
        max_cube=1 << rng.randint(cube.bit_length() - 1, 15),
    )


POSITIONS = random_positions(20261129, 400)


# ---- documented examples -------------------------------------------------------
def test_gnubg_manual_match_id_example() -> None:
    # GNU Backgammon manual, 11.7 "A technical description of the Match ID": a 9-point
    # match at 2-4, player 0 owns a 2-cube, player 1 has rolled 52 -> QYkqASAAIAAA.
    m = MatchId.parse("QYkqASAAIAAA")
    assert m == MatchId(
        cube_value=2,
        cube_owner=0,
        dice_owner=1,
        turn=1,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )
    assert m.game_state is GameState.PLAYING and m.resignation is Resignation.NONE
    assert str(m) == m.encode() == "QYkqASAAIAAA"


def test_gnubg_mailing_list_gnubg_id() -> None:
    # bug-gnubg, 2009-07 "Using GNUBg ID": gnubg's display "g9vBASSYZ8wBBg:cIkmAQAAAAAA"
    # (fields below checked with gnubg 1.07's `set gnubgid` + `show board`).
    p, m = parse_gnubg_id("g9vBASSYZ8wBBg:cIkmAQAAAAAA")
    assert m == MatchId(dice_owner=1, turn=1, dice=(5, 1), match_length=9)
    assert p.position_id == "g9vBASSYZ8wBBg"
    assert format_gnubg_id(p, m) == "g9vBASSYZ8wBBg:cIkmAQAAAAAA"


def test_start_position_ids() -> None:
    # gnubg's start of a money game; XG's start-position XGID.
    p, m = parse_gnubg_id(" 4HPwATDgc/ABMA:cAkAAAAAAAAA ")
    assert p == Position.start() and m == MatchId(dice_owner=1, turn=1)
    x = XGID.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert x.position == Position.start() == Position.from_xgid(str(x))
    assert (x.cube_value, x.cube_owner, x.turn, x.dice, x.max_cube) == (1, 0, 1, "00", 1024)
    assert x == XGID.parse("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert str(XGID.from_position(Position.start())) == str(x)


def test_xgid_board_is_drawn_from_the_bottom() -> None:
    # bottom (upper case): 2 on its 6-point, 1 on the bar; top (lower case): 3 on its
    # 1-point (bottom's 24) and 1 on its bar; top is on turn with 6-4 rolled.
    x = XGID.parse("XGID=a-----B-----------------cA:1:-1:-1:64:2:5:0:7:10")
    assert x.bottom[5] == 2 and x.bottom[24] == 1 and x.top[0] == 3 and x.top[24] == 1
    top_view = Position.from_points({1: 3, 25: 1}, {6: 2, 25: 1})
    assert x.position == top_view
    assert x.rolled == (6, 4) and x.score == (2, 5) and not x.crawford
    assert XGID.from_position(top_view, turn=-1, cube_value=2, cube_owner=-1, dice="64", score=(2, 5),
                              match_length=7) == x  # fmt: skip
    assert dataclasses.replace(x, turn=1).position == top_view.swap()


def test_xgid_flags() -> None:
    money = XGID.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10")
    assert money.jacoby and money.beavers and not money.crawford
    crawford = XGID.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10")
    assert crawford.crawford and not crawford.jacoby
    assert crawford.to_match_id().crawford
    cube_action = XGID.parse("XGID=-b----E-C---eE---c-e----B-:1:1:-1:D:0:0:0:5:10")
    m = cube_action.to_match_id()
    assert m.double_offered and m.dice_owner == 0 and m.turn == 1 and m.cube_owner == 1


# ---- round trips -------------------------------------------------------------
match_ids = st.builds(
    MatchId,
    cube_value=st.integers(0, 15).map(lambda k: 1 << k),
    cube_owner=st.sampled_from([0, 1, None]),
    dice_owner=st.integers(0, 1),
    crawford=st.just(False),
    game_state=st.sampled_from(list(GameState)),
    turn=st.integers(0, 1),
    double_offered=st.booleans(),
    resignation=st.sampled_from(list(Resignation)),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.just(0),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby=st.booleans(),
)


@st.composite
def match_play_ids(draw: st.DrawFn) -> MatchId:
    m = draw(match_ids)
    length = draw(st.integers(1, 32767))
    score = (draw(st.integers(0, length)), draw(st.integers(0, length)))
    return dataclasses.replace(m, match_length=length, score=score, crawford=draw(st.booleans()))


@given(st.one_of(match_ids, match_play_ids()))
def test_match_id_round_trip(m: MatchId) -> None:
    s = m.encode()
    assert len(s) == 12 and MatchId.parse(s) == m


@given(st.integers(0, (1 << 67) - 1))
def test_every_key_decodes_exactly_or_raises(key: int) -> None:
    from base64 import b64encode

    s = b64encode(key.to_bytes(9, "little")).decode()
    try:
        m = MatchId.parse(s)
    except InvalidIdError as e:
        assert e.field == "match_id"
    else:
        assert m.encode() == s


@settings(max_examples=200)
@given(st.integers(0, len(POSITIONS) - 1), st.randoms(use_true_random=False))
def test_xgid_round_trip(i: int, rng: random.Random) -> None:
    x = random_xgid(rng, POSITIONS[i])
    s = x.encode()
    assert XGID.parse(s) == x and XGID.parse(s[5:]) == x and str(x) == s
    assert x.position == POSITIONS[i]
    assert Position.from_xgid(s) == POSITIONS[i]
    if x.dice not in ("B", "R"):
        bottom = 1 if x.turn == 1 else 0
        back = XGID.from_match_id(
            x.position, x.to_match_id(bottom=bottom), bottom=bottom, beavers=x.beavers, max_cube=x.max_cube
        )
        assert back == x


def test_gnubg_id_and_xgid_from_match_id() -> None:
    rng = random.Random(7)
    for p in POSITIONS[:200]:
        m = random_match_id(rng, live=True)
        s = format_gnubg_id(p, m)
        assert parse_gnubg_id(s) == (p, m) and len(s) == 27
        x = XGID.from_match_id(p, m)
        assert x.position == p and x.to_match_id() == m


# ---- bad input -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIAAAA", "12 characters"),
        ("QYkqASAAIA=A", "base64"),
        ("QYkqASAAIA!A", "base64"),
        ("MAEAAAAAAAAI", "unused bits"),  # bit 68
        ("MAEAAAAAAACA", "unused bits"),  # bit 72
        ("IAEAAAAAAAAA", "cube owner code 2"),
        ("MAcAAAAAAAAA", "game state code 7"),
        ("MIEHAAAAAAAA", "dice must be two values 0..6"),  # die 1 = 7
        ("MIEAAAAAAAAA", "both rolled or both 0"),  # die 1 = 1, die 2 = 0
        ("sAEAAAAAAAAA", "no Crawford game in money play"),
        ("MAEgAEAAAAAA", "scores must be"),  # 1-point match at 4-0
    ],
)
def test_bad_match_ids(text: str, reason: str) -> None:
    with pytest.raises(InvalidIdError, match=re.escape(reason)) as e:
        MatchId.parse(text)
    assert e.value.field == "match_id"


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"cube_value": 3}, "power of two"),
        ({"cube_value": 1 << 16}, "power of two"),
        ({"cube_owner": -1}, "cube owner"),
        ({"dice_owner": 2}, "dice_owner"),
        ({"turn": -1}, "turn"),
        ({"game_state": 5}, "GameState"),
        ({"resignation": 4}, "Resignation"),
        ({"dice": (0, 7)}, "dice"),
        ({"dice": (1, 2, 3)}, "dice"),
        ({"match_length": 1 << 15}, "match length"),
        ({"match_length": 5, "score": (6, 0)}, "scores"),
        ({"score": (-1, 0)}, "scores"),
    ],
)
def test_bad_match_id_fields(kwargs: dict[str, object], reason: str) -> None:
    with pytest.raises(InvalidIdError, match=reason) as e:
        MatchId(**kwargs)  # type: ignore[arg-type]
    assert e.value.field == "match_id"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (None, "gnubg_id"),
        ("4HPwATDgc/ABMA", "gnubg_id"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA:x", "gnubg_id"),
        ("4HPwATDgc/ABM:cAkAAAAAAAAA", "position_id"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", "match_id"),
    ],
)
def test_bad_gnubg_ids(text: str, field: str) -> None:
    with pytest.raises(InvalidIdError) as e:
        parse_gnubg_id(text)
    assert e.value.field == field


START = "-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (12, "xgid"),
        ("XGID=", "xgid"),
        (f"XGID={START}:0:0:1:00:0:0:0:0", "xgid"),  # 9 fields
        (f"XGID={START}:0:0:1:00:0:0:0:0:10:1", "xgid"),
        (f"XGID={START}-:0:0:1:00:0:0:0:0:10", "xgid.position"),
        ("XGID=-b----E-C---eE---c-e----B*:0:0:1:00:0:0:0:0:10", "xgid.position"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "xgid.position"),  # bottom on top's bar
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "xgid.position"),
        ("XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10", "xgid.position"),  # P = 16
        ("XGID=-b----E-C---eE---c-e---BB-:0:0:1:00:0:0:0:0:10", "xgid.position"),  # 17 checkers
        ("XGID=--------------------------:0:0:1:00:0:0:0:0:10", "xgid.position"),
        (f"XGID={START}:x:0:1:00:0:0:0:0:10", "xgid.cube_value"),
        (f"XGID={START}:16:0:1:00:0:0:0:0:10", "xgid.cube_value"),
        (f"XGID={START}:0:2:1:00:0:0:0:0:10", "xgid.cube_owner"),
        (f"XGID={START}:0:0:0:00:0:0:0:0:10", "xgid.turn"),
        (f"XGID={START}:0:0:1:70:0:0:0:0:10", "xgid.dice"),
        (f"XGID={START}:0:0:1:5:0:0:0:0:10", "xgid.dice"),
        (f"XGID={START}:0:0:1:X:0:0:0:0:10", "xgid.dice"),
        (f"XGID={START}:0:0:1:00:-1:0:0:0:10", "xgid.score"),
        (f"XGID={START}:0:0:1:00:8:0:0:7:10", "xgid.score"),
        (f"XGID={START}:0:0:1:00:0:0:2:7:10", "xgid.crawford_jacoby"),
        (f"XGID={START}:0:0:1:00:0:0:4:0:10", "xgid.crawford_jacoby"),
        (f"XGID={START}:0:0:1:00:0:0:0:-3:10", "xgid.match_length"),
        (f"XGID={START}:0:0:1:00:0:0:0:0:99", "xgid.max_cube"),
    ],
)
def test_bad_xgids(text: str, field: str) -> None:
    with pytest.raises(InvalidIdError) as e:
        XGID.parse(text)
    assert e.value.field == field
    assert str(e.value)


def test_xgid_conversions_refuse_what_they_cannot_hold() -> None:
    with pytest.raises(InvalidIdError, match="beaver") as e:
        XGID.parse(f"XGID={START}:1:0:1:B:0:0:2:0:10").to_match_id()
    assert e.value.field == "xgid.dice"
    for m in (MatchId(game_state=GameState.OVER), MatchId(resignation=Resignation.GAMMON)):
        with pytest.raises(InvalidIdError, match="in play"):
            XGID.from_match_id(Position.start(), m)
    with pytest.raises(InvalidIdError, match="taker"):
        XGID.from_match_id(Position.start(), MatchId(double_offered=True))
    with pytest.raises(InvalidIdError, match="turn"):
        XGID.from_position(Position.start(), turn=0)


# ---- oracles -----------------------------------------------------------------
def _high_first(m: MatchId) -> MatchId:
    """gnubg stores the dice it reads high die first."""
    return dataclasses.replace(m, dice=(max(m.dice), min(m.dice)))


def _stepped_back(m: MatchId) -> MatchId:
    """What gnubg keeps of an offered double: the roller before doubling."""
    return dataclasses.replace(m, double_offered=False, turn=m.dice_owner) if m.double_offered else m


@pytest.mark.oracle
def test_position_ids_match_gnubg_nn() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for p in POSITIONS:
        assert gnubg_nn.position_id([list(p.theirs), list(p.mine)]) == p.position_id


@pytest.mark.oracle
def test_match_ids_match_pypi_gnubg_encoder() -> None:
    gnubg = pytest.importorskip("gnubg")
    rng = random.Random(11)
    for _ in range(1000):
        m = random_match_id(rng)
        if not m.match_length:  # PyPI gnubg writes no money-play score
            m = dataclasses.replace(m, match_length=7, score=(rng.randrange(7), rng.randrange(7)))
        m = _high_first(dataclasses.replace(m, jacoby=False))
        ci = gnubg.cubeinfo(
            m.cube_value, -1 if m.cube_owner is None else m.cube_owner, m.dice_owner, m.match_length,
            m.score, int(m.crawford), 0,
        )  # fmt: skip
        pi = gnubg.posinfo(m.turn, int(m.resignation), int(m.double_offered), int(m.game_state), m.dice)
        assert gnubg.matchid(ci, pi) == m.encode(), m


@pytest.mark.oracle
def test_xgids_and_gnubg_ids_read_by_pypi_gnubg() -> None:
    gnubg = pytest.importorskip("gnubg")
    rng = random.Random(12)
    for p in POSITIONS[:200]:
        x = random_xgid(rng, p, beavers=False)
        gnubg.setgnubgid(str(x))
        assert gnubg.positionid() == p.position_id, x
        assert gnubg.matchid() == str(_high_first(_stepped_back(x.to_match_id()))), x
        m = random_match_id(rng, live=True)
        if m.match_length:  # 1.1 drops the Jacoby bit it reads
            m = dataclasses.replace(m, double_offered=False, turn=m.dice_owner)
            gnubg.setgnubgid(format_gnubg_id(p, m))
            assert gnubg.positionid() == p.position_id
            assert gnubg.matchid() == str(_high_first(m)), m


def _run_gnubg_cli(commands: list[str]) -> list[tuple[str, str]]:
    """Run ``commands`` (each followed by ``show board``) in one gnubg process.

    Returns the (Position ID, Match ID) shown after each command.
    """
    lines = []
    for i, c in enumerate(commands):
        lines += [c, "show board", f"help zzmark{i}"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "commands.txt"
        path.write_text("\n".join(lines) + "\n")
        out = subprocess.run(
            [GNUBG_CLI, "-t", "-q", "-r", "-c", str(path)],
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp,
        ).stdout  # fmt: skip
    chunks = re.split(r"No help available for topic `zzmark\d+'", out)[: len(commands)]
    assert len(chunks) == len(commands), out[-2000:]
    return [
        (re.findall(r"Position ID: (\S+)", ch)[-1], re.findall(r"Match ID   : (\S+)", ch)[-1])
        for ch in chunks
    ]


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which(GNUBG_CLI) is None, reason="Debian gnubg CLI not installed")
def test_ids_read_by_gnubg_cli() -> None:
    rng = random.Random(13)
    gnubg_ids, xgids = [], []
    for p in POSITIONS[:300]:
        m = random_match_id(rng, live=True)
        gnubg_ids.append((p, _high_first(_stepped_back(m))))
        xgids.append(random_xgid(rng, p, beavers=False))
    commands = [f"set gnubgid {format_gnubg_id(p, m)}" for p, m in gnubg_ids]
    commands += [f"set xgid {x}" for x in xgids]
    shown = _run_gnubg_cli(commands)
    for (p, m), (pid, mid) in zip(gnubg_ids, shown, strict=False):
        assert (pid, mid) == (p.position_id, str(m)), (p, m)
        assert MatchId.parse(mid) == m
    for x, (pid, mid) in zip(xgids, shown[len(gnubg_ids) :], strict=True):
        expected = _high_first(_stepped_back(x.to_match_id(bottom=1 if x.turn == 1 else 0)))
        assert (pid, mid) == (x.position.position_id, str(expected)), x
