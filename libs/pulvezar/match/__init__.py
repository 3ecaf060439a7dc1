"""Games and matches: fair dice (more to come: match state, cube, Crawford)."""

from pulvezar.match.dice import FairDice, verify

__all__ = ["FairDice", "verify"]
