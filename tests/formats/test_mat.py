"""Reading and writing ``.mat`` match text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pulvezar import Position
from pulvezar.formats import GameRecord, MatchFileError, MatchRecord, read_mat, write_mat
from pulvezar.match.game import SessionOptions

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).parents[2] / ".." / "shared" / "data" / "matches"
_POINT_MATCH = re.compile(rb"^\s*\d+\s+point\s+match\s*$", re.M | re.I)
_GAME_HEADER = re.compile(rb"^\s*Game\s+\d+\s*$", re.M)


def _corpus() -> list[Path]:
    if not SHARED.is_dir():
        return []
    files = sorted(p for p in SHARED.rglob("*") if p.suffix in (".mat", ".txt"))
    return [p for p in files if _POINT_MATCH.search(p.read_bytes())]


def row(n: int, left: str = "", right: str = "") -> str:
    return f"{n:3d}) {left:<28}{right}".rstrip()


def snippet(*lines: str, length: int = 3, names: tuple[str, str] = ("Ann", "Bob")) -> str:
    score = f" {names[0]} : 0"
    return f" {length} point match\n\n Game 1\n{score:<33}{names[1]} : 0\n" + "\n".join(lines) + "\n"


def _game_key(g: GameRecord) -> tuple[object, ...]:
    return (g.number, g.score, g.actions, g.winner, g.points, g.crawford, g.cut_at is None)


def assert_round_trip(rec: MatchRecord) -> None:
    again = read_mat(write_mat(rec))
    assert (again.length, again.players, again.tags) == (rec.length, rec.players, rec.tags)
    assert len(again.games) == len(rec.games)
    for g, h in zip(rec.games, again.games, strict=True):
        if g.cut_at is None:
            assert _game_key(h) == _game_key(g)
        else:  # a cut game's text ends where it was cut: the prefix must survive
            kept = [a for a in g.actions if a.kind != "win"]
            assert h.actions[: len(kept)] == kept
    ids = [(d.game, d.index, d.gnubg_id) for d in rec.replay()]
    if not rec.cut_games:
        assert ids == [(d.game, d.index, d.gnubg_id) for d in again.replay()]


# ---- the shared corpus -------------------------------------------------------------


@pytest.mark.skipif(not _corpus(), reason="the shared match corpus is not beside the repository")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:40])
def test_corpus_file(path: Path) -> None:
    data = path.read_bytes()
    rec = read_mat(data)
    assert len(rec.games) == len(_GAME_HEADER.findall(data))
    assert rec.length > 0
    print(f"{path.name}: {len(rec.games)} games, {rec.cut_games} cut")
    assert rec.cut_games == 0
    for prev, nxt in zip(rec.games, rec.games[1:], strict=False):
        assert prev.winner is not None
        expect = list(prev.score)
        expect[prev.winner] += prev.points
        assert nxt.score == tuple(expect), f"game {nxt.number}"
    assert_round_trip(rec)


# ---- fixtures ----------------------------------------------------------------------


def test_xg_export_with_bom_crlf_and_unplayed_rolls() -> None:
    rec = read_mat((DATA / "test.mat").read_bytes())
    assert rec.tags["Event"] == "HSBT Paris 2023"
    assert rec.tags["Player 2"] == "Kévin Unger"
    assert rec.players == ("Kévin Unger", "Maxence Job")
    assert (rec.length, len(rec.games), rec.cut_games) == (7, 7, 0)
    plays = [a.notation for g in rec.games for a in g.actions if a.kind == "play"]
    assert "" in plays  # "64:" with nothing to move
    assert "1/off(4)" in plays  # "1/0 1/0 1/0 1/0"
    game2 = rec.games[1]  # "33: ???" then the opponent wins 2: a gammon resignation
    assert [a.kind for a in game2.actions[-4:]] == ["roll", "resign", "accept", "win"]
    assert (game2.winner, game2.points) == (0, 2)
    assert_round_trip(rec)


def test_gibbon_export() -> None:
    rec = read_mat((DATA / "7point.mat").read_bytes())
    assert rec.players == ("JoeBlack", "SnowWhite") and len(rec.games) == 9
    g = rec.games[0]
    assert [a.kind for a in g.actions[-3:]] == ["double", "drop", "win"]
    assert (g.winner, g.points) == (1, 1)
    assert sum(g.crawford for g in rec.games) == 1
    assert_round_trip(rec)


def test_galaxy_losses_is_a_resignation() -> None:
    rec = read_mat((DATA / "match10030560.txt").read_bytes())
    resigns = [a for g in rec.games for a in g.actions if a.kind == "resign"]
    assert len(resigns) == 2 and rec.cut_games == 0  # "Losses 2 point" on a 2-cube: a single game
    assert [g.points for g in rec.games if any(a.kind == "resign" for a in g.actions)] == [2, 1]
    assert_round_trip(rec)


def test_gnubg_roll_then_resign() -> None:
    rec = read_mat((DATA / "gnubg_roll_then_resign_1p.mat").read_bytes())
    g = rec.games[0]
    assert [(a.player, a.kind) for a in g.actions[-4:]] == [
        (1, "roll"),
        (1, "resign"),
        (0, "accept"),
        (0, "win"),
    ]
    assert_round_trip(rec)


# ---- hand-written snippets -----------------------------------------------------------

GAME = (
    row(1, "", "62: 24/18 13/11"),
    row(2, "61: 13/7 8/7", "52: 25/23 13/8"),
    row(3, "33: 13/10(2) 6/3(2)", " Doubles => 2"),
    row(4, " Takes"),
)


def test_tolerant_notation_and_cube() -> None:
    rec = read_mat(snippet(*GAME))
    g = rec.games[0]
    assert rec.cut_games == 0 and g.winner is None
    plays = [a.notation for a in g.actions if a.kind == "play"]
    assert plays == ["24/18 13/11", "13/7* 8/7", "bar/23 13/8", "13/10(2) 6/3(2)"]
    assert g.actions[0].dice == (6, 2) and g.actions[0].player == 1
    decisions = list(rec.replay())
    assert decisions[0].position == Position.start()
    take = decisions[-1]
    assert take.action.kind == "take"
    mid = take.match_id
    assert (mid.double_offered, mid.dice_owner, mid.turn, mid.cube_value, mid.score) == (
        True,
        1,
        0,
        1,
        (0, 0),
    )
    assert_round_trip(rec)


def test_encodings_and_line_ends() -> None:
    text = '; [Player 1 "Jürgen"]\n' + snippet(*GAME, names=("Jürgen", "Bob"))
    plain = read_mat(text)
    assert plain.players[0] == "Jürgen" and plain.tags["Player 1"] == "Jürgen"
    for data in (
        b"\xef\xbb\xbf" + text.encode(),
        text.encode("latin-1"),
        text.replace("\n", "\r\n").encode(),
        "\ufeff" + text,
    ):
        again = read_mat(data)
        assert again.players == plain.players and again.games == plain.games


def test_unknown_play_then_resignation() -> None:
    rec = read_mat(snippet(row(1, "", "62: 24/18 13/11"), row(2, "64: ????"), " " * 34 + "Wins 2 points"))
    g = rec.games[0]
    assert rec.cut_games == 0 and (g.winner, g.points) == (1, 2)
    assert [(a.kind, a.value) for a in g.actions[-3:]] == [("resign", 2), ("accept", 0), ("win", 2)]
    assert_round_trip(rec)


def test_concedes_before_rolling() -> None:
    rec = read_mat(snippet(row(1, "", "62: 24/18 13/11"), row(2, " Concedes", " Wins 1 point")))
    g = rec.games[0]
    assert [a.kind for a in g.actions[-3:]] == ["resign", "accept", "win"] and g.winner == 1
    assert_round_trip(rec)


def test_illegal_play_cuts_the_game() -> None:
    text = snippet(row(1, "", "62: 24/18 13/11"), row(2, "64: 24/13", "11: 6/5(4)"), "      Wins 1 point")
    text += "\n Game 2\n Ann : 1                         Bob : 0\n" + row(1, "31: 8/5 6/5") + "\n"
    rec = read_mat(text)
    assert rec.cut_games == 1
    g = rec.games[0]
    assert g.cut_at is not None and g.cut_at.startswith("line 6:")
    assert [a.kind for a in g.actions] == ["roll", "play", "win"]
    assert (g.winner, g.points) == (0, 1)
    assert rec.games[1].score == (1, 0) and rec.games[1].cut_at is None
    assert_round_trip(rec)


@pytest.mark.parametrize(
    ("line", "column"),
    [(row(2, "64: 24/18 blah"), 6), ("  this is not match text", 3), (row(2, "Hello"), 6)],
)
def test_malformed_line(line: str, column: int) -> None:
    with pytest.raises(MatchFileError) as info:
        read_mat(snippet(row(1, "", "62: 24/18 13/11"), line))
    assert (info.value.line, info.value.column) == (6, column)
    assert "line 6" in str(info.value)


def test_comments_are_kept() -> None:
    rec = read_mat("; a free comment\n" + snippet(*GAME))
    assert rec.comments == ["a free comment"]
    assert read_mat(write_mat(rec)).comments == ["a free comment"]


# ---- resignations and points (GameRecord.points = under the rules; credited = capped) ----


def test_loser_resigns_during_the_winners_turn() -> None:
    rec = read_mat(
        snippet(row(1, "", "62: 24/18 13/11"), row(2, "64: 24/18 13/9"), " " * 34 + "Wins 2 points")
    )
    g = rec.games[0]
    assert rec.cut_games == 0 and not g.notes
    assert [(a.player, a.kind, a.value) for a in g.actions[-3:]] == [
        (0, "resign", 2),  # player 0 resigns a gammon while player 1 is on roll
        (1, "accept", 0),
        (1, "win", 2),
    ]
    decisions = list(rec.replay())
    accept = decisions[-1]
    assert (accept.match_id.turn, accept.match_id.dice_owner, int(accept.match_id.resignation)) == (1, 1, 2)
    assert_round_trip(rec)


@pytest.mark.parametrize(
    ("name", "game", "written", "points", "credited", "level"),
    [
        # gnubg writes a backgammon resignation where a single wins the match; pulvezar refuses the level
        ("charlot1-charlot2_7p_2025-11-08-2305.mat", 4, 3, 1, 1, 1),
        ("match1495872.txt", 1, 1, 2, 1, None),  # a gammon in a 1-point match, credited 1
        ("match7262743.txt", 12, 3, 4, 3, 2),  # a gammon resignation on a 2-cube, 3 needed
    ],
)
def test_points_written_vs_points_under_the_rules(
    name: str, game: int, written: int, points: int, credited: int, level: int | None
) -> None:
    rec = read_mat((DATA / name).read_bytes())
    g = rec.games[game - 1]
    assert rec.cut_games == 0 and g.cut_at is None
    assert (g.points, g.credited(rec.length), g.actions[-1].value) == (points, credited, written)
    assert [a.value for a in g.actions if a.kind == "resign"] == ([level] if level else [])
    assert bool(g.notes) == (name.startswith("charlot"))  # only the refused level is noted
    assert not rec.games[0].crawford or rec.length > 1
    assert_round_trip(rec)


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared match corpus is not beside the repository")
def test_historic_resignations_replay_to_the_end() -> None:
    hist = SHARED / "bgchallenge-historic"
    thomsen = read_mat((hist / "Thomsen_Magriel_Kopenhagen1994_SJF_1469808250.txt").read_bytes())
    seigel = read_mat((hist / "Seigel_Dwek_Florida_1981_Main_1347406675.txt").read_bytes())
    for rec, numbers in ((thomsen, (2, 4, 6, 7, 8)), (seigel, (16, 22, 26))):
        for n in numbers:
            g = rec.games[n - 1]
            resign = next(a for a in g.actions if a.kind == "resign")
            assert resign.player != g.winner and not g.notes, n
    g26 = seigel.games[25]  # single on a 2-cube at 16-15 of 17: 2 points, 1 credited ("Wins 1 point")
    assert (g26.points, g26.credited(17), g26.actions[-1].value) == (2, 1, 1)


def test_win_after_the_losers_drop_shares_the_row() -> None:
    rec = read_mat(
        snippet(*GAME[:2], row(3, "33: 13/10(2) 6/3(2)"), row(4, "", " Doubles => 2"), row(5, " Drops"))
    )
    assert (rec.games[0].winner, rec.games[0].points) == (1, 1)
    text = write_mat(rec)
    assert re.search(
        r"\d\)\s+Drops\s+Wins 1 point", text
    )  # gnubg's layout; gnubg skips the next game otherwise
    assert_round_trip(rec)


def test_money_session_beaver_raccoon_jacoby() -> None:
    """XG's money tags and gnubg's ``Beavers =>`` / ``Raccoons =>`` cells."""
    text = """; [Jacoby "On"]
; [Beaver "On"]

 0 point match

 Game 1
 Ann : 0                        Bob : 0
  1)                             31: 8/5 6/5
  2)  Doubles => 2                Beavers => 4
  3)  Raccoons => 8               Takes
  4) 64: 24/18 13/9
"""
    rec = read_mat(text)
    assert rec.options == SessionOptions(jacoby=True, beaver=True, raccoon=True)
    g = rec.games[0]
    assert g.cut_at is None and not g.notes
    assert [(a.player, a.kind, a.value) for a in g.actions][2:6] == [
        (0, "double", 2),
        (1, "beaver", 4),
        (0, "raccoon", 8),
        (1, "take", 0),
    ]
    assert all(d.match_id.jacoby for d in rec.replay())
    again = read_mat(write_mat(rec))
    assert again.games == rec.games and again.options == rec.options
    # without the tags a beaver in the file still tells that beavers were played
    bare = read_mat(text.split("\n", 3)[3])
    assert bare.options == SessionOptions(beaver=True, raccoon=True) and bare.games[0].cut_at is None
    # a match has no beavers
    cut = read_mat(text.replace("0 point", "5 point")).games[0]
    assert cut.cut_at is not None and "beaver" in cut.cut_at
