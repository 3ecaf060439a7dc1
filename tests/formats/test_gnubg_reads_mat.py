"""GNU Backgammon imports pulvezar's ``.mat`` export and reaches the same positions.

One gnubg process per match runs a command file: ``import mat``, then for each
game ``first game`` / ``next game`` and ``next`` + ``show board`` once per
record.  Each board shows the state after one record (a play, a double, a
take...), dice cleared, as "Position ID" and "Match ID".  The same states from
``record.replay`` -- every point where a player must roll, double or answer a
double -- must appear in gnubg's boards of that game, in order; this also checks
:func:`pulvezar.formats.record.match_id_of` (players, turn, dice owner, cube
owner, Crawford).  gnubg shows no state for a pending resignation and, after a
game ends, a few extra boards; those are not compared.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from base64 import b64decode
from pathlib import Path

import pytest

from pulvezar.formats import MatchRecord, read_mat, write_mat
from pulvezar.formats.record import apply_action, match_id_of
from pulvezar.match.game import Phase

GNUBG = "/usr/games/gnubg"
DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).parents[2] / ".." / "shared" / "data" / "matches" / "bgchallenge-historic"
_BOARD = re.compile(r"Position ID: (\S+)\s*\n\s*Match ID\s*: (\S+)")

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(shutil.which(GNUBG) is None, reason="GNU Backgammon is not installed"),
]


def _state_and_score(match_id: str) -> tuple[int, tuple[int, int]]:
    """Game state and score of a Match ID, read from the raw key (gnubg writes scores above the length)."""
    key = int.from_bytes(b64decode(match_id), "little")
    return (key >> 8) & 7, ((key >> 36) & 0x7FFF, (key >> 51) & 0x7FFF)


def expected_states(rec: MatchRecord) -> list[list[str]]:
    """Per game, "PositionID:MatchID" wherever a player must roll/double or answer a double."""
    games = []
    for g in rec.games:
        game, seq = rec.new_game(g), []
        for i, a in enumerate(g.actions):
            if a.kind == "win":
                continue
            apply_action(game, a)
            nxt = g.actions[i + 1].kind if i + 1 < len(g.actions) else None
            shown = game.phase in (Phase.ROLL, Phase.DOUBLED) or (game.phase is Phase.MOVE and nxt != "play")
            if shown:
                seq.append(f"{game.position.position_id}:{match_id_of(game).encode()}")
        games.append(seq)
    return games


def gnubg_states(rec: MatchRecord, tmp: Path) -> list[list[str]]:
    """Per game, gnubg's boards while stepping through the imported export (playing states only)."""
    mat = tmp / "match.mat"
    mat.write_text(write_mat(rec), encoding="utf-8")
    cmds = [f"import mat {mat}"]
    for i, g in enumerate(rec.games):
        cmds.append("first game" if i == 0 else "next game")
        cmds += ["next", "show board"] * (len(g.actions) + 1)
    script = tmp / "commands.txt"
    script.write_text("\n".join(cmds) + "\n")
    out = subprocess.run(
        [GNUBG, "-t", "-q", "-r", "-c", str(script)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    boards = _BOARD.findall(out)[1:]  # the first board is the import's, at the end of the match
    per_game = []
    for g in rec.games:
        per_game.append([f"{p}:{m}" for p, m in boards if _state_and_score(m) == (1, g.score)])
    return per_game


def in_order(wanted: list[str], seen: list[str]) -> int:
    """How many of ``wanted`` are found in ``seen`` as a subsequence, greedily."""
    it = iter(seen)
    return sum(any(w == s for s in it) for w in wanted)


CASES = [
    DATA / "7point.mat",
    DATA / "test.mat",
    DATA / "match10030560.txt",
    DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat",
    DATA / "gnubg_roll_then_resign_1p.mat",
    SHARED / "Thomsen_Magriel_Kopenhagen1994_SJF_1469808250.txt",  # resignations in the winner's turn
]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name[:24])
def test_gnubg_replays_our_export(path: Path, tmp_path: Path) -> None:
    if not path.exists():
        pytest.skip("the shared match corpus is not beside the repository")
    rec = read_mat(path.read_bytes())
    assert rec.cut_games == 0
    ours, theirs = expected_states(rec), gnubg_states(rec, tmp_path)
    found = [in_order(e, g) for e, g in zip(ours, theirs, strict=True)]
    print(f"{path.name}: {sum(found)}/{sum(map(len, ours))} states agree with gnubg")
    assert found == [len(e) for e in ours]
