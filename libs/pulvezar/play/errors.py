"""Errors of a play session: every one leaves the session unchanged.

All derive from :class:`pulvezar.match.IllegalActionError` (and so from
:class:`~pulvezar.errors.PulvezarError` and ``ValueError``).  ``code`` tells a
service how to answer: ``"not_available"`` and ``"finished"`` (the action does
not fit the state: HTTP 409), ``"illegal_play"`` and ``"invalid"`` (the action
itself is wrong: HTTP 422).
"""

from __future__ import annotations

from pulvezar.i18n import Message
from pulvezar.match.game import IllegalActionError


class SessionError(IllegalActionError):
    """Base class: an action the session refuses."""

    code = "invalid"

    def __init__(self, message: str | Message, *, field: str | None = None) -> None:
        super().__init__(message, field=field)


class InvalidActionError(SessionError):
    """A malformed action: unknown name, missing or wrong fields, dice outside 1..6."""

    code = "invalid"


class ActionNotAvailableError(SessionError):
    """An action that is not among the state's ``actions`` now (doubling in the Crawford game, ...)."""

    code = "not_available"


class SessionFinishedError(ActionNotAvailableError):
    """Any action once the match or session is over."""

    code = "finished"


class IllegalMoveError(SessionError):
    """A play the rules do not allow with these dice; the message says why."""

    code = "illegal_play"
