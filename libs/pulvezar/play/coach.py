"""The trainer's part of a session: its verdicts, the hint (a checker play's candidates or, at a cube
decision, the right cube action), the check of a decision without making it, and the verdict that held the
human's last action (docs/play.md "Trainer" and "Help during play").

The human decides the cube at two moments: on roll before the dice, when doubling is possible (``"double"``:
roll or double), and when the bot has doubled (``"answer"``: take, pass or beaver).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from pulvezar.cubeful import CubeState
from pulvezar.i18n import Message
from pulvezar.match.game import Game, Phase
from pulvezar.play.core import HUMAN
from pulvezar.play.errors import ActionNotAvailableError, InvalidActionError, SessionFinishedError
from pulvezar.play.trainer import TrainerAsk, TrainerQuestion
from pulvezar.play.view import SessionView
from pulvezar.rules.rules import Play

CubeMoment = Literal["double", "answer"]
CUBE_CHOICES: dict[CubeMoment, tuple[str, ...]] = {
    "double": ("roll", "double"),
    "answer": ("take", "pass", "beaver"),
}


class SessionCoach(SessionView):
    """Verdicts, hints and checks; nothing on the board changes."""

    def question(
        self, ask: TrainerAsk, g: Game, play: Play | None = None, doubled: bool = False, reply: str = ""
    ) -> TrainerQuestion:
        """The trainer's question on the human's decision in ``g`` (a play at MOVE, a cube action)."""
        cube = CubeState.from_game(g) if ask not in ("play", "hint") else None
        dice = g.dice if ask in ("play", "hint") else None
        return TrainerQuestion(
            ask, g.position, g.rules, self.trainer_ply, self.prune, dice, play, cube, doubled, reply
        )

    def judge(
        self, ask: TrainerAsk, g: Game, play: Play | None = None, doubled: bool = False, reply: str = ""
    ) -> dict[str, Any]:
        """The trainer's verdict (one search) on the human's decision in ``g``, without ``warn``."""
        verdict: dict[str, Any] = self._trainer(self.question(ask, g, play, doubled, reply))
        return verdict

    @property
    def held(self) -> dict[str, Any] | None:
        """The verdict (with ``warn``) that held the human's pending action, until the next step; None."""
        return None if self._held is None else self.warned(self._held["v"])

    # ---- when help is possible --------------------------------------------------------------------
    def cube_moment(self) -> CubeMoment | None:
        """``"double"``: the human is on roll and may double; ``"answer"``: the human answers the bot's
        double; else None."""
        if self.finished or self.to_act() != HUMAN:
            return None
        g = self.game
        if g.phase is Phase.ROLL and g.turn == HUMAN and g.can_double():
            return "double"
        if g.phase is Phase.DOUBLED:
            return "answer"
        return None

    def _must_play(self, what: str) -> Game:
        g = self.game
        if self.finished:
            raise SessionFinishedError(Message("refusal.game_over"), field="action")
        if g.phase is not Phase.MOVE or g.turn != HUMAN or g.dice is None:
            now = self.waiting_for_message()
            raise ActionNotAvailableError(
                Message("refusal.for_a_roll", {"what": what, "now": now}), field="action"
            )
        return g

    def _must_cube(self, what: str) -> CubeMoment:
        moment = self.cube_moment()
        if moment is None:
            now = self.waiting_for_message()
            raise ActionNotAvailableError(
                Message("refusal.for_a_cube", {"what": what, "now": now}), field="action"
            )
        return moment

    def _hint_allowed(self) -> None:
        if self.hints_left() == 0:
            limit = self.settings.hint_limit
            raise ActionNotAvailableError(Message("refusal.no_hints", {"n": limit}), field="action")

    # ---- hints ------------------------------------------------------------------------------------
    def hint(self, limit: int = 5) -> tuple[Any, list[dict[str, Any]]]:
        """The hint that fits the human's decision, and the events: the hint is counted (``hints_used``)
        against the match's ``hint_limit``.

        At a roll to play: the engine's best ``limit`` plays at the trainer's depth, best first (a list:
        ``notation``, ``position_id`` after the play in the mover's view, ``equity``, ``loss``,
        ``probabilities``, ``ply``).  At a cube decision: :meth:`cube_hint` (a dict)."""
        if self.cube_moment() is not None:
            return self.cube_hint()
        g = self._must_play("a hint")
        self._hint_allowed()
        cands: list[dict[str, Any]] = self._trainer(replace(self.question("hint", g), limit=limit))
        return cands, self._record({"a": "hint", "p": HUMAN})

    def cube_hint(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The right cube action now (``best``: roll, double, take, pass or beaver) and each choice's equity
        in the human's view (money per cube; EMG in a match), and the events: counted as a hint."""
        moment = self._must_cube("a cube hint")
        self._hint_allowed()
        g = self.game
        if moment == "double":
            v = self.judge("double", g)
            d = v["details"]
            best = "double" if v["best"] == "double" else "roll"
            equities = {"roll": d["nd"], "double_take": d["dt"], "double_pass": d["dp"]}
        else:
            v = self.judge("answer", g, reply="take")
            d = v["details"]
            best = v["best"]  # take, pass or beaver; the doubler's equities, turned to the taker's
            equities = {"take": round(-d["dt"], 4), "pass": round(-d["dp"], 4)}
            if "beaver" in self.actions():
                equities["beaver"] = round(-2 * d["dt"], 4)
        hint = {"moment": moment, "best": best, "equities": equities, "ply": d["ply"]}
        return hint, self._record({"a": "hint", "p": HUMAN})

    # ---- checks: a verdict, nothing made ----------------------------------------------------------
    def check(self, action: dict[str, Any]) -> dict[str, Any]:
        """The trainer's verdict on a play (``notation`` or ``position_id``) of the human's roll, with
        ``warn``, without making it: the session does not change."""
        g = self._must_play("checking a play")
        unknown = set(action) - {"action", "notation", "position_id"}
        if unknown:
            raise InvalidActionError(f"'check' takes no field {sorted(unknown)[0]!r}", field="action")
        play = self._find_play(action)
        verdict = self.warned(self.judge("play", g, play=play))
        assert verdict is not None
        return verdict

    def check_cube(self, decision: str) -> dict[str, Any]:
        """The trainer's verdict on ``decision`` (roll, double, take, pass, beaver) with ``warn``, without
        making it: the session does not change."""
        moment = self._must_cube("checking a cube action")
        beaver = "beaver" in self.actions()
        choices = [c for c in CUBE_CHOICES[moment] if c != "beaver" or beaver]
        if decision not in choices:
            raise InvalidActionError(
                f"now the cube decision is one of {', '.join(choices)}, not {decision!r}", field="decision"
            )
        g = self.game
        if moment == "double":
            v = self.judge("double", g, doubled=decision == "double")
        else:
            v = self.judge("answer", g, reply="drop" if decision == "pass" else decision)
        verdict = self.warned(v)
        assert verdict is not None
        return verdict
