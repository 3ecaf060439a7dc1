"""The gateway's dependencies, made once per app: the durable store's records and the bots' evaluator.

:func:`open_dependencies` makes them in the app's lifespan and :func:`close_dependencies` closes them;
an app served without its lifespan (some tests) makes them on first use.  Routes reach them through
FastAPI dependencies (``Depends(game_records)``); a test may set ``app.state.database_url`` or
``app.state.game_evaluator`` before the app starts.  The durable store is required (a gateway without
``PULVEZAR_DATABASE_URL`` does not start: :func:`services.gateway.durable.state_url`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from fastapi import FastAPI, Request
from starlette.datastructures import State

from services.gateway.durable import state_url
from services.store.cards import Cards
from services.store.daily_attempts import DailyAttempts
from services.store.exercises import Exercises
from services.store.games import GameRecords
from services.store.matches import MatchUploads
from services.store.players import PlayerRecords

R = TypeVar("R")


class _Records(Generic[R]):
    """A store's records over the app's database: made from its URL on first use, then kept (as
    :func:`functools.cached_property` keeps a value: in the instance's ``__dict__``)."""

    def __init__(self, make: Callable[[str], R]) -> None:
        self._make = make

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, deps: None, owner: type) -> _Records[R]: ...
    @overload
    def __get__(self, deps: Dependencies, owner: type | None = None) -> R: ...
    def __get__(self, deps: Dependencies | None, owner: type | None = None) -> R | _Records[R]:
        if deps is None:  # on the class: the descriptor itself
            return self
        made = deps.__dict__[self._name] = self._make(deps.url)
        return made


class Dependencies:
    """What the routes share, made on first use (the lifespan asks for each at start)."""

    def __init__(self, state: State) -> None:
        self.url: str = state_url(state)
        self._state = state
        self._own_evaluator: Any = None

    games = _Records(GameRecords)
    players = _Records(PlayerRecords)
    uploads = _Records(MatchUploads)
    cards = _Records(Cards)
    exercises = _Records(Exercises)
    daily_attempts = _Records(DailyAttempts)

    @property
    def evaluator(self) -> Any:
        """The bots' evaluator: the Evaluator service (``app.state.game_evaluator`` where a test set one)."""
        given = getattr(self._state, "game_evaluator", None)
        if given is not None:
            return given
        if self._own_evaluator is None:
            from services.common.remote_evaluator import GrpcEvaluator

            s = self._state.settings
            self._own_evaluator = GrpcEvaluator(s.evaluator_address, timeout_s=s.grpc_timeout_s)
        return self._own_evaluator

    def close(self) -> None:
        if self._own_evaluator is not None:
            self._own_evaluator.close()
            self._own_evaluator = None


def open_dependencies(app: FastAPI) -> Dependencies:
    """The app's dependencies, made now (the lifespan's start)."""
    deps = app.state.deps = Dependencies(app.state)
    _ = (
        deps.games,
        deps.players,
        deps.uploads,
        deps.cards,
        deps.exercises,
        deps.daily_attempts,
        deps.evaluator,
    )
    return deps


def close_dependencies(app: FastAPI) -> None:
    deps: Dependencies | None = getattr(app.state, "deps", None)
    if deps is not None:
        deps.close()


def dependencies(request: Request) -> Dependencies:
    state = request.app.state
    deps: Dependencies | None = getattr(state, "deps", None)
    if deps is None:  # an app served without its lifespan
        deps = state.deps = Dependencies(state)
    return deps


def game_records(request: Request) -> GameRecords:
    """The games' records."""
    return dependencies(request).games


def player_records(request: Request) -> PlayerRecords:
    """The players' records."""
    return dependencies(request).players


def evaluator(request: Request) -> Any:
    """The bots' evaluator (the Evaluator service)."""
    return dependencies(request).evaluator
