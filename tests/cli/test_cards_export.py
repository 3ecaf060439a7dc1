"""``pulvezar cards export`` (issue 45), run as a real process: a deck of a player's errors in a match file
(analysed at 0 ply) or in its analysis JSON, the same notes from either and from a second export, cards
from a JSON file, and clear errors."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("genanki")

from pulvezar.analysis.decisions import BLUNDER, ERROR
from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
from pulvezar.cli import main
from pulvezar.cli.cards import match_cards, match_ref
from pulvezar.formats.files import write_match
from pulvezar.formats.record import Action, GameRecord, MatchRecord
from pulvezar.play.anki import note_guid


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pulvezar", *args], capture_output=True, text=True, timeout=120
    )


def run_here(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command in this process (no interpreter and net to start again): exit code, stdout, stderr."""
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def record() -> MatchRecord:
    """Ann opens 3-1 with 6/5 6/3 (a shot left: not 8/5 6/5), Bob doubles at once and Ann passes."""
    actions = [
        Action(0, "roll", (3, 1)),
        Action(0, "play", notation="6/5 6/3"),
        Action(1, "double", value=2),
        Action(0, "drop"),
        Action(1, "win", value=1),
    ]
    game = GameRecord(number=1, score=(0, 0), actions=actions)
    game.winner, game.points = 1, 1
    return MatchRecord(length=5, players=("Ann", "Bob"), games=[game])


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MatchAnalysis]:
    path = tmp_path_factory.mktemp("cards") / "ann-bob.mat"
    write_match(record(), path)
    return path, analyse_match(record(), AnalysisSettings.from_level("0ply"))


def deck(path: Path) -> dict[str, list[str]]:
    """The notes of an ``.apkg`` (guid: fields); every picture a media file of it."""
    z = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    media = set(json.loads(z.read("media")).values())
    db_path = path.with_suffix(".anki2")
    db_path.write_bytes(z.read("collection.anki2"))
    db = sqlite3.connect(db_path)
    out = {g: f.split("\x1f") for g, f in db.execute("SELECT guid, flds FROM notes")}
    db.close()
    assert all(any(f'src="{m}"' in fields[0] for m in media) for fields in out.values())
    return out


def test_a_players_errors_of_a_match_become_a_deck_and_again_the_same_notes(
    match: tuple[Path, MatchAnalysis], tmp_path: Path
) -> None:
    path, analysis = match
    mine = [d for d in analysis.decisions if d.player == 0 and d.counts]
    errors = [d for d in mine if d.loss >= ERROR]
    assert any(d.kind == "checker" for d in errors) and any(d.kind != "checker" for d in errors)
    ref = match_ref(analysis)

    out = tmp_path / "ann.apkg"
    r = run("cards", "export", str(out), "--match", str(path), "--player", "ann", "--level", "0ply")
    assert r.returncode == 0, r.stderr
    notes = deck(out)
    assert set(notes) == {note_guid("ann", f"{ref}:{d.game}:{d.index}:{d.kind}") for d in errors}
    assert f"{len(errors)} cards" in r.stdout
    checker = next(f for f in notes.values() if "3-1" in f[1])
    assert "8/5 6/5" in checker[2] and "6/5 6/3" in checker[3] and "shots" in checker[5]

    # the analysis as `pulvezar match analyse --json` writes it: the same notes, without the engine
    analysed = tmp_path / "analysis.json"
    r = run("match", "analyse", str(path), "--level", "0ply", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    analysed.write_text(r.stdout)
    again = tmp_path / "again.apkg"
    r = run("cards", "export", str(again), "--match", str(analysed), "--player", "Ann", "--blunders")
    assert r.returncode == 0, r.stderr
    blunders = {note_guid("ann", f"{ref}:{d.game}:{d.index}:{d.kind}") for d in mine if d.loss >= BLUNDER}
    assert set(deck(again)) == blunders and blunders <= set(notes)


def test_cards_of_a_json_file_and_a_match_in_one_deck(
    match: tuple[Path, MatchAnalysis], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, analysis = match
    cards = [{**c, "id": f"c{i}"} for i, c in enumerate(match_cards(analysis, "Ann"))]
    stored = tmp_path / "cards.json"
    stored.write_text(json.dumps({"player_id": "p42", "cards": cards}))
    out = tmp_path / "both.apkg"
    code, _, err = run_here(capsys, "cards", "export", str(out), "--cards", str(stored), "--match", str(path),
                            "--player", "Ann", "--level", "0ply", "--lang", "de")  # fmt: skip
    assert code == 0, err
    notes = deck(out)
    from_file = {note_guid("p42", c["id"]) for c in cards}
    assert from_file <= set(notes) and len(notes) == 2 * len(cards)  # the match's cards: their own ids
    assert any(f[1].startswith("Du bist am Zug") for f in notes.values())


def test_clear_errors(
    match: tuple[Path, MatchAnalysis], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = match
    out = str(tmp_path / "x.apkg")
    hidden = tmp_path / "due.json"  # a study round's cards: no answers
    hidden.write_text(json.dumps({"cards": [{"id": "c1", "decision": {"kind": "position", "answer": None}}]}))
    for args, words in (
        ((), "--cards FILE"),
        (("--match", str(path)), "--player"),
        (("--match", str(path), "--player", "zed", "--level", "0ply"), "'Ann', 'Bob'"),
        (("--cards", str(hidden)), "no answer"),
        (("--cards", str(path)), "not JSON"),
    ):
        code, _, err = run_here(capsys, "cards", "export", out, *args)
        assert code == 2 and words in err and "Traceback" not in err, (args, err)
    assert not Path(out).exists()
