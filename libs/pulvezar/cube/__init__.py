"""The doubling cube: cube decisions and resignations.

:func:`cube_decision` values no double, double/take and double/pass at 0-2
plies (the lookahead uses the checker search); :func:`resignation_decision` and
:func:`should_resign` handle resignations.  The cubeful maths below the search
(:class:`CubeState`, Janowski's equities, cube efficiency) live in
:mod:`pulvezar.cubeful`; the package re-exports :class:`CubeState`,
:class:`Cube`, :func:`efficiency` and :func:`race_efficiency` from there.

>>> from pulvezar.rules.position import Position
>>> decision_from_probs((0.5, 0.0, 0.0, 0.0, 0.0), CubeState(Position.start()), x=1.0).action
'No double, take'
"""

from pulvezar.cube.decision import CubeDecision, CubeSearch, cube_decision, decision_from_probs
from pulvezar.cube.resign import ResignationDecision, resignation_decision, should_resign, sure_loss
from pulvezar.cubeful import Cube, CubeState, efficiency, race_efficiency

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
