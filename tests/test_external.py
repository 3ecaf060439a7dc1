"""pulvezar as a GNU Backgammon external player (pulvezar.external, ``pulvezar external``).

The board lines below were sent by the Debian gnubg 1.07.001 to a listening socket; the Position IDs
and Match IDs they are checked against are the ones gnubg itself showed (or was set to) at the same
moment.  The integration test has gnubg play a whole 3-point match, with the cube, against
``pulvezar external`` started from its command line.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import default_evaluator
from pulvezar.external import (
    BoardLineError,
    ExternalPlayer,
    ExternalServer,
    Request,
    decode,
    gnubg_moves,
    parse_board,
)
from pulvezar.external.player import Exchange
from pulvezar.external.server import MAX_LINE
from pulvezar.formats import read_mat
from pulvezar.rules.matchid import MatchId
from pulvezar.rules.notation import parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

GNUBG = "/usr/games/gnubg"
PULVEZAR = Path(sys.executable).with_name("pulvezar")

# gnubg 1.07: `new match 1`, player 0 ("gnubg", O, the external one) won the opening roll with 41
START_1PT = (
    "board:gnubg:root:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:4:1:4:1:1:1:1:0:1"
    ":-1:0:25:0:0:0:0:0:0:1:1"
)
# `new match 5`, `set gnubgid 4HPwATDgc/ABMA:<MATCH_ID_5PT>`: player 1 (X) on roll with 52 at 2-3,
# owning a 2-cube
MATCH_ID_5PT = "UYmqACAAGAAE"
X_ON_ROLL_5PT = (
    "board:gnubg:root:5:2:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:5:2:5:2:2:1:0:0:1"
    ":-1:0:25:0:0:0:0:0:0:0:1"
)
# `new match 5`, `set score 3 1`, `set turn 1`, `double`: root (player 1, X) doubled, player 0 to answer
ROOT_DOUBLED = (
    "board:root:gnubg:5:1:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:1:1"
    ":-1:0:25:0:0:0:0:0:0:0:1"
)
# `new match 3`, `set score 2 0`, `set crawford on` (then off), `set turn 0`, `set dice 3 1`
CRAWFORD = (
    "board:gnubg:root:3:2:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:3:1:3:1:1:1:1:0:1"
    ":-1:0:25:0:0:0:0:0:0:0:0"
)
POST_CRAWFORD = CRAWFORD[: -len("0:0")] + "1:1"
# `set score 0 1`, `set cube value 2`, `set cube owner 0`, `set turn 0`, `play`: player 0 may double
OWNER_BEFORE_ROLL = (
    "board:gnubg:root:3:0:1:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:0:0:0:0:2:0:1:0:1"
    ":-1:0:25:0:0:0:0:0:0:0:1"
)


@pytest.fixture(scope="module")
def player() -> ExternalPlayer:
    return ExternalPlayer(default_evaluator(), "easy")


# ---- the board line ------------------------------------------------------------------------------
def test_opening_board_is_the_start_position_with_the_dice() -> None:
    r = decode(parse_board(START_1PT))
    assert (r.ask, r.dice, r.position) == ("play", (4, 1), Position.start())
    s = r.state
    assert (s.match_length, s.score, s.cube_value, s.cube_owner, s.crawford) == (
        1,
        (0, 0),
        1,
        "centre",
        False,
    )


def test_x_on_roll_agrees_with_gnubgs_match_id() -> None:
    """Player 1 on roll: the position, score and cube it sees are the Match ID's gnubg was set to."""
    r = decode(parse_board(X_ON_ROLL_5PT))
    m = MatchId.parse(MATCH_ID_5PT)
    me = m.dice_owner
    assert (r.ask, r.dice, r.position.position_id) == ("play", m.dice, "4HPwATDgc/ABMA")
    assert r.state.score == (m.score[me], m.score[1 - me]) == (3, 2)
    assert (r.state.cube_value, r.state.cube_owner) == (m.cube_value, "player")


def test_a_pending_double_is_seen_by_the_doubler() -> None:
    r = decode(parse_board(ROOT_DOUBLED))
    assert r.ask == "take"
    assert r.state.score == (1, 3)  # root (the doubler) 1, gnubg 3: gnubg swaps its names while doubled
    assert (r.state.cube_value, r.state.cube_owner, r.state.match_length) == (1, "centre", 5)


def test_crawford_and_post_crawford() -> None:
    assert decode(parse_board(CRAWFORD)).state.crawford
    post = decode(parse_board(POST_CRAWFORD)).state
    assert not post.crawford and post.score == (2, 0)


def test_cube_owner_before_the_roll() -> None:
    r = decode(parse_board(OWNER_BEFORE_ROLL))
    assert (r.ask, r.dice, r.state.cube_value, r.state.cube_owner, r.state.score) == (
        "double", None, 2, "player", (0, 1)
    )  # fmt: skip


def _line(pos: Position, turn: int, dice: tuple[int, int]) -> str:
    """A board line in gnubg's layout for ``pos`` seen by the side ``turn`` (1: X, -1: O)."""
    pts = [0] * 26
    for side, sign in ((pos.mine, turn), (pos.theirs, -turn)):
        for p in range(1, 25):
            pts[p if sign > 0 else 25 - p] += sign * side[p - 1]
        pts[25 if sign > 0 else 0] += sign * side[24]
    fields = ["board", "a", "b", "0", "0", "0", *map(str, pts), str(turn), *map(str, dice * 2)]
    fields += ["1", "1", "1", "0", "1", "-1", "0", "25", "0", "0", "0", "0", "0", "0", "0", "1"]
    return ":".join(fields)


def test_both_orientations_round_trip_positions_with_bar_and_off() -> None:
    rng, rules = random.Random(45), Rules.international()
    pos, bar, off = Position.start(), False, False
    for _ in range(400):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        for turn in (1, -1):
            assert decode(parse_board(_line(pos, turn, dice))).position == pos
        bar, off = bar or pos.bar()[0] > 0, off or pos.off()[0] > 0
        plays = rules.legal_plays(pos, dice)
        pos = plays[rng.randrange(len(plays))].position.swap() if len(plays) else pos.swap()
        if max(pos.off()) == 15:
            pos = Position.start()
    assert bar and off, "the walk should meet checkers on the bar and borne off"


@pytest.mark.parametrize(
    "line",
    [
        "hello",
        "board:a:b:1:0:0",
        START_1PT.replace(":-1:4:1:", ":0:4:1:"),  # turn 0: the game is over
        START_1PT.replace(":-1:4:1:", ":-1:4:0:"),  # one die
        START_1PT.replace(":-1:4:1:", ":-1:9:1:"),
        START_1PT.replace("board:gnubg:root:1:", "board:gnubg:root:99:"),
        START_1PT.replace("board:gnubg:root:1:0:0:", "board:gnubg:root:1:1:0:"),  # score = length
        START_1PT.replace(":0:-2:0:", ":0:-14:0:", 1),  # 27 checkers
        START_1PT.replace(":-1:4:1:4:1:1:", ":-1:4:1:4:1:3:"),  # cube 3
        START_1PT.replace(":0:-2:0:", ":0:x:0:", 1),
        START_1PT.replace(":0:-2:0:", ":0:99999999999999999999:0:", 1),
        START_1PT + ":1",
    ],
)
def test_bad_lines_are_typed_errors_answered_as_errors(line: str, player: ExternalPlayer) -> None:
    with pytest.raises(BoardLineError):
        decode(parse_board(line))
    answer = player.answer(line)
    assert answer.startswith("Error: ") and "\n" not in answer


def test_error_type_is_a_pulvezar_error() -> None:
    assert issubclass(BoardLineError, PulvezarError)


# ---- the answers ---------------------------------------------------------------------------------
def test_gnubg_move_notation() -> None:
    rules = Rules.international()
    enter = parse_play("bar/22 13/7", Position.from_points({25: 1, 13: 14}, {6: 5}), (3, 6), rules)
    assert gnubg_moves(enter) == "bar/22 13/7"
    bear_off = parse_play("6/off 5/off", Position.from_points({6: 1, 5: 1}, {6: 5}), (6, 5), rules)
    assert gnubg_moves(bear_off) == "6/off 5/off"
    double = parse_play("24/16(2)", Position.start(), (4, 4), rules)
    assert gnubg_moves(double) == "24/20 24/20 20/16 20/16"


def test_answers_are_legal_and_cube_words(player: ExternalPlayer) -> None:
    for line in (START_1PT, X_ON_ROLL_5PT, CRAWFORD):
        r = decode(parse_board(line))
        assert r.dice is not None
        text = player.answer(line)
        assert parse_play(text, r.position, r.dice).moves  # legal (parse_play raises otherwise)
    assert player.answer(OWNER_BEFORE_ROLL) in ("roll", "double")
    assert player.answer(ROOT_DOUBLED) in ("take", "drop")


def _with(line: str, index: int, value: str) -> str:
    f = line.split(":")
    f[index] = value
    return ":".join(f)


def test_a_beavered_double_is_answered_as_a_beaver() -> None:
    """gnubg beavers pulvezar's double: the same position comes back, the double pending, pulvezar on turn."""
    seen: list[Exchange] = []

    class Doubler(ExternalPlayer):
        def decide(self, r: Request) -> str:
            return "double" if r.ask == "double" else super().decide(r)

    p = Doubler(default_evaluator(), "easy", beaver=True, on_exchange=seen.append)
    money = _with(OWNER_BEFORE_ROLL, 3, "0")
    assert p.answer(money) == "double"
    beavered = _with(_with(money, 37, "4"), 40, "1")  # the cube doubled at the beaver, the double pending
    assert p.answer(beavered) in ("take", "drop", "beaver")
    assert [e.request.ask for e in seen if e.request] == ["double", "beaver"]
    assert p.answer(_with(ROOT_DOUBLED, 3, "0")) in ("take", "drop", "beaver")  # another position: a take
    assert seen[-1].request is not None and seen[-1].request.ask == "take"


# ---- the server ----------------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[ExternalServer]:
    srv = ExternalServer(lambda line: f"got {line}", idle_timeout=1.0)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    t.join(5)
    assert not t.is_alive()


def _talk(srv: ExternalServer, payload: bytes, replies: int) -> list[str]:
    with socket.create_connection((srv.host, srv.port), timeout=5) as c:
        c.sendall(payload)
        f = c.makefile("rb")
        return [f.readline().decode().rstrip("\n") for _ in range(replies)]


def test_server_answers_each_line_and_drops_gnubgs_nul(server: ExternalServer) -> None:
    assert _talk(server, b"board:a\n\0board:b\n\0\n  \nboard:c\n", 3) == [
        "got board:a",
        "got board:b",
        "got board:c",
    ]


def test_server_refuses_a_long_line_and_closes(server: ExternalServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=5) as c:
        c.sendall(b"x" * (MAX_LINE + 10))
        f = c.makefile("rb")
        assert f.readline().startswith(b"Error: ")
        assert f.readline() == b""  # closed
    assert _talk(server, b"board:next\n", 1) == ["got board:next"]  # the next connection is served


def test_server_survives_a_failing_answer() -> None:
    def answer(line: str) -> str:
        if line == "boom":
            raise RuntimeError("engine failure")
        return "ok"

    srv = ExternalServer(answer, idle_timeout=5.0)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        assert _talk(srv, b"boom\nfine\n", 2) == ["Error: internal error (RuntimeError)", "ok"]
    finally:
        srv.shutdown()
        t.join(5)


def test_server_closes_an_idle_connection(server: ExternalServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=10) as c:
        t0 = time.monotonic()
        assert c.recv(10) == b""
        assert time.monotonic() - t0 < 8


def test_cli_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [str(PULVEZAR), "external", "--port", "0", "--level", "easy"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        assert "listening on 127.0.0.1:" in proc.stderr.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert "stopped" in proc.stderr.read()
    finally:
        proc.kill()


# ---- gnubg plays a whole match against `pulvezar external` ----------------------------------------
def _match_script(port: int, mat: Path) -> str:
    return "\n".join(
        [
            f"set player 0 external localhost:{port}",
            "set player 1 gnubg",
            "set player 1 chequerplay evaluation plies 0",
            "set player 1 cubedecision evaluation plies 0",
            "set rng mersenne",
            "set seed 3",  # pulvezar doubles and takes here, gnubg doubles and takes, 3 games
            "new match 3",
            f"export match mat {mat}",
            "",
        ]
    )


@pytest.mark.oracle
@pytest.mark.skipif(not os.path.exists(GNUBG), reason="the Debian gnubg (/usr/games/gnubg) is not installed")
def test_gnubg_plays_a_full_match_against_pulvezar_external(tmp_path: Path) -> None:
    transcript, mat = tmp_path / "exchanges.jsonl", tmp_path / "match.mat"
    cmd = [str(PULVEZAR), "external", "--port", "0", "--level", "easy", "--transcript", str(transcript)]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        found = re.search(r"listening on [\d.]+:(\d+)", proc.stderr.readline())
        assert found, "pulvezar external did not start"
        t0 = time.monotonic()  # listening: the net is loaded
        env = {**os.environ, "HOME": str(tmp_path)}  # no ~/.gnubg settings of the machine
        script = _match_script(int(found.group(1)), mat)
        out = subprocess.run(
            [GNUBG, "-t", "-q", "-r"], input=script, capture_output=True, text=True, timeout=60, env=env
        ).stdout
        played = time.monotonic() - t0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    assert re.search(r"\S+ has won the match", out), out[-2000:]
    for bad in ("Error", "External connection closed", "badly formed", "reading from external"):
        assert bad not in out, bad

    rows = [json.loads(x) for x in transcript.read_text().splitlines()]
    asks = {r["ask"] for r in rows}
    assert {"play", "double"} <= asks and len(rows) > 10
    shown = re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", out)
    for r in rows:
        req = decode(parse_board(r["board"]))
        assert not r["answer"].startswith("Error"), r
        if req.ask == "play":
            assert req.dice is not None
            parse_play(r["answer"], req.position, req.dice)  # legal, or it raises
        # the decoded position and cube are what gnubg showed at that moment
        s, mids = req.state, [MatchId.parse(m) for p, m in shown if p == req.position.position_id]
        assert any(
            (m.cube_value, m.match_length, (m.score[m.dice_owner], m.score[1 - m.dice_owner]))
            == (s.cube_value, s.match_length, s.score)
            for m in mids
        ), r

    rec = read_mat(mat.read_text())  # gnubg's record of the match, replayed by pulvezar's rules
    assert all(g.cut_at is None and g.winner is not None for g in rec.games)
    last = rec.games[-1]
    assert last.winner is not None
    assert last.score[last.winner] + last.credited(3) >= 3
    assert played < 15, f"the match took {played:.1f} s"
