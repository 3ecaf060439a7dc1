"""The doubling cube: cubeful equities, cube decisions and resignations.

:mod:`~pulvezar.cube.janowski` turns cubeless probabilities into cubeful
equities (money and match); :func:`cube_decision` values no double,
double/take and double/pass at 0-2 plies; :func:`resignation_decision` and
:func:`should_resign` handle resignations.

>>> from pulvezar.rules.position import Position
>>> decision_from_probs((0.5, 0.0, 0.0, 0.0, 0.0), CubeState(Position.start()), x=1.0).action
'No double, take'
"""

from pulvezar.cube.decision import CubeDecision, CubeSearch, CubeState, cube_decision, decision_from_probs
from pulvezar.cube.janowski import Cube, efficiency, race_efficiency
from pulvezar.cube.resign import ResignationDecision, resignation_decision, should_resign, sure_loss

__all__ = [
    "Cube",
    "CubeDecision",
    "CubeSearch",
    "CubeState",
    "ResignationDecision",
    "cube_decision",
    "decision_from_probs",
    "efficiency",
    "race_efficiency",
    "resignation_decision",
    "should_resign",
    "sure_loss",
]
