"""Exact one-sided bear-off database: roll distributions for home-board positions.

For every position of at most ``max_checkers`` checkers on home points ``1..points``
(54,264 positions for 15 checkers on 6 points, the empty one included) the table holds

* the *off* distribution -- ``P(n rolls to bear off every checker)``, each roll played
  to minimise the expected number of rolls, and
* the *first-off* distribution -- ``P(n rolls until a first checker is off)``, each
  roll played to minimise the expected number of rolls until then (gammon chances).

Positions are indexed by the combinatorial number system, counting from the highest
point down: with ``s_j`` the checkers on the ``j`` highest points,
``index = sum_j comb(s_j + j - 1, j)``.  The empty position is 0, positions with fewer
checkers form a prefix and every successor of a position has a smaller index.

Probabilities are stored as fixed point, ``round(p * 2**31)`` in ``uint32``; slots that
round to zero at either end of a distribution are dropped (each tail lost is < 2**-32).
The table is built in C (about a second) and saved as a small checksummed file::

    magic b"PZBO" | version u16 | max_checkers u8 | points u8 | positions u32 |
    payload bytes u64 | SHA-256 of the payload (32 bytes) | payload

all little-endian; the payload is what ``_bearoff.build_one_sided`` returns.

:class:`TwoSidedBearoff` is the exact *two-sided* table for small positions: for every
pair of positions with at most ``max_checkers`` (default 6) checkers on the home points
it holds the probability that the player on roll wins when both sides play each roll to
maximise their winning chance (not to minimise rolls).  With at most 14 checkers a side
no gammon is possible, so that one number is the whole outcome.  Its file is the same
header with magic ``b"PZB2"`` and a payload of ``uint16`` ``round(p * 65535)``,
``[mover index][opponent index]`` (``_bearoff.build_two_sided``, well under a second).
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Sequence
from math import comb
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _bearoff

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_TWO_SIDED_PATH",
    "FORMAT_VERSION",
    "RACE_TABLE_POINTS",
    "OneSidedBearoff",
    "RaceTable",
    "TwoSidedBearoff",
    "tables_dir",
    "within_points",
]

FORMAT_VERSION: Final = 1
MAGIC: Final = b"PZBO"
SCALE: Final = float(2**31)
CHECKERS: Final = 15  # a side with all of them still on the board can be gammoned
_HEADER: Final = struct.Struct("<4sHBBIQ32s")

#: The committed database for 15 checkers on 6 points (see ``make bearoff``).
DEFAULT_PATH: Final = Path(__file__).resolve().parents[3] / "data" / "bearoff" / "one_sided_15x6.bin"

#: The two-sided database for up to 6 checkers a side on 6 points (see ``make bearoff``).
DEFAULT_TWO_SIDED_PATH: Final = DEFAULT_PATH.with_name("two_sided_6x6.bin")
MAGIC_TWO_SIDED: Final = b"PZB2"
SCALE_TWO_SIDED: Final = 65535.0

Position = int | Sequence[int]
FloatArray = npt.NDArray[np.float64]


def _pack(magic: bytes, max_checkers: int, points: int, positions: int, payload: bytes) -> bytes:
    """A table's file image: header (with the payload's SHA-256) followed by the payload."""
    digest = hashlib.sha256(payload).digest()
    head = _HEADER.pack(magic, FORMAT_VERSION, max_checkers, points, positions, len(payload), digest)
    return head + payload


def _unpack(data: bytes | memoryview, magic: bytes, what: str) -> tuple[bytes | memoryview, int, int, int]:
    """Check a file image's header and checksum; returns (payload, max_checkers, points, positions)."""
    if len(data) < _HEADER.size:
        raise ValueError(f"{what} file too short")
    found, version, k, p, n, size, digest = _HEADER.unpack_from(data)
    if found != magic or version != FORMAT_VERSION:
        raise ValueError(f"not a pulvezar {what} file of version {FORMAT_VERSION}")
    payload = data[_HEADER.size :]
    if len(payload) != size or n != comb(p + k, p):
        raise ValueError(f"{what} file truncated or inconsistent")
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError(f"{what} file checksum mismatch")
    return payload, k, p, n


def _index(checkers: Sequence[int], points: int, max_checkers: int) -> int:
    """The combinatorial index of a home board (counts on points 1, 2, ...; later entries must be 0)."""
    counts = list(checkers)
    if any(c < 0 for c in counts) or any(counts[points:]):
        raise ValueError(f"checkers must be non-negative and on points 1..{points}")
    counts = (counts + [0] * points)[:points]
    if sum(counts) > max_checkers:
        raise ValueError(f"at most {max_checkers} checkers")
    idx, s = 0, 0
    for j in range(1, points + 1):
        s += counts[points - j]
        idx += comb(s + j - 1, j)
    return idx


class OneSidedBearoff:
    """The one-sided bear-off table for ``max_checkers`` checkers on ``points`` points."""

    def __init__(self, payload: bytes, max_checkers: int = 15, points: int = 6) -> None:
        self.max_checkers = max_checkers
        self.points = points
        self.positions = comb(points + max_checkers, points)
        self.payload = payload
        n = self.positions
        head = np.frombuffer(payload, dtype=np.uint8, count=4 * n).reshape(n, 2, 2)
        self._lo = head[:, 0, :].astype(np.intp)  # [position, distribution]
        self._len = head[:, 1, :].astype(np.intp)
        ends = np.cumsum(self._len.ravel())
        if 4 * n + 4 * int(ends[-1]) != len(payload):
            raise ValueError("bear-off payload has the wrong length")
        self._start = (ends - self._len.ravel()).reshape(n, 2)
        self._q = np.frombuffer(payload, dtype="<u4", offset=4 * n)
        #: Number of roll slots (rolls 0 .. slots-1) a distribution can need.
        self.slots = int((self._lo + self._len).max())

    # --- building, saving, loading -------------------------------------------------

    @classmethod
    def build(cls, max_checkers: int = 15, points: int = 6) -> OneSidedBearoff:
        """Compute the table (deterministic: the same bytes on every build)."""
        return cls(_bearoff.build_one_sided(max_checkers, points), max_checkers, points)

    @property
    def sha256(self) -> str:
        """SHA-256 of the payload (the table itself), in hex."""
        return hashlib.sha256(self.payload).hexdigest()

    def to_bytes(self) -> bytes:
        """The file image: header followed by the payload."""
        return _pack(MAGIC, self.max_checkers, self.points, self.positions, self.payload)

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` (parent folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> OneSidedBearoff:
        """Parse a file image, verifying its format and checksum."""
        payload, k, p, _ = _unpack(data, MAGIC, "bear-off")
        return cls(bytes(payload), k, p)  # bytes in, the same bytes out: no copy

    @classmethod
    def load(cls, path: str | Path) -> OneSidedBearoff:
        """Read and verify a table written by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes())

    @classmethod
    def default(cls) -> OneSidedBearoff:
        """The 15-checker, 6-point table: the file `make bearoff` wrote, or a fresh build (about 1 s)."""
        if DEFAULT_PATH.exists():
            return cls.load(DEFAULT_PATH)
        return cls.build()

    # --- queries -------------------------------------------------------------------

    def index(self, checkers: Sequence[int]) -> int:
        """Index of ``checkers`` (counts on points 1, 2, ...; later entries must be 0).

        >>> db = OneSidedBearoff.build(3, 6)
        >>> db.index(()), db.index((1,)), db.index((0, 0, 0, 0, 0, 1))
        (0, 1, 6)
        """
        return _index(checkers, self.points, self.max_checkers)

    def checkers(self, index: int) -> tuple[int, ...]:
        """The position (counts on points 1..points) with this index."""
        if not 0 <= index < self.positions:
            raise IndexError(index)
        sums = [0] * (self.points + 1)
        for j in range(self.points, 0, -1):
            a = j - 1
            while comb(a + 1, j) <= index:
                a += 1
            index -= comb(a, j)
            sums[j] = a - (j - 1)
        return tuple(sums[self.points - q] - sums[self.points - q - 1] for q in range(self.points))

    def _dist(self, pos: Position, which: int) -> FloatArray:
        i = pos if isinstance(pos, int) else self.index(pos)
        if not 0 <= i < self.positions:
            raise IndexError(i)
        out = np.zeros(self.slots)
        lo, n, start = self._lo[i, which], self._len[i, which], self._start[i, which]
        out[lo : lo + n] = self._q[start : start + n] / SCALE
        return out

    def off_distribution(self, pos: Position) -> FloatArray:
        """``P(n rolls to bear off all checkers)`` for ``n = 0 .. slots-1``."""
        return self._dist(pos, 0)

    def first_off_distribution(self, pos: Position) -> FloatArray:
        """``P(n rolls until the first checker is off)`` for ``n = 0 .. slots-1``."""
        return self._dist(pos, 1)

    def mean_rolls(self, pos: Position) -> float:
        """Expected number of rolls to bear off all checkers."""
        d = self.off_distribution(pos)
        return float(d @ np.arange(len(d)))

    def mean_rolls_all(self, first_off: bool = False) -> FloatArray:
        """Expected rolls (to bear off all, or the first checker) of every position, by index."""
        which = int(first_off)
        lens = self._len[:, which]
        seg = np.repeat(np.arange(self.positions), lens)
        start = np.repeat(self._start[:, which], lens)
        within = np.arange(len(seg)) - np.repeat(np.cumsum(lens) - lens, lens)
        values = self._q[start + within] / SCALE
        slots = np.repeat(self._lo[:, which], lens) + within
        return np.bincount(seg, weights=values * slots, minlength=self.positions).astype(np.float64)

    def dense(self, first_off: bool = False) -> FloatArray:
        """All distributions as one ``(positions, slots)`` array (row = index)."""
        which = int(first_off)
        lens = self._len[:, which]
        seg = np.repeat(np.arange(self.positions), lens)
        start = np.repeat(self._start[:, which], lens)
        within = np.arange(len(seg)) - np.repeat(np.cumsum(lens) - lens, lens)
        out = np.zeros((self.positions, self.slots))
        out[seg, np.repeat(self._lo[:, which], lens) + within] = self._q[start + within] / SCALE
        return out

    def race_probabilities(
        self, mover_home: Sequence[int], opponent_home: Sequence[int]
    ) -> tuple[float, float, float]:
        """(P(win), P(win gammon), P(lose gammon)) of a no-contact home-board race.

        Both sides are given as counts on their own points 1..6 and the mover is on
        roll.  Each side plays to minimise its expected rolls; a side with all 15
        checkers on the board is gammoned unless its first checker comes off before
        the other side finishes.
        """
        fm, fo = self.off_distribution(mover_home), self.off_distribution(opponent_home)
        # at_least[n] = P(X >= n); the mover's n-th roll comes before the opponent's n-th
        at_least_o = np.cumsum(fo[::-1])[::-1]
        win = float(fm @ at_least_o)
        win_g = lose_g = 0.0
        if sum(opponent_home) == CHECKERS:
            win_g = float(fm @ np.cumsum(self.first_off_distribution(opponent_home)[::-1])[::-1])
        if sum(mover_home) == CHECKERS:
            gm = self.first_off_distribution(mover_home)
            more_than = np.concatenate([np.cumsum(gm[::-1])[::-1][1:], [0.0]])  # P(Y > n)
            lose_g = float(fo @ more_than)
        return win, win_g, lose_g


class TwoSidedBearoff:
    """Exact P(win) of no-contact home-board endgames with at most ``max_checkers`` a side.

    ``V(m, o)`` is the probability that the player on roll, with position ``m``, wins
    against ``o`` when both sides play every roll to maximise their winning chance.
    Positions use the one-sided index (:meth:`OneSidedBearoff.index`).  By definition
    ``V(empty, o) = 1`` (the mover has already borne off) and ``V(m, empty) = 0`` for a
    non-empty ``m``.

    >>> db = TwoSidedBearoff.build(2)
    >>> db.win_probability((1,), (1,)), round(db.win_probability((0, 0, 0, 0, 0, 1), (1,)), 4)
    (1.0, 0.75)
    """

    def __init__(self, payload: bytes, max_checkers: int = 6, points: int = 6) -> None:
        self.max_checkers = max_checkers
        self.points = points
        self.positions = comb(points + max_checkers, points)
        if len(payload) != 2 * self.positions**2:
            raise ValueError("two-sided bear-off payload has the wrong length")
        self.payload = payload
        n = self.positions
        self._q = np.frombuffer(payload, dtype="<u2").reshape(n, n)
        # C(s + j - 1, j) for s <= max_checkers checkers on the j highest points
        self._comb = np.array(
            [[comb(s + j - 1, j) if j else 0 for j in range(points + 1)] for s in range(max_checkers + 1)],
            dtype=np.intp,
        )

    # --- building, saving, loading -------------------------------------------------

    @classmethod
    def build(cls, max_checkers: int = 6, points: int = 6) -> TwoSidedBearoff:
        """Compute the table (deterministic: the same bytes on every build)."""
        return cls(_bearoff.build_two_sided(max_checkers, points), max_checkers, points)

    @property
    def sha256(self) -> str:
        """SHA-256 of the payload (the table itself), in hex."""
        return hashlib.sha256(self.payload).hexdigest()

    def to_bytes(self) -> bytes:
        """The file image: header followed by the payload."""
        return _pack(MAGIC_TWO_SIDED, self.max_checkers, self.points, self.positions, self.payload)

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` (parent folders are created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> TwoSidedBearoff:
        """Parse a file image, verifying its format and checksum."""
        payload, k, p, n = _unpack(data, MAGIC_TWO_SIDED, "two-sided bear-off")
        if len(payload) != 2 * n * n:
            raise ValueError("two-sided bear-off file truncated or inconsistent")
        return cls(bytes(payload), k, p)

    @classmethod
    def load(cls, path: str | Path) -> TwoSidedBearoff:
        """Read and verify a table written by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes())

    @classmethod
    def default(cls) -> TwoSidedBearoff:
        """The 6-checker, 6-point table: the file `make bearoff` wrote, or a fresh build (< 1 s)."""
        if DEFAULT_TWO_SIDED_PATH.exists():
            return cls.load(DEFAULT_TWO_SIDED_PATH)
        return cls.build()

    # --- queries -------------------------------------------------------------------

    def index(self, checkers: Sequence[int]) -> int:
        """Index of ``checkers`` (counts on points 1, 2, ...), as in :class:`OneSidedBearoff`."""
        return _index(checkers, self.points, self.max_checkers)

    def win_probability(self, mover_home: Position, opponent_home: Position) -> float:
        """P(the player on roll wins); each side given as counts on its points 1..points (or an index)."""
        m = mover_home if isinstance(mover_home, int) else self.index(mover_home)
        o = opponent_home if isinstance(opponent_home, int) else self.index(opponent_home)
        if not (0 <= m < self.positions and 0 <= o < self.positions):
            raise IndexError((m, o))
        return float(self._q[m, o]) / SCALE_TWO_SIDED

    def table(self) -> FloatArray:
        """The whole table as ``(positions, positions)`` floats, ``[mover, opponent]``."""
        return self._q / SCALE_TWO_SIDED

    def covers(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """``(N, 50)`` boards whose both sides have at most ``max_checkers`` checkers, all on
        points 1..points (the empty side included)."""
        b = np.asarray(boards, dtype=np.uint8).reshape(-1, 50)
        p, k = self.points, self.max_checkers
        result: npt.NDArray[np.bool_] = (
            (b[:, p:25].sum(axis=1) == 0)
            & (b[:, 25 + p : 50].sum(axis=1) == 0)
            & (b[:, 0:p].sum(axis=1, dtype=np.intp) <= k)
            & (b[:, 25 : 25 + p].sum(axis=1, dtype=np.intp) <= k)
        )
        return result

    def indices(self, home: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
        """Indices of ``(N, points)`` home boards (counts on points 1..points, covered)."""
        s = np.cumsum(np.asarray(home)[:, ::-1].astype(np.intp), axis=1)  # checkers on the j highest
        return np.asarray(self._comb[s, np.arange(1, self.points + 1)].sum(axis=1), dtype=np.intp)

    def win_probabilities(self, boards: npt.NDArray[np.uint8]) -> FloatArray:
        """P(win) of the player on roll for ``(N, 50)`` boards, all of them covered."""
        b = np.asarray(boards, dtype=np.uint8).reshape(-1, 50)
        if not self.covers(b).all():
            raise ValueError(f"boards outside the two-sided table ({self.max_checkers} checkers on 1..6)")
        im = self.indices(b[:, 0 : self.points])
        io = self.indices(b[:, 25 : 25 + self.points])
        return np.asarray(self._q[im, io], dtype=np.float64) / SCALE_TWO_SIDED


#: The race tables' committed records (package data: an installed pulvezar checks its builds against them).
RECORDS: Final = Path(__file__).resolve().parent / "data"

#: The race table's points in models that name one (``race_table_points``; see :class:`RaceTable`).
RACE_TABLE_POINTS: Final = 9


def within_points(boards: npt.NDArray[np.uint8], points: int) -> npt.NDArray[np.bool_]:
    """``(N, 50)`` boards whose both sides have every checker on points ``1..points`` (or off)."""
    b = np.asarray(boards, dtype=np.uint8).reshape(-1, 50)
    outside = b[:, points:25].any(axis=1) | b[:, 25 + points :].any(axis=1)
    return np.logical_not(outside)


def tables_dir() -> Path:
    """Where built race tables are kept: ``PULVEZAR_TABLES`` when set, else ``data/bearoff`` of the
    repository when it is writable, else ``~/.cache/pulvezar/tables``."""
    override = os.environ.get("PULVEZAR_TABLES")
    if override:
        return Path(override)
    if DEFAULT_PATH.parent.is_dir() and os.access(DEFAULT_PATH.parent, os.W_OK):
        return DEFAULT_PATH.parent
    return Path.home() / ".cache" / "pulvezar" / "tables"


_LOADED: dict[tuple[int, str], RaceTable] = {}


def _save_atomically(db: OneSidedBearoff, path: Path) -> None:
    """Write ``db`` to ``path`` through a temporary file, so a reader sees the whole table or none."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    db.save(tmp)
    os.replace(tmp, path)


class RaceTable:
    """Race values from a one-sided table of 15 checkers on ``points`` points (7 to 10), beyond the
    home board: for a race whose both sides have every checker on points ``1..points``, each side's
    distribution of the rolls it needs (playing each roll to minimise them) gives the mover's chance to
    win (:func:`_bearoff.race_probabilities`; the same rule as the home-board table's races, and as
    GNU Backgammon's one-sided databases).  No checker can be in the other side's home board, so no
    backgammon; gammons from the first-off distributions.

    The table is built in C (15x9: 1,307,504 positions, about 45 s and 96 MB) once and kept in
    :func:`tables_dir`; its payload's SHA-256 must match the committed record
    ``pulvezar/eval/data/race_table_15xP.json``, so a changed builder cannot change values unnoticed.
    """

    def __init__(self, payload: bytes | memoryview, points: int) -> None:
        if not 6 < points <= 10:
            raise ValueError("a race table has 7 to 10 points")
        self.points = points
        self.positions = comb(points + CHECKERS, points)
        n = self.positions
        lens = np.frombuffer(payload, dtype=np.uint8, count=4 * n).reshape(n, 2, 2)[:, 1, :].ravel()
        ends = np.cumsum(lens, dtype=np.uint64)
        if 4 * n + 4 * int(ends[-1]) != len(payload):
            raise ValueError("race table payload has the wrong length")
        self.payload = payload
        self._starts = (ends - lens).astype("<u4").tobytes()

    @classmethod
    def record(cls, points: int) -> dict[str, object]:
        """The committed record of the 15-checker table on ``points`` points (its checksums)."""
        import json

        path = RECORDS / f"race_table_15x{points}.json"
        if not path.exists():
            raise ValueError(f"no committed race table for {points} points ({path.name})")
        record: dict[str, object] = json.loads(path.read_text())
        return record

    @classmethod
    def cached(cls, points: int = RACE_TABLE_POINTS) -> RaceTable:
        """The table, loaded from :func:`tables_dir` or built there first (one builder at a time, the
        file replaced atomically); a file whose payload is not the committed one is built again. Once
        per process and folder: later calls return the same table."""
        key = (points, str(tables_dir()))
        table = _LOADED.get(key)
        if table is None:
            table = _LOADED[key] = cls._cached(points)
        return table

    @classmethod
    def _cached(cls, points: int) -> RaceTable:
        import fcntl

        expected = cls.record(points)["payload_sha256"]
        folder = tables_dir()
        path = folder / f"one_sided_15x{points}.bin"
        table = cls._load_if_current(path, points, expected)
        if table is not None:
            return table
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f".one_sided_15x{points}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it now
            table = cls._load_if_current(path, points, expected)
            if table is not None:
                return table
            db = OneSidedBearoff.build(CHECKERS, points)
            if db.sha256 != expected:
                raise ValueError(f"the {points}-point race table built here is not the committed one")
            _save_atomically(db, path)
            return cls(db.payload, points)

    @classmethod
    def _load_if_current(cls, path: Path, points: int, expected: object) -> RaceTable | None:
        if not path.exists():
            return None
        import mmap

        with open(path, "rb") as f:  # mapped: processes on one host share the pages
            data = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        try:
            payload, k, p, _ = _unpack(data, MAGIC, "bear-off")  # the payload hashed once, against the header
        except ValueError:
            return None
        if (k, p) != (CHECKERS, points) or _HEADER.unpack_from(data)[-1].hex() != expected:
            return None
        return cls(payload, points)

    def covers(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """``(N, 50)`` boards whose both sides have every checker on points ``1..points`` (or off)."""
        return within_points(boards, self.points)

    def probabilities(self, boards: npt.NDArray[np.uint8]) -> FloatArray:
        """``(N, 5)`` probabilities of covered boards for the player on roll (a ValueError otherwise)."""
        raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        out = _bearoff.race_probabilities(self.payload, self._starts, self.points, raw.tobytes())
        return np.frombuffer(out, dtype=np.float64).reshape(-1, 5).copy()


def main(argv: Sequence[str] | None = None) -> int:
    """Build the 15x6 one-sided and the 6x6 two-sided tables, write them (default:
    :data:`DEFAULT_PATH`, :data:`DEFAULT_TWO_SIDED_PATH`) and a JSON record beside each."""
    import argparse
    import json
    import time

    parser = argparse.ArgumentParser(prog="python -m pulvezar.eval.bearoff", description=main.__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--two-sided", type=Path, default=DEFAULT_TWO_SIDED_PATH, metavar="PATH")
    parser.add_argument(
        "--race-table",
        type=int,
        metavar="POINTS",
        help="instead: make sure the 15-checker race table on POINTS points is built in tables_dir() "
        "(nothing to do when it is)",
    )
    parser.add_argument("--record", action="store_true", help="with --race-table: write its record (RECORDS)")
    args = parser.parse_args(argv)
    if args.race_table is not None:
        return _race_table_main(args.race_table, args.record)
    builders: list[tuple[Path, type[OneSidedBearoff] | type[TwoSidedBearoff]]] = [
        (args.path, OneSidedBearoff),
        (args.two_sided, TwoSidedBearoff),
    ]
    for path, cls in builders:
        start = time.perf_counter()
        db = cls.build()
        seconds = time.perf_counter() - start
        db.save(path)
        image = path.read_bytes()
        record = {
            "file": path.name,
            "format_version": FORMAT_VERSION,
            "max_checkers": db.max_checkers,
            "points": db.points,
            "positions": db.positions,
            "bytes": len(image),
            "sha256": hashlib.sha256(image).hexdigest(),
            "payload_sha256": db.sha256,
        }
        path.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
        print(f"{path}: {len(image)} bytes, built in {seconds:.2f} s")
        print(f"sha256 {record['sha256']}")
    return 0


def _race_table_main(points: int, record: bool) -> int:
    """``--race-table``: build (or find) the race table; with ``record``, write its record first."""
    import json
    import time

    start = time.perf_counter()
    if record:
        db = OneSidedBearoff.build(CHECKERS, points)
        info = {
            "file": f"one_sided_15x{points}.bin",
            "format_version": FORMAT_VERSION,
            "max_checkers": CHECKERS,
            "points": points,
            "positions": db.positions,
            "bytes": _HEADER.size + len(db.payload),
            "payload_sha256": db.sha256,
        }
        (RECORDS / f"race_table_15x{points}.json").write_text(json.dumps(info, indent=2) + "\n")
        tables_dir().mkdir(parents=True, exist_ok=True)
        _save_atomically(db, tables_dir() / f"one_sided_15x{points}.bin")  # so cached() does not build again
    table = RaceTable.cached(points)
    seconds = time.perf_counter() - start
    print(f"race table 15x{points}: {table.positions} positions in {tables_dir()} ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
