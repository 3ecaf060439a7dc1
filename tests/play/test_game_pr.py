"""The end summary's quick PR (issue 44): each side's 0-ply PR of one ended game, as the match analysis
computes it; a game past the cap gets none."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from playkit import drive

from pulvezar.play import PlaySession
from pulvezar.play import game_pr as quick


def test_random_plays_rate_worse_than_the_bots(
    make: Callable[..., PlaySession], monkeypatch: pytest.MonkeyPatch
) -> None:
    s = make({"match_length": 1, "bot": {"level": "medium"}}, seed=bytes(32))
    drive(s, random.Random(8))
    you, bot = quick.game_pr(s, 0, s.evaluator)
    assert you is not None and bot is not None and you > bot >= 0
    assert quick.game_pr(s, 0, s.evaluator) == (you, bot)  # deterministic
    monkeypatch.setattr(quick, "MAX_ACTIONS", 10)
    assert quick.game_pr(s, 0, s.evaluator) == (None, None)  # too long a game for a quick look
