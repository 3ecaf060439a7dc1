"""Training pulvezar's nets: TD(lambda) self-play first (``td``); rollout targets later.

Nothing in the library imports this package; it imports the rest.
"""

from pulvezar.train.td import TDConfig, TDTrainer

__all__ = ["TDConfig", "TDTrainer"]
