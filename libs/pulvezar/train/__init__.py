"""Training pulvezar's nets: TD(lambda) self-play first (``td``), then supervised generations on
pulvezar's own rollout targets (``supervised``).

Nothing in the library imports this package; it imports the rest.
"""

from pulvezar.train.supervised import SupervisedConfig, SupervisedRun
from pulvezar.train.td import TDConfig, TDTrainer

__all__ = ["SupervisedConfig", "SupervisedRun", "TDConfig", "TDTrainer"]
