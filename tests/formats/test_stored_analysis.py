"""gnubg's stored analyses read back: per-decision numbers, PR, and gnubg's own figures for them.

Fixtures (provenance in ``data/SOURCES.md``): ``test.sgf``, gnubg 1.08.003's
analysed SGF of a 7-point match (HSBT Paris 2023), and ``gnubg-text/``, gnubg
1.07's 4-ply analysed text export of a 5-point match (one file per game).

The oracles: the statistics gnubg wrote into the files (``GS`` of each SGF
game; the text export's ``Match statistics``), and the gnubg CLI itself --
loading the SGF and printing ``show statistics match`` (what gnubg computes
from the stored analysis, including which cube decisions it counts), and
re-evaluating stored cube decisions with ``hint``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from pulvezar.analysis.rating import performance_rating
from pulvezar.formats import MatchRecord, read_gnubg_text, read_sgf
from pulvezar.formats.stored_analysis import (
    StoredAnalysisError,
    StoredDecision,
    stored_analysis,
    stored_pr,
    stored_statistics,
)
from pulvezar.met.equity import MatchEquity

DATA = Path(__file__).parent / "data"
TEXTS = [
    DATA / "gnubg-text" / n for n in ("match10030560.txt", *(f"match10030560_00{i}.txt" for i in range(2, 6)))
]
GNUBG = "/usr/games/gnubg"
needs_gnubg = pytest.mark.skipif(shutil.which(GNUBG) is None, reason="GNU Backgammon is not installed")


@pytest.fixture(scope="module")
def sgf() -> MatchRecord:
    return read_sgf((DATA / "test.sgf").read_bytes())


@pytest.fixture(scope="module")
def sgf_decisions(sgf: MatchRecord) -> list[StoredDecision]:
    return stored_analysis(sgf)


@pytest.fixture(scope="module")
def text() -> MatchRecord:
    return read_gnubg_text([p.read_bytes() for p in TEXTS])


def _totals(ds: list[StoredDecision], player: int) -> tuple[int, int, float, float]:
    """(counted checker plays, counted cube decisions, checker error, cube error) of ``player``."""
    mine = [d for d in ds if d.player == player and d.counts]
    chk = [d for d in mine if d.kind == "checker"]
    cube = [d for d in mine if d.kind != "checker"]
    return len(chk), len(cube), sum(d.error for d in chk), sum(d.error for d in cube)


def _gnubg(commands: str, tmp: Path) -> str:
    script = tmp / "commands.txt"
    script.write_text(commands, encoding="utf-8")
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-c", str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    return done.stdout


# ---- the file's own statistics ---------------------------------------------------------------


def test_sgf_matches_the_statistics_gnubg_wrote(
    sgf: MatchRecord, sgf_decisions: list[StoredDecision]
) -> None:
    stats = stored_statistics(sgf)
    assert stats is not None
    for p in (0, 1):
        n_chk, _, chk, cube = _totals(sgf_decisions, p)
        # unforced moves: pulvezar's legal plays, not the file, decide forcedness -- and agree with gnubg
        assert n_chk == stats[p].unforced
        # GS writes six decimals per game (7 games): the per-move sums agree to that
        assert chk == pytest.approx(stats[p].checker_error, abs=1e-4)
        assert cube == pytest.approx(stats[p].cube_error, abs=1e-4)
        assert stats[p].close_cube is None and stats[p].pr is None  # GS leaves the count out
        luck = [d.luck for d in sgf_decisions if d.player == p and d.kind == "checker"]
        assert None not in luck and stats[p].luck is not None
        assert sum(x or 0.0 for x in luck) == pytest.approx(stats[p].luck, abs=1e-4)


def test_text_export_matches_its_match_statistics(text: MatchRecord) -> None:
    ds = stored_analysis(text)
    stats = stored_statistics(text)
    assert stats is not None
    prs = stored_pr(text)
    for p in (0, 1):
        n_chk, n_cube, chk, cube = _totals(ds, p)
        assert (n_chk, n_cube) == (stats[p].unforced, stats[p].close_cube)
        # the export rounds every figure to 3 decimals
        assert chk == pytest.approx(stats[p].checker_error, abs=0.0006 * n_chk + 0.001)
        assert cube == pytest.approx(stats[p].cube_error, abs=0.0006 * max(n_cube, 1) + 0.001)
        pr, theirs = prs[p], stats[p].pr
        assert pr is not None and theirs is not None
        assert abs(pr - theirs) < 0.05


def test_text_export_decisions(text: MatchRecord) -> None:
    ds = stored_analysis(text)
    takes = [d for d in ds if d.kind == "take"]
    # game 2: "Alert: wrong take (-0.166)"; game 4: "Alert: wrong pass (-0.352)"
    assert [(d.game, d.action, round(d.error, 3)) for d in takes if d.error > 0] == [
        (1, "take", 0.166),
        (3, "pass", 0.352),
    ]
    for d in takes:  # the answer is written from the taker's side and turned round: D/P = +1
        assert d.dp == 1.0 and d.best_cube_action in ("take", "pass")
    plays = [d for d in ds if d.kind == "checker" and d.candidates]
    assert all(d.played is not None and d.candidates[d.played].notation == d.action for d in plays)
    assert 4 in {d.ply for d in plays} and {d.ply for d in plays} <= {0, 2, 4}  # 0-ply: bear-off databases
    # gnubg leaves out a stop without a hit: "8/2" with 51 is 8/7/2, not 8/3*/2
    assert any(c.notation == "8/7/2" for d in plays for c in d.candidates)


# ---- gnubg itself ----------------------------------------------------------------------------


@needs_gnubg
def test_stored_pr_is_gnubgs_error_rate(
    sgf: MatchRecord, sgf_decisions: list[StoredDecision], tmp_path: Path
) -> None:
    """gnubg loads the SGF and prints its statistics: the same decisions counted, PR = error rate / 2."""
    out = _gnubg(f"load match {DATA / 'test.sgf'}\nshow statistics match\n", tmp_path)
    overall = out.split("Overall statistics")[1]
    rate = re.search(r"Error rate mEMG \(MWC\)\s+(-?\d+\.\d)\s+\([^)]*\)\s+(-?\d+\.\d)", overall)
    unforced = re.search(r"Unforced moves\s+(\d+)\s+(\d+)", out)
    close = re.search(r"Close or actual cube decisions\s+(\d+)\s+(\d+)", out)
    assert rate and unforced and close
    prs = {p: performance_rating([d.to_error() for d in sgf_decisions], p) for p in (0, 1)}
    assert prs == stored_pr(sgf)
    for p in (0, 1):
        n_chk, n_cube, _, _ = _totals(sgf_decisions, p)
        assert (n_chk, n_cube) == (int(unforced.group(p + 1)), int(close.group(p + 1)))
        pr = prs[p]
        assert pr is not None
        assert abs(2 * pr + float(rate.group(p + 1))) <= 0.051  # gnubg prints one decimal


@needs_gnubg
def test_cube_equities_are_gnubgs_on_re_evaluation(
    sgf: MatchRecord, sgf_decisions: list[StoredDecision], tmp_path: Path
) -> None:
    """Stored DA match-winning chances, converted to EMG here, against gnubg's own 2-ply ``hint``."""
    ds = {(d.game, d.index): d for d in sgf_decisions if d.kind == "double" and d.action == "no double"}
    picked = []
    for dec in sgf.replay():
        s = ds.get((dec.game, dec.index - 1))
        if dec.action.kind == "play" and s is not None and s.counts and dec.match_id.score != (0, 0):
            picked.append((dec, s))
    assert len(picked) >= 3
    picked = picked[:3]
    commands = "".join(
        f"set matchid {replace(dec.match_id, dice=(0, 0)).encode()}\n"
        f"set board {dec.position.position_id}\nhint\n"
        for dec, _ in picked
    )
    out = _gnubg(commands, tmp_path)
    nds = [float(x) for x in re.findall(r"No double\s+([+-]\d\.\d+)", out)]
    dts = [float(x) for x in re.findall(r"Double, take\s+([+-]\d\.\d+)", out)]
    assert len(nds) == len(dts) == 3
    for (_, s), nd, dt in zip(picked, nds, dts, strict=True):
        assert s.nd is not None and s.dt is not None
        # gnubg 1.07 here, 1.08 wrote the file: a few thousandths apart at most
        assert abs(s.nd - nd) < 0.005 and abs(s.dt - dt) < 0.005


# ---- a wrong reading fails -------------------------------------------------------------------


def test_a_wrong_reading_misses_gnubgs_figures(sgf: MatchRecord, sgf_decisions: list[StoredDecision]) -> None:
    stats = stored_statistics(sgf)
    assert stats is not None
    # counting forced plays too: more checker plays than gnubg's unforced moves
    assert sum(d.kind == "checker" and d.player == 0 for d in sgf_decisions) > stats[0].unforced
    # another match equity table for the DA conversion: the cube errors no longer add up to gnubg's
    flat = MatchEquity(
        "wrong",
        [[b / (a + b) for b in range(1, 26)] for a in range(1, 26)],
        [1.0 / (n + 2) for n in range(25)],
    )
    wrong = stored_analysis(sgf, met=flat)
    assert any(abs(_totals(wrong, p)[3] - stats[p].cube_error) > 0.02 for p in (0, 1))
    # the PR of a wrong reading is off gnubg's own: the right one is within its rounding
    right = stored_pr(sgf)
    off = {p: performance_rating([d.to_error() for d in wrong], p) for p in (0, 1)}
    assert any(abs((off[p] or 0) - (right[p] or 0)) > 0.1 for p in (0, 1))


# ---- bad input -------------------------------------------------------------------------------

_HEAD = "(;FF[4]GM[6]AP[GNU Backgammon:1.08.003]MI[length:3][game:0][ws:0][bs:0]PW[Ann]PB[Bob]RU[Crawford]"
_CAND = "E ver 3 0.55 0.17 0.009 0.12 0.005 {eq} 2C 0 1 0.0 1"


def _one(a: str) -> MatchRecord:
    return read_sgf(f"{_HEAD};W[31hefe]A{a})")


def test_a_small_file_reads() -> None:
    rec = _one(f"[1][xwhe {_CAND.format(eq=0.21)}][hefe {_CAND.format(eq=0.11)}]")
    (d,) = stored_analysis(rec)
    assert (d.action, d.played, d.forced, d.counts) == ("8/5 6/5", 1, False, True)
    assert d.error == pytest.approx(0.10)
    assert [c.notation for c in d.candidates] == ["24/23 8/5", "8/5 6/5"]
    assert stored_pr(rec) == {0: pytest.approx(50.0), 1: None}


@pytest.mark.parametrize(
    ("a", "why"),
    [
        (f"[0][xaxa {_CAND.format(eq=0.1)}]", "not a legal play"),
        (f"[3][hefe {_CAND.format(eq=0.1)}]", "past the 1 candidates"),
        (f"[0][xwhe {_CAND.format(eq=0.1)}]", "the play was '8/5 6/5'"),
        ("[0][hefe E ver 3 0.5 x 0.1 0.1 0.1 0.2 2C 0 1 0.0 1]", "expected numbers"),
        ("[0][hefe R Score 0.1 0.1 Trials 36]", "rollout"),
        ("[x]", "must start with the played move's index"),
    ],
)
def test_bad_analysis_is_a_clear_error(a: str, why: str) -> None:
    with pytest.raises(StoredAnalysisError, match=why) as e:
        stored_analysis(_one(a))
    assert e.value.field == "props" and (e.value.game, e.value.index) == (0, 1)


_OUT = "0.5 0.1 0.0 0.1 0.0 0.0 {nd} 0.5 0.1 0.0 0.1 0.0 0.0 {dt}"


@pytest.mark.parametrize(
    "head",
    ["E ver 3 2C 1 0.000000 1", "E ver 2 2C 0 1 0.000000 1", "E 0.1 0.2 0.3 0.4 2C 0 1 0.000000"],
)
def test_cube_analysis_of_each_sgf_version(head: str) -> None:
    rec = read_sgf(f"{_HEAD};W[31hefe]DA[{head} {_OUT.format(nd=0.5, dt=0.45)}])")
    (d,) = stored_analysis(rec)
    met = MatchEquity.kazaross_xg2()
    # 3-away each side, cube 1: winning the game leaves 2-away/3-away, losing 3-away/2-away
    win, lose = met.mwc(2, 3), met.mwc(3, 2)
    assert (d.kind, d.action, d.ply, d.dp) == ("double", "no double", 2, 1.0)
    assert d.nd == pytest.approx(2 * (0.5 - lose) / (win - lose) - 1, abs=1e-9)
    assert d.dt == pytest.approx(2 * (0.45 - lose) / (win - lose) - 1, abs=1e-9)
    assert d.best_cube_action == "no double" and d.error == 0.0


def test_luck_gnubg_did_not_judge_is_none() -> None:
    """gnubg writes ``LU[-inf]`` where luck analysis was off (this self-play file: every roll)."""
    rec = read_sgf((DATA / "charlot1-charlot2_7p_2025-11-08-2305.sgf").read_bytes())
    decisions = stored_analysis(rec)
    checker = [d for d in decisions if d.kind == "checker"]
    assert checker and all(d.luck is None for d in checker)
    assert stored_pr(rec) == {0: 0.0, 1: 0.0}  # gnubg played both sides: its own choices, no errors
