"""Type stub of the compiled forward pass (_forward.c)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

BASE: int
TERMS: int
RTERMS: int
MAX_LAYERS: int
MAX_WIDTH: int

def forward(
    boards: bytes,
    version: int,
    layers: Sequence[tuple[bytes, bytes]],
    head_w: bytes,
    head_b: bytes,
    out: npt.NDArray[np.float64],
    /,
) -> None: ...
def encode(boards: bytes, version: int, /) -> bytes: ...
def terms(boards: bytes, /) -> bytes: ...
def race_terms(boards: bytes, /) -> bytes: ...
def set_bearoff(off: bytes, first: bytes, positions: int, slots: int, /) -> None: ...

FLAG_WON: int
FLAG_LOST: int
FLAG_HOME: int
FLAG_TWO: int
FLAG_CONTACT: int
FLAG_MINE_OFF: int
FLAG_THEIRS_OFF: int
FLAG_CRASHED: int

def flags(boards: bytes, two_points: int, two_max: int, /) -> bytes: ...
def features(boards: bytes, /) -> bytes: ...
