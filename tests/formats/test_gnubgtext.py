"""GNU Backgammon's text export (``export game text``): the reader, its ID oracle, the CLI's choice.

The fixtures are gnubg 1.07's analysed export of Backgammon Galaxy match
10030560 (5 points, one file per game); ``match10030560.txt`` beside them is
Galaxy's own ``.mat`` of the same match.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from pulvezar.formats import GameRecord, MatchFileError, MatchRecord, read_gnubg_text, read_mat
from pulvezar.formats.files import read_match
from pulvezar.formats.gnubgtext import IdMismatchError, is_gnubg_text
from pulvezar.rules.matchid import GameState, MatchId

DATA = Path(__file__).parent / "data"
FILES = [
    DATA / "gnubg-text" / n for n in ("match10030560.txt", *(f"match10030560_00{i}.txt" for i in range(2, 6)))
]
SHARED = Path(__file__).parents[2] / ".." / "shared" / "data" / "matches"
_IDS = re.compile(r"Position ID: (\S+)\s*\n\s*Match ID\s*: (\S+)")


@pytest.fixture(scope="module")
def match() -> MatchRecord:
    return read_gnubg_text([p.read_bytes() for p in FILES])


def _file_ids(path: Path) -> list[str]:
    """The file's "PositionID:MatchID" pairs in order; the first one's game state 0 read as 1 (see module)."""
    pairs = _IDS.findall(path.read_text(encoding="utf-8"))
    out = []
    for i, (pid, mid) in enumerate(pairs):
        parsed = MatchId.parse(mid)
        if i == 0 and parsed.game_state is GameState.NONE:
            mid = replace(parsed, game_state=GameState.PLAYING).encode()
        out.append(f"{pid}:{mid}")
    return out


def test_five_games_of_one_match(match: MatchRecord) -> None:
    assert match.players == ("paese", "lasse")
    assert match.length == 5
    assert match.tags == {"Date": "04/08/2024", "Place": "BackgammonGalaxy"}
    assert len(match.comments) == 1 and "GNU Backgammon 1.07.001" in match.comments[0]
    summary = [(g.number, g.score, g.crawford, g.winner, g.points) for g in match.games]
    assert summary == [
        (1, (0, 0), False, 1, 1),
        (2, (0, 1), False, 1, 2),
        (3, (0, 3), False, 0, 2),
        (4, (2, 3), False, 1, 1),
        (5, (2, 4), True, 1, 1),
    ]
    assert match.cut_games == 0
    assert all(not g.notes for g in match.games)
    for prev, nxt in zip(match.games, match.games[1:], strict=False):
        assert prev.winner is not None
        score = list(prev.score)
        score[prev.winner] += prev.points
        assert nxt.score == tuple(score)


def test_every_position_id_and_match_id_agrees(match: MatchRecord) -> None:
    ours: list[list[str]] = [[] for _ in match.games]
    for d in match.replay():
        if d.action.kind not in ("resign", "accept"):  # gnubg writes no record for a resignation
            ours[d.game].append(d.gnubg_id)
    theirs = [_file_ids(p) for p in FILES]
    assert [len(x) for x in theirs] == [17, 54, 55, 27, 86]
    assert ours == theirs  # 239 decisions


def test_analysis_is_kept(match: MatchRecord) -> None:
    decisions = [a for g in match.games for a in g.actions if a.kind in ("play", "double", "take", "drop")]
    assert len(decisions) == 239
    assert all(a.props["gnubg_analysis"] for a in decisions)
    first = match.games[0].actions[1]
    assert first.notation == "8/5 6/5"
    assert first.props["gnubg_analysis"][0].startswith("Rolled 31:\n*    1. Cubeful 2-ply    8/5 6/5")
    assert first.props["gnubg_rank"] == ["1"]
    assert first.props["gnubg_eval"] == ["Cubeful 2-ply"]
    assert first.props["gnubg_move"] == ["8/5 6/5"]
    assert first.props["gnubg_equity"] == ["+0.217"]
    assert "gnubg_equity_loss" not in first.props
    assert first.props["gnubg_probabilities"] == ["0.551", "0.170", "0.009", "0.449", "0.117", "0.005"]
    # game 2: lasse doubles, paese takes wrongly; lasse then plays gnubg's second choice
    g2 = match.games[1].actions
    double = next(a for a in g2 if a.kind == "double")
    take = next(a for a in g2 if a.kind == "take")
    assert double.props["gnubg_cube_action"] == ["Double, pass"]
    assert take.props["gnubg_analysis"][0].startswith(
        "Alert: wrong take (-0.166)!\n [very bad]\nCube analysis"
    )
    after = g2[g2.index(take) + 2]
    assert (after.kind, after.notation) == ("play", "13/7 8/5")
    assert after.props["gnubg_rank"] == ["2"]
    assert after.props["gnubg_equity_loss"] == ["-0.001"]
    assert match.games[1].props["gnubg_statistics"][0].startswith("Game statistics for game 2")


def _swapped(rec: MatchRecord) -> MatchRecord:
    """``rec`` with players 0 and 1 exchanged."""
    games = [
        GameRecord(
            number=g.number,
            score=(g.score[1], g.score[0]),
            actions=[replace(a, player=1 - a.player) for a in g.actions],
            winner=None if g.winner is None else 1 - g.winner,
            points=g.points,
            crawford=g.crawford,
        )
        for g in rec.games
    ]
    return MatchRecord(length=rec.length, players=(rec.players[1], rec.players[0]), games=games)


def test_same_match_as_the_galaxy_mat(match: MatchRecord) -> None:
    """Galaxy's .mat has the players the other way round (lasse left); otherwise the same match.

    The .mat writes Galaxy's resignations ("Losses 2 point"); gnubg's text has no
    record for them, only "lasse wins 2 points" -- both read as resign + accept.
    """
    mat = _swapped(read_mat((DATA / "match10030560.txt").read_bytes()))
    assert mat.players == match.players
    for g, h in zip(match.games, mat.games, strict=True):
        assert (g.number, g.score, g.crawford, g.winner, g.points) == (
            h.number,
            h.score,
            h.crawford,
            h.winner,
            h.points,
        )
        assert g.actions == h.actions
    ours = [(d.game, d.index, d.action, d.gnubg_id) for d in match.replay()]
    theirs = [(d.game, d.index, d.action, d.gnubg_id) for d in mat.replay()]
    assert len(ours) == 243
    assert ours == theirs
    resigns = [(d.game, d.action.player, d.action.value) for d in match.replay() if d.action.kind == "resign"]
    assert resigns == [(1, 0, 1), (4, 0, 1)]  # paese resigns a single game: 2 points on a 2-cube, then 1


# ---- small texts -------------------------------------------------------------------

HEAD = "The score (after 0 games) is: Ann 0, Bob 0 (match to 3 points)\n\n"
# Ann's opening 31, as gnubg writes it (game state 0 in the first record's Match ID)
FIRST = """Move number 1:  Ann to play 31

 GNU Backgammon  Position ID: 4HPwATDgc/ABMA
                 Match ID   : MIBlAAAAAAAE

* Ann moves 8/5 6/5

Rolled 31:
*    1. Cubeful 2-ply    8/5 6/5                      Eq.: +0.217
       0.551 0.170 0.009 - 0.449 0.117 0.005

"""


def test_a_snippet_and_its_line_numbers() -> None:
    rec = read_gnubg_text(HEAD + FIRST + "Ann wins 1 point\n")
    assert [(a.player, a.kind) for a in rec.games[0].actions] == [
        (0, "roll"),
        (0, "play"),
        (1, "resign"),
        (0, "accept"),
        (0, "win"),
    ]
    assert rec.games[0].winner == 0 and rec.games[0].points == 1


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (HEAD + FIRST.replace("* Ann moves", "* Ann flies"), 8, 3),
        (HEAD + FIRST.replace("* Ann moves", "* Cat moves"), 8, 3),
        (HEAD + FIRST.replace("Ann to play 31", "Ann to juggle"), 3, 17),
        (HEAD + "Some stray text\n" + FIRST, 3, 1),
        ("Hello\n" + HEAD + FIRST, 1, 1),
        (HEAD + FIRST.replace("* Ann moves 8/5 6/5\n", ""), 3, 1),
    ],
    ids=["verb", "name", "heading", "stray", "no-score-line", "no-action"],
)
def test_malformed_text(text: str, line: int, column: int) -> None:
    with pytest.raises(MatchFileError) as e:
        read_gnubg_text(text)
    assert (e.value.line, e.value.column) == (line, column)
    assert str(e.value).startswith(f"line {line}, column {column}: ")


def test_second_text_is_named() -> None:
    with pytest.raises(MatchFileError, match=r"^line 1, column 1: text 2: expected 'The score"):
        read_gnubg_text([HEAD + FIRST, "junk\n"])


def test_an_id_mismatch_is_an_error() -> None:
    bad = HEAD + FIRST.replace("4HPwATDgc/ABMA", "4HPwATDgc/ABMB")
    with pytest.raises(IdMismatchError) as e:
        read_gnubg_text(bad)
    assert e.value.line == 6
    assert e.value.expected == "4HPwATDgc/ABMB:MIBlAAAAAAAE"
    assert e.value.found == "4HPwATDgc/ABMA:MIFlAAAAAAAE"
    rec = read_gnubg_text(bad, strict=False)
    assert rec.cut_games == 1 and rec.games[0].cut_at is not None
    assert rec.games[0].cut_at.startswith("line 6: the Position ID before this decision is 4HPwATDgc/ABMB")
    # the wrong player on roll: the Match ID's turn differs
    with pytest.raises(IdMismatchError, match="Match ID"):
        read_gnubg_text(HEAD + FIRST.replace("MIBlAAAAAAAE", "cIBlAAAAAAAE"))


def test_an_illegal_play_cuts_the_game() -> None:
    rec = read_gnubg_text(HEAD + FIRST.replace("* Ann moves 8/5 6/5", "* Ann moves 8/2"))
    assert rec.cut_games == 1
    assert rec.games[0].cut_at is not None and rec.games[0].cut_at.startswith("line 3: ")
    assert [a.kind for a in rec.games[0].actions] == ["roll"]


# ---- the CLI's choice of reader ------------------------------------------------------


def test_cli_reads_txt_by_content(tmp_path: Path) -> None:
    gnubg = tmp_path / "game.txt"
    gnubg.write_bytes(FILES[1].read_bytes())
    assert is_gnubg_text(gnubg.read_bytes())
    rec = read_match(gnubg)
    assert rec.players == ("paese", "lasse") and rec.games[0].number == 2
    mat = tmp_path / "match.txt"
    mat.write_bytes((DATA / "match10030560.txt").read_bytes())
    assert not is_gnubg_text(mat.read_bytes())
    assert read_match(mat).games == read_mat(mat.read_bytes()).games


# ---- the shared corpus -------------------------------------------------------------


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared match corpus is not beside the repository")
def test_shared_corpus() -> None:
    """The fixtures are the corpus's files; gnubg-scripts' .txt files are .mat text, not this format."""
    for p in FILES:
        assert (SHARED / "bglab-gnubg-analysis-4ply" / p.name).read_bytes() == p.read_bytes()
    scripts = sorted((SHARED / "gnubg-scripts").glob("*.txt"))
    assert len(scripts) == 3
    for p in scripts:
        data = p.read_bytes()
        assert not is_gnubg_text(data)
        rec = read_mat(data)
        assert rec.games and rec.cut_games == 0


GNUBG_CLI = "/usr/games/gnubg"


@pytest.mark.oracle
@pytest.mark.skipif(not Path(GNUBG_CLI).exists(), reason="Debian gnubg CLI not installed")
def test_gnubg_text_export_of_an_imported_mat_reads_strictly(tmp_path: Path) -> None:
    """gnubg imports a .mat with smaller-die-first rolls ("13") and exports it as text: the headings keep
    the rolled order, its Match IDs hold the larger die first; every ID still checks."""
    import subprocess

    out = tmp_path / "7point.txt"
    commands = f"import mat {DATA / '7point.mat'}\nexport match text {out}\n"
    subprocess.run([GNUBG_CLI, "-t", "-q"], input=commands, text=True, capture_output=True, timeout=120)
    texts = [p.read_text() for p in sorted(tmp_path.glob("7point*.txt"))]
    assert len(texts) == 9 and any(re.search(r"to play (12|13|23|14|24|34)$", t, re.M) for t in texts)
    rec = read_gnubg_text(texts)  # strict: every Position ID and Match ID against the replay
    mat = read_mat((DATA / "7point.mat").read_bytes())
    assert [g.cut_at for g in rec.games] == [None] * 9
    plays = [[a.notation for a in g.actions if a.kind == "play"] for g in rec.games]
    assert plays == [[a.notation for a in g.actions if a.kind == "play"] for g in mat.games]
