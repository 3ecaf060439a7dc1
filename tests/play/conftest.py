"""Fixtures of the play tests: the shipped net and a session factory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.play import GameSettings, PlaySession


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
