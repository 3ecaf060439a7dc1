"""Rollouts: play a position out many times with quasi-random dice and average the results.

>>> from pulvezar.rollouts import rollout
>>> from pulvezar import Position
>>> r = rollout(Position.from_points({1: 1}, {6: 1}), trials=36, seed=3)
>>> r.equity, r.trials
(1.0, 36)
"""

from pulvezar.rollouts.choosers import chooser_for, ply_chooser
from pulvezar.rollouts.cube import CubeRollout, rollout_cube
from pulvezar.rollouts.deep import DEEP_TRIALS, DeepCandidate, deep_analysis
from pulvezar.rollouts.dice import trial_rolls
from pulvezar.rollouts.engine import rollout, rollout_plays
from pulvezar.rollouts.lockstep import LUCK, Chooser, greedy_chooser, screened_chooser
from pulvezar.rollouts.stats import RolloutResult, difference_noise, playable

__all__ = [
    "DEEP_TRIALS",
    "LUCK",
    "Chooser",
    "CubeRollout",
    "DeepCandidate",
    "RolloutResult",
    "chooser_for",
    "deep_analysis",
    "difference_noise",
    "greedy_chooser",
    "playable",
    "ply_chooser",
    "rollout",
    "rollout_cube",
    "rollout_plays",
    "screened_chooser",
    "trial_rolls",
]
