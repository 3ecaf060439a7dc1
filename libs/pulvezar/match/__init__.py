"""Games and matches: state, cube actions, Crawford, resignations, fair dice."""

from pulvezar.match.dice import FairDice, verify
from pulvezar.match.game import Game, IllegalActionError, MatchContext, Phase, SessionOptions, Setup
from pulvezar.match.match import Match

__all__ = [
    "FairDice",
    "Game",
    "IllegalActionError",
    "Match",
    "MatchContext",
    "Phase",
    "SessionOptions",
    "Setup",
    "verify",
]
