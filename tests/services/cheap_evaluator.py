"""A stand-in for the bots' evaluator in the Play API's tests (pure logic: no net, no service)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


class Cheap:
    """Probabilities from the pip count: fast, and the bot still doubles, takes, passes and resigns."""

    def evaluate_boards(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        b = np.asarray(boards, dtype=np.float64).reshape(-1, 50)
        weights = np.arange(1, 26, dtype=np.float64)
        mine, theirs = b[:, :25] @ weights, b[:, 25:] @ weights
        win = 1.0 / (1.0 + np.exp((mine - theirs) / 12.0))
        out = np.zeros((len(b), 5))
        out[:, 0] = win
        out[:, 1] = 0.25 * win**2
        out[:, 3] = 0.25 * (1 - win) ** 2
        return out
