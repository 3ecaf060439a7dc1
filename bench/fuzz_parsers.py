"""Fuzz every match-file reader with hypothesis: random bytes and grammar-aware mutations of real files.

For each format (``mat``, ``sgf``, ``xg``, ``gmd``, ``txt`` = gnubg's text export) the examples are
random bytes, and mutations of the files in ``tests/formats/data``: their tokens deleted, repeated
(up to thousands of times: deep nesting, long lines), replaced by hostile ones (10,000-digit numbers,
brackets, NUL, invalid UTF-8, keywords of the format), lines swapped, the text truncated; an ``.xg``
is mutated inside its archive (temp.xg's records, CRCs recomputed) and as raw bytes.  A reader may
answer a record or a :class:`~pulvezar.errors.PulvezarError` (``MatchFileError`` and its
``FileTooLargeError``); anything else, or an example slower than ``--slow-ms``, is a finding: printed
with a reproducer (the input saved under ``--out`` and the call that replays it).

    .venv/bin/python bench/fuzz_parsers.py --seconds 60            # every format, a minute each
    .venv/bin/python bench/fuzz_parsers.py --formats mat,sgf --examples 2000

Exit status 1 when there is a finding.  The suite runs a few hundred examples per reader
(``tests/formats/test_hostile_files.py::test_fuzz_reader``) with :func:`examples`.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import re
import struct
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parents[1] / "tests" / "formats" / "data"
SEEDS = {
    "mat": ["7point.mat", "test.mat", "gnubg_roll_then_resign_1p.mat"],
    "sgf": ["7point.sgf", "match.sgf"],
    "gmd": ["7point.gmd"],
    "txt": ["gnubg-text/match10030560.txt"],
    "xg": ["charlot1-charlot2_7p_2025-11-08-2305.xg"],
}
# tokens a mutation puts in: numbers too long for any field, the formats' punctuation and keywords
HOSTILE = [
    "9" * 10_000, "4294967296", "-1", "0", "²", "٣", "\x00", "\udcff", "\ufeff", "\r", "\n", "\t", " " * 1000,
    "/", "*", "(", ")", "[", "]", ";", ":", "\\", '"', "(;", "bar", "off", "11x", "1/11/11/11/11/11/11/11",
    "Game 1", " 7 point match", "Doubles => 2", "Takes", "Drops", "Wins 1 point", "Cannot Move", "??",
    "GM[6]", "MI[length:7]", "CA[idna]", "CV[64]", "AB[a:y]", "W[double]", "B[resign:3]", "RE[W+2R]",
    "Game:", "Roll: W: 3 1", "Move: W: 8/4 6/4", "Resign: W: 2", "Length: 7",
    "The score (after 1 games) is: a 1, b 2", "Move number 1:", "Position ID:", "Match ID :", "Eq.:",
]  # fmt: skip
_SPLIT = re.compile(r"(\s+|[/:\[\]();*,\"\\])")
_RECORD = 2560
_MAX_TOKEN = 2 * 1024 * 1024  # a repeated token is cut here: examples stay well under a GiB
_MAX_TEXT = 17 * 1024 * 1024  # just over the readers' max_bytes, so that cap is met too


def reader(fmt: str) -> Callable[[bytes], Any]:
    from pulvezar.formats import read_gmd, read_gnubg_text, read_mat, read_sgf, read_xg

    readers: dict[str, Callable[[bytes], Any]] = {
        "mat": read_mat, "sgf": read_sgf, "xg": read_xg, "gmd": read_gmd, "txt": read_gnubg_text,
    }  # fmt: skip
    return readers[fmt]


def _first_game(text: str, fmt: str) -> str:
    """The head of a file up to its second game (small seeds keep the suite's examples cheap)."""
    marker = {"mat": "\n Game 2", "sgf": "\n(;", "gmd": "\nGame:", "txt": "\nMove number 40:"}[fmt]
    start = text.find(marker, text.find(marker) + 1) if fmt == "gmd" else text.find(marker)
    return text if start < 0 else text[:start] + "\n"


def seeds(fmt: str, small: bool = False) -> list[bytes]:
    """The real files of a format (``small``: each cut after its first game; one short .xg)."""
    if fmt == "xg":
        from pulvezar.formats.xg import _archive

        out = []
        for name in SEEDS["xg"]:
            data = (DATA / name).read_bytes()
            temp = _archive(data)["temp.xg"]
            out.append(rebuild_xg(data, temp[: 12 * _RECORD] if small else temp))
        return out
    texts = [(DATA / name).read_bytes() for name in SEEDS[fmt]]
    if small:
        texts = [_first_game(t.decode("utf-8", "replace"), fmt).encode() for t in texts]
    return texts


def rebuild_xg(original: bytes, temp: bytes) -> bytes:
    """An ``.xg`` file holding ``temp`` as its temp.xg (the header of ``original``, CRCs right)."""
    packed = zlib.compress(temp)
    entry = bytes([7]) + b"temp.xg".ljust(255, b"\0") + bytes(256)
    entry += struct.pack("<iiiI", len(temp), len(packed), 0, zlib.crc32(temp)) + bytes([0, 6, 0, 0])
    registry = zlib.compress(entry)
    tail = struct.pack("<Iiiiii", zlib.crc32(packed + registry), 1, 1, len(registry), len(packed), 1)
    return original[:8232] + packed + registry + tail + bytes(12)


@st.composite
def _text_mutation(draw: st.DrawFn, seed: bytes) -> bytes:
    tokens = _SPLIT.split(seed.decode("utf-8", "replace"))
    for _ in range(draw(st.integers(1, 6))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        op = draw(st.sampled_from(["delete", "repeat", "replace", "insert", "swap", "truncate"]))
        if op == "delete":
            del tokens[i]
        elif op == "repeat":
            tokens[i] = (tokens[i] * draw(st.sampled_from([2, 3, 10, 1000, 20_000])))[:_MAX_TOKEN]
        elif op == "replace":
            tokens[i] = draw(st.sampled_from(HOSTILE) | st.text(max_size=20))
        elif op == "insert":
            tokens.insert(i, draw(st.sampled_from(HOSTILE)))
        elif op == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            tokens = tokens[:i]
    text = "".join(tokens)[:_MAX_TEXT]
    encoding = draw(st.sampled_from(["utf-8", "latin-1", "utf-16"]))
    return text.encode(encoding, "surrogateescape" if encoding == "utf-8" else "replace")


@st.composite
def _xg_mutation(draw: st.DrawFn, seed: bytes) -> bytes:
    from pulvezar.formats.xg import _archive

    if draw(st.booleans()):  # raw bytes: flips and a cut
        data = bytearray(seed)
        for _ in range(draw(st.integers(0, 4))):
            data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
        return bytes(data[: draw(st.integers(0, len(data)))])
    temp = bytearray(_archive(seed)["temp.xg"])  # inside the archive: records, CRCs recomputed
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(temp) - 4))
        value = draw(
            st.sampled_from([0, 1, -1, 2**31 - 1, -(2**31), 99999, 7]) | st.integers(-(2**31), 2**31 - 1)
        )
        temp[at : at + 4] = struct.pack("<i", value)
    records = len(temp) // _RECORD
    cut = draw(st.integers(1, records)) * _RECORD
    return rebuild_xg(seed, bytes(temp[:cut]))


def examples(fmt: str, small: bool = False) -> st.SearchStrategy[bytes]:
    """Inputs for ``fmt``'s reader: random bytes, or a mutation of one of its real files."""
    mutate = _xg_mutation if fmt == "xg" else _text_mutation
    mutations = st.sampled_from(seeds(fmt, small)).flatmap(mutate)
    return st.one_of(st.binary(max_size=2048), mutations, mutations, mutations)


@dataclass
class Report:
    fmt: str
    examples: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)


def check(fmt: str, data: bytes) -> tuple[str, float]:
    """``ok``, ``error`` (a typed error) or ``untyped: ...``; and the CPU seconds it took."""
    from pulvezar.errors import PulvezarError

    start = time.process_time()
    try:
        reader(fmt)(data)
        outcome = "ok"
    except PulvezarError:
        outcome = "error"
    except Exception as e:  # a finding
        outcome = f"untyped: {type(e).__name__}: {str(e)[:200]}"
    return outcome, time.process_time() - start


def _reproducer(fmt: str, data: bytes, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{fmt}-{hashlib.sha1(data).hexdigest()[:12]}.bin"
    path.write_bytes(data)
    fn = {"txt": "read_gnubg_text", "mat": "read_mat", "sgf": "read_sgf", "xg": "read_xg", "gmd": "read_gmd"}[
        fmt
    ]
    return f".venv/bin/python -c \"from pulvezar.formats import {fn}; {fn}(open('{path}', 'rb').read())\""


def fuzz(fmt: str, seconds: float, max_examples: int, slow_ms: float, out: Path) -> Report:
    """Run hypothesis batches on ``fmt``'s reader until ``seconds`` or ``max_examples`` are spent."""
    report = Report(fmt)
    strategy = examples(fmt)
    start = time.monotonic()

    @settings(
        max_examples=200,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def batch(data: bytes) -> None:
        if report.examples >= max_examples or time.monotonic() - start > seconds:
            return
        outcome, cpu = check(fmt, data)
        report.examples += 1
        kind = outcome.split(":")[0]
        report.outcomes[kind] = report.outcomes.get(kind, 0) + 1
        if (kind == "untyped" or cpu * 1000 > slow_ms) and len(report.findings) < 20:
            what = outcome if kind == "untyped" else f"slow: {cpu * 1000:.0f} ms ({outcome})"
            report.findings.append(f"{fmt}: {what} ({len(data)} bytes)\n    {_reproducer(fmt, data, out)}")

    while report.examples < max_examples and time.monotonic() - start < seconds:
        batch()
    report.seconds = time.monotonic() - start
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", default="mat,sgf,xg,gmd,txt", help="comma-separated (default: all)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time per format (default 60)")
    parser.add_argument("--examples", type=int, default=1_000_000, help="most examples per format")
    parser.add_argument(
        "--slow-ms", type=float, default=2000.0, help="an example slower than this is a finding"
    )
    parser.add_argument("--out", type=Path, default=Path("/tmp/pulvezar-fuzz"), help="where reproducers go")
    args = parser.parse_args(argv)
    machine = platform.processor() or platform.machine()
    print(f"# fuzz_parsers on {platform.node()} ({machine}), Python {sys.version.split()[0]}")
    print(f"# {args.seconds:g} s or {args.examples} examples per format, slow > {args.slow_ms:g} ms")
    findings = 0
    for fmt in args.formats.split(","):
        r = fuzz(fmt, args.seconds, args.examples, args.slow_ms, args.out)
        rate = r.examples / r.seconds if r.seconds else 0.0
        counts = f"{r.examples:7d} examples in {r.seconds:6.1f} s = {rate:7.1f}/s"
        print(f"{fmt:4} {counts}  {r.outcomes}  findings: {len(r.findings)}")
        for finding in r.findings[:20]:
            print("  " + finding)
        findings += len(r.findings)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
