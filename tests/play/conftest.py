"""Fixtures of the play tests: a cheap real evaluator and fixed-probability stubs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.play import GameSettings, PlaySession


class Fixed:
    """An evaluator that gives every board the same probabilities (for the player on roll)."""

    def __init__(self, win: float, wg: float = 0.0, wbg: float = 0.0, lg: float = 0.0, lbg: float = 0.0):
        self.probs = np.array([win, wg, wbg, lg, lbg], dtype=np.float64)

    def evaluate_boards(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        n = len(np.asarray(boards).reshape(-1, 50))
        return np.tile(self.probs, (n, 1))


@pytest.fixture(scope="session")
def net() -> NetEvaluator:
    return default_evaluator()


@pytest.fixture
def make(net: NetEvaluator) -> Callable[..., PlaySession]:
    """``make(settings_dict, **kw)``: a session with the shipped net (0-ply trainer) unless given."""

    def build(settings: dict[str, Any], **kw: Any) -> PlaySession:
        kw.setdefault("evaluator", net)
        kw.setdefault("trainer_ply", 0)
        kw.setdefault("bot_seed", 7)
        return PlaySession(GameSettings.from_dict(settings), **kw)

    return build
