"""``pulvezar match analyse`` (through ``pulvezar.cli.match``), at 0 plies on a short match."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from pulvezar.analysis import rating
from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
from pulvezar.cli import match as cli
from pulvezar.formats import read_mat
from pulvezar.formats.sgf import read_sgf

DATA = Path(__file__).parent / "data"
SHORT = DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def run(*argv: str | Path) -> int:
    parser = argparse.ArgumentParser(prog="pulvezar")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return int(args.func(args))


def test_analyse_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "annotated.sgf"
    assert run("match", "analyse", SHORT, "--level", "0ply", "--json", "--sgf", out) == 0
    data = json.loads(capsys.readouterr().out)
    rec = read_mat(SHORT.read_bytes())
    assert [p["name"] for p in data["players"]] == list(rec.players)
    for p in data["players"]:
        assert {
            "pr",
            "error_rate",
            "decisions",
            "errors",
            "blunders",
            "checker",
            "cube",
            "luck",
            "grade",
        } <= set(p)
        assert p["grade"] == rating.grade(p["pr"])
    assert data["settings"]["level"] == "0ply" and len(data["games"]) == len(rec.games)
    # the JSON is the library's analysis
    assert MatchAnalysis.from_json(data) == analyse_match(rec, AnalysisSettings.from_level("0ply"))
    assert read_sgf(out.read_text(encoding="utf-8")).games[0].actions == rec.games[0].actions


def test_analyse_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("match", "analyse", SHORT, "--level", "0ply") == 0
    text = capsys.readouterr().out
    rec = read_mat(SHORT.read_bytes())
    lines = text.splitlines()
    assert lines[0].startswith("analysis: 0ply")
    assert rec.players[0] in lines[1] and rec.players[1] in lines[1]
    pr_line = next(line for line in lines if line.startswith("PR "))
    ma = analyse_match(rec, AnalysisSettings.from_level("0ply"))
    assert pr_line.split()[1:] == [f"{ma.stats(p)['pr']:.1f}" for p in (0, 1)]


def test_analyse_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.mat"
    assert run("match", "analyse", missing, "--level", "0ply") == 2
    assert "missing.mat" in capsys.readouterr().err
    bad = tmp_path / "bad.xyz"
    bad.write_text("nothing", encoding="utf-8")
    assert run("match", "analyse", bad) == 2
    assert "cannot read .xyz" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        run("match", "analyse", SHORT, "--level", "9ply")
    assert e.value.code == 2
