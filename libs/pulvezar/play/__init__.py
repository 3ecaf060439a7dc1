"""Play against pulvezar's bots: settings, a session of a game or match, bot replies, trainer, records.

The engine-library half of the Play API: pure logic, no service framework.  The
human is player 0, the bot player 1.

>>> from pulvezar.play import GameSettings
>>> GameSettings.from_dict({"rules": {"variant": "tavla"}, "match_length": 3}).rules.name
'tavla'

See ``docs/play.md`` for the state, the actions, the events and the stored record.
"""

from pulvezar.play.errors import (
    ActionNotAvailableError,
    IllegalMoveError,
    InvalidActionError,
    SessionError,
    SessionFinishedError,
)
from pulvezar.play.provider import DecisionProvider
from pulvezar.play.session import ACTIONS, BOT, HUMAN, PlaySession
from pulvezar.play.settings import BotSettings, ClockSettings, GameSettings

__all__ = [
    "ACTIONS",
    "BOT",
    "HUMAN",
    "ActionNotAvailableError",
    "BotSettings",
    "ClockSettings",
    "DecisionProvider",
    "GameSettings",
    "IllegalMoveError",
    "InvalidActionError",
    "PlaySession",
    "SessionError",
    "SessionFinishedError",
]
