"""Similar positions: a similarity metric and an in-memory archive index.

**The metric.**  Two positions are compared as the player on roll sees each of
them (a position and its :meth:`~pulvezar.Position.swap` are different
decisions).  Each side's 15 checkers are a distribution over 26 bins: off (0),
the points 1..24 in the owner's numbering, and the bar (25).  Five terms, each
in 0..1, are weighted and summed (:data:`WEIGHTS`):

===========  ======  ===========================================================
term         weight  what
===========  ======  ===========================================================
overlap      0.30    checkers in the same place: ``sum(min(a_b, b_b)) / 30`` over
                     both sides' 26 bins (1 only for identical boards)
shape        0.25    ``1 - EMD / 80``, floored at 0: EMD is the earth mover's
                     distance of each side's distribution (the pips one must
                     move to turn one into the other, ``sum |cdf_a - cdf_b|``),
                     summed over the sides
points       0.20    Jaccard index of the points made (two or more checkers)
                     by both sides: ``|A & B| / |A | B|`` (1 when neither has any)
pips         0.10    ``1 - (|dpip_player| + |dpip_opponent|) / 60``, floored at 0
type         0.15    1 for the same :func:`~pulvezar.analysis.classify` type and
                     side, 0.5 for the same type with the other side, else 0
===========  ======  ===========================================================

The similarity is symmetric, lies in 0..1 (shown as 0..100 %) and is 1
exactly for identical boards (the overlap term is 1 only then).  The scales
(80 pips of EMD, 60 pips) make a position one roll per side away score about
85-95 %, and two random positions of different games rarely reach the
default threshold of 60 % (``bench/similar.py`` prints the share).

**The index.**  :class:`ArchiveIndex` keeps entries (:class:`ArchiveEntry`: a
position from an analysed match or a saved library position, with what is
known about it) as fixed-width numpy arrays; :meth:`ArchiveIndex.query`
values every entry at once (no Python loop over entries) and returns the best
hits (:class:`ArchiveHit`) at or above ``min_similarity``, at most ``limit`` (equal similarities
by entry id).
:meth:`ArchiveIndex.save` and :meth:`ArchiveIndex.load` keep it in one
compressed ``.npz`` file (boards as bytes, metadata as JSON lines).

>>> from pulvezar import Position
>>> index = ArchiveIndex()
>>> index.add([ArchiveEntry("lib:1", Position.start().position_id, "library", name="start")])
1
>>> [(h.entry.name, h.percent) for h in index.query(Position.start())]
[('start', 100)]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

import numpy as np
import numpy.typing as npt

from pulvezar.errors import PulvezarError
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

if TYPE_CHECKING:
    from pulvezar.analysis.classify import PositionType

Source = Literal["match", "library"]
SOURCES: tuple[Source, ...] = ("match", "library")

WEIGHTS: dict[str, float] = {"overlap": 0.30, "shape": 0.25, "points": 0.20, "pips": 0.10, "type": 0.15}
"""Weight of each term of the similarity (see the module); they sum to 1."""

EMD_SCALE = 80.0
PIP_SCALE = 60.0
DEFAULT_LIMIT = 12
DEFAULT_MIN_SIMILARITY = 0.6
MAX_LIMIT = 1000

KINDS: tuple[str, ...] = ("opening", "race", "bear-off", "blitz", "backgame", "prime", "holding", "contact")
_SIDES: tuple[str | None, ...] = (None, "player", "opponent")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FILE_VERSION = 1

Floats = npt.NDArray[np.float64]


# ---- entries and hits ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One archived position and what is known about it.

    ``id`` is unique in an index (adding an existing id replaces the entry).
    ``source`` is ``"match"`` (a decision of an analysed match: ``match`` names
    the match, ``game`` and ``move`` count from 1) or ``"library"`` (a saved
    position: ``name``, ``tags``, ``note``).  ``date`` is an ISO date
    (``YYYY-MM-DD``), ``play`` the play (or cube action) made then, ``dice`` the
    roll if there was one, ``match_id`` gnubg's Match ID when the match state is
    known, ``rules`` a :attr:`Rules.name <pulvezar.Rules.name>`.  ``kind`` and
    ``side`` are the position type; left out, they are computed by
    :func:`~pulvezar.analysis.classify`.  ``player`` is who saved a library
    position (an id of the platform's players), if anyone was named.
    """

    id: str
    position_id: str
    source: Source = "match"
    name: str | None = None
    match: str | None = None
    game: int | None = None
    move: int | None = None
    date: str | None = None
    play: str | None = None
    dice: tuple[int, int] | None = None
    match_id: str | None = None
    rules: str = "international"
    tags: tuple[str, ...] = ()
    note: str | None = None
    kind: str | None = None
    side: str | None = None
    player: str | None = None
    position: Position = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or len(self.id) > 200:
            raise PulvezarError("an entry id is a non-empty string of at most 200 characters", field="id")
        pos = Position.from_position_id(self.position_id)
        object.__setattr__(self, "position", pos)
        object.__setattr__(self, "position_id", pos.position_id)
        if self.source not in SOURCES:
            raise PulvezarError(f"source is 'match' or 'library', got {self.source!r}", field="source")
        rules_of(self.rules)
        if self.date is not None:
            check_date(self.date)
        for name in ("game", "move"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise PulvezarError(f"{name} counts from 1, got {v!r}", field=name)
        if self.dice is not None:
            d = tuple(self.dice)
            if len(d) != 2 or not all(type(x) is int and 1 <= x <= 6 for x in d):
                raise PulvezarError(f"dice must be two integers 1..6, got {self.dice!r}", field="dice")
            object.__setattr__(self, "dice", (d[0], d[1]))
        object.__setattr__(self, "tags", tuple(str(t) for t in self.tags))
        if self.player is not None and (not isinstance(self.player, str) or not 0 < len(self.player) <= 32):
            raise PulvezarError("player is a string of 1 to 32 characters", field="player")
        if self.kind is None:
            t = _classify(pos)
            object.__setattr__(self, "kind", t.kind)
            object.__setattr__(self, "side", t.side)
        elif self.kind not in KINDS or self.side not in _SIDES:
            raise PulvezarError(f"unknown position type {self.kind!r} / {self.side!r}", field="kind")

    @property
    def position_type(self) -> PositionType:
        from pulvezar.analysis.classify import PositionType

        return PositionType(self.kind, self.side)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (``from_dict`` reads it back)."""
        d = {f: getattr(self, f) for f in _FIELDS}
        d["dice"] = None if self.dice is None else list(self.dice)
        d["tags"] = list(self.tags)
        return d

    @classmethod
    def trusted(cls, d: dict[str, Any], position: Position | None = None) -> ArchiveEntry:
        """An entry from :meth:`as_dict` output that this library wrote and validated before (an
        index file, the platform's store): no checks, no type computation, ``position`` decoded by
        the kernel unless given.  Use :meth:`from_dict` for anything else."""
        if d.get("kind") is None:
            return cls.from_dict(d)
        e = object.__new__(cls)
        for f in _FIELDS:
            object.__setattr__(e, f, d.get(f, _DEFAULTS.get(f)))
        dice = d.get("dice")
        object.__setattr__(e, "dice", None if dice is None else (dice[0], dice[1]))
        object.__setattr__(e, "tags", tuple(d.get("tags") or ()))
        if position is None:
            position = Position._from_board(_kernel.board_from_position_id(d["position_id"]))
        object.__setattr__(e, "position", position)
        return e

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ArchiveEntry:
        """An entry from :meth:`as_dict`'s form; unknown keys are an error."""
        if not isinstance(d, dict):
            raise PulvezarError("an archive entry is a JSON object", field="entry")
        known = {f for f in cls.__dataclass_fields__ if f != "position"}
        extra = sorted(set(d) - known)
        if extra:
            raise PulvezarError(f"unknown entry fields: {', '.join(extra)}", field=extra[0])
        for key in ("id", "position_id"):
            if key not in d:
                raise PulvezarError(f"an archive entry needs {key!r}", field=key)
        args = dict(d)
        if args.get("dice") is not None:
            args["dice"] = tuple(args["dice"]) if isinstance(args["dice"], list | tuple) else args["dice"]
        if "tags" in args:
            tags = args["tags"]
            if not isinstance(tags, list | tuple):
                raise PulvezarError("tags is a list of strings", field="tags")
            args["tags"] = tuple(tags)
        return cls(**args)


_FIELDS: tuple[str, ...] = tuple(f for f in ArchiveEntry.__dataclass_fields__ if f != "position")
_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in ArchiveEntry.__dataclass_fields__.values() if f.name != "position"
}


@dataclass(frozen=True, slots=True)
class ArchiveHit:
    """An entry and its similarity (0..1) to the queried position."""

    entry: ArchiveEntry
    similarity: float

    @property
    def percent(self) -> int:
        """The similarity in whole percent, rounded down (100 only for identical boards)."""
        return int(np.floor(self.similarity * 100.0 + 1e-9))

    def as_dict(self) -> dict[str, Any]:
        return {"similarity": round(self.similarity, 4), "percent": self.percent, **self.entry.as_dict()}


def _classify(position: Position) -> PositionType:
    """:func:`pulvezar.analysis.classify`, imported on first use: the ``pulvezar.analysis`` package
    imports the evaluator (PyTorch), which a gateway that only reads the archive does not need."""
    from pulvezar.analysis.classify import classify

    return classify(position)


def check_date(date: str) -> str:
    """``date`` if it is a valid ISO date ``YYYY-MM-DD``, else a :class:`PulvezarError` on ``date``."""
    import datetime as dt

    if not isinstance(date, str) or not _DATE.match(date):
        raise PulvezarError(f"a date is YYYY-MM-DD, got {date!r}", field="date")
    try:
        dt.date.fromisoformat(date)
    except ValueError as e:
        raise PulvezarError(f"invalid date {date!r}: {e}", field="date") from None
    return date


def rules_of(name: str) -> Rules:
    """The rule set of a :attr:`Rules.name` (``international``, ``tavla+hit_and_stop`` ...)."""
    if not isinstance(name, str):
        raise PulvezarError("rules is a rule set name such as 'international' or 'tavla'", field="rules")
    variant, *opts = name.split("+")
    try:
        if variant == "international" and not opts:
            return Rules.international()
        if (
            variant == "tavla"
            and set(opts) <= {"hit_and_stop", "must_bear_off"}
            and len(set(opts)) == len(opts)
        ):
            return Rules.tavla("hit_and_stop" in opts, "must_bear_off" in opts)
    except ValueError:
        pass
    raise PulvezarError(
        f"unknown rule set {name!r}; e.g. international, tavla, tavla+hit_and_stop+must_bear_off",
        field="rules",
    )


# ---- features -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Features:
    """The per-position arrays the metric needs, for ``N`` positions.

    ``packed`` holds, per row, the 52 bin counts (each side: off, points 1..24, bar) padded to 56
    bytes, then the 50 cumulative counts (each side: bins 0..24) padded to 56: 14 little 64-bit
    words, so that the sums of the per-bin minimums run eight bytes at a time (see :func:`_terms`).
    """

    packed: npt.NDArray[np.uint8]  # (N, 112)
    cdf_sum: npt.NDArray[np.int32]  # (N,): sum of the cumulative counts
    made: npt.NDArray[np.uint64]  # (N,): bit p-1 = player's point p made, bit 24+p-1 = opponent's
    pips: npt.NDArray[np.int16]  # (N, 2)
    kind: npt.NDArray[np.int8]  # (N,): type index, -1 unknown
    side: npt.NDArray[np.int8]  # (N,): 0 none, 1 player, 2 opponent

    def __len__(self) -> int:
        return len(self.kind)

    def take(self, idx: npt.NDArray[np.intp] | npt.NDArray[np.bool_]) -> Features:
        return Features(
            self.packed[idx],
            self.cdf_sum[idx],
            self.made[idx],
            self.pips[idx],
            self.kind[idx],
            self.side[idx],
        )

    @staticmethod
    def concat(parts: Sequence[Features]) -> Features:
        return Features(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in Features.__dataclass_fields__)
        )


_BITS = (np.uint64(1) << np.arange(48, dtype=np.uint64)).astype(np.uint64)
_PIP_W = np.arange(1, 26, dtype=np.int16)
_BYTES = np.uint64(0x0101010101010101)  # times a word: its byte sum in the top byte (sum < 256)
_EVEN = np.uint64(0x00FF00FF00FF00FF)
_SHORTS = np.uint64(0x0001000100010001)  # times a word: its 16-bit lane sum in the top lane
_S8, _S48, _S56 = np.uint64(8), np.uint64(48), np.uint64(56)


def features(
    boards: npt.NDArray[np.uint8], kinds: Sequence[str | None] | None = None, sides: Sequence[str | None] = ()
) -> Features:
    """Features of ``(N, 50)`` boards (vectorised); types by :func:`classify` unless given."""
    b = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).astype(np.int16)
    n = len(b)
    mine, theirs = b[:, :25], b[:, 25:]
    off = np.stack([15 - mine.sum(axis=1), 15 - theirs.sum(axis=1)], axis=1).astype(np.int16)
    counts = np.concatenate([off[:, :1], mine, off[:, 1:], theirs], axis=1)
    cdf = np.concatenate([np.cumsum(counts[:, :25], axis=1), np.cumsum(counts[:, 26:51], axis=1)], axis=1)
    packed = np.zeros((n, 112), dtype=np.uint8)
    packed[:, :52] = counts
    packed[:, 56:106] = cdf
    made_bits = np.concatenate([mine[:, :24] >= 2, theirs[:, :24] >= 2], axis=1)
    made = (made_bits.astype(np.uint64) * _BITS).sum(axis=1, dtype=np.uint64)
    pips = np.stack([mine @ _PIP_W, theirs @ _PIP_W], axis=1).astype(np.int16)
    if kinds is None:
        types = [
            _classify(Position._from_board(bytes(row)))
            for row in np.asarray(boards, np.uint8).reshape(-1, 50)
        ]
        kinds = [t.kind for t in types]
        sides = [t.side for t in types]
    kind = np.array([KINDS.index(k) if k in KINDS else -1 for k in kinds], dtype=np.int8).reshape(n)
    side = np.array([_SIDES.index(s) for s in sides], dtype=np.int8).reshape(n)
    return Features(packed, cdf.sum(axis=1, dtype=np.int32), made, pips, kind, side)


def _min_sums(q: Features, x: Features) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per row: the sum over the bins of ``min(count_x, count_q)``, and over the cumulative counts of
    ``min(cdf_x, cdf_q)``.  The byte-wise minimums (each at most 15) are summed as 64-bit words: the 7
    words of each part add up byte lane by byte lane (each lane at most 7 * 15 = 105, no carry), then
    the 8 lanes of the counts' word (total at most 30) by one multiplication, and those of the
    cumulative counts' word (total up to 750) after a split into 16-bit lanes.
    """
    m = np.minimum(x.packed, q.packed[0]).view(np.uint64).reshape(-1, 2, 7)
    lanes = m[:, :, 0].copy()  # (N, 2); seven slice additions beat numpy's reduction over a short axis
    for k in range(1, 7):
        lanes += m[:, :, k]
    counts = (lanes[:, 0] * _BYTES) >> _S56
    w = lanes[:, 1]
    wide = (w & _EVEN) + ((w >> _S8) & _EVEN)
    cdf = ((wide * _SHORTS) >> _S48) & np.uint64(0xFFFF)
    return counts.astype(np.int64), cdf.astype(np.int64)


def _terms(q: Features, x: Features) -> dict[str, Floats]:
    """The five terms for one query (``q``, length 1) against every row of ``x``."""
    common, cdf_min = _min_sums(q, x)
    overlap = common / 30.0
    emd = x.cdf_sum.astype(np.int64) + int(q.cdf_sum[0]) - 2 * cdf_min  # sum |a - b| = a + b - 2 min
    shape = np.maximum(0.0, 1.0 - emd / EMD_SCALE)
    inter = np.bitwise_count(x.made & q.made[0])
    union = np.bitwise_count(x.made | q.made[0])
    points = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
    dp = np.abs(x.pips - q.pips[0]).sum(axis=1, dtype=np.int32)
    pips = np.maximum(0.0, 1.0 - dp / PIP_SCALE)
    same_kind = (x.kind == q.kind[0]) & (q.kind[0] >= 0)
    typ = np.where(same_kind, np.where(x.side == q.side[0], 1.0, 0.5), 0.0)
    return {"overlap": overlap, "shape": shape, "points": points, "pips": pips, "type": typ}


def _combine(terms: dict[str, Floats]) -> Floats:
    out = np.zeros(len(terms["overlap"]))
    for name, w in WEIGHTS.items():
        out += w * terms[name]
    return np.clip(out, 0.0, 1.0)


def similarity_terms(a: Position, b: Position) -> dict[str, float]:
    """The five terms of the metric for two positions (see the module)."""
    fa, fb = (features(np.frombuffer(p.board, dtype=np.uint8).reshape(1, 50)) for p in (a, b))
    return {k: float(v[0]) for k, v in _terms(fa, fb).items()}


def similarity(a: Position, b: Position) -> float:
    """The similarity of two positions, 0..1 (1 exactly when they are equal).

    >>> from pulvezar import Position
    >>> similarity(Position.start(), Position.start())
    1.0
    >>> after_31 = Position.from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    >>> 0.6 < similarity(Position.start(), after_31) < 1.0
    True
    """
    fa, fb = (features(np.frombuffer(p.board, dtype=np.uint8).reshape(1, 50)) for p in (a, b))
    return float(_combine(_terms(fa, fb))[0])


def similarities(position: Position, boards: npt.NDArray[np.uint8]) -> Floats:
    """The similarity of ``position`` to each of ``(N, 50)`` boards (vectorised)."""
    q = features(np.frombuffer(position.board, dtype=np.uint8).reshape(1, 50))
    return _combine(_terms(q, features(boards)))


# ---- the index ----------------------------------------------------------------------------
class ArchiveIndex:
    """Archived positions as numpy arrays, queried for the most similar ones."""

    def __init__(self, entries: Iterable[ArchiveEntry] = ()) -> None:
        self._entries: npt.NDArray[np.object_] = np.empty(0, dtype=object)
        self._ids: dict[str, int] = {}
        self._boards = np.empty((0, 50), dtype=np.uint8)
        self._rules = np.empty(0, dtype=np.int16)
        self._rule_names: list[str] = []
        self._feat = features(self._boards, [], [])
        self.add(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._ids

    def get(self, entry_id: str) -> ArchiveEntry | None:
        i = self._ids.get(entry_id)
        if i is None:
            return None
        entry: ArchiveEntry = self._entries[i]
        return entry

    @property
    def entries(self) -> list[ArchiveEntry]:
        """The entries in index order."""
        return list(self._entries)

    def copy(self) -> ArchiveIndex:
        """A copy to change while this one keeps answering (the arrays are shared until replaced:
        :meth:`add` and :meth:`remove` never change an array in place)."""
        other = ArchiveIndex.__new__(ArchiveIndex)
        other._entries, other._boards, other._rules, other._feat = (
            self._entries, self._boards, self._rules, self._feat,
        )  # fmt: skip
        other._ids = dict(self._ids)
        other._rule_names = list(self._rule_names)
        return other

    def _rule_code(self, name: str) -> int:
        if name not in self._rule_names:
            self._rule_names.append(name)
        return self._rule_names.index(name)

    def add(self, entries: Iterable[ArchiveEntry]) -> int:
        """Add entries (one batch); an entry whose id is present replaces the old one.  Returns the count."""
        new = list(entries)
        if not new:
            return 0
        for e in new:
            if not isinstance(e, ArchiveEntry):
                raise PulvezarError("the archive holds ArchiveEntry objects", field="entries")
        last: dict[str, ArchiveEntry] = {e.id: e for e in new}  # the last of duplicate ids wins
        replaced = [i for i in last if i in self._ids]
        if replaced:
            self.remove(replaced)
        batch = list(last.values())
        boards = np.frombuffer(b"".join(e.position.board for e in batch), dtype=np.uint8).reshape(-1, 50)
        feat = features(boards, [e.kind for e in batch], [e.side for e in batch])
        codes = np.array([self._rule_code(e.rules) for e in batch], dtype=np.int16)
        arr = np.empty(len(batch), dtype=object)
        arr[:] = batch
        start = len(self._entries)
        self._entries = np.concatenate([self._entries, arr])
        self._boards = np.concatenate([self._boards, boards])
        self._rules = np.concatenate([self._rules, codes])
        self._feat = Features.concat([self._feat, feat])
        self._ids.update({e.id: start + k for k, e in enumerate(batch)})
        return len(batch)

    def remove(self, entry_ids: Iterable[str]) -> int:
        """Remove entries by id (unknown ids are ignored).  Returns how many were removed."""
        drop = [self._ids[i] for i in set(entry_ids) if i in self._ids]
        if not drop:
            return 0
        keep = np.ones(len(self._entries), dtype=bool)
        keep[drop] = False
        self._entries = self._entries[keep]
        self._boards = self._boards[keep]
        self._rules = self._rules[keep]
        self._feat = self._feat.take(keep)
        self._ids = {e.id: k for k, e in enumerate(self._entries)}
        return len(drop)

    def query(
        self,
        position: Position,
        limit: int = DEFAULT_LIMIT,
        min_similarity: float = DEFAULT_MIN_SIMILARITY,
        *,
        rules: Rules | str | None = None,
        exclude: Iterable[str] = (),
    ) -> list[ArchiveHit]:
        """The entries most similar to ``position``, best first, at most ``limit``, each at least
        ``min_similarity`` (0..1).  ``rules`` keeps only entries of that rule set; ``exclude``
        leaves out entries by id.  Equal similarities are ordered by entry id, so every index with
        the same entries answers the same, whatever order they were added in."""
        if not isinstance(position, Position):
            raise PulvezarError("query needs a Position", field="position")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise PulvezarError(f"limit must be 1..{MAX_LIMIT}, got {limit!r}", field="limit")
        if not isinstance(min_similarity, int | float) or not 0.0 <= float(min_similarity) <= 1.0:
            raise PulvezarError(
                f"min_similarity must be 0..1, got {min_similarity!r}", field="min_similarity"
            )
        if len(self) == 0:
            return []
        q = features(np.frombuffer(position.board, dtype=np.uint8).reshape(1, 50))
        sim = _combine(_terms(q, self._feat))
        ok = sim >= float(min_similarity) - 1e-12
        if rules is not None:
            name = rules if isinstance(rules, str) else rules.name
            rules_of(name)
            code = self._rule_names.index(name) if name in self._rule_names else -1
            ok &= self._rules == code
        for i in exclude:
            j = self._ids.get(i)
            if j is not None:
                ok[j] = False
        idx = np.flatnonzero(ok)
        if len(idx) > limit:
            part = np.argpartition(-sim[idx], limit - 1)[:limit]
            cut = sim[idx[part]].min()
            idx = idx[sim[idx] >= cut]  # every tie at the cut too: ties are ordered by id below
        ids = np.array([self._entries[i].id for i in idx], dtype=str)
        order = idx[np.lexsort((ids, -sim[idx]))][:limit]
        return [ArchiveHit(self._entries[i], float(sim[i])) for i in order]

    # ---- files ------------------------------------------------------------------------
    def save(self, path: str | Path | BinaryIO) -> None:
        """Write the index to one compressed ``.npz`` file (a path or a binary file object)."""
        meta = "\n".join(json.dumps(e.as_dict(), separators=(",", ":")) for e in self._entries)
        np.savez_compressed(
            path,
            version=np.array([_FILE_VERSION]),
            boards=self._boards,
            meta=np.frombuffer(meta.encode("utf-8"), dtype=np.uint8),
        )

    @classmethod
    def load(cls, path: str | Path | BinaryIO) -> ArchiveIndex:
        """Read a file :meth:`save` wrote; a damaged or foreign file is a :class:`PulvezarError`."""
        try:
            with np.load(path, allow_pickle=False) as z:
                version = int(z["version"][0])
                boards = z["boards"]
                meta = bytes(z["meta"]).decode("utf-8")
        except (OSError, KeyError, ValueError, EOFError) as e:
            raise PulvezarError(f"not an archive index file: {e}", field="path") from None
        if version != _FILE_VERSION:
            raise PulvezarError(f"archive index file version {version} is not supported", field="path")
        dicts = [json.loads(line) for line in meta.split("\n")] if meta else []
        if len(dicts) != len(boards):
            raise PulvezarError("archive index file: boards and entries disagree", field="path")
        index = cls()
        try:
            entries = [
                ArchiveEntry.trusted(d, Position._from_board(bytes(b)))
                for d, b in zip(
                    dicts, np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50), strict=True
                )
            ]
        except (KeyError, TypeError, IndexError) as e:
            raise PulvezarError(f"archive index file: damaged entries ({e!r})", field="path") from None
        index._load_trusted(entries, boards)
        return index

    def _load_trusted(self, entries: list[ArchiveEntry], boards: npt.NDArray[np.uint8]) -> None:
        arr = np.empty(len(entries), dtype=object)
        arr[:] = entries
        self._entries = arr
        self._boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        self._rules = np.array([self._rule_code(e.rules) for e in entries], dtype=np.int16)
        self._feat = features(self._boards, [e.kind for e in entries], [e.side for e in entries])
        self._ids = {e.id: k for k, e in enumerate(entries)}


__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MIN_SIMILARITY",
    "KINDS",
    "WEIGHTS",
    "ArchiveEntry",
    "ArchiveHit",
    "ArchiveIndex",
    "Features",
    "check_date",
    "features",
    "rules_of",
    "similarities",
    "similarity",
    "similarity_terms",
]
