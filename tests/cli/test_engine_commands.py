"""``pulvezar hint``, ``eval``, ``cube`` and ``rollout``: the library's numbers, JSON, one-line errors."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import numpy as np
import pytest

from pulvezar.cli import main
from pulvezar.cli.common import parse_position
from pulvezar.cube import cube_decision
from pulvezar.cubeful import CubeState
from pulvezar.errors import InvalidIdError
from pulvezar.eval.evaluator import equity
from pulvezar.rollouts.chunks import rollout_chunked
from pulvezar.rules import XGID, MatchId, Position, Rules
from pulvezar.search.hint import hint, searcher

START = "4HPwATDgc/ABMA"
# a 7-point match at 2-4 (player on roll has 2), cube 2 owned by the player on roll, 52 rolled
XG = str(
    XGID.from_position(
        Position.start(), dice=(5, 2), cube_value=2, cube_owner=1, score=(2, 4), match_length=7
    )
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_parser_for_every_id_form() -> None:
    assert parse_position(START).kind == "position_id"
    g = parse_position(
        f"{START}:{MatchId(cube_value=2, cube_owner=0, dice_owner=0, match_length=5, score=(1, 3))}"
    )
    assert (g.kind, g.cube_value, g.cube_owner, g.match_length, g.score) == (
        "gnubg_id",
        2,
        "player",
        5,
        (1, 3),
    )
    x = parse_position(XG)
    assert (x.kind, x.dice, x.cube_owner, x.score, x.match_length) == ("xgid", (5, 2), "player", (2, 4), 7)
    assert x.position == Position.start()
    for bad in ("not-an-id", f"{START}:zzz", "XGID=-b----E-C:0:0"):
        with pytest.raises(InvalidIdError, match="malformed position"):
            parse_position(bad)


def test_hint_is_the_library_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hint", START, "--dice", "31", "--json")
    assert code == 0
    data = json.loads(out)
    want = hint(Position.start(), (3, 1))
    assert [c["play"] for c in data["candidates"]] == [c.notation for c in want]
    assert [c["equity"] for c in data["candidates"]] == pytest.approx([c.equity for c in want])
    assert data["cubeful"] is False and data["count"] == 16
    code, out, _ = run(capsys, "hint", START, "--dice", "31", "--ply", "1", "--top", "3")
    assert code == 0 and f"1-ply {hint(Position.start(), (3, 1), ply=1)[0].notation} " in out.splitlines()[1]
    # an XGID carries the dice, cube and score: a cubeful hint
    data = json.loads(run(capsys, "hint", XG, "--json")[1])
    state = parse_position(XG).cube_state(Rules.international())
    want = hint(state, (5, 2))
    assert data["cubeful"] is True and data["dice"] == [5, 2]
    assert [c["cubeful_equity"] for c in data["candidates"]] == pytest.approx(
        [c.cubeful_equity for c in want]
    )
    tavla = json.loads(run(capsys, "hint", START, "--dice", "64", "--rules", "tavla", "--json")[1])
    assert (
        tavla["rules"] == "tavla"
        and tavla["candidates"][0]["play"] == hint(Position.start(), (6, 4), rules=Rules.tavla())[0].notation
    )


def test_eval_is_the_search_value(capsys: pytest.CaptureFixture[str]) -> None:
    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
    for ply in (0, 1):
        code, out, _ = run(capsys, "eval", race.position_id, "--ply", str(ply), "--json")
        assert code == 0
        data = json.loads(out)
        board = np.frombuffer(race.board, dtype=np.uint8).reshape(1, 50)
        probs = searcher().probabilities(board, ply)
        assert list(data["probabilities"].values()) == pytest.approx(list(probs[0]))
        assert data["equity"] == pytest.approx(float(equity(probs)[0]))
    assert "cubeless equity" in run(capsys, "eval", START)[1]


def test_cube_is_the_library_decision(capsys: pytest.CaptureFixture[str]) -> None:
    race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
    data = json.loads(run(capsys, "cube", race.position_id, "--json")[1])
    want = cube_decision(CubeState(race))
    assert data["action"] == want.action and data["equities"]["no_double"] == pytest.approx(want.nd)
    m = MatchId(cube_value=1, cube_owner=None, dice_owner=0, match_length=7, score=(2, 4))
    data = json.loads(run(capsys, "cube", race.position_id, "--match-id", m.encode(), "--json")[1])
    want = cube_decision(CubeState(race, match_length=7, score=(2, 4)))
    assert data["cube"]["match_length"] == 7 and data["action"] == want.action
    assert data["mwc"]["no_double"] == pytest.approx(want.mwc_nd)
    code, out, _ = run(capsys, "cube", race.position_id, "--ply", "1")
    assert code == 0 and cube_decision(CubeState(race), ply=1).action in out


def test_rollout_is_the_chunked_library_rollout(capsys: pytest.CaptureFixture[str]) -> None:
    race = Position.from_points({6: 2, 5: 2, 4: 2}, {6: 2, 5: 2, 3: 2})
    code, out, err = run(capsys, "rollout", race.position_id, "--trials", "144", "--seed", "7", "--json")
    assert code == 0 and err == ""  # no terminal here: no progress bar
    data = json.loads(out)
    want = rollout_chunked(race, 144, seed=7)
    assert data["trials"] == 144 and data["equity"] == pytest.approx(want.equity, abs=1e-12)
    assert data["equity_se"] == pytest.approx(want.equity_se)
    cubeful = json.loads(run(capsys, "rollout", race.position_id, "--trials", "72", "--cubeful", "--json")[1])
    assert cubeful["cubeful_equity"] == pytest.approx(rollout_chunked(race, 72, cubeful=True).cubeful_equity)
    assert "cubeless equity" in run(capsys, "rollout", race.position_id, "--trials", "36", "--quiet")[1]


def _pruning_matters() -> Position:
    """A position (seeded random play) whose 1-ply value pruning changes, found by the library."""
    rng, intl, p = np.random.default_rng(41), Rules.international(), Position.start()
    for _ in range(200):
        plays = intl.legal_plays(p, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        p = plays[int(rng.integers(len(plays)))].position.swap()
        if intl.game_result(p.swap()) is not None:
            p = Position.start()
            continue
        board = np.frombuffer(p.board, dtype=np.uint8).reshape(1, 50)
        if (
            np.abs(searcher().probabilities(board, 1) - searcher(prune=False).probabilities(board, 1)).max()
            > 1e-6
        ):
            return p
    raise AssertionError("no position where pruning changes the 1-ply value")


def test_no_prune_is_the_unpruned_search(capsys: pytest.CaptureFixture[str]) -> None:
    pos = _pruning_matters()
    board = np.frombuffer(pos.board, dtype=np.uint8).reshape(1, 50)
    for flags, prune in (((), True), (("--no-prune",), False)):
        data = json.loads(run(capsys, "eval", pos.position_id, "--ply", "1", "--json", *flags)[1])
        want = searcher(prune=prune).probabilities(board, 1)[0]
        assert list(data["probabilities"].values()) == pytest.approx(list(want), abs=1e-12)
        data = json.loads(
            run(capsys, "hint", pos.position_id, "--dice", "42", "--ply", "1", "--json", *flags)[1]
        )
        assert [c["equity"] for c in data["candidates"]] == pytest.approx(
            [c.equity for c in hint(pos, (4, 2), ply=1, prune=prune)], abs=1e-12
        )
        data = json.loads(run(capsys, "cube", pos.position_id, "--ply", "1", "--json", *flags)[1])
        assert data["equities"]["no_double"] == pytest.approx(
            cube_decision(CubeState(pos), ply=1, prune=prune).nd, abs=1e-12
        )
    a, b = (
        json.loads(run(capsys, "eval", pos.position_id, "--ply", "1", "--json", *f)[1])
        for f in ((), ("--no-prune",))
    )
    assert a["probabilities"] != b["probabilities"]  # the flag reaches the search


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("hint", "not-an-id", "--dice", "31"), "malformed position"),
        (("hint", START), "--dice"),
        (("hint", START, "--dice", "31", "--ply", "9"), "--ply"),
        (("eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52"), "malformed position"),
        (("cube", START, "--match-id", "garbage"), "--match-id"),
        (("cube", START, "--ply", "3"), "--ply"),
        (("rollout", START, "--trials", "0"), "--trials"),
        (("rollout", START, "--chunk-size", "50"), "--chunk-size"),
        (("rollout", START, "--cubeful", "--rules", "tavla"), "cube"),
    ],
)
def test_errors_are_one_line_and_status_2(
    argv: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("pulvezar: error:") and message in err and "Traceback" not in err


def test_console_script_json_parses() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pulvezar", "hint", START, "--dice", "31", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0 and r.stderr == ""
    assert json.loads(r.stdout)["candidates"][0]["play"] == "8/5 6/5"


def _on_a_terminal(*argv: str) -> str:
    """stderr of ``python -m pulvezar ARGV`` when stderr is a terminal (a pseudo-terminal)."""
    main_fd, tty_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pulvezar", *argv],
        stdout=subprocess.DEVNULL, stderr=tty_fd, env={**os.environ, "COLUMNS": "100", "TERM": "xterm"},
    )  # fmt: skip
    os.close(tty_fd)
    chunks = []
    while True:
        try:
            data = os.read(main_fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(main_fd)
    return b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_only() -> None:
    race = Position.from_points({6: 2, 5: 2, 4: 2}, {6: 2, 5: 2, 3: 2})
    shown = _on_a_terminal("rollout", race.position_id, "--trials", "216", "--chunk-size", "36")
    assert "rollout" in shown and "trials" in shown and "left" in shown
    assert _on_a_terminal("rollout", race.position_id, "--trials", "216", "--quiet").strip() == ""


def test_main_with_arguments_leaves_sigpipe_alone() -> None:
    """In-process callers (this test runner) keep Python's SIGPIPE handling: only the console script,
    which passes no arguments, restores the default (quiet under `| head`)."""
    import signal

    before = signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python starts every process
    try:
        assert main(["show", "4HPwATDgc/ABMA"]) == 0
        assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGPIPE, before)
