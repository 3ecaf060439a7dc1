"""BGBlitz ``.bgf`` files (``pulvezar.formats.bgf``) and the Smile decoder (``pulvezar.formats.smile``).

No real ``.bgf`` file could be had here, so this module carries a writer of its own: a small Smile
encoder (as the Smile specification describes it, shared names and shared strings on) and a writer of
BGBlitz's match document (as :mod:`pulvezar.formats.bgf` describes it).  ``data/bgf/test.bgf`` is
``data/test.mat`` written by it (``python tests/formats/test_bgf.py`` makes it again; a test checks the
committed bytes are still what it makes).  Matches written by it read back to the same moves, dice,
cube actions, scores and results; hostile bytes (random, a gzip bomb, deep nesting, huge strings) are
typed errors under the caps, in linear time.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import json
import math
import struct
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulvezar.errors import PulvezarError
from pulvezar.formats.bgf import from_bgf_json, inflate, is_bgf, read_bgf, split_bgf
from pulvezar.formats.files import FileError, detect_format, read_bytes, read_match
from pulvezar.formats.limits import FileTooLargeError, Limits
from pulvezar.formats.record import MatchFileError, MatchRecord, apply_action
from pulvezar.formats.smile import SmileError, decode_smile, is_smile
from tests.cost import cost_ratio

DATA = Path(__file__).parent / "data"
BGF = DATA / "bgf" / "test.bgf"
SOURCES = ("test.mat", "7point.mat", "match.sgf", "test.xg")
RATIO_LIMIT = 24.0  # t(8n) / t(n): linear ~8, quadratic ~64 (as tests/formats/test_hostile_files.py)


# ---- a Smile encoder (the test's own writer) ----------------------------------------------------------


class _Shared:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def find(self, s: str) -> int | None:
        return self.index.get(s)

    def add(self, s: str) -> None:
        if len(self.index) >= 1024:
            self.index.clear()
        self.index.setdefault(s, len(self.index))


def _vint(n: int) -> bytes:
    out = [0x80 | (n & 0x3F)]
    n >>= 6
    while n:
        out.append(n & 0x7F)
        n >>= 7
    return bytes(reversed(out))


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _seven(value: int, count: int) -> bytes:
    return bytes((value >> (7 * (count - 1 - i))) & 0x7F for i in range(count))


def smile(value: Any) -> bytes:
    """``value`` (JSON data) as one Smile document, shared names and shared strings on."""
    names, values = _Shared(), _Shared()
    out = bytearray(b":)\n\x03")

    def name(k: str) -> None:
        raw = k.encode()
        i = names.find(k)
        if k == "":
            out.append(0x20)
            return
        if i is not None:
            out.extend(bytes([0x40 + i]) if i < 64 else bytes([0x30 | (i >> 8), i & 0xFF]))
            return
        if raw.isascii() and len(raw) <= 64:
            out.append(0x80 + len(raw) - 1)
            out.extend(raw)
        elif 2 <= len(raw) <= 57:
            out.append(0xC0 + len(raw) - 2)
            out.extend(raw)
        else:
            out.append(0x34)
            out.extend(raw + b"\xfc")
        names.add(k)

    def string(s: str) -> None:
        raw = s.encode()
        if not raw:
            out.append(0x20)
            return
        i = values.find(s)
        if i is not None:
            out.extend(bytes([i + 1]) if i < 31 else bytes([0xEC | (i >> 8), i & 0xFF]))
            return
        n = len(raw)
        if raw.isascii() and n <= 64:
            out.append(0x40 + n - 1 if n <= 32 else 0x60 + n - 33)
        elif not raw.isascii() and 2 <= n <= 65:
            out.append(0x80 + n - 2 if n <= 33 else 0xA0 + n - 34)
        else:
            out.append(0xE0 if raw.isascii() else 0xE4)
            out.extend(raw + b"\xfc")
            return
        out.extend(raw)
        values.add(s)

    def encode(v: Any) -> None:
        if v is None:
            out.append(0x21)
        elif isinstance(v, bool):
            out.append(0x23 if v else 0x22)
        elif isinstance(v, int):
            if -16 <= v <= 15:
                out.append(0xC0 + _zigzag(v))
            else:
                out.append(0x24 if -(2**31) <= v < 2**31 else 0x25)
                out.extend(_vint(_zigzag(v)))
        elif isinstance(v, float):
            out.append(0x29)
            out.extend(_seven(struct.unpack(">Q", struct.pack(">d", v))[0], 10))
        elif isinstance(v, str):
            string(v)
        elif isinstance(v, list):
            out.append(0xF8)
            for x in v:
                encode(x)
            out.append(0xF9)
        else:
            out.append(0xFA)
            for k, x in v.items():
                name(k)
                encode(x)
            out.append(0xFB)

    encode(value)
    return bytes(out)


# ---- a BGBlitz match writer (the test's own) ------------------------------------------------------------

_NONE = [-1, -1, -1, -1]


def _who(player: int) -> int:
    return -1 if player == 0 else 1  # green (player 0) is -1


def _game_doc(record: MatchRecord, gi: int) -> dict[str, Any]:
    g = record.games[gi]
    game = record.new_game(g)
    moves: list[dict[str, Any]] = []
    resigned = False
    acts = [a for a in g.actions if a.kind != "win"]
    for i, a in enumerate(acts):
        if a.kind == "play":
            assert game.dice is not None
            play = game.rules.legal_plays(game.position, game.dice).find(a.notation or "")
            d1, d2 = game.dice
            if not play.moves:
                moves.append(
                    {
                        "player": _who(a.player),
                        "from": [d1, -1, -1, -1],
                        "to": [d2, -1, -1, -1],
                        "dancingEquity": {"equity": 0.0},
                    }
                )
            else:
                frm = [m.src for m in play.moves] + [-1] * (4 - len(play.moves))
                to = [max(m.dst, 0) for m in play.moves] + [-1] * (4 - len(play.moves))
                moves.append({"player": _who(a.player), "red": d1, "green": d2, "from": frm, "to": to})
        elif a.kind == "double":
            took = acts[i + 1].kind == "take"
            cube = {"cubeDecision": {"hasDoubled": True, "hasAccepted": took, "stateOnMove": "DOUBLE"}}
            moves.append({"player": _who(a.player), "from": _NONE, "to": _NONE, "equity": cube})
            answer = {"cubeDecision": {"hasAccepted": took}}
            moves.append({"player": _who(1 - a.player), "from": _NONE, "to": _NONE, "equity": answer})
        elif a.kind == "resign":
            resigned = True
        elif a.kind not in ("roll", "take", "drop", "accept"):
            raise ValueError(f"the test's writer cannot write a {a.kind}")
        apply_action(game, a)
    return {
        "scoreGreen": g.score[0],
        "scoreRed": g.score[1],
        "isCrawford": g.crawford,
        "wonPoints": g.points,
        "wasResignation": resigned,
        "wasForfeit": False,
        "moves": moves,
    }


def bgf_document(record: MatchRecord) -> dict[str, Any]:
    final = list(record.games[0].score) if record.games else [0, 0]
    for g in record.games:
        if g.winner is not None:
            final[g.winner] += g.credited(record.length)
    return {
        "matchlen": record.length,
        "nameGreen": record.players[0],
        "nameRed": record.players[1],
        "event": record.tags.get("Event", ""),
        "useCrawford": record.tags.get("Crawford", "On") != "Off",
        "useCube": True,
        "finalGreen": final[0],
        "finalRed": final[1],
        "games": [_game_doc(record, i) for i in range(len(record.games))],
    }


def write_bgf(record: MatchRecord) -> bytes:
    """``record`` as a ``.bgf`` file: the header line, then its document as gzip'd Smile."""
    header = b'{"format":"BGF","version":"pulvezar-test-writer","compress":true,"useSmile":true}\n'
    return header + gzip.compress(smile(bgf_document(record)), mtime=0)


def body(data: bytes) -> bytes:
    return b'{"format":"BGF","compress":true,"useSmile":true}\n' + gzip.compress(data, mtime=0)


# ---- what a round trip must keep ---------------------------------------------------------------------


def actions(record: MatchRecord) -> list[list[tuple[Any, ...]]]:
    """Each game's actions, a roll's dice as a set, no roll that was never played (a BGBlitz record
    holds dice only with their play), no ``win`` line (its figure is the file's own)."""
    out = []
    for g in record.games:
        acts: list[tuple[Any, ...]] = []
        for i, a in enumerate(g.actions):
            if a.kind == "roll":
                assert a.dice is not None
                if i + 1 < len(g.actions) and g.actions[i + 1].kind == "play":
                    acts.append((a.player, "roll", tuple(sorted(a.dice))))
            elif a.kind != "win":
                acts.append((a.player, a.kind, a.notation, a.value))
        out.append(acts)
    return out


def results(record: MatchRecord) -> list[tuple[Any, ...]]:
    return [(g.score, g.crawford, g.winner, g.points) for g in record.games]


def test_the_committed_file_is_the_writers_test_mat() -> None:
    """data/bgf/test.bgf is what the writer makes of data/test.mat (so it cannot drift from it)."""
    assert BGF.read_bytes() == write_bgf(read_match(DATA / "test.mat"))


def test_the_committed_file_reads_as_test_mat_and_test_xg() -> None:
    back = read_match(BGF)
    mat = read_match(DATA / "test.mat")
    assert back.players == mat.players == ("Kévin Unger", "Maxence Job")
    assert back.length == mat.length == 7
    assert back.cut_games == 0
    assert actions(back) == actions(mat)
    assert results(back) == results(mat)
    kinds = {a.kind for g in back.games for a in g.actions}
    assert {"roll", "play", "double", "take", "resign", "accept", "win"} <= kinds
    xg = read_match(DATA / "test.xg")  # the same match as XG wrote it
    assert [[a for a in g if a[1] in ("roll", "double", "take", "drop")] for g in actions(back)] == [
        [a for a in g if a[1] in ("roll", "double", "take", "drop")] for g in actions(xg)
    ]
    assert [(r[0], r[2]) for r in results(back)] == [(r[0], r[2]) for r in results(xg)]


@pytest.mark.parametrize("name", SOURCES)
def test_round_trip_through_the_writer(name: str) -> None:
    record = read_match(DATA / name)
    back = read_bgf(write_bgf(record))
    assert back.players == record.players and back.length == record.length
    assert actions(back) == actions(record)
    assert results(back) == results(record)
    assert back.cut_games == 0


def test_a_drop_and_a_dance_are_read() -> None:
    record = read_match(DATA / "7point.mat")
    kinds = {a.kind for g in record.games for a in g.actions}
    assert "drop" in kinds
    back = read_bgf(write_bgf(record))
    assert "drop" in {a.kind for g in back.games for a in g.actions}
    dances = [a for g in back.games for a in g.actions if a.kind == "play" and a.notation == ""]
    assert dances == [a for g in record.games for a in g.actions if a.kind == "play" and a.notation == ""]


def test_plain_json_and_a_headerless_body_are_read() -> None:
    record = read_match(DATA / "7point.mat")
    doc = bgf_document(record)
    plain = b'{"format":"BGF","compress":false,"useSmile":false}\n' + json.dumps(doc).encode()
    assert actions(read_bgf(plain)) == actions(record)
    assert actions(read_bgf(gzip.compress(smile(doc), mtime=0))) == actions(record)


def test_the_format_is_found_by_name_and_by_header(tmp_path: Path) -> None:
    data = BGF.read_bytes()
    assert is_bgf(data) and detect_format(data, None) == "bgf" and detect_format(b"", "x.BGF") == "bgf"
    assert actions(read_bytes(data, "bgf")) == actions(read_match(BGF))
    header, rest = split_bgf(data)
    assert header["useSmile"] is True and is_smile(inflate(rest, Limits()))


def test_a_record_the_rules_do_not_allow_cuts_the_game() -> None:
    doc = bgf_document(read_match(DATA / "7point.mat"))
    doc["games"][0]["moves"][0]["to"] = [1, 1, -1, -1]  # not where the dice lead
    back = from_bgf_json(doc)
    assert back.games[0].cut_at is not None and back.games[0].cut_at.startswith("move 1:")
    assert back.games[1].cut_at is None


# ---- the CLI ----------------------------------------------------------------------------------------


def run(*argv: str | Path) -> int:
    from pulvezar.cli import match as cli

    parser = argparse.ArgumentParser(prog="pulvezar")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return int(args.func(args))


def test_match_show_convert_and_analyse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("match", "show", BGF, "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["players"] == ["Kévin Unger", "Maxence Job"] and shown["cut_games"] == 0
    out = tmp_path / "copy.mat"
    assert run("match", "convert", BGF, out) == 0
    assert actions(read_match(out)) == actions(read_match(DATA / "test.mat"))
    capsys.readouterr()
    assert run("match", "analyse", BGF, "--level", "0ply", "--json") == 0
    analysed = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in analysed["players"]] == ["Kévin Unger", "Maxence Job"]
    assert analysed["players"][0]["checker"]["decisions"] > 100


# ---- hostile input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "cap"),
    [
        (body(b":)\n\x03" + b"\xf8" * 100_000), "bgf_max_depth"),
        (body(b":)\n\x03\xe0" + b"a" * 2_000_000 + b"\xfc"), "bgf_max_string_bytes"),
        (body(b":)\n\x03\xf8" + b"\x21" * 5_000_000 + b"\xf9"), "bgf_max_elements"),
    ],
    ids=["deep", "huge-string", "many-values"],
)
def test_caps_are_typed_errors(data: bytes, cap: str) -> None:
    with pytest.raises(FileTooLargeError, match=cap) as e:
        read_bgf(data)
    assert e.value.cap == cap


def test_an_unterminated_long_string_stops_at_the_cap() -> None:
    with pytest.raises(FileTooLargeError, match="bgf_max_string_bytes"):
        decode_smile(b":)\n\x03\xe0" + b"a" * 300, limits=Limits(bgf_max_string_bytes=100))


def _bomb_seconds(data: bytes, n: int) -> float:
    """CPU seconds of this process (the machine's other load does not count) to refuse ``data`` at ``n``."""
    t = time.process_time()
    with pytest.raises(FileTooLargeError, match="bgf_max_decompressed_bytes"):
        read_bgf(data, limits=Limits(bgf_max_decompressed_bytes=n))
    return time.process_time() - t


def test_a_gzip_bomb_is_refused_at_the_cap_in_linear_time() -> None:
    n = 512 * 1024
    bombs = {m: body(bytes(64 * m)) for m in (n, 8 * n)}  # compressed once: the compression is the slow part
    small = min(_bomb_seconds(bombs[n], n) for _ in range(3))
    large = min(_bomb_seconds(bombs[8 * n], 8 * n) for _ in range(3))
    assert large / max(small, 1e-3) < RATIO_LIMIT, (small, large)


def _long_seconds(doc: bytes) -> float:
    t = time.process_time()
    decode_smile(doc)
    return time.process_time() - t


def test_long_documents_decode_in_linear_time() -> None:
    def doc(n: int) -> bytes:
        return smile([{"from": [i % 25, -1], "to": [i % 7, -1], "eq": i / 3, "s": f"s{i}"} for i in range(n)])

    small_doc, large_doc = doc(5_000), doc(40_000)
    small = min(_long_seconds(small_doc) for _ in range(3))
    large = min(_long_seconds(large_doc) for _ in range(3))
    assert large / max(small, 1e-3) < RATIO_LIMIT, (small, large)


def test_nesting_past_the_cap_stops_at_the_cap() -> None:
    deep = b":)\n\x03" + b"\xfa\x80a" * 10 + b"\xf8" * 1_000_000
    at_cap = b":)\n\x03" + b"\xf8" * 64 + b"\xf9" * 64

    def refuse() -> None:
        with pytest.raises(FileTooLargeError, match="bgf_max_depth=64"):
            decode_smile(deep)

    refuse()
    assert decode_smile(at_cap) == _nested(64)
    # the megabyte past the cap costs about what the 128 bytes at it do: it is not scanned (a scan: ~10,000x)
    assert cost_ratio(refuse, lambda: decode_smile(at_cap), loops=10) < 50


def _nested(n: int) -> Any:
    v: list[Any] = []
    for _ in range(n - 1):
        v = [v]
    return v


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{}\n",
        b"not a bgf file",
        b'{"format":"BGF"}\n' + b"\x1f\x8b garbage",
        body(b":)\n\x03\xfa\x80a"),  # ends early
        body(b":)\n\x03\x05"),  # a shared string never defined
        body(b":)\n\x00\xfa\x40\x21\xfb"),  # a shared name with shared names off
        body(b":)\n\x03\xf9"),  # an array end outside an array
        body(b":)\n\x03\x21\x21"),  # bytes after the document
        body(b":)\n\x03\x24\x7f\x7f\x7f\x7f\x7f\x7f"),  # a VInt too long
        body(b":)\n\x03\x41\xff\xfe"),  # not UTF-8
        body(b":)\n\x03\xfd\x81\x00"),  # raw binary is not read
        body(b":)\n\x03\x21"),  # null, not a match
        body(b":)\n\x03\xfa\x84games\xc2\xfb"),  # games is not a list
        gzip.compress(b":)\n\x03\xfa", mtime=0)[:-6],  # truncated gzip
    ],
)
def test_bad_bytes_are_typed_errors(data: bytes) -> None:
    with pytest.raises(MatchFileError):
        read_bgf(data)


def test_a_smile_error_names_its_offset() -> None:
    with pytest.raises(SmileError) as e:
        decode_smile(b":)\n\x03\xfa\x80a\xf0")  # 0xF0 is no value token
    assert e.value.offset == 7 and "column 8" in str(e.value) and "0xf0" in str(e.value)


def test_a_bad_file_is_a_file_error(tmp_path: Path) -> None:
    path = tmp_path / "x.bgf"
    path.write_bytes(b'{"format":"BGF"}\n\x1f\x8b')
    with pytest.raises(FileError):
        read_match(path)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=70), inner, max_size=6),
    max_leaves=40,
)


@given(json_values)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_smile_round_trip(value: Any) -> None:
    assert decode_smile(smile(value)) == value


@given(st.binary(max_size=300))
@settings(max_examples=200, deadline=None)
def test_random_bytes_are_typed_errors(data: bytes) -> None:
    for blob in (data, b":)\n\x03" + data, body(b":)\n\x03" + data)):
        with contextlib.suppress(PulvezarError):
            read_bgf(blob)


@functools.cache
def _seven_point() -> bytes:
    return smile(bgf_document(read_match(DATA / "7point.mat")))


@given(st.integers(0, 10_000), st.integers(0, 255))
@settings(max_examples=60, deadline=None)
def test_a_damaged_smile_body_is_a_typed_error_or_a_match(at: int, byte: int) -> None:
    raw = bytearray(_seven_point())
    raw[at % len(raw)] = byte
    with contextlib.suppress(PulvezarError):
        read_bgf(body(bytes(raw)))


def test_shared_names_past_the_table_size_start_again() -> None:
    doc = [{f"k{i}": i} for i in range(3000)] + [{"k5": "x" * 10}] * 3 + ["é" * 20] * 3
    assert decode_smile(smile(doc)) == doc
    assert math.isclose(decode_smile(smile(0.1)), 0.1)


def test_a_float32_is_read() -> None:
    bits = struct.unpack(">I", struct.pack(">f", 1.5))[0]
    assert decode_smile(b":)\n\x00\x28" + _seven(bits, 5)) == 1.5


if __name__ == "__main__":  # make data/bgf/test.bgf again
    BGF.write_bytes(write_bgf(read_match(DATA / "test.mat")))
    print(f"wrote {BGF}", file=sys.stderr)
