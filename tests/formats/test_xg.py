"""Reading eXtreme Gammon binary match files (``.xg``)."""

from __future__ import annotations

import contextlib
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulvezar.formats import MatchFileError, MatchRecord
from pulvezar.formats.mat import read_mat
from pulvezar.formats.xg import read_xg

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "matches"
CHARLOT = "charlot1-charlot2_7p_2025-11-08-2305"

# (games, cut games) per file of the shared corpus
EXPECTED = {
    "test.xg": (7, 0),
    f"{CHARLOT}.xg": (4, 0),
    "match_with_comment.xg": (8, 0),
    "Lux Heuler-Franzosen 7 point match 12.08.2024.xg": (7, 0),
    # game 7, record 582: XG recorded 14/11 8/5 for a 4-3 (two 3s): a transcription
    # error XG accepted; the game is cut there.
    "Squire-Jørgensen-Harmand-Unger 7 point match 18-08-2024.xg": (8, 1),
    "ronde1-UngerHarmand-FriebeJacobi-7pt.xg": (4, 0),
    "ronde3-UngerHarmand-HuyckLarsen.xg": (4, 0),
    "1-Intermediate-Round1-Unger-Kozoman-11pt.xg": (5, 0),
    "2-Intermediate-Round2-Unger-Lahme-7pt.xg": (8, 0),
}


def _corpus() -> list[Path]:
    return sorted(SHARED.rglob("*.xg")) if SHARED.is_dir() else []


def _final_score(rec: MatchRecord) -> tuple[int, int]:
    last = rec.games[-1]
    assert last.winner is not None
    score = list(last.score)
    score[last.winner] += last.points  # XG's final score is not capped at the length
    return (score[0], score[1])


@pytest.mark.skipif(not _corpus(), reason="the shared match corpus is not beside the repository")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:40])
def test_corpus_file(path: Path) -> None:
    rec = read_xg(path.read_bytes())
    print(f"{path.name}: {len(rec.games)} games, {rec.cut_games} cut")
    assert (len(rec.games), rec.cut_games) == EXPECTED[path.name]
    assert rec.length > 0 and all(rec.players)
    for prev, nxt in zip(rec.games, rec.games[1:], strict=False):
        assert prev.winner is not None
        expect = list(prev.score)
        expect[prev.winner] += prev.credited(rec.length)
        assert nxt.score == tuple(expect), f"game {nxt.number}"
    assert "{}-{}".format(*_final_score(rec)) == rec.tags["XG Final Score"]
    assert sum(g.crawford for g in rec.games) <= 1
    decisions = list(rec.replay())  # every kept action replays
    assert decisions


def test_corpus_is_complete() -> None:
    if not _corpus():
        pytest.skip("the shared match corpus is not beside the repository")
    assert sorted(p.name for p in _corpus()) == sorted(EXPECTED)


def _key(rec: MatchRecord) -> list[list[tuple[object, ...]]]:
    return [[(a.player, a.kind, a.dice, a.notation, a.value) for a in g.actions] for g in rec.games]


@pytest.mark.parametrize("name", ["test", CHARLOT])
def test_agrees_with_the_mat_export(name: str) -> None:
    """The ``.xg`` file and XG's own ``.mat`` export of it: same actions, same decisions.

    Genuine differences between the files, not compared: ``test.mat``'s tags name the
    players the other way round (Player 1 "Maxence Job") and negate the Match ID
    (XG's convention for a swapped board) while its columns and the ``.xg`` agree;
    the charlot ``.mat`` (gnubg-style) has only an EventDate tag.  In the charlot
    Crawford game both files say "wins 3 points" where the rules give 1 (noted).
    """
    x = read_xg((DATA / f"{name}.xg").read_bytes())
    m = read_mat((DATA / f"{name}.mat").read_bytes())
    assert (x.length, x.players, x.cut_games) == (m.length, m.players, 0)
    assert _key(x) == _key(m)
    for gx, gm in zip(x.games, m.games, strict=True):
        assert (gx.number, gx.score, gx.crawford, gx.winner, gx.points) == (
            gm.number,
            gm.score,
            gm.crawford,
            gm.winner,
            gm.points,
        )
    ids = [(d.game, d.index, d.gnubg_id) for d in x.replay()]
    assert ids == [(d.game, d.index, d.gnubg_id) for d in m.replay()]
    assert len(ids) > 200
    if name == "test":
        shared = ("Site", "Event", "Round", "EventDate", "EventTime", "CubeLimit", "Transcriber")
        assert {k: x.tags[k] for k in shared} == {k: m.tags[k] for k in shared}
        assert (x.tags["Player 1"], m.tags["Player 2"]) == ("Kévin Unger", "Kévin Unger")
        assert x.tags["Match ID"] == m.tags["Match ID"].lstrip("-")


def test_metadata_analysis_and_comments() -> None:
    rec = read_xg((DATA / "match_with_comment.xg").read_bytes())
    assert rec.players == ("Nicolas HARMAND", "Kévin UNGER") and rec.length == 9
    assert rec.tags["Event"] == "Entrainement live" and rec.tags["Crawford"] == "On"
    actions = [a for g in rec.games for a in g.actions]
    comments = [a.props["comment"][0] for a in actions if "comment" in a.props]
    assert len(comments) == 2 and "coup assez difficile" in comments[0]
    plays = [a for a in actions if a.kind == "play" and a.notation]
    assert all("xg_moves" in a.props for a in plays)
    analysed = [a for a in plays if "xg_candidates" in a.props]
    assert analysed and all("?" not in c.split(":")[0] for a in analysed for c in a.props["xg_candidates"])
    assert any(a.props["xg_candidates"][0].startswith(f"{a.notation}:") for a in analysed)


def test_unplayed_roll_then_resignation() -> None:
    rec = read_xg((DATA / "test.xg").read_bytes())
    game2 = rec.games[1]  # XG's .mat writes "33: ???" and the opponent wins 2
    assert [a.kind for a in game2.actions[-4:]] == ["roll", "resign", "accept", "win"]
    assert (game2.winner, game2.points) == (0, 2)


# ---- malformed input ---------------------------------------------------------------

GOOD = (DATA / "test.xg").read_bytes() if (DATA / "test.xg").exists() else b""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not an eXtreme Gammon file"),
        (b"PK\x03\x04" + GOOD[4:], "not an eXtreme Gammon file"),
        (GOOD[:100], "truncated"),
        (GOOD[:-1], "archive"),
        (GOOD[: len(GOOD) // 2], "archive"),
        (GOOD[:9000] + bytes(len(GOOD) - 9000), "archive"),
    ],
)
def test_malformed(data: bytes, message: str) -> None:
    with pytest.raises(MatchFileError, match=message):
        read_xg(data)


def _rebuild(files: dict[str, bytes], *, damage: int | None = None) -> bytes:
    """An ``.xg`` container around ``files`` (CRCs right), the zlib data of temp.xg damaged."""
    body, index = b"", b""
    for name, content in files.items():
        packed = zlib.compress(content)
        if damage is not None and name == "temp.xg":
            packed = packed[:damage] + bytes([packed[damage] ^ 0xFF]) + packed[damage + 1 :]
        entry = bytes([len(name)]) + name.encode().ljust(255, b"\0") + bytes(256)
        entry += struct.pack("<iiiI", len(content), len(packed), len(body), zlib.crc32(content))
        index += entry + bytes([0, 6, 0, 0])
        body += packed
    registry = zlib.compress(index)
    crc = zlib.crc32(body + registry)
    tail = struct.pack("<Iiiiii", crc, len(files), 1, len(registry), len(body), 1) + bytes(12)
    return GOOD[:8232] + body + registry + tail


def test_bad_zlib_and_bad_records() -> None:
    temp = _rebuild_source()
    assert read_xg(_rebuild({"temp.xg": temp})).games  # the rebuilt container reads
    with pytest.raises(MatchFileError, match=r"temp\.xg"):
        read_xg(_rebuild({"temp.xg": temp}, damage=10))
    with pytest.raises(MatchFileError, match="whole number"):
        read_xg(_rebuild({"temp.xg": temp[:-1]}))
    with pytest.raises(MatchFileError, match=r"no temp\.xg"):
        read_xg(_rebuild({"other": temp}))
    bad = bytearray(temp)
    bad[2560 + 8] = 42  # an unknown record type
    with pytest.raises(MatchFileError, match="record 2: unknown record type 42"):
        read_xg(_rebuild({"temp.xg": bytes(bad)}))


def _rebuild_source() -> bytes:
    from pulvezar.formats.xg import _archive

    return _archive(GOOD)["temp.xg"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(GOOD)),
    flips=st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(1, 255)), max_size=3),
)
def test_fuzz_truncations_and_flips(cut: int, flips: list[tuple[int, int]]) -> None:
    data = bytearray(GOOD)
    for at, x in flips:
        data[at] ^= x
    with contextlib.suppress(MatchFileError):
        read_xg(bytes(data[:cut]))


@settings(max_examples=40, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, 12 * 2560 - 1), st.integers(1, 255)), min_size=1, max_size=4))
def test_fuzz_record_bytes(flips: list[tuple[int, int]]) -> None:
    """Damage inside temp.xg itself (CRCs recomputed): only MatchFileError, or a record."""
    temp = bytearray(_TEMP)
    for at, x in flips:
        temp[at] ^= x
    with contextlib.suppress(MatchFileError):
        read_xg(_rebuild({"temp.xg": bytes(temp[: 12 * 2560])}))


_TEMP = _rebuild_source() if GOOD else b""
