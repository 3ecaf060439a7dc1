"""Reading GNU Gibbon's match dump (``.gmd``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pulvezar.formats import GameRecord, MatchFileError, MatchRecord, read_gmd, read_mat, read_sgf
from pulvezar.formats.files import read_match
from pulvezar.formats.sgf import write_sgf

DATA = Path(__file__).parent / "data"


def _moves(g: GameRecord) -> list[tuple[object, ...]]:
    return [(a.player, a.kind, a.dice, a.notation, a.value) for a in g.actions]


def _ids(rec: MatchRecord) -> list[tuple[int, int, str]]:
    return [(d.game, d.index, d.gnubg_id) for d in rec.replay()]


def test_same_match_as_mat_and_sgf() -> None:
    """Gibbon's three files of one FIBS match: same actions, same IDs before every decision."""
    g = read_gmd((DATA / "7point.gmd").read_bytes())
    m = read_mat((DATA / "7point.mat").read_bytes())
    s = read_sgf((DATA / "7point.sgf").read_bytes())
    assert (g.length, g.players, len(g.games), g.cut_games) == (7, ("JoeBlack", "SnowWhite"), 9, 0)
    for x, y in zip(g.games, m.games, strict=True):
        assert (x.score, x.winner, x.points, x.crawford) == (y.score, y.winner, y.points, y.crawford)
        assert _moves(x) == _moves(y), f"game {x.number}"
        assert not x.notes
    assert _ids(g) == _ids(m) == _ids(s)
    resign = g.games[3].actions[-3:]  # Resign:W:2 on a 2-cube, Accept:B
    assert [(a.player, a.kind, a.value) for a in resign] == [
        (1, "resign", 1),
        (0, "accept", 0),
        (0, "win", 2),
    ]
    again = read_sgf(write_sgf(g))
    assert [_moves(x) for x in again.games] == [_moves(x) for x in g.games] and _ids(again) == _ids(g)


def _gmd(*lines: str, head: str = "Length: 3\nPlayer:W: Ann\nPlayer:B: Bob\nRule: Crawford\nGame:") -> str:
    return "GMD-1 # test\n" + head + "\n" + "\n".join(lines) + "\n"


def test_line_kinds() -> None:
    rec = read_gmd(
        _gmd(
            "roll : w : 3 1  # a comment",
            "MOVE:white: 8-5 6/5",
            "Roll:B: 6 4",
            "Move:B: 1/7 bar/5",  # the file's order does not matter here
            "Resign:W:1",
            "Reject:B",
            "Roll:W: 6 6",
            "Move:W: 24/18 24/18 13/7 13/7",
            "Resign:B:1",
            "Accept:W",
            head="Length: money\nPlayer:W: A\\tnn # not a comment\nPlayer:B: Bob\nLocation: FIBS\nGame:",
        )
        .replace("bar/5", "12/16")
        .encode()
    )
    assert (
        rec.length == 0 and rec.players == ("Bob", "A\tnn # not a comment") and rec.tags == {"Site": "FIBS"}
    )
    g = rec.games[0]
    assert g.cut_at is None and (g.winner, g.points) == (1, 1)
    assert [(a.player, a.kind) for a in g.actions][4:] == [
        (1, "resign"),
        (0, "reject"),
        (1, "roll"),
        (1, "play"),
        (0, "resign"),
        (1, "accept"),
        (1, "win"),
    ]
    assert g.actions[3].notation == "24/18 13/9"  # Black's 1/7 12/16 in its own numbering


def test_opening_roll_tie_and_crawford_off() -> None:
    rec = read_gmd(_gmd("Roll:-: 2 2", "Roll:-: 1 3", "Move:B: 17/20 19/20", head="Length: 5\nGame:"))
    g = rec.games[0]
    assert g.notes and "tied" in g.notes[0]
    assert [(a.player, a.kind, a.dice) for a in g.actions] == [(0, "roll", (1, 3)), (0, "play", None)]
    assert rec.tags["Crawford"] == "Off"


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        (("Roll:W: 3 1", "Move:W: 8/5 6/5", "Roll:W: 3 1"), "out of turn"),
        (("Roll:-: 3 1", "Move:W: 8/2"), "not a legal play"),
        (("Roll:-: 3 1", "Move:W:"), "legal plays"),
        (("Roll:-: 3 1", "Move:W: 8/5 6/5", "Take:B"), "without a double"),
        (("Roll:-: 3 1", "Move:W: 8/5 6/5", "Accept:B"), "without a resignation"),
        (("Roll:-: 3 1",), "who won"),
        (("Roll:-: 3 1", "Move:W: 8/5 6/5", "Double:B", "Drop:W", "Roll:B: 3 1"), "after the end"),
    ],
)
def test_cut_games(lines: tuple[str, ...], why: str) -> None:
    g = read_gmd(_gmd(*lines)).games[0]
    assert g.cut_at is not None and why in g.cut_at, g.cut_at


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("GMD-2\n", 1, 5),
        ("Length: 3\n", 1, 1),
        (_gmd("Win:W: 1"), 7, 1),
        (_gmd("  Roll:Q: 3 1"), 7, 8),
        (_gmd("Roll:W: 3 7"), 7, 9),
        (_gmd("Move:W: 25/20"), 7, 9),
        (_gmd("Resign:W:0"), 7, 11),
        (_gmd(head="Rule: Jacoby"), 2, 7),
        (_gmd(head="Roll:W: 3 1"), 2, 1),
        (_gmd("Double:W extra"), 7, 10),
    ],
)
def test_errors(text: str, line: int, column: int) -> None:
    with pytest.raises(MatchFileError) as e:
        read_gmd(text)
    assert (e.value.line, e.value.column) == (line, column), str(e.value)


def test_cli_reads_gmd() -> None:
    assert read_match(DATA / "7point.gmd").players == ("JoeBlack", "SnowWhite")
