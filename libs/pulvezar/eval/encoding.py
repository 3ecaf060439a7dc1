"""The feature encoding of positions for pulvezar's nets (versioned; training imports it from here).

Input: boards as an ``(N, 50)`` ``uint8`` array (25 counts of the player on
roll, then 25 of the opponent, each in its owner's numbering, index 24 = bar).
Output: ``(N, FEATURES)`` ``float32``.

Version 1, per side (the player on roll first, then the opponent):

- points 1..24, four units each: ``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` when ``n > 3``;
- the bar: ``n / 2``; borne off: ``n / 15``; pip count ``/ 100``;
- the count of blots outside the home board ``/ 5`` and of made home-board points ``/ 6``;

and two shared units: the pip difference ``/ 50`` and whether contact remains.

Version 2 adds, per side, five hand-made features computed in C
(``_features.c``): the opponent's shots at the side's blots, its longest
prime, the blockade in front of its rearmost checker, its anchors in the
opponent's home board and that checker's escaping rolls.

Version 3 adds, per side, nine race and contact terms (:func:`race_contact_terms`):
whether it has borne off a checker, its checkers outside its home board ``/ 15``, the
pips to bring them home ``/ 60``, its checkers in the opponent's home board or on the
bar ``/ 5``, the pips until it can bear off its first checker (0 once it has) ``/ 60``,
the pips to take every checker out of the opponent's home board ``/ 20``, its rearmost
checker's point ``/ 25``, the pips it must still move to pass every opposing checker
``/ 100``, and for a side on the bar the chance that a checker fails to enter ``(k / 6)^2``
(``k`` the opponent's closed home points).

Version 4 adds eight race-outcome terms (:func:`race_terms`, computed in C): per side, the chance
that it bears off every checker before the other side does, the chance that it does so before the
other side has borne off a checker (a gammon), and its mean rolls to bear off every checker ``/ 20``
and to bear off a first one ``/ 10``.  They come from each side's distribution of the rolls it
needs, exact from the one-sided bear-off database when the side is all home, otherwise the chance
that so many rolls bring its pips in enough dice (``ceil(q / 6)`` for a checker on point ``q``;
for the first checker off, the pips to bring every checker home and bear off the lowest, in
``ceil((q - 6) / 6)`` dice per checker outside the home board and one more).  They ignore
contact, so for contact positions they are a rough race count the nets may weigh as they like.
Model files record the version they were trained on; :func:`encode` serves every version.

>>> import numpy as np
>>> from pulvezar import Position
>>> x = encode(np.frombuffer(Position.start().board, dtype=np.uint8).reshape(1, 50))
>>> x.shape == (1, FEATURES), float(x[0, FEATURES_BY_VERSION[1] - 1])  # contact remains
(True, 1.0)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _features, _forward

ENCODING_VERSION = 2  # what new nets are trained on
PER_SIDE = 24 * 4 + 5
TERMS = 9  # race_contact_terms per side (version 3)
RACE_TERMS = 4  # race_terms per side (version 4)
FEATURES_BY_VERSION = {
    1: 2 * PER_SIDE + 2,
    2: 2 * PER_SIDE + 2 + 2 * _features.NF,
    3: 2 * PER_SIDE + 2 + 2 * _features.NF + 2 * TERMS,
    4: 2 * PER_SIDE + 2 + 2 * _features.NF + 2 * TERMS + 2 * RACE_TERMS,
}
FEATURES = FEATURES_BY_VERSION[ENCODING_VERSION]

Boards = npt.NDArray[np.uint8]
Features = npt.NDArray[np.float32]

_PIPS = np.arange(1, 26, dtype=np.float32)


def _side(counts: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    pts = counts[:, :24]
    units = np.stack(
        [pts >= 1, pts >= 2, pts >= 3, np.maximum(pts - 3.0, 0.0) / 2.0],
        axis=2,
    ).reshape(len(counts), 96)
    bar = counts[:, 24:25] / 2.0
    off = (15.0 - counts.sum(axis=1, keepdims=True)) / 15.0
    pips = (counts @ _PIPS)[:, None] / 100.0
    outer_blots = (counts[:, 6:24] == 1).sum(axis=1, keepdims=True) / 5.0
    home_points = (counts[:, 0:6] >= 2).sum(axis=1, keepdims=True) / 6.0
    return np.concatenate([units, bar, off, pips, outer_blots, home_points], axis=1, dtype=np.float32)


def _terms(s: npt.NDArray[np.int32], o: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
    """The nine version-3 terms of side ``s`` against ``o`` (each ``(N, 25)`` in its owner's numbering)."""
    pts = np.arange(1, 26, dtype=np.int32)
    off = 15 - s.sum(axis=1)
    off_any = off > 0
    outside = s[:, 6:].sum(axis=1)
    to_home = (s[:, 6:] * (pts[6:] - 6)).sum(axis=1)
    in_opp_home = s[:, 18:].sum(axis=1)
    occupied = s[:, :6] > 0
    lowest = np.where(occupied.any(axis=1), np.argmax(occupied, axis=1) + 1, 6)
    first_off = np.where(off_any, 0, to_home + lowest)
    out_of_bg = (s[:, 18:] * (pts[18:] - 18)).sum(axis=1)
    back = np.where(s > 0, pts, 0).max(axis=1)
    ahead = 25 - np.where(o > 0, pts, 0).max(axis=1)  # o's rearmost checker, on s's points
    to_pass = (s * np.clip(pts[None, :] - ahead[:, None], 0, None)).sum(axis=1)
    closed = (o[:, :6] >= 2).sum(axis=1)
    fails = np.where(s[:, 24] > 0, (closed / 6.0) ** 2, 0.0)
    cols = [off_any, outside / 15.0, to_home / 60.0, in_opp_home / 5.0, first_off / 60.0, out_of_bg / 20.0,
            back / 25.0, to_pass / 100.0, fails]  # fmt: skip
    return np.stack(cols, axis=1).astype(np.float32)


def race_contact_terms(boards: Boards) -> Features:
    """``(N, 2 * TERMS)``: the version-3 terms of the player on roll, then of the opponent."""
    b = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).astype(np.int32)
    mine, theirs = b[:, :25], b[:, 25:]
    return np.concatenate([_terms(mine, theirs), _terms(theirs, mine)], axis=1)


_TABLES_SET = False


def ensure_race_tables() -> None:
    """Give the C encoder the one-sided bear-off database (once per process; about 0.2 s), which
    encoding v4 needs."""
    global _TABLES_SET
    if _TABLES_SET:
        return
    from pulvezar.eval.bearoff import OneSidedBearoff

    db = OneSidedBearoff.default()
    off, first = db.dense(), db.dense(first_off=True)
    _forward.set_bearoff(off.tobytes(), first.tobytes(), db.positions, db.slots)
    _TABLES_SET = True


def race_terms(boards: Boards) -> Features:
    """``(N, 2 * RACE_TERMS)``: the version-4 terms of the player on roll, then of the opponent."""
    ensure_race_tables()
    raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    return np.frombuffer(_forward.race_terms(raw.tobytes()), dtype=np.float32).reshape(len(raw), -1).copy()


def contact(boards: Boards) -> npt.NDArray[np.bool_]:
    """Whether each position still has contact (some checker must pass an opposing one)."""
    idx = np.arange(25)
    mine_back = np.where(boards[:, :25] > 0, idx, -1).max(axis=1)
    theirs_back = np.where(boards[:, 25:] > 0, idx, -1).max(axis=1)
    result: npt.NDArray[np.bool_] = (mine_back >= 0) & (theirs_back >= 0) & (mine_back + theirs_back >= 23)
    return result


def encode(boards: Boards, version: int = ENCODING_VERSION) -> Features:
    """Encode a batch of boards with encoding ``version`` (see the module docstring)."""
    if version not in FEATURES_BY_VERSION:
        raise ValueError(f"unknown encoding version {version}")
    raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    b = raw.astype(np.float32)
    mine, theirs = _side(b[:, :25]), _side(b[:, 25:])
    pip_diff = (mine[:, PER_SIDE - 3] - theirs[:, PER_SIDE - 3])[:, None] * 2.0
    has_contact = contact(raw)[:, None]
    parts = [mine, theirs, pip_diff, has_contact]
    if version >= 2:
        parts.append(np.frombuffer(_features.features(raw.tobytes()), dtype=np.float32).reshape(len(raw), -1))
    if version >= 3:
        parts.append(race_contact_terms(raw))
    if version >= 4:
        parts.append(race_terms(raw))
    return np.concatenate(parts, axis=1, dtype=np.float32)
