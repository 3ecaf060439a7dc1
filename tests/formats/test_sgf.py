"""Reading and writing GNU Backgammon's SGF (``GM[6]``) match files.

The oracle test (marked ``oracle``) has the Debian GNU Backgammon 1.07 CLI load
pulvezar's exported files and step through them with ``first game`` / ``next``
/ ``next game`` and ``show board``: the Position ID and Match ID it prints after
each ``next`` must be ours before the next node.  gnubg shows the dice of the
next move beside the board but keeps them out of its Match ID, so ours are
compared with the dice cleared.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pulvezar.formats import GameRecord, MatchFileError, MatchRecord, read_mat
from pulvezar.formats.record import apply_action, match_id_of
from pulvezar.formats.sgf import parse_sgf, read_sgf, write_sgf
from pulvezar.match.game import SessionOptions
from pulvezar.rules.matchid import GameState, MatchId

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"
GNUBG_CLI = "/usr/games/gnubg"


def _corpus() -> list[Path]:
    return sorted(SHARED.rglob("*.sgf")) if SHARED.is_dir() else []


def _moves(g: GameRecord) -> list[tuple[object, ...]]:
    return [(a.player, a.kind, a.dice, a.notation, a.value) for a in g.actions]


def _ids(rec: MatchRecord) -> list[tuple[int, int, str]]:
    return [(d.game, d.index, d.gnubg_id) for d in rec.replay()]


def assert_round_trip(rec: MatchRecord) -> MatchRecord:
    """Export and import again: the same match, analysis and kept properties included."""
    again = read_sgf(write_sgf(rec))
    assert (again.length, again.players) == (rec.length, rec.players)
    assert again.tags == {"AP": "pulvezar", **rec.tags}  # AP: the writing program, when none was recorded
    assert len(again.games) == len(rec.games)
    for g, h in zip(rec.games, again.games, strict=True):
        assert (h.number, h.score, h.winner, h.points, h.crawford) == (
            g.number,
            g.score,
            g.winner,
            g.points,
            g.crawford,
        )
        assert h.actions == g.actions
        assert [a.props for a in h.actions] == [a.props for a in g.actions]
        assert h.props == g.props
        assert (h.cut_at is None) == (g.cut_at is None)
    assert _ids(again) == _ids(rec)
    return again


# ---- the shared corpus -------------------------------------------------------------


@pytest.mark.skipif(not _corpus(), reason="the shared match corpus is not beside the repository")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:40])
def test_corpus_file(path: Path) -> None:
    data = path.read_bytes()
    rec = read_sgf(data)
    assert len(rec.games) == len(parse_sgf(data.decode("utf-8")))
    assert rec.length > 0 and all(rec.players)
    print(f"{path.name}: {len(rec.games)} games, {rec.cut_games} cut")
    assert rec.cut_games == 0
    for prev, nxt in zip(rec.games, rec.games[1:], strict=False):
        assert prev.winner is not None
        expect = list(prev.score)
        expect[prev.winner] += prev.points
        assert nxt.score == tuple(expect), f"game {nxt.number}"
    assert_round_trip(rec)


CROSS = [  # the same match as .sgf and .mat
    ("kevung-gbf/test.sgf", "kevung-gbf/test.mat"),
    (
        "kevung-gbf/charlot1-charlot2_7p_2025-11-08-2305.sgf",
        "kevung-gbf/charlot1-charlot2_7p_2025-11-08-2305.mat",
    ),
    ("gibbon/7point.sgf", "gibbon/7point.mat"),
]


def _local_or_shared(rel: str) -> Path:
    local = DATA / Path(rel).name
    return local if local.exists() else SHARED / rel


@pytest.mark.parametrize(("sgf", "mat"), CROSS, ids=lambda s: Path(s).stem[:20])
def test_same_match_as_mat(sgf: str, mat: str) -> None:
    """Same players, games, actions and Position/Match IDs before every decision.

    The files differ only in how they write things, not in the match: where a
    player rolls and resigns, XG's ``test.mat`` writes ``33: ???`` then ``Wins 2
    point``, gnubg's SGF ``PL[B]DI[33]`` and ``RE[W+2R]``; Gibbon's SGF has
    ``B[resign:2]``/``W[accept]`` nodes, its ``.mat`` only ``Wins 2 points``.
    charlot game 4: both files give 3 points for a resignation in the Crawford
    game at 6-2, where one point ends the match; both are read as a level-1
    resignation and keep the file's 3 in the ``win`` action.
    """
    s_path, m_path = _local_or_shared(sgf), _local_or_shared(mat)
    if not (s_path.exists() and m_path.exists()):
        pytest.skip("the shared match corpus is not beside the repository")
    s, m = read_sgf(s_path.read_bytes()), read_mat(m_path.read_bytes())
    assert (s.length, s.players, len(s.games)) == (m.length, m.players, len(m.games))
    for g, h in zip(s.games, m.games, strict=True):
        assert (g.score, g.winner, g.points, g.crawford) == (h.score, h.winner, h.points, h.crawford)
        assert _moves(g) == _moves(h), f"game {g.number}"
    assert _ids(s) == _ids(m)


# ---- fixtures ----------------------------------------------------------------------


def test_gnubg_file_with_analysis() -> None:
    rec = read_sgf((DATA / "test.sgf").read_bytes())
    assert rec.players == ("Kévin Unger", "Maxence Job") and rec.length == 7
    assert rec.tags["EV"] == "HSBT Paris 2023" and rec.tags["AP"] == "GNU Backgammon:1.08.003"
    assert [(g.winner, g.points) for g in rec.games] == [
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 1),
        (1, 2),
        (0, 2),
        (0, 2),
    ]
    first = rec.games[0].actions[1]
    assert (first.player, first.kind, first.notation) == (0, "play", "24/23 13/8")
    assert first.props["A"][0] == "0" and first.props["A"][1].startswith("mhxw E ver 3 ")
    assert first.props["LU"] == ["0.00186"] and first.props["MR"] == [""]
    assert "DA" in rec.games[0].actions[3].props
    assert rec.games[0].props["GS"][0].startswith("M:")
    # gnubg writes the roll of a player who then resigns as PL[B]DI[33]; RE[W+2R]
    g2 = rec.games[1]
    assert [(a.player, a.kind) for a in g2.actions[-4:]] == [
        (1, "roll"),
        (1, "resign"),
        (0, "accept"),
        (0, "win"),
    ]
    assert g2.actions[-4].dice == (3, 3) and g2.actions[-3].value == 1  # 2 points on a 2-cube
    assert_round_trip(rec)


def test_gibbon_file() -> None:
    rec = read_sgf((DATA / "7point.sgf").read_bytes())
    assert rec.players == ("JoeBlack", "SnowWhite") and len(rec.games) == 9
    assert rec.tags["AP"].startswith("gibbon")
    assert [g.crawford for g in rec.games].count(True) == 1
    g = rec.games[3]  # ;B[resign:2] ;W[accept] with a 2-cube, RE[W+2Resign]
    assert [(a.player, a.kind, a.value) for a in g.actions[-3:]] == [
        (1, "resign", 1),
        (0, "accept", 0),
        (0, "win", 2),
    ]
    assert "" in [a.notation for g in rec.games for a in g.actions if a.kind == "play"]  # ;W[34]
    text = write_sgf(rec)
    assert "resign" not in text and "RE[W+2R]" in text  # written as gnubg does
    assert_round_trip(rec)


def test_backgammon_mobile_file() -> None:
    rec = read_sgf((DATA / "match.sgf").read_bytes())
    assert rec.players == ("AI(5)", "PL1") and rec.cut_games == 0
    g = rec.games[0]
    assert (g.winner, g.points) == (0, 2) and g.actions[-2].kind == "play"  # borne off on a 2-cube
    assert_round_trip(rec)


def test_mat_record_exports_to_sgf() -> None:
    rec = read_mat((DATA / "test.mat").read_bytes())
    again = read_sgf(write_sgf(rec))
    assert again.tags["EV"] == "HSBT Paris 2023"  # [Event "..."] -> EV
    assert [_moves(g) for g in again.games] == [_moves(g) for g in rec.games]
    assert _ids(again) == _ids(rec)


def test_one_point_match_has_no_crawford_game() -> None:
    """Both sides start 1-away in a 1-point match; gnubg calls its game not the Crawford game."""
    rec = read_sgf(sgf("B[42gkik]", "W[31hfhe]", length=1))
    assert rec.games[0].crawford is False
    again = read_sgf(write_sgf(rec))
    assert again.games[0].crawford is False and _ids(again) == _ids(rec)


# ---- hand-written snippets -----------------------------------------------------------


def sgf(*nodes: str, root: str = "RE[W+1]", length: int = 3) -> str:
    return (
        f"(;FF[4]GM[6]CA[UTF-8]MI[length:{length}][game:0][ws:0][bs:0]PW[Ann]PB[Bob]{root}\n"
        + "\n".join(f";{n}" for n in nodes)
        + ")\n"
    )


def test_generic_sgf_syntax() -> None:
    trees = parse_sgf("(;GM[6]\n;C[line one\nline two \\\n joined]XX[a][b\\]c][]\n(;W[double])(;B[double]))")
    node = trees[0].nodes[1]
    assert node.props == {"C": ["line one\nline two  joined"], "XX": ["a", "b]c", ""]} and node.line == 2
    assert [n.props for n in trees[0].main_line()][-1] == {"W": ["double"]}
    rec = read_sgf("(;GM[6]MI[length:3]PW[A]PB[B];W[31hefe]C[x\\\\y]XX[1][2])")
    assert rec.games[0].actions[1].props == {"C": ["x\\y"], "XX": ["1", "2"]}
    assert "C[x\\\\y]XX[1][2]" in write_sgf(rec)
    assert_round_trip(rec)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("(;GM[6]\n;W[31", 2, 6),
        ("(;GM[6]\n;W[31hefe]", 2, 11),
        ("(;GM[6] x)", 1, 9),
        ("(;GM[6];W[])x", 1, 13),
        ("hello", 1, 1),
        ("", 1, 1),
    ],
)
def test_malformed_sgf(text: str, line: int, column: int) -> None:
    with pytest.raises(MatchFileError) as info:
        read_sgf(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_not_backgammon() -> None:
    with pytest.raises(MatchFileError, match="GM"):
        read_sgf("(;GM[1]SZ[19];B[dd])")


def test_bar_hits_and_off() -> None:
    rec = read_sgf(sgf("W[31hefe]", "B[64aglp]", "W[62mghf]", "B[52yblq]", "W[41uyhd]", root=""))
    g = rec.games[0]
    assert rec.cut_games == 1  # "uy": to the bar is no move
    plays = ["8/5 6/5", "24/18 13/9", "13/7* 8/6", "bar/23 13/8"]
    assert [a.notation for a in g.actions if a.kind == "play"] == plays
    assert g.cut_at is not None and g.cut_at.startswith("line 6:")
    assert g.props["~tail"] == [";W[41uyhd]"]
    again = assert_round_trip(rec)
    assert str(again.games[0].cut_at).split(": ", 1)[1] == "the move 'uy' cannot be made"


def test_setup_node_cuts_the_game() -> None:
    setup = (
        "PL[B]AE[a:y]AW"
        + "[f]" * 5
        + "[h]" * 3
        + "[m]" * 5
        + "[x]" * 2
        + "AB[s][s][s][s][s][q][q][q]"
        + "[l]" * 5
        + "[a][a]"
    )
    rec = read_sgf(sgf("W[42hdfd]", setup, "B[21lnst]", root="RE[B+1]"))
    g = rec.games[0]
    assert g.cut_at is not None and "set-up node (AE, AB, AW)" in g.cut_at
    assert [a.kind for a in g.actions] == ["roll", "play", "win"] and (g.winner, g.points) == (1, 1)
    assert len(g.props["~tail"]) == 2
    assert_round_trip(rec)


def test_illegal_and_out_of_turn_moves() -> None:
    assert read_sgf(sgf("W[31hefe]", "W[64aglp]")).games[0].cut_at == "line 3: a roll out of turn"
    assert "not a legal play" in str(read_sgf(sgf("W[31hdfe]")).games[0].cut_at)
    assert "double as the opening" in str(read_sgf(sgf("W[33hehefcfc]")).games[0].cut_at)
    assert "take out of turn" in str(read_sgf(sgf("W[31hefe]", "B[double]", "B[take]")).games[0].cut_at)


def test_resignations() -> None:
    # gnubg: before rolling, nothing but RE; after rolling, PL/DI
    g = read_sgf(sgf("W[31hefe]", root="RE[W+2R]")).games[0]
    assert [(a.player, a.kind, a.value) for a in g.actions[-3:]] == [
        (1, "resign", 2),
        (0, "accept", 0),
        (0, "win", 2),
    ]
    g = read_sgf(sgf("W[31hefe]", "PL[B]DI[64]", root="RE[W+1R]")).games[0]
    assert [a.kind for a in g.actions] == ["roll", "play", "roll", "resign", "accept", "win"]
    # Gibbon: a rejected resignation is recorded, and written back in Gibbon's form
    rec = read_sgf(sgf("W[31hefe]", "B[resign:1]", "W[reject]", "B[64aglp]", root=""))
    g = rec.games[0]
    assert g.winner is None and not g.notes and g.cut_at is None
    assert [(a.player, a.kind, a.value) for a in g.actions][2:] == [
        (1, "resign", 1),
        (0, "reject", 0),
        (1, "roll", 0),
        (1, "play", 0),
    ]
    assert ";B[resign:1]\n;W[reject]" in write_sgf(rec)
    assert_round_trip(rec)
    assert [d.action.kind for d in rec.replay()][1:3] == ["resign", "reject"]
    # the answer to a resignation must come from the other player
    assert "without a resignation" in str(
        read_sgf(sgf("W[31hefe]", "B[resign:1]", "B[reject]")).games[0].cut_at
    )


def test_beaver_raccoon_and_jacoby() -> None:
    """gnubg's forms: a double of the doubled player is a beaver, then one of the doubler a raccoon."""
    nodes = ("W[31hefe]", "B[double]", "W[double]", "B[double]", "W[take]", "B[64aglp]")
    rec = read_sgf(sgf(*nodes, root="RU[Jacoby]", length=0))
    assert rec.length == 0 and rec.options == SessionOptions(jacoby=True, beaver=True, raccoon=True)
    g = rec.games[0]
    assert g.cut_at is None
    assert [(a.player, a.kind, a.value) for a in g.actions][2:6] == [
        (1, "double", 2),
        (0, "beaver", 4),
        (1, "raccoon", 8),
        (0, "take", 0),
    ]
    ids = [d.match_id for d in rec.replay()]
    assert all(m.jacoby for m in ids)  # gnubg's Jacoby bit
    assert (ids[-1].cube_value, ids[-1].cube_owner) == (8, 0)  # before 64aglp: the raccoon taken
    again = assert_round_trip(rec)
    assert again.options == rec.options and again.games[0].props["RU"] == ["Jacoby"]
    # a match has no beavers: the same nodes cut the game
    cut = read_sgf(sgf("W[31hefe]", "B[double]", "W[double]")).games[0]
    assert cut.cut_at is not None and "beaver" in cut.cut_at


def test_crawford_and_match_info() -> None:
    text = sgf("W[31hefe]", root="RU[Crawford:CrawfordGame]RE[W+1R]", length=5).replace(
        "[bs:0]", "[bs:4][wtime:90][btime:80]"
    )
    rec = read_sgf(text)
    g = rec.games[0]
    assert g.crawford and g.score == (0, 4) and g.props["MI"] == ["wtime:90", "btime:80"]
    assert "MI[length:5][game:0][ws:0][bs:4][wtime:90][btime:80]" in write_sgf(rec)
    assert_round_trip(rec)


def test_latin1_bytes() -> None:
    text = sgf("W[31hefe]").replace("CA[UTF-8]", "CA[ISO-8859-1]").replace("PW[Ann]", "PW[Jürgen]")
    assert read_sgf(text.encode("latin-1")).players[0] == "Jürgen"
    assert read_sgf(text.replace("CA[ISO-8859-1]", "").encode("utf-8")).players[0] == "Jürgen"


# ---- gnubg as a reader ---------------------------------------------------------------


def _states_before_nodes(rec: MatchRecord) -> list[list[tuple[str, MatchId]]]:
    """Per game, our (Position ID, Match ID without dice) before each node ``write_sgf`` writes."""
    out = []
    for g in rec.games:
        game = rec.new_game(g)
        states: list[tuple[str, MatchId]] = []
        acts = [a for a in g.actions if a.kind != "win"]
        for a in acts:
            if a.kind in ("roll", "double", "take", "drop"):  # each starts a node
                states.append(
                    (game.position.position_id, dataclasses.replace(match_id_of(game), dice=(0, 0)))
                )
            apply_action(game, a)
        out.append(states)
    return out


def _run_gnubg(commands: list[str], workdir: Path) -> str:
    """One gnubg process on a command file, under a pseudo-terminal (stdout and stderr in order)."""
    cmd_file = workdir / "commands"
    cmd_file.write_text("\n".join(commands) + "\n", encoding="utf-8")
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [GNUBG_CLI, "-t", "-q", "-r", "-c", str(cmd_file)],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    try:
        while chunk := os.read(master, 1 << 16):
            chunks.append(chunk)
    except OSError:  # EIO: the process closed the terminal
        pass
    finally:
        os.close(master)
    assert proc.wait(timeout=120) == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which(GNUBG_CLI) is None, reason="Debian gnubg CLI not installed")
@pytest.mark.parametrize("name", ["test.sgf", "7point.sgf", "test.mat"])
def test_gnubg_reads_our_export(name: str, tmp_path: Path) -> None:
    data = (DATA / name).read_bytes()
    rec = read_mat(data) if name.endswith(".mat") else read_sgf(data)
    path = tmp_path / "match.sgf"
    path.write_text(write_sgf(rec), encoding="utf-8")
    expected = _states_before_nodes(rec)
    commands = [f"load match {path}"]
    for gi, states in enumerate(expected):
        commands += ["first game" if gi == 0 else "next game", f"show pulvezar_game_{gi}"]
        commands += ["next", "show board"] * len(states)
    out = _run_gnubg(commands, tmp_path)
    parts = re.split(r"Unknown keyword `pulvezar_game_\d+'", out)[1:]
    assert len(parts) == len(rec.games)
    compared = 0
    for g, states, part in zip(rec.games, expected, parts, strict=True):
        shown = re.findall(r"Position ID: (\S+)\s+Match ID\s+: (\S+)", part)
        assert len(shown) == len(states), f"game {g.number}"
        # after k "next": the state before node k (the first node's is not shown)
        for k in range(1, len(states)):
            pid, mid = shown[k - 1]
            assert (pid, mid) == (states[k][0], states[k][1].encode()), f"game {g.number}, node {k}"
            compared += 1
        if g is not rec.games[-1]:  # gnubg's score can pass the match length in the last game
            end = MatchId.parse(shown[-1][1])
            resigned = any(a.kind == "accept" for a in g.actions)
            assert g.winner is not None
            if resigned:  # gnubg does not replay a resignation it reads from RE: the game stays in play
                assert end.game_state is GameState.PLAYING
            else:
                assert end.game_state in (GameState.OVER, GameState.DROPPED)
                score = list(g.score)
                score[g.winner] += g.points
                assert end.score == tuple(score)
    assert compared > 100
