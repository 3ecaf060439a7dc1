"""Hostile match files: every reader answers a typed error or a bounded record, in time linear in its input.

The corpus is built in code (nothing is committed): the 60-byte-class ``.mat`` whose play made the old
play pattern backtrack exponentially, the ``.xg`` whose 64 archive entries share one zlib bomb, SGF
nested 100,000 deep, 10,000-digit numbers, truncated archives and zlib streams, invalid UTF-8, NUL
bytes, very long lines, a million empty games.  Each format's cases run in one subprocess under
RLIMIT_CPU and RLIMIT_AS, so a regression fails (killed, or MemoryError) instead of hanging the suite.
The linearity cases time input of size n and 8n (CPU time, best of three) with the caps raised, so that
the parsing itself is measured: linear work gives a ratio near 8, quadratic near 64.

``python tests/formats/test_hostile_files.py FORMAT`` runs one format's cases and prints one JSON line
per case (the subprocess side of these tests).
"""

from __future__ import annotations

import json
import resource
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

DATA = Path(__file__).parent / "data"
CPU_SECONDS = 60  # one format's cases together; the readers need a few seconds at most
MEMORY_BYTES = 1 << 30
RATIO_LIMIT = 24.0  # t(8n) / t(n): linear ~8, quadratic ~64
FUZZ_EXAMPLES = 200  # per reader; `make fuzz` runs bench/fuzz_parsers.py for longer
MIB = 1024 * 1024

# ---- building the corpus ----------------------------------------------------------------------------


def _mat_game(lines: str) -> str:
    return f" 7 point match\n\n Game 1\n Ann : 0                        Bob : 0\n{lines}\n"


def mat_backtracking_play(segments: int = 40) -> str:
    """The issue's case: a play of ``1/11/11/.../11x`` (the old pattern: 20 segments 1.4 s, x4 per two)."""
    return _mat_game("  1) 31: 1" + "/11" * segments + "x")


def mat_item_spaces(n: int = 60_000) -> str:
    """A play followed by a long run of spaces, then junk (``(.*?)\\s*$`` is quadratic on it)."""
    return _mat_game("  1) 31: 8/5" + " " * n + "x")


def mat_score_colons(n: int = 12_000) -> str:
    """A score line of ``a: 1 `` repeated (the old lazy two-name pattern is quadratic on it)."""
    return " 7 point match\n Game 1\n" + "a: 1 " * n + "\n"


def mat_tag_spaces(n: int = 60_000) -> str:
    """A tag line ``; [`` with a long run of spaces and no closing quote."""
    return "; [" + " " * n + "x\n" + _mat_game("")


def gnubg_score_commas(n: int = 12_000) -> str:
    """A gnubg text score line with ``a 1, `` repeated: the old lazy and greedy name groups are quadratic."""
    return "The score (after 0 games) is: " + "a 1, " * n + "b 2 (match to 7 points)\n"


def gnubg_candidate_gaps(n: int = 20_000) -> str:
    """A candidate line of two-space gaps and no ``Eq.:``: cubic for the old three-lazy-group pattern."""
    return "*  1. a" + "  a" * n


def sniff_newlines(n: int = 65_536) -> bytes:
    """A run of newlines: the old sniff's ``^\\s*`` rescans it from every line start."""
    return b"\n" * n + b"x"


def sgf_deep(depth: int = 100_000) -> str:
    return "(;GM[6]" + "(;" * depth + ")" * (depth + 1)


def sgf_charset_sniff(n: int = 2_000_000) -> bytes:
    """``CA[`` repeated with no ``]``: the old charset search scans to the end from each one."""
    return b"CA[" * n


def _xg_good() -> bytes:
    return (DATA / "test.xg").read_bytes()


def _xg_temp() -> bytes:
    from pulvezar.formats.xg import _archive

    return _archive(_xg_good())["temp.xg"]


def _xg_container(
    entries: list[tuple[str, int, int, int, int]], body: bytes, count: int | None = None
) -> bytes:
    """An ``.xg`` file: ``entries`` are (name, size, compressed size, offset in ``body``, CRC)."""
    index = b"".join(
        bytes([len(name)]) + name.encode().ljust(255, b"\0") + bytes(256)
        + struct.pack("<iiiI", size, csize, at, crc) + bytes([0, 6, 0, 0])
        for name, size, csize, at, crc in entries
    )  # fmt: skip
    registry = zlib.compress(index)
    crc = zlib.crc32(body + registry)
    n = len(entries) if count is None else count
    tail = struct.pack("<Iiiiii", crc, n, 1, len(registry), len(body), 1) + bytes(12)
    return _xg_good()[:8232] + body + registry + tail


def _zeros_packed(size: int) -> tuple[bytes, int]:
    return zlib.compress(bytes(size), 9), zlib.crc32(bytes(size))


def xg_shared_bomb() -> bytes:
    """The real temp.xg, then 63 entries of 64 MiB (4 GiB declared) on the same 64 KB of zlib data."""
    temp = _xg_temp()
    packed = zlib.compress(temp)
    bomb, bomb_crc = _zeros_packed(64 * MIB)
    entries = [("temp.xg", len(temp), len(packed), 0, zlib.crc32(temp))]
    entries += [(f"junk{i:02d}", 64 * MIB, len(bomb), len(packed), bomb_crc) for i in range(63)]
    return _xg_container(entries, packed + bomb)


def xg_declared_huge() -> bytes:
    temp = _xg_temp()
    packed = zlib.compress(temp)
    return _xg_container([("temp.xg", 256 * MIB, len(packed), 0, zlib.crc32(temp))], packed)


def xg_lying_size() -> bytes:
    """temp.xg says it is 1 KB; its zlib data inflates to 64 MiB."""
    bomb, _ = _zeros_packed(64 * MIB)
    return _xg_container([("temp.xg", 1024, len(bomb), 0, 0)], bomb)


def xg_truncated_stream() -> bytes:
    temp = _xg_temp()
    packed = zlib.compress(temp)[:2000]
    return _xg_container([("temp.xg", len(temp), len(packed), 0, zlib.crc32(temp))], packed)


def xg_many_entries() -> bytes:
    temp = _xg_temp()
    packed = zlib.compress(temp)
    return _xg_container([("temp.xg", len(temp), len(packed), 0, zlib.crc32(temp))], packed, count=100_000)


# the subprocess each reader's cases run in (one per format; gnubg text's helpers with it)
GROUPS = {"mat": "mat", "sgf": "sgf", "xg": "xg", "gmd": "gmd"} | dict.fromkeys(
    ("txt", "sniff", "candidate", "stored_candidate"), "text"
)

# case -> (format, builder, expected: a Limits cap name, "error" (a typed error) or "ok")
CASES: dict[str, tuple[str, Callable[[], Any], str]] = {
    "mat_backtracking_play": ("mat", mat_backtracking_play, "error"),
    "mat_item_spaces": ("mat", mat_item_spaces, "error"),
    "mat_score_colons": ("mat", mat_score_colons, "ok"),
    "mat_tag_spaces": ("mat", mat_tag_spaces, "ok"),
    "mat_huge_length": ("mat", lambda: " " + "9" * 10_000 + " point match\n", "max_digits"),
    "mat_huge_cube": (
        "mat",
        lambda: _mat_game("  1)                             31: 8/5 6/5\n  2)  Doubles => " + "8" * 5000),
        "max_digits",
    ),
    "mat_huge_score": (
        "mat",
        lambda: " 7 point match\n Game 1\n a : " + "1" * 5000 + "  b : 0\n",
        "max_digits",
    ),
    "mat_million_games": ("mat", lambda: " Game 1\n" * 999_999, "max_games"),
    "mat_many_actions": ("mat", lambda: _mat_game("  1)  Takes\n" * 20_000), "max_actions"),
    "mat_long_line": ("mat", lambda: "x" * (10 * MIB), "max_line_chars"),
    "mat_too_big": ("mat", lambda: b" " * (16 * MIB + 1), "max_bytes"),
    "mat_many_lines": ("mat", lambda: "\n" * 1_000_001, "max_lines"),
    "mat_nul_bytes": ("mat", lambda: b"\0\n" * 500_000, "error"),
    "mat_invalid_utf8": ("mat", lambda: b" 7 point match\n Game 1\n\xff\xfe\xc3(" * 10_000, "error"),
    "sgf_deep_nesting": ("sgf", sgf_deep, "sgf_max_depth"),
    "sgf_unclosed_nesting": ("sgf", lambda: "(" * 1_000_000, "sgf_max_depth"),
    "sgf_charset_sniff": ("sgf", lambda: sgf_charset_sniff(500_000), "error"),
    "sgf_huge_length": ("sgf", lambda: "(;GM[6]MI[length:" + "9" * 10_000 + "])", "max_digits"),
    "sgf_superscript_cube": ("sgf", lambda: "(;GM[6]MI[length:7];CV[" + "²" * 3 + "])", "ok"),
    "sgf_huge_result": ("sgf", lambda: "(;GM[6]RE[W+" + "9" * 5000 + "])", "max_digits"),
    "sgf_idna_charset": ("sgf", lambda: b"(;GM[6]CA[idna]C[\xff\xfe])", "ok"),
    "sgf_many_nodes": ("sgf", lambda: "(;GM[6]" + ";" * 600_000 + ")", "sgf_max_nodes"),
    "sgf_unclosed_value": ("sgf", lambda: "(;GM[6]C[" + "a" * 1_000_000, "error"),
    "sgf_long_comment": ("sgf", lambda: "(;FF[4]GM[6]MI[length:1]C[" + "a\\]" * 500_000 + "])", "ok"),
    "sgf_nul_bytes": ("sgf", lambda: b"\0" * 1_000_000, "error"),
    "xg_shared_bomb": ("xg", xg_shared_bomb, "ok"),
    "xg_declared_huge": ("xg", xg_declared_huge, "xg_max_entry_bytes"),
    "xg_lying_size": ("xg", xg_lying_size, "error"),
    "xg_truncated_stream": ("xg", xg_truncated_stream, "error"),
    "xg_truncated_file": ("xg", lambda: _xg_good()[: len(_xg_good()) // 2], "error"),
    "xg_many_entries": ("xg", xg_many_entries, "xg_max_entries"),
    "xg_invalid_bytes": ("xg", lambda: b"RGMH" + b"\xff" * 100_000, "error"),
    "gmd_huge_length": ("gmd", lambda: "GMD-1\nLength: " + "9" * 10_000 + "\n", "max_digits"),
    "gmd_huge_point": ("gmd", lambda: "GMD-1\nGame:\nMove: W: " + "9" * 10_000 + "/1\n", "error"),
    "gmd_huge_resign": ("gmd", lambda: "GMD-1\nGame:\nResign: W: " + "9" * 5000 + "\n", "max_digits"),
    "gmd_many_actions": ("gmd", lambda: "GMD-1\nGame:\n" + "Roll: W: 3 1\n" * 10_001, "max_actions"),
    "gmd_many_games": ("gmd", lambda: "GMD-1\n" + "Game:\n" * 10_001, "max_games"),
    "gmd_invalid_utf8": ("gmd", lambda: b"GMD-1\n\xff\xfe\xc3(: x\n", "error"),
    "txt_score_commas": ("txt", gnubg_score_commas, "ok"),
    "txt_huge_games": (
        "txt",
        lambda: "The score (after " + "9" * 5000 + " games) is: a 1, b 2\n",
        "max_digits",
    ),
    "txt_nul_bytes": ("txt", lambda: b"\0\n" * 500_000, "error"),
    "sniff_newlines": ("sniff", sniff_newlines, "ok"),
    "sniff_position_ids": ("sniff", lambda: b"Position ID:" + b"x" * 70_000, "ok"),
}


def _linear_inputs() -> dict[str, tuple[str, Callable[[int], Any], int]]:
    """case -> (format, input of size n, n): n is about 0.1-0.5 MB of text."""
    return {
        "mat_play": ("mat", lambda n: mat_backtracking_play(n), 40_000),
        "mat_item_spaces": ("mat", mat_item_spaces, 100_000),
        "mat_score_colons": ("mat", mat_score_colons, 20_000),
        "mat_tag_spaces": ("mat", mat_tag_spaces, 100_000),
        "txt_score_commas": ("txt", gnubg_score_commas, 20_000),
        "txt_candidate_gaps": ("candidate", gnubg_candidate_gaps, 30_000),
        "stored_candidate_gaps": ("stored_candidate", gnubg_candidate_gaps, 30_000),
        "sniff_newlines": ("sniff", sniff_newlines, 8_000),
        "sgf_nesting": ("sgf", lambda n: "(;GM[6]" + "(;" * n + ")" * (n + 1), 10_000),
        "sgf_charset_sniff": ("sgf", sgf_charset_sniff, 20_000),
        "gmd_games": ("gmd", lambda n: "GMD-1\n" + "Game:\n" * n, 1_000),
    }


# ---- the subprocess side ----------------------------------------------------------------------------


def _reader(fmt: str, raised: bool) -> Callable[[Any], Any]:
    """The reader of ``fmt``; with ``raised`` caps so high that only the parsing is measured."""
    import pulvezar.formats as f
    from pulvezar.formats import gnubgtext, stored_analysis

    if fmt == "sniff":
        return gnubgtext.is_gnubg_text
    if fmt == "candidate":
        return gnubgtext._candidate
    if fmt == "stored_candidate":
        return stored_analysis._text_candidate
    fn = {"mat": f.read_mat, "sgf": f.read_sgf, "xg": f.read_xg, "gmd": f.read_gmd, "txt": f.read_gnubg_text}[
        fmt
    ]
    try:
        from pulvezar.formats.limits import Limits
    except ImportError:  # a reader from before the caps (checking that these tests fail on it)
        return fn
    if not raised:
        return fn

    big = Limits(
        max_bytes=1 << 40, max_lines=1 << 40, max_line_chars=1 << 40, max_games=1 << 40, sgf_max_depth=1 << 40
    )
    return lambda data: fn(data, limits=big)


def _outcome(fn: Callable[[Any], Any], data: Any) -> dict[str, Any]:
    from pulvezar.errors import PulvezarError

    start = time.process_time()
    try:
        fn(data)
        out: dict[str, Any] = {"outcome": "ok"}
    except PulvezarError as e:
        out = {
            "outcome": "error",
            "type": type(e).__name__,
            "cap": getattr(e, "cap", None),
            "message": str(e),
        }
    except BaseException as e:
        out = {"outcome": "untyped", "type": type(e).__name__, "message": str(e)[:300]}
    out["cpu_s"] = round(time.process_time() - start, 4)
    return out


def _best_cpu(fn: Callable[[Any], Any], data: Any) -> float:
    """CPU seconds of one call, best of three; cheap calls are repeated until a round takes 10 ms."""
    out = _outcome(fn, data)
    if out["outcome"] == "untyped":
        raise RuntimeError(f"{out['type']}: {out['message']}")
    reps = 1
    while True:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            for _ in range(reps):
                _outcome(fn, data)
            best = min(best, time.process_time() - start)
        if best >= 0.01 or reps >= 4096:
            return max(best, 1e-6) / reps
        reps *= 8


def run_group(group: str) -> None:
    """Print one JSON line per case of ``group`` (a ``start`` line first, so a killed run names its case)."""
    for name, (fmt, build, _) in CASES.items():
        if GROUPS[fmt] != group:
            continue
        print(json.dumps({"case": name, "start": True}), flush=True)
        print(json.dumps({"case": name, **_outcome(_reader(fmt, False), build())}), flush=True)
    for name, (fmt, make, n) in _linear_inputs().items():
        if GROUPS[fmt] != group:
            continue
        print(json.dumps({"case": f"linear:{name}", "start": True}), flush=True)
        try:
            fn = _reader(fmt, True)
            small, large = _best_cpu(fn, make(n)), _best_cpu(fn, make(8 * n))
            result: dict[str, Any] = {"small_s": small, "large_s": large, "ratio": round(large / small, 2)}
        except Exception as e:
            result = {"outcome": "untyped", "type": type(e).__name__, "message": str(e)[:300]}
        print(json.dumps({"case": f"linear:{name}", **result}), flush=True)


# ---- the tests --------------------------------------------------------------------------------------


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


@cache
def _results(group: str) -> dict[str, dict[str, Any]]:
    """Each case's line from one group's subprocess; a case that started and never ended is 'killed'."""
    proc = subprocess.run(
        [sys.executable, __file__, group],
        capture_output=True,
        text=True,
        preexec_fn=_limits,
        timeout=10 * CPU_SECONDS,  # only a process stuck off the CPU gets here
        check=False,
    )
    results: dict[str, dict[str, Any]] = {}
    for line in proc.stdout.splitlines():
        row = json.loads(line)
        results[row["case"]] = row
    for name, row in results.items():
        if row.get("start"):
            row.update(outcome="killed", message=f"rc {proc.returncode}: {proc.stderr[-500:]}")
            results[name] = row
    return results


def _result(fmt: str, case: str) -> dict[str, Any]:
    row = _results(GROUPS[fmt]).get(case)
    assert row is not None, f"{case} never ran: an earlier case of {GROUPS[fmt]} killed the subprocess"
    return row


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_file_is_refused_or_read_within_bounds(case: str) -> None:
    fmt, _, expected = CASES[case]
    row = _result(fmt, case)
    assert row["outcome"] in ("ok", "error"), f"{case}: {row}"
    if expected == "ok":
        assert row["outcome"] == "ok", f"{case}: {row}"
    elif expected == "error":
        assert row["outcome"] == "error", f"{case}: {row}"
    else:
        assert row.get("cap") == expected, f"{case}: expected the cap {expected}, got {row}"
        assert expected in row["message"], row


@pytest.mark.parametrize("case", list(_linear_inputs()))
def test_parsing_is_linear(case: str) -> None:
    fmt = _linear_inputs()[case][0]
    row = _result(fmt, f"linear:{case}")
    assert "ratio" in row, f"{case}: {row}"
    assert row["ratio"] < RATIO_LIMIT, f"{case}: 8x the input cost {row['ratio']}x the CPU ({row})"


@pytest.mark.parametrize("fmt", ["mat", "sgf", "xg", "gmd", "txt"])
def test_fuzz_reader(fmt: str, bench_module: Callable[[str], Any]) -> None:
    """Random bytes and mutations of a real file's first game: a record or a typed error, nothing else."""
    fuzz = bench_module("fuzz_parsers")

    @settings(
        max_examples=FUZZ_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(fuzz.examples(fmt, small=True))
    def one(data: bytes) -> None:
        outcome, _ = fuzz.check(fmt, data)
        assert not outcome.startswith("untyped"), outcome

    one()


def test_a_cap_can_be_lowered_per_read() -> None:
    from pulvezar.formats import read_mat
    from pulvezar.formats.limits import FileTooLargeError, Limits

    text = (DATA / "7point.mat").read_text()
    assert read_mat(text).games
    with pytest.raises(FileTooLargeError, match="max_games=2") as caught:
        read_mat(text, limits=Limits(max_games=2))
    assert caught.value.cap == "max_games" and caught.value.limit == 2


if __name__ == "__main__":
    run_group(sys.argv[1])
