"""Type stub of the compiled forward pass (_forward.c)."""

import numpy as np
import numpy.typing as npt

BASE: int

def forward(
    boards: bytes,
    version: int,
    w1t: bytes,
    b1: bytes,
    w2: bytes,
    b2: bytes,
    hidden: int,
    out: npt.NDArray[np.float64],
    /,
) -> None: ...

FLAG_WON: int
FLAG_LOST: int
FLAG_HOME: int
FLAG_TWO: int
FLAG_CONTACT: int
FLAG_MINE_OFF: int
FLAG_THEIRS_OFF: int

def flags(boards: bytes, two_points: int, two_max: int, /) -> bytes: ...
def features(boards: bytes, /) -> bytes: ...
