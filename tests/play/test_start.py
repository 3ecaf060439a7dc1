"""Play from a position: a session started from an ID is the same game state, replays, and exports a set-up
that pulvezar's readers and GNU Backgammon read back."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from playkit import check_state, drive, random_action

from pulvezar.errors import PulvezarError
from pulvezar.formats import read_mat, read_sgf, write_mat, write_sgf
from pulvezar.formats.record import apply_action, match_id_of
from pulvezar.match.game import Phase
from pulvezar.play import PlaySession
from pulvezar.play.start import Start
from pulvezar.rules.matchid import MatchId
from pulvezar.rules.position import Position

GNUBG = "/usr/games/gnubg"
_BOARD = re.compile(r"Position ID: (\S+)\s*\n\s*Match ID\s*: (\S+)")
Make = Callable[..., PlaySession]


def _side(st: dict[str, Any]) -> str:
    """The side that makes the human of a restart the human of ``st`` (the mover is the Match ID's
    dice owner)."""
    return "on_roll" if MatchId.parse(st["board"]["match_id"]).dice_owner == 0 else "opponent"


def _midgame_states(make: Make, settings: dict[str, Any], seed: int, n: int) -> list[dict[str, Any]]:
    """States of a random session where a start can begin (no resignation or beaver on offer)."""
    rng = random.Random(seed)
    s = make(settings, seed=bytes([seed]) * 32)
    out = []
    for _ in range(400):
        st = check_state(s)
        if st["status"] == "finished" or len(out) >= n:
            break
        if st["phase"] in ("roll", "move", "doubled") and st["board"]["match_id"] and rng.random() < 0.3:
            out.append(st)
        s.apply(random_action(st, rng))
    return out


def test_parse_forms() -> None:
    s = Start.parse("XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10")
    assert (s.turn, s.dice, s.cube_value, s.cube_owner, s.score, s.match_length) == (
        0,
        (5, 2),
        2,
        0,
        (3, 1),
        7,
    )
    o = Start.parse("XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10", side="opponent")
    assert (o.turn, o.cube_owner, o.score) == (1, 1, (1, 3))
    d = Start.parse("XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:2:2:0:5:10")
    assert d.doubled and d.turn == 0 and d.dice is None and d.score == (2, 2)
    plain = Start.parse(" 4HPwATDgc/ABMA ")
    assert (plain.turn, plain.match_length, plain.dice, plain.score) == (0, None, None, (0, 0))


@pytest.mark.parametrize(
    ("text", "side", "why"),
    [
        ("not an id", "on_roll", "Position ID"),
        ("", "on_roll", "a position is"),
        ("4HPwATDgc/ABMA", "left", "side is"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "on_roll", "beaver"),
    ],
)
def test_parse_errors(text: str, side: str, why: str) -> None:
    with pytest.raises(PulvezarError, match=why) as e:
        Start.parse(text, side=side)
    assert e.value.field in ("start.position", "start.side")


def test_a_finished_position_is_refused() -> None:
    over = Position((0,) * 25, (0,) * 5 + (15,) + (0,) * 19).position_id  # the player on roll has none left
    with pytest.raises(PulvezarError, match="over") as e:
        Start.parse(over)
    assert e.value.field == "start.position"


def test_checks_against_settings(make: Make) -> None:
    nine = "4HPwATDgc/ABMA:QYkqASAAIAAA"  # 9 points, 2-4, cube 2
    with pytest.raises(PulvezarError, match="9-point match"):
        make({"match_length": 5}, start=Start.parse(nine))
    with pytest.raises(PulvezarError, match="Tavla has no cube"):
        make({"match_length": 9, "rules": {"variant": "tavla"}}, start=Start.parse(nine))
    crawford = Start(Start.parse("4HPwATDgc/ABMA").position, score=(2, 3), crawford=True)
    with pytest.raises(PulvezarError, match="Crawford"):
        make({"match_length": 5}, start=crawford)
    won = Start(Start.parse("4HPwATDgc/ABMA").position, score=(5, 3))
    with pytest.raises(PulvezarError, match="already won"):
        make({"match_length": 5}, start=won)
    s = make({"match_length": 5}, start=Start(crawford.position, score=(4, 3), crawford=True))
    st = check_state(s)
    assert st["crawford"] and "double" not in st["actions"] and st["score"] == [4, 3]


@pytest.mark.parametrize("rules", ["international", "tavla"])
def test_restart_from_any_state_is_the_same_state(make: Make, rules: str) -> None:
    """From a random game's states: the restarted session shows the same IDs, actions and plays."""
    settings: dict[str, Any] = {"match_length": 7, "rules": {"variant": rules}, "bot": {"level": "easy"}}
    states = _midgame_states(make, settings, seed=3, n=12)
    assert len(states) >= 6
    for st in states:
        start = Start.parse(st["board"]["gnubg_id"], side=_side(st))
        s = make(settings, start=start, seed=bytes(32))
        got = check_state(s)
        assert got["board"]["gnubg_id"] == st["board"]["gnubg_id"]
        assert (got["actions"], got["legal_plays"], got["crawford"]) == (
            st["actions"], st["legal_plays"], st["crawford"],
        )  # fmt: skip
        again = PlaySession.from_json(s.dumps(), evaluator=s.evaluator)
        assert again.state()["board"] == got["board"] and again.start == start


def test_bot_acts_first_when_the_start_gives_it_the_decision(make: Make) -> None:
    start = Start.parse("4HPwATDgc/ABMA:QYkqASAAIAAA", side="opponent")  # the bot rolled 52
    s = make({"match_length": 9, "bot": {"level": "easy"}}, start=start, seed=bytes(32))
    assert s.bot_pending
    events = s.resume()
    assert events[0]["type"] == "play" and events[0]["player"] == 1
    st = check_state(s)
    assert st["to_act"] == 0 and not s.bot_pending


def _played(make: Make, seed: int) -> list[PlaySession]:
    """Sessions started from random states and played on for a few random actions."""
    out = []
    settings: dict[str, Any] = {"match_length": 7, "bot": {"level": "easy"}}
    for i, st in enumerate(_midgame_states(make, settings, seed=seed, n=6)):
        s = make(settings, start=Start.parse(st["board"]["gnubg_id"], side=_side(st)), seed=bytes([i]) * 32)
        s.resume()
        rng = random.Random(seed * 100 + i)
        for _ in range(rng.randint(0, 8)):
            now = check_state(s)
            if now["status"] == "finished":
                break
            s.apply(random_action(now, rng))
        out.append(s)
    money = make({"match_length": 0, "money": {"beaver": True}}, seed=bytes(32),
                 start=Start.parse("XGID=-a---BD-B---dE---c-d----B-:2:1:1:00:0:0:1:0:10"))  # fmt: skip
    drive(money, random.Random(5), steps=6)
    return [*out, money]


def _last_state(s: PlaySession) -> str:
    """The final state of the record's last game as "PositionID:MatchID" (replayed from the record)."""
    rec = s.to_record()
    g = rec.games[-1]
    game = rec.new_game(g)
    for a in g.actions:
        if a.kind != "win":
            apply_action(game, a)
    return f"{game.position.position_id}:{match_id_of(game).encode()}"


def test_exports_carry_the_setup_and_read_back(make: Make) -> None:
    for s in _played(make, seed=11):
        rec = s.to_record()
        assert rec.games[0].setup is not None
        backs = [read_sgf(write_sgf(rec))]
        if rec.games[-1].actions[-1:] and rec.games[-1].actions[-1].kind != "roll":
            backs.append(read_mat(write_mat(rec)))  # (.mat has no form for a roll still to be played)
        for back in backs:
            assert back.games[0].setup == rec.games[0].setup
            assert [g.cut_at for g in back.games] == [None] * len(back.games)
            assert [(d.gnubg_id, d.action.kind) for d in back.replay()] == [
                (d.gnubg_id, d.action.kind) for d in rec.replay()
            ]
        assert "from the position" in s.export("txt")


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which(GNUBG) is None, reason="GNU Backgammon is not installed")
def test_gnubg_reads_the_sgf_setup_back(make: Make, tmp_path: Path) -> None:
    """gnubg loads each exported SGF and shows the same final position and Match ID as the record."""
    sessions = [
        s
        for s in _played(make, seed=23)
        if s.game.phase in (Phase.ROLL, Phase.MOVE) and len(s.to_record().games) == 1
    ]
    assert len(sessions) >= 3
    cmds = []
    for i, s in enumerate(sessions):
        path = tmp_path / f"m{i}.sgf"
        path.write_text(s.export("sgf"), encoding="utf-8")
        cmds += [f"load match {path}", "show board"]
    script = tmp_path / "commands.txt"
    script.write_text("\n".join(cmds) + "\n")
    out = subprocess.run(
        [GNUBG, "-t", "-q", "-r", "-c", str(script)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    boards = [_same_dice_order(f"{p}:{m}") for p, m in _BOARD.findall(out)]
    shown = boards[1::2]  # each load shows the board once, then "show board" once more
    assert shown == [_same_dice_order(_last_state(s)) for s in sessions]


def _same_dice_order(gnubg_id: str) -> str:
    """The ID with the high die first (gnubg shows a loaded roll so; the record keeps the rolled order)."""
    p, m = gnubg_id.split(":")
    mid = MatchId.parse(m)
    return f"{p}:{replace(mid, dice=tuple(sorted(mid.dice, reverse=True))).encode()}"
