"""``pulvezar match show`` and ``pulvezar match convert`` (through ``pulvezar.cli.match``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from pulvezar.cli import match as cli
from pulvezar.formats import read_mat

DATA = Path(__file__).parent / "data"


def run(*argv: str | Path) -> int:
    parser = argparse.ArgumentParser(prog="pulvezar")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return int(args.func(args))


def test_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("match", "show", DATA / "test.mat", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == ["Kévin Unger", "Maxence Job"]
    assert (data["length"], len(data["games"]), data["cut_games"]) == (7, 7, 0)
    first = data["games"][0]["decisions"][0]
    assert set(first) >= {"kind", "player", "dice", "play", "position_id", "match_id"}
    assert first["position_id"] == "4HPwATDgc/ABMA"
    rec = read_mat((DATA / "test.mat").read_bytes())
    assert sum(len(g["decisions"]) for g in data["games"]) == len(list(rec.replay()))
    kinds = {d["kind"] for g in data["games"] for d in g["decisions"]}
    assert {"play", "double", "take", "resign", "accept"} <= kinds


def test_show_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("match", "show", DATA / "7point.mat") == 0
    assert capsys.readouterr().out.startswith("JoeBlack vs SnowWhite, 7-point match\n")


def test_convert_mat_and_txt(tmp_path: Path) -> None:
    out = tmp_path / "copy.mat"
    assert run("match", "convert", DATA / "match10030560.txt", out) == 0
    assert read_mat(out.read_bytes()).games == read_mat((DATA / "match10030560.txt").read_bytes()).games
    assert run("match", "convert", out, tmp_path / "readable.txt") == 0
    assert "Game 5 --" in (tmp_path / "readable.txt").read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("show", "{tmp}/bad.mat"), "line 1"),
        (("show", "{tmp}/missing.mat"), "missing.mat"),
        (("show", "{tmp}/x.doc"), "cannot read .doc"),
        (("convert", "{tmp}/bad.mat", "{tmp}/out.xg"), "cannot write .xg"),
    ],
)
def test_bad_input_is_one_error_line_and_status_2(
    argv: tuple[str, ...], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.mat").write_text("this is not a match\n")
    (tmp_path / "x.doc").write_text("")
    assert run("match", *(a.format(tmp=tmp_path) for a in argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("pulvezar: error:") and message in err and "Traceback" not in err


def test_missing_format_module_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pulvezar.formats.xg", None)  # as if xg.py were absent
    (tmp_path / "m.xg").write_bytes(b"RG")
    assert run("match", "show", tmp_path / "m.xg") == 2
    assert "not supported in this build" in capsys.readouterr().err
