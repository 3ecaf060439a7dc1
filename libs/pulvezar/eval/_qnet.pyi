"""Type stub of the quantised accumulator kernel (_qnet.c)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

SLOTS: int
COUNTS: int
BASE: int
MAX_LAYERS: int

def make(
    h1: int,
    rows: bytes,
    bias1: bytes,
    contact: bytes,
    version: int,
    wx: bytes,
    shift1: int,
    cap1: int,
    layers: Sequence[tuple[bytes, bytes, bytes, int, bool]],
    /,
) -> Any: ...
def evaluate(net: Any, boards: bytes, out: npt.NDArray[np.float64], /) -> None: ...
def children(
    net: Any, parents: bytes, index: bytes, boards: bytes, out: npt.NDArray[np.float64], /
) -> None: ...
def sums(net: Any, boards: bytes, /) -> bytes: ...
def child_sums(net: Any, parents: bytes, index: bytes, boards: bytes, /) -> bytes: ...
def simd(level: int = ..., /) -> int: ...
def set_bearoff(off: bytes, first: bytes, positions: int, slots: int, /) -> None: ...
