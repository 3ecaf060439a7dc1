"""Cubeful maths: the cube around a position and Janowski's cubeful equities.

:class:`CubeState` (:mod:`~pulvezar.cubeful.state`) is a position with the cube
around it; :mod:`~pulvezar.cubeful.janowski` turns cubeless probabilities into
cubeful equities (money and match).  The package sits below the checker search
(:mod:`pulvezar.search` values plays against a cube with it) and the cube
decisions (:mod:`pulvezar.cube`, above the search) are built on it.

>>> import numpy as np
>>> nd, dt, dp = money_equities(np.array([[0.75, 0.0, 0.0, 0.0, 0.0]]), Cube(), np.array([1.0]))
>>> round(float(nd[0]), 4), round(float(dt[0]), 4), float(dp[0])
(0.8333, 0.75, 1.0)
"""

from pulvezar.cubeful.janowski import (
    Cube,
    MatchCube,
    Owner,
    beavered,
    best_value,
    efficiency,
    emg,
    match_equities,
    money_cubeful,
    money_dead,
    money_equities,
    money_live,
    race_efficiency,
)
from pulvezar.cubeful.state import CubeState

__all__ = [
    "Cube",
    "CubeState",
    "MatchCube",
    "Owner",
    "beavered",
    "best_value",
    "efficiency",
    "emg",
    "match_equities",
    "money_cubeful",
    "money_dead",
    "money_equities",
    "money_live",
    "race_efficiency",
]
