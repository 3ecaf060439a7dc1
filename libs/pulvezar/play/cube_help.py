"""The trainer's help on a cube action during play, nothing made: the check of a roll (no double), a double,
a take, a pass or a beaver before it is made (the verdict with ``warn``, as :meth:`PlaySession.check` gives
for a play), and the cube hint (the right action with the equities of each choice, counted as a hint).

The human decides the cube at two moments: on roll before the dice, when doubling is possible (``"double"``:
roll or double), and when the bot has doubled (``"answer"``: take, pass or beaver).
"""

from __future__ import annotations

from typing import Any, Literal

from pulvezar.match.game import Phase
from pulvezar.play.errors import ActionNotAvailableError, InvalidActionError
from pulvezar.play.session import HUMAN, PlaySession

CubeMoment = Literal["double", "answer"]
CHOICES: dict[CubeMoment, tuple[str, ...]] = {
    "double": ("roll", "double"),
    "answer": ("take", "pass", "beaver"),
}


def cube_moment(session: PlaySession) -> CubeMoment | None:
    """``"double"``: the human is on roll and may double; ``"answer"``: the human answers the bot's
    double; else None."""
    if session.finished or session.to_act() != HUMAN:
        return None
    g = session.game
    if g.phase is Phase.ROLL and g.turn == HUMAN and g.can_double():
        return "double"
    if g.phase is Phase.DOUBLED:
        return "answer"
    return None


def _moment(session: PlaySession, what: str) -> CubeMoment:
    moment = cube_moment(session)
    if moment is None:
        raise ActionNotAvailableError(
            f"{what} is for a cube decision of yours; now: {session._waiting_for()}", field="action"
        )
    return moment


def check_cube(session: PlaySession, decision: str) -> dict[str, Any]:
    """The trainer's verdict on ``decision`` (roll, double, take, pass, beaver) with ``warn``, without
    making it: the session does not change."""
    moment = _moment(session, "checking a cube action")
    if decision not in CHOICES[moment] or (decision == "beaver" and "beaver" not in session.actions()):
        choices = [c for c in CHOICES[moment] if c != "beaver" or "beaver" in session.actions()]
        raise InvalidActionError(
            f"now the cube decision is one of {', '.join(choices)}, not {decision!r}", field="decision"
        )
    g = session.game
    if moment == "double":
        v = session._verdict("double", g, doubled=decision == "double")
    else:
        v = session._verdict("answer", g, reply="drop" if decision == "pass" else decision)
    verdict = session._warned(v)
    assert verdict is not None
    return verdict


def cube_hint(session: PlaySession) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The right cube action now and the equity of each choice in the human's view (money per cube; EMG
    in a match), and the events: the hint is counted against the match's ``hint_limit``."""
    moment = _moment(session, "a cube hint")
    if session.hints_left() == 0:
        raise ActionNotAvailableError(
            f"no hints left in this match (it allows {session.settings.hint_limit})", field="action"
        )
    g = session.game
    if moment == "double":
        v = session._verdict("double", g)
        d = v["details"]
        best = "double" if v["best"] == "double" else "roll"
        equities = {"roll": d["nd"], "double_take": d["dt"], "double_pass": d["dp"]}
    else:
        v = session._verdict("answer", g, reply="take")
        d = v["details"]
        best = v["best"]  # take, pass or beaver; the doubler's equities, turned to the taker's
        equities = {"take": round(-d["dt"], 4), "pass": round(-d["dp"], 4)}
        if "beaver" in session.actions():
            equities["beaver"] = round(-2 * d["dt"], 4)
    hint = {"moment": moment, "best": best, "equities": equities, "ply": d["ply"]}
    return hint, session._record({"a": "hint", "p": HUMAN})
