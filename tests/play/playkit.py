"""Shared by the play tests: a random driver with per-state invariants, and fixed-probability evaluators."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.play import ACTIONS, PlaySession
from pulvezar.rules.matchid import MatchId
from pulvezar.rules.position import Position
from pulvezar.rules.xgid import XGID

WEIGHTS = {
    "roll": 10.0, "play": 10.0, "double": 0.6, "take": 3.0, "pass": 1.0, "beaver": 0.7, "raccoon": 0.7,
    "resign": 0.05, "accept": 1.0, "reject": 1.0, "end": 0.05,
}  # fmt: skip


def check_state(s: PlaySession) -> dict[str, Any]:
    """The state, after checking what must hold in every state."""
    st = s.state()
    json.dumps(st)  # JSON-able
    assert st["status"] in ("playing", "finished")
    acts = st["actions"]
    assert set(acts) <= set(ACTIONS) and len(set(acts)) == len(acts)
    board = st["board"]
    pos = Position.from_position_id(board["position_id"])
    if board["match_id"] is not None:
        mid = MatchId.parse(board["match_id"])
        assert mid.cube_value == st["cube"]["value"]
        assert board["gnubg_id"] == f"{board['position_id']}:{board['match_id']}"
    if board["xgid"] is not None:
        XGID.parse(board["xgid"])
    human, bot = board["checkers"]["human"], board["checkers"]["bot"]
    assert sum(human) + board["off"][0] == 15 and sum(bot) + board["off"][1] == 15
    assert (pos.mine, pos.theirs) == (
        (tuple(human), tuple(bot)) if st["turn"] == 0 else (tuple(bot), tuple(human))
    )
    assert ("play" in acts) == bool(st["legal_plays"])
    for p in st["legal_plays"]:
        Position.from_position_id(p["position_id"])
    v = st["cube"]["value"]
    assert v >= 1 and v & (v - 1) == 0
    rules = st["settings"]["rules"]["variant"]
    cube_names = {"double", "take", "pass", "beaver", "raccoon"}
    if rules == "tavla":
        assert not cube_names & set(acts) and v == 1
    if st["crawford"]:
        assert "double" not in acts
    if st["match_length"] and st["status"] == "playing":
        assert max(st["score"]) < st["match_length"]
    if st["status"] == "finished":
        assert acts == [] and st["result"] is not None
        if st["dice_mode"] == "server":
            assert st["dice_seed"] and s.verify()
    else:
        assert acts, "a playing session always lets the human act"
        assert st["to_act"] == 0 or (st["dice_mode"] == "client" and acts[0] == "roll")
        assert "dice_seed" not in st
    if st["dice_mode"] == "server":
        assert st["dice_commitment"] and len(st["dice_commitment"]) == 64
    else:
        assert st["dice_commitment"] is None
    assert st["bot_pending"] is False
    if "resign" in acts:
        assert st["resign_levels"]
    return st


def random_action(
    st: dict[str, Any], rng: random.Random, weights: Mapping[str, float] = WEIGHTS
) -> dict[str, Any]:
    """A random legal action of state ``st``, drawn by ``weights`` (an action of weight 0 never is)."""
    acts = [a for a in st["actions"] if weights.get(a)]
    name = rng.choices(acts, weights=[weights[a] for a in acts])[0]
    action: dict[str, Any] = {"action": name}
    if name == "roll" and st["dice_mode"] == "client":
        action["dice"] = [rng.randint(1, 6), rng.randint(1, 6)]
    elif name == "play":
        p = rng.choice(st["legal_plays"])
        if rng.random() < 0.5:
            action["position_id"] = p["position_id"]
        else:
            action["notation"] = p["notation"]
    elif name == "resign":
        action["level"] = rng.choice(st["resign_levels"])
    return action


def drive(
    s: PlaySession, rng: random.Random, steps: int = 5000, now: float | None = None
) -> list[dict[str, Any]]:
    """Random legal actions until the session ends (or ``steps``); every event."""
    events: list[dict[str, Any]] = []
    for _ in range(steps):
        st = check_state(s)
        if st["status"] == "finished":
            break
        if now is not None:
            now += rng.uniform(0.5, 6.0)
        events += s.apply(random_action(st, rng), now)
    return events


class Fixed:
    """An evaluator that gives every board the same probabilities (for the player on roll)."""

    def __init__(self, win: float, wg: float = 0.0, wbg: float = 0.0, lg: float = 0.0, lbg: float = 0.0):
        self.probs = np.array([win, wg, wbg, lg, lbg], dtype=np.float64)

    def evaluate_boards(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        n = len(np.asarray(boards).reshape(-1, 50))
        return np.tile(self.probs, (n, 1))
