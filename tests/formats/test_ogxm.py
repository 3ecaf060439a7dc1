"""OGXM files and streams (``pulvezar.formats.ogxm``) against the reference codec, the ``ogxm`` package.

Every match fixture pulvezar reads is written as OGXM, checked by the codec (``v2_problem`` None, its
replay complete, its bytes its own) and read back to the same moves, dice, cube actions, scores and
results; the position pulvezar reaches before and after every ply is the one the codec's
``ogid_before``/``ogid_after`` describe (read with :mod:`pulvezar.rules.ogid`).  Streams: several
matches, zstd, truncated, corrupt members, the caps (a zstd bomb refused at the cap, in linear time),
and hostile bytes fuzzed with hypothesis.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulvezar.errors import PulvezarError
from pulvezar.formats.files import FileError, extension, read_match, read_stream, write_match
from pulvezar.formats.limits import FileTooLargeError, Limits
from pulvezar.formats.ogxm import (
    OgxmUnavailableError,
    OgxmUnsupportedError,
    from_ogxm_json,
    is_ogxm,
    is_zstd,
    read_ogxm,
    read_ogxm_stream,
    to_ogxm_json,
    write_ogxm,
    write_ogxm_stream,
)
from pulvezar.formats.record import Action, GameRecord, MatchFileError, MatchRecord, apply_action
from pulvezar.match.game import SessionOptions, Setup
from pulvezar.rules.ogid import from_ogid
from pulvezar.rules.position import Position

ogxm = pytest.importorskip("ogxm")
zstandard = pytest.importorskip("zstandard")

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).parents[2] / ".." / "shared" / "data" / "matches"
FIXTURES = sorted(p for p in DATA.iterdir() if p.suffix in (".mat", ".sgf", ".xg", ".gmd", ".txt"))
STREAM_SOURCES = ("7point.mat", "test.mat", "match.sgf")
FUZZ_EXAMPLES = 150
RATIO_LIMIT = 24.0  # t(8n) / t(n): linear ~8, quadratic ~64 (as tests/formats/test_hostile_files.py)


# ---- what a round trip must keep ---------------------------------------------------------------------


def actions(record: MatchRecord) -> list[list[tuple[Any, ...]]]:
    """Each game's actions as OGXM carries them: a roll's dice as a set, no roll that was never played,
    no resignation that was rejected, no ``win`` line (its figure is the file's own)."""
    out = []
    for g in record.games:
        acts: list[tuple[Any, ...]] = []
        skip = False
        for i, a in enumerate(g.actions):
            nxt = g.actions[i + 1] if i + 1 < len(g.actions) else None
            if skip or a.kind == "win":
                skip = False
                continue
            if a.kind == "roll":
                if nxt is not None and nxt.kind == "play":
                    assert a.dice is not None
                    acts.append((a.player, "roll", tuple(sorted(a.dice))))
            elif a.kind == "resign" and nxt is not None and nxt.kind == "reject":
                skip = True
            else:
                acts.append((a.player, a.kind, a.notation, a.value))
        out.append(acts)
    return out


def results(record: MatchRecord) -> list[tuple[Any, ...]]:
    return [(g.score, g.crawford, g.winner, g.points) for g in record.games]


def readable(path: Path) -> MatchRecord | None:
    try:
        return read_match(path)
    except FileError:
        return None


def check_round_trip(record: MatchRecord) -> dict[str, Any]:
    """Write, check with the codec, read back; the codec's document for the position checks."""
    doc = to_ogxm_json(record)
    assert ogxm.v2_problem(doc) is None
    data = write_ogxm(record)
    projection = ogxm.binary_to_json(data)
    assert projection["replay_complete"] is True
    final = list(record.games[0].score) if record.games else [0, 0]
    for g in record.games:
        if g.winner is not None:
            final[g.winner] += g.credited(record.length)
    assert [projection["white_score"], projection["black_score"]] == final  # White is player 0
    assert ogxm.json_to_binary(projection) == data  # the codec reads our bytes as its own
    back = read_ogxm(data)
    assert back.players == record.players and back.length == record.length
    assert actions(back) == actions(record)
    assert results(back) == results(record)
    assert back.cut_games == 0
    return dict(projection)


# ---- positions: ours against the codec's OGIDs -------------------------------------------------------


def sides(position: Position, mover: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(player 0's, player 1's) checkers, each in its owner's numbering, of a position seen by ``mover``."""
    return (position.mine, position.theirs) if mover == 0 else (position.theirs, position.mine)


def check_positions(record: MatchRecord, projection: dict[str, Any]) -> int:
    """Every play and cube ply: our board before and after is the one its OGIDs describe (player 0 is
    OGXM's White), and their scores, dice and player on roll are ours.  The number of plies checked."""
    checked = 0
    for rec, g in zip(record.games, projection["games"], strict=True):
        plies = [p for p in g["plies"] if p["action_id"] <= 23]
        game = record.new_game(rec)
        k = 0
        for a in rec.actions:
            if a.kind == "win":
                break
            if a.kind not in ("play", "double", "take", "drop"):
                apply_action(game, a)
                continue
            ply = plies[k]
            k += 1
            before = from_ogid(ply["ogid_before"])
            assert (before.white, before.black) == sides(game.position, game.turn), (rec.number, k)
            assert before.score == rec.score and before.match_length == record.length
            if a.kind == "play":
                assert game.dice is not None and before.dice is not None
                assert sorted(before.dice) == sorted(game.dice)
            if a.kind in ("play", "double"):
                assert before.on_roll == "WB"[a.player]
                assert before.position == game.position
            apply_action(game, a)
            after = from_ogid(ply["ogid_after"])
            assert (after.white, after.black) == sides(game.position, game.turn), (rec.number, k)
            checked += 1
        assert k == len(plies)
    return checked


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_round_trips_through_the_codec(path: Path) -> None:
    record = readable(path)
    if record is None:
        pytest.skip("not a match file pulvezar reads")
    projection = check_round_trip(record)
    assert check_positions(record, projection) > 0


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared match corpus is not beside the repository")
def test_the_shared_corpus_round_trips() -> None:
    done = 0
    for path in sorted(SHARED.glob("*/*")):
        record = readable(path) if path.suffix in (".mat", ".sgf", ".xg", ".gmd", ".txt") else None
        if record is None:
            continue
        if record.rules.variant == "tavla":
            with pytest.raises(OgxmUnsupportedError, match="Tavla"):
                write_ogxm(record)
            continue
        check_positions(record, check_round_trip(record))
        done += 1
    assert done >= 30


def test_the_committed_files_read_as_their_sources() -> None:
    one = read_ogxm((DATA / "ogxm" / "7point.ogxm").read_bytes())
    source = read_match(DATA / "7point.mat")
    assert (one.players, actions(one), results(one)) == (source.players, actions(source), results(source))
    stream = read_stream(DATA / "ogxm" / "three.ogxms.zst")
    assert [e.kind for e in stream.entries] == ["match"] * 3
    for entry, name in zip(stream.matches, STREAM_SOURCES, strict=True):
        assert entry.record is not None
        assert actions(entry.record) == actions(read_match(DATA / name))


def test_the_selfplay_corpus_is_100_distinct_whole_1_point_matches() -> None:
    """Issue 45's batch corpus (README.md here): 100 members, all read, distinct, each a finished 1-point
    match of ``gnubg-a`` v ``gnubg-b`` tagged with its seed."""
    stream = read_stream(DATA / "ogxm" / "selfplay-100x1p.ogxms.zst")
    assert [e.kind for e in stream.entries] == ["match"] * 100
    records = [e.record for e in stream.matches if e.record is not None]
    assert len({repr(actions(r)) for r in records}) == 100
    for i, r in enumerate(records):
        assert (r.length, r.players, r.tags["Event"]) == (
            1,
            ("gnubg-a", "gnubg-b"),
            f"gnubg self-play, seed {4500 + i}",
        )
        assert r.games[-1].winner is not None and r.cut_games == 0


def test_files_by_extension(tmp_path: Path) -> None:
    record = read_match(DATA / "test.mat")
    out = tmp_path / "m.ogxm"
    write_match(record, out)
    assert ogxm.is_ogxm_binary(out.read_bytes())
    assert actions(read_match(out)) == actions(record)
    assert extension(Path("a.OGXMS.zst")) == ".ogxms.zst" and extension(Path("a.ogxms")) == ".ogxms"
    packed = (DATA / "ogxm" / "three.ogxms.zst").read_bytes()
    assert is_ogxm(out.read_bytes()) and is_zstd(packed) and not is_ogxm(packed)
    with pytest.raises(FileError, match="a stream of 3 matches, not one match"):
        read_match(DATA / "ogxm" / "three.ogxms.zst")
    single = tmp_path / "one.ogxms"
    with single.open("wb") as f:
        write_ogxm_stream([record], f)
    assert actions(read_match(single)) == actions(record)


# ---- what OGXM cannot carry, and typed errors ---------------------------------------------------------


def test_tavla_is_refused_with_a_typed_error() -> None:
    record = read_match(DATA / "7point.mat")
    record.tags["Variation"] = "Tavla"
    with pytest.raises(OgxmUnsupportedError, match="Tavla"):
        write_ogxm(record)
    with pytest.raises(FileError, match="Tavla"):
        write_match(record, Path("/nonexistent/never-written.ogxm"))


def test_a_beaver_and_a_set_up_start_are_refused() -> None:
    record = MatchRecord(players=("A", "B"), options=SessionOptions(beaver=True))
    plays = [Action(0, "roll", dice=(3, 1)), Action(0, "play", notation="8/5 6/5")]
    cube = [Action(1, "double", value=2), Action(0, "beaver", value=4)]
    record.games.append(GameRecord(number=1, score=(0, 0), actions=plays + cube))
    with pytest.raises(OgxmUnsupportedError, match="beaver"):
        write_ogxm(record)
    record = read_match(DATA / "7point.mat")
    record.games[0].setup = Setup(Position.start(), 0)
    with pytest.raises(OgxmUnsupportedError, match="set-up position"):
        write_ogxm(record)


def test_a_variant_pulvezar_does_not_play_is_refused_on_reading() -> None:
    doc = {"match_length": 3, "player_white": "W", "player_black": "B", "variant": "nackgammon", "games": []}
    with pytest.raises(OgxmUnsupportedError, match="nackgammon"):
        read_ogxm(ogxm.json_to_binary(doc))


def test_not_ogxm_bytes_are_a_match_file_error() -> None:
    with pytest.raises(MatchFileError, match="no OGXM magic"):
        read_ogxm(b"; [Site 'x']\n 7 point match\n")
    data = (DATA / "ogxm" / "7point.ogxm").read_bytes()
    with pytest.raises(MatchFileError, match="codec cannot read"):
        read_ogxm(data[:-10])
    with pytest.raises(FileTooLargeError, match="max_bytes=100"):
        read_ogxm(data, limits=Limits(max_bytes=100))


def test_a_ply_the_rules_do_not_allow_cuts_the_game() -> None:
    doc = to_ogxm_json(read_match(DATA / "7point.mat"))
    plies = doc["games"][0]["plies"]
    plies[2]["moves"] = [{"from": 8, "pips": plies[2]["d1"]}] * len(plies[2]["moves"])
    record = from_ogxm_json(doc)
    assert record.games[0].cut_at is not None and record.games[0].cut_at.startswith("ply 3:")
    assert len([a for a in record.games[0].actions if a.kind == "play"]) == 2


def test_without_the_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ogxm", None)
    with pytest.raises(OgxmUnavailableError, match="interop"):
        read_ogxm(b"OGXM")
    with pytest.raises(FileError, match="interop"):
        read_match(DATA / "ogxm" / "7point.ogxm")


# ---- streams -------------------------------------------------------------------------------------------


def stream_of(names: tuple[str, ...] = STREAM_SOURCES) -> tuple[bytes, list[int], list[MatchRecord]]:
    """A stream of the named fixtures; its bytes, each member's offset and the records."""
    records = [read_match(DATA / n) for n in names]
    members = [write_ogxm(r) for r in records]
    buf = io.BytesIO()
    assert write_ogxm_stream(records, buf) == len(records)
    offsets = [sum(len(m) for m in members[:i]) for i in range(len(members) + 1)]
    assert buf.getvalue() == b"".join(members)
    return buf.getvalue(), offsets, records


@pytest.mark.parametrize("compressed", [False, True])
def test_a_stream_of_matches(compressed: bool) -> None:
    data, offsets, records = stream_of()
    source: Any = zstandard.ZstdCompressor().compress(data) if compressed else data
    if compressed:
        source = io.BytesIO(source)  # a file object, as an upload or an open file
    stream = read_ogxm_stream(source)
    assert [e.kind for e in stream.entries] == ["match"] * 3
    assert [e.offset for e in stream.entries] == offsets[:3]
    assert [e.index for e in stream.entries] == [0, 1, 2]
    for entry, record in zip(stream.matches, records, strict=True):
        assert entry.record is not None and actions(entry.record) == actions(record)
        assert entry.digest == ogxm.match_digest(write_ogxm(record)).hex()
    assert stream.to_json()["matches"] == 3


def test_a_truncated_stream_yields_every_complete_match_and_where_it_stopped() -> None:
    data, offsets, _ = stream_of()
    for cut in (50, offsets[3] - offsets[2] - 10):
        stream = read_ogxm_stream(zstandard.ZstdCompressor().compress(data[:-cut]))
        assert [e.kind for e in stream.entries] == ["match", "match", "truncated"]
        end = stream.truncated
        assert end is not None and end.offset == offsets[2] and end.length == offsets[3] - offsets[2] - cut


def test_a_corrupt_member_is_skipped_with_its_reason() -> None:
    data, offsets, records = stream_of()
    bad = bytearray(data)
    bad[(offsets[1] + offsets[2]) // 2] ^= 0xFF
    stream = read_ogxm_stream(bytes(bad))
    assert [e.kind for e in stream.entries] == ["match", "skipped", "match"]
    skipped = stream.entries[1]
    assert (skipped.offset, skipped.length) == (offsets[1], offsets[2] - offsets[1])
    assert skipped.reason.startswith("invalid member (")
    last = stream.entries[2]
    assert last.offset == offsets[2] and last.record is not None
    assert actions(last.record) == actions(records[2])
    junk = data[: offsets[1]] + b"\x00junk" * 20 + data[offsets[1] :]
    kinds = [(e.kind, e.offset) for e in read_ogxm_stream(junk).entries]
    assert kinds == [
        ("match", 0),
        ("skipped", offsets[1]),
        ("match", offsets[1] + 100),
        ("match", offsets[2] + 100),
    ]


def test_a_member_pulvezar_cannot_read_is_skipped_with_the_readers_reason() -> None:
    data, offsets, _ = stream_of(("7point.mat",))
    other = {"match_length": 3, "player_white": "W", "player_black": "B", "variant": "nackgammon"}
    buf = io.BytesIO()
    ogxm.StreamWriter(buf).write(ogxm.json_to_binary({**other, "games": [], "checksum": "crc32"}))
    stream = read_ogxm_stream(data + buf.getvalue())
    assert [e.kind for e in stream.entries] == ["match", "skipped"]
    assert "nackgammon" in stream.entries[1].reason and stream.entries[1].offset == offsets[1]


def test_the_stream_caps() -> None:
    data, _, _ = stream_of()
    with pytest.raises(FileTooLargeError, match="ogxm_max_matches=2"):
        read_ogxm_stream(data, limits=Limits(ogxm_max_matches=2))
    with pytest.raises(FileTooLargeError, match="ogxm_max_stream_bytes=1000"):
        read_ogxm_stream(data, limits=Limits(ogxm_max_stream_bytes=1000))
    with pytest.raises(FileTooLargeError, match="ogxm_max_stream_bytes=1000"):
        read_ogxm_stream(io.BytesIO(data), limits=Limits(ogxm_max_stream_bytes=1000))
    with pytest.raises(FileTooLargeError, match="ogxm_max_decompressed_bytes=1000"):
        read_ogxm_stream(
            zstandard.ZstdCompressor().compress(data), limits=Limits(ogxm_max_decompressed_bytes=1000)
        )


def _bomb_seconds(cap: int) -> float:
    bomb = zstandard.ZstdCompressor().compress(bytes(64 * 1024 * 1024))  # 64 MiB of zeros, a few KiB
    start = time.process_time()
    with pytest.raises(FileTooLargeError, match=f"ogxm_max_decompressed_bytes={cap}"):
        read_ogxm_stream(bomb, limits=Limits(ogxm_max_decompressed_bytes=cap))
    return time.process_time() - start


def test_a_decompression_bomb_is_refused_at_the_cap_in_linear_time(tmp_path: Path) -> None:
    n = 1024 * 1024
    small = min(_bomb_seconds(n) for _ in range(3))
    large = min(_bomb_seconds(8 * n) for _ in range(3))
    assert large / max(small, 1e-3) < RATIO_LIMIT, (small, large)
    path = tmp_path / "bomb.ogxms.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(bytes(64 * n)))
    with pytest.raises(FileError, match="ogxm_max_decompressed_bytes"):
        read_stream(path, limits=Limits(ogxm_max_decompressed_bytes=n))


def test_corrupt_zstd_data_is_a_typed_error() -> None:
    data, _, _ = stream_of(("7point.mat",))
    packed = bytearray(zstandard.ZstdCompressor(write_checksum=True).compress(data * 3))
    packed[len(packed) // 2] ^= 0x55
    with pytest.raises(MatchFileError, match="the zstd data does not decompress"):
        read_ogxm_stream(bytes(packed))


# ---- hostile input -------------------------------------------------------------------------------------

_SEED = (DATA / "ogxm" / "7point.ogxm").read_bytes()
_DOC = to_ogxm_json(read_match(DATA / "match.sgf"))  # one game: cheap to replay many times
_SMALL = write_ogxm(read_match(DATA / "match.sgf"))
_UNCHECKED = ogxm.json_to_binary(
    {k: v for k, v in _DOC.items() if k != "checksum"}
)  # no CRC: mutations reach further


def _mutation(seed: bytes) -> st.SearchStrategy[bytes]:
    edits = st.lists(
        st.tuples(st.integers(0, len(seed) - 1), st.integers(0, 255), st.integers(0, 2)), max_size=8
    )

    def apply(changes: list[tuple[int, int, int]]) -> bytes:
        b = bytearray(seed)
        for at, value, op in changes:
            at = min(at, len(b) - 1)
            if op == 0 and b:
                b[at] = value
            elif op == 1:
                del b[at : at + value % 32 + 1]
            else:
                b[at:at] = bytes([value]) * (value % 8 + 1)
        return bytes(b)

    return edits.map(apply)


_HOSTILE = st.one_of(
    st.binary(max_size=512),
    st.binary(max_size=256).map(lambda b: b"OGXM" + b),
    _mutation(_SEED),
    _mutation(_UNCHECKED),
)
_FUZZ = settings(
    max_examples=FUZZ_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@_FUZZ
@given(_HOSTILE)
def test_hostile_bytes_give_a_match_or_a_typed_error(data: bytes) -> None:
    try:
        record = read_ogxm(data)
    except PulvezarError:
        return
    assert isinstance(record, MatchRecord)


@_FUZZ
@given(st.lists(_HOSTILE, max_size=3), st.booleans())
def test_hostile_streams_give_entries_or_a_typed_error(parts: list[bytes], packed: bool) -> None:
    data = _SMALL + b"".join(parts)
    if packed:
        data = zstandard.ZstdCompressor().compress(data)
    try:
        stream = read_ogxm_stream(data)
    except PulvezarError:
        return
    assert stream.entries and stream.entries[0].kind == "match"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@_FUZZ
@given(
    st.lists(st.tuples(st.sampled_from(["action_id", "color", "d1", "d2", "moves", "resign_value"]), _JSON))
)
def test_a_hostile_document_gives_a_match_or_a_typed_error(edits: list[tuple[str, Any]]) -> None:
    doc = json.loads(json.dumps(_DOC))
    plies = doc["games"][0]["plies"]
    for i, (key, value) in enumerate(edits):
        plies[i % len(plies)][key] = value
    try:
        record = from_ogxm_json(doc)
    except PulvezarError:
        return
    assert isinstance(record, MatchRecord)


# ---- the CLI -------------------------------------------------------------------------------------------


def run(*argv: str | Path) -> int:
    from pulvezar.cli import match as cli

    parser = argparse.ArgumentParser(prog="pulvezar")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return int(args.func(args))


def test_cli_show_lists_a_streams_matches(capsys: pytest.CaptureFixture[str]) -> None:
    stream = DATA / "ogxm" / "three.ogxms.zst"
    assert run("match", "show", stream) == 0
    out = capsys.readouterr().out
    assert "1. JoeBlack - SnowWhite, 7-point match, 9 games" in out and out.endswith(
        "3 match(es), 0 skipped\n"
    )
    assert run("match", "show", stream, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["players"] for e in data["entries"]][1] == ["Kévin Unger", "Maxence Job"]
    assert run("match", "show", stream, "--match", "2", "--json") == 0
    assert json.loads(capsys.readouterr().out)["length"] == 7
    assert run("match", "show", stream, "--match", "4") == 2
    assert "the stream has 3 matches" in capsys.readouterr().err


def test_cli_convert_a_stream_one_file_per_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = DATA / "ogxm" / "three.ogxms.zst"
    assert run("match", "convert", stream, tmp_path / "x.mat") == 2
    assert "name the outputs with {n}" in capsys.readouterr().err
    assert run("match", "convert", stream, str(tmp_path / "m-{n}.sgf")) == 0
    for n, name in enumerate(STREAM_SOURCES, start=1):
        assert actions(read_match(tmp_path / f"m-{n}.sgf")) == actions(read_match(DATA / name))
    assert run("match", "convert", DATA / "test.mat", tmp_path / "t.ogxm") == 0
    assert run("match", "show", tmp_path / "t.ogxm") == 0
    assert "Kévin Unger" in capsys.readouterr().out


def test_cli_analyse_takes_one_match_of_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    stream = DATA / "ogxm" / "three.ogxms.zst"
    assert run("match", "analyse", stream, "--level", "0ply", "--quiet") == 2
    assert "choose one with --match N" in capsys.readouterr().err
    assert run("match", "analyse", stream, "--match", "3", "--level", "0ply", "--quiet", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["players"]] == list(read_match(DATA / "match.sgf").players)
