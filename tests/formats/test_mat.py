"""Reading and writing ``.mat`` match text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pulvezar import Position
from pulvezar.formats import GameRecord, MatchFileError, MatchRecord, read_mat, write_mat

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
