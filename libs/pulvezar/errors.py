"""Typed errors of the engine library.

Every error a caller can cause derives from :class:`PulvezarError` (and from
:class:`ValueError`, so generic handlers keep working).  Services map these to
HTTP 4xx / gRPC ``INVALID_ARGUMENT``; ``field`` names what was wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pulvezar.i18n import Message


class PulvezarError(ValueError):
    """Base class of every input error raised by pulvezar. Its message is English text, or a
    :class:`~pulvezar.i18n.Message` that :meth:`text` says in another language (the refusals a player
    meets: an illegal play and why, an action not possible now)."""

    def __init__(self, message: str | Message, *, field: str | None = None) -> None:
        super().__init__(str(message))
        self.field = field
        self.words: Message | None = None if isinstance(message, str) else message

    def text(self, lang: str = "en") -> str:
        """The error's words in ``lang`` where it has them, else its English."""
        return self.words.text(lang) if self.words is not None else str(self)


class InvalidPositionError(PulvezarError):
    """A board that cannot exist (checker counts, both colours on one point, ...)."""


class InvalidIdError(PulvezarError):
    """A Position ID, Match ID or XGID that does not decode."""


class MalformedIdError(InvalidIdError):
    """Position text that follows none of the ID grammars (Position ID, Match ID, XGID, OGID): syntax."""


class IllegalIdError(InvalidIdError):
    """A well-formed ID of a state that cannot exist (or that pulvezar cannot hold)."""


class InvalidValueError(PulvezarError):
    """A JSON-able value that does not decode to a domain value (a rule set, a cube, settings):
    the codec's ``from_dict`` errors, ``field`` naming the part that was wrong."""


class InvalidDiceError(PulvezarError):
    """Dice outside 1..6 or not a pair."""


class NotationError(PulvezarError):
    """Base class of the errors of play notation."""


class InvalidPlayError(NotationError):
    """Text that is not play notation at all (syntax)."""


class IllegalPlayError(NotationError):
    """Well-formed notation for a play the rules do not allow here."""


class AmbiguousPlayError(NotationError):
    """Notation that matches more than one legal play."""
