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
opponent's home board and that checker's escaping rolls.  Model files record
the version they were trained on; :func:`encode` serves every version.

>>> import numpy as np
>>> from pulvezar import Position
>>> x = encode(np.frombuffer(Position.start().board, dtype=np.uint8).reshape(1, 50))
>>> x.shape == (1, FEATURES), float(x[0, FEATURES_BY_VERSION[1] - 1])  # contact remains
(True, 1.0)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _features

ENCODING_VERSION = 2  # what new nets are trained on
PER_SIDE = 24 * 4 + 5
FEATURES_BY_VERSION = {1: 2 * PER_SIDE + 2, 2: 2 * PER_SIDE + 2 + 2 * _features.NF}
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
    return np.concatenate(parts, axis=1, dtype=np.float32)
