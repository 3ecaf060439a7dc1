"""The trainer's help on a cube action during play, nothing made (issue 44): the functions of
:class:`~pulvezar.play.session.PlaySession`'s trainer part (:mod:`pulvezar.play.coach`) as they were first
offered here.  ``check_cube``: the verdict with ``warn`` on a roll (no double), a double, a take, a pass or a
beaver before it is made; ``cube_hint``: the right action with the equities of each choice, counted as a
hint (:meth:`PlaySession.hint` gives it at a cube decision too)."""

from __future__ import annotations

from typing import Any

from pulvezar.play.coach import CUBE_CHOICES as CHOICES
from pulvezar.play.coach import CubeMoment
from pulvezar.play.session import PlaySession

__all__ = ["CHOICES", "CubeMoment", "check_cube", "cube_hint", "cube_moment"]


def cube_moment(session: PlaySession) -> CubeMoment | None:
    """:meth:`PlaySession.cube_moment`: ``"double"``, ``"answer"`` or None."""
    return session.cube_moment()


def check_cube(session: PlaySession, decision: str) -> dict[str, Any]:
    """:meth:`PlaySession.check_cube`: the verdict on ``decision`` with ``warn``, nothing made."""
    return session.check_cube(decision)


def cube_hint(session: PlaySession) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """:meth:`PlaySession.cube_hint`: the right cube action and each choice's equity, counted as a hint."""
    return session.cube_hint()
