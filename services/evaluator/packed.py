"""The packed wire format of ``EvaluatePacked``: boards in, probabilities out, no message per board.

Boards are ``N x 50`` bytes in the rules kernel's layout (:attr:`pulvezar.Position.board`): 25 counts
of the player on roll, then 25 of the opponent, each side in its own numbering (index 24 = the bar).
They are checked as :class:`pulvezar.Position` checks one board, for the whole array at once; the
first bad board is named in the error (``boards[i]``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pulvezar.rules.position import CHECKERS
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb

BOARD_BYTES = 50

_DTYPES: dict[int, np.dtype[np.floating]] = {
    pb.FLOAT_FORMAT_UNSPECIFIED: np.dtype("<f8"),
    pb.FLOAT_FORMAT_FLOAT64: np.dtype("<f8"),
    pb.FLOAT_FORMAT_FLOAT32: np.dtype("<f4"),
}


def dtype(fmt: int) -> np.dtype[np.floating]:
    """The numpy type of a :class:`FloatFormat`; INVALID_ARGUMENT for an unknown one."""
    try:
        return _DTYPES[fmt]
    except KeyError:
        raise BadArgument("format", f"unknown float format {fmt}; FLOAT64 or FLOAT32") from None


def boards(data: bytes, max_boards: int) -> npt.NDArray[np.uint8]:
    """``data`` as ``(N, 50)`` boards, checked; INVALID_ARGUMENT naming the first bad board."""
    if not data:
        raise BadArgument("boards", "give at least one board (50 bytes each)")
    if len(data) % BOARD_BYTES:
        raise BadArgument(
            "boards", f"{len(data)} bytes is not a whole number of boards ({BOARD_BYTES} bytes each)"
        )
    n = len(data) // BOARD_BYTES
    if n > max_boards:
        raise BadArgument("boards", f"at most {max_boards} boards per request, got {n}")
    b = np.frombuffer(data, dtype=np.uint8).reshape(n, BOARD_BYTES)
    mine, theirs = b[:, :25].sum(axis=1, dtype=np.int64), b[:, 25:].sum(axis=1, dtype=np.int64)
    checks = (
        (mine > CHECKERS, f"the player on roll has more than {CHECKERS} checkers on the board"),
        (theirs > CHECKERS, f"the opponent has more than {CHECKERS} checkers on the board"),
        (((b[:, :24] > 0) & (b[:, 48:24:-1] > 0)).any(axis=1), "both colours on one point"),
        ((mine == 0) & (theirs == 0), "both sides have borne off all their checkers"),
    )
    for bad, reason in checks:
        if bad.any():
            i = int(np.argmax(bad))
            raise BadArgument(f"boards[{i}]", reason)
    return b
