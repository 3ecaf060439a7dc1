"""The readable text export of a match."""

from __future__ import annotations

from pathlib import Path

from pulvezar.formats import read_mat
from pulvezar.formats.text import write_text

DATA = Path(__file__).parent / "data"


def test_header_games_moves_cube_and_results() -> None:
    rec = read_mat((DATA / "7point.mat").read_bytes())
    text = write_text(rec)
    lines = text.splitlines()
    assert lines[0] == "JoeBlack vs SnowWhite, 7-point match"
    assert text.count("\nGame ") == len(rec.games) == 9
    assert "Game 1 -- JoeBlack 0, SnowWhite 0" in text
    assert "  1. SnowWhite  42  8/4 6/4" in lines
    assert any("doubles to 2" in line for line in lines) and any("drops" in line for line in lines)
    assert "(cannot move)" in text and "(Crawford game)" in text
    assert lines[-1] == "  JoeBlack wins 2 points and the match (1 needed)"


def test_resignation_points_and_boards() -> None:
    rec = read_mat((DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat").read_bytes())
    text = write_text(rec, boards=True)
    assert text.count("+13-14-15-16-17-18") == len(rec.games)  # a board at each game's start
    assert "charlot2  resigns a single game" in text
    assert "charlot1 wins 1 point and the match (the file writes 3)" in text
    galaxy = write_text(read_mat((DATA / "match1495872.txt").read_bytes()))
    assert "lasse wins 2 points and the match (1 needed; the file writes 1)" in galaxy
