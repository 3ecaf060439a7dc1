"""The session's state as a client sees it: whose decision, the possible actions and plays, the board in
its IDs, the clock, the resignation preview; and a play of the human's roll found from its notation or
its Position ID."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from pulvezar.errors import NotationError, PulvezarError
from pulvezar.formats.record import match_id_of
from pulvezar.i18n import Message
from pulvezar.match.game import Phase
from pulvezar.play.core import ACTIONS, BOT, HUMAN, LEVEL_NAMES, RESIGNATION_LEVELS
from pulvezar.play.entries import SessionLog
from pulvezar.play.errors import IllegalMoveError, InvalidActionError
from pulvezar.play.why import diagnose
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play
from pulvezar.rules.xgid import XGID


class SessionView(SessionLog):
    """The queries of a session (nothing changes)."""

    def to_act(self) -> int | None:
        """The player whose decision the game waits for (None once finished)."""
        if self.finished:
            return None
        g = self.game
        ph = g.phase
        if ph is Phase.OPENING:
            return HUMAN
        if ph in (Phase.ROLL, Phase.MOVE, Phase.BEAVERED):
            return g.turn
        if ph in (Phase.DOUBLED, Phase.RACCOONED):
            return 1 - g.turn
        if ph is Phase.RESIGNED:
            assert g.resigner is not None
            return 1 - g.resigner
        return None

    def resign_levels(self) -> list[str]:
        """The levels the human may resign at now."""
        g = self.game
        if self.finished or g.phase not in (Phase.ROLL, Phase.MOVE):
            return []
        return [LEVEL_NAMES[x] for x in g.resignation_levels(HUMAN)]

    def resignation_preview(self) -> dict[str, bool] | None:
        """Whether the bot would accept the human's resignation now, per level the human may resign at
        (``{"single": true, "gammon": true, ...}``); None when no resignation is possible.  The bot's own
        answer (:meth:`BotPlayer.accepts_resignation`) on a copy of the game; kept until the next action;
        None too while the evaluator fails."""
        levels = self.resign_levels()
        if not levels:
            return None
        key = len(self.log)
        if self._preview is None or self._preview[0] != key:
            out = {}
            try:
                for name in levels:
                    trial = deepcopy(self.game)
                    trial.resign(RESIGNATION_LEVELS[name], HUMAN)
                    out[name] = self.bot.accepts_resignation(trial)
            except Exception:  # the evaluator is down: the state shows no preview, and the game goes on
                return None
            self._preview = (key, out)
        return dict(self._preview[1])

    def actions(self) -> list[str]:
        """The names of what the human may do now."""
        if self.finished:
            return []
        g, ph, who = self.game, self.game.phase, self.to_act()
        out: set[str] = set()
        if ph is Phase.OPENING:
            out.add("roll")
            if self.settings.is_money:
                out.add("end")
        elif who == HUMAN:
            if ph is Phase.ROLL:
                out.add("roll")
                if g.can_double():
                    out.add("double")
            elif ph is Phase.MOVE:
                out.add("play")
            elif ph in (Phase.DOUBLED, Phase.BEAVERED, Phase.RACCOONED):
                out |= {"take", "pass"}
                if ph is Phase.DOUBLED and g.context.options.beaver:
                    out.add("beaver")
                if ph is Phase.BEAVERED and g.context.options.raccoon:
                    out.add("raccoon")
            elif ph is Phase.RESIGNED:
                out |= {"accept", "reject"}
        elif who == BOT and ph is Phase.ROLL and self.settings.dice == "client":
            out.add("roll")  # the client enters the bot's dice
        if self.resign_levels():
            out.add("resign")
        return [a for a in ACTIONS if a in out]

    def legal_plays(self) -> list[dict[str, str]]:
        """``[{"notation", "position_id"}]`` when the human must play, else ``[]``."""
        if self.finished or self.game.phase is not Phase.MOVE or self.game.turn != HUMAN:
            return []
        return [
            {"notation": p.notation, "position_id": p.position.position_id} for p in self.game.legal_plays()
        ]

    def board(self) -> dict[str, Any]:
        """Position ID, Match ID, gnubg ID and XGID of the current game, and each side's checkers.

        The Match ID and XGID are ``None`` where they cannot express the state (a cube beyond
        32768 or 1024, a money score beyond 32767).
        """
        g = self.game
        pos = g.position
        try:
            mid: str | None = match_id_of(g).encode()
        except PulvezarError:  # a cube or money score beyond what a Match ID holds
            mid = None
        human = pos if g.turn == HUMAN else pos.swap()
        return {
            "position_id": pos.position_id,
            "match_id": mid,
            "gnubg_id": f"{pos.position_id}:{mid}" if mid else None,
            "xgid": self._xgid(),
            "seen_from": g.turn,
            "checkers": {"human": list(human.mine), "bot": list(human.theirs)},
            "off": list(human.off()),
            "pips": list(human.pips()),
        }

    def _xgid(self) -> str | None:
        g, c = self.game, self.game.context
        dice: str | tuple[int, int] = "00"
        if g.phase is Phase.MOVE and g.dice is not None:
            dice = g.dice
        else:
            dice = {Phase.DOUBLED: "D", Phase.BEAVERED: "B", Phase.RACCOONED: "R"}.get(g.phase, "00")
        owner = 0 if g.cube_owner is None else (1 if g.cube_owner == HUMAN else -1)
        cj = int(c.crawford) if c.length else int(c.options.jacoby) | (2 if c.options.beaver else 0)
        try:
            return XGID.from_position(
                g.position, turn=1 if g.turn == HUMAN else -1, cube_value=g.cube_value, cube_owner=owner,
                dice=dice, score=c.score, crawford_jacoby=cj, match_length=c.length,
            ).encode()  # fmt: skip
        except PulvezarError:
            return None

    def state(self, now: float | None = None) -> dict[str, Any]:
        """The JSON-able state: board, score, cube, turn, actions, legal plays, dice, clock, trainer."""
        g = self.game
        who = self.to_act()
        resignation = None
        if g.phase is Phase.RESIGNED and not self.finished:
            resignation = {"player": g.resigner, "level": LEVEL_NAMES[g.resignation]}
        st: dict[str, Any] = {
            "status": self.status,
            "settings": self.settings.to_dict(),
            "bot": {"level": self.bot.level, "style": self.settings.bot.style, "margin": self.bot.margin},
            "game": len(self.match.games),
            "match_length": self.settings.match_length,
            "score": list(self.match.score),
            "crawford": g.context.crawford,
            "post_crawford": bool(g.context.length) and not g.context.crawford and self.match.crawford_played,
            "board": self.board(),
            "phase": g.phase.value,
            "turn": g.turn,
            "to_act": who,
            "cube": {
                "value": g.cube_value,
                "owner": g.cube_owner,
                "used": g.rules.uses_cube,
            },
            "dice": list(g.dice) if g.dice is not None and g.phase is Phase.MOVE else None,
            "actions": self.actions(),
            "legal_plays": self.legal_plays(),
            "resign_levels": self.resign_levels(),
            "resign_preview": self.resignation_preview(),
            "resignation": resignation,
            "dice_mode": self.settings.dice,
            "dice_commitment": self.dice_commitment,
            "clock": self._clock_state(now),
            "trainer": self.warned(self.verdict) if self.settings.trainer else None,
            "hints_used": self.hints_used,
            "hints_left": self.hints_left(),
            "result": self.result,
            "bot_pending": self.bot_pending,
            "start": self.start.to_dict() if self.start is not None else None,
        }
        if self.finished and self._dice is not None:
            st["dice_seed"] = self._dice.reveal()
        return st

    def _clock_state(self, now: float | None) -> dict[str, Any] | None:
        if self.clock is None:
            return None
        return {
            "remaining": [round(x, 3) for x in self.clock.remaining_at(now)],
            "running": self.clock.running,
            "delay": self.clock.delay,
            "delay_left": round(self.clock.delay_left, 3) if self.clock.running is not None else None,
            "scope": self.settings.clock.scope,
        }

    def waiting_for(self) -> str:
        """What the game waits for, in English (:meth:`waiting_for_message` in any language)."""
        return str(self.waiting_for_message())

    def waiting_for_message(self) -> Message:
        g, who = self.game, self.to_act()
        ph = g.phase
        if ph is Phase.OPENING:
            return Message("wait.opening")
        if ph is Phase.ROLL:
            return Message("wait.your_roll" if who == HUMAN else "wait.bot_dice")
        if ph is Phase.MOVE:
            assert g.dice is not None
            return Message("wait.your_play", {"roll": f"{g.dice[0]}{g.dice[1]}"})
        answers = {Phase.DOUBLED: "double", Phase.BEAVERED: "beaver", Phase.RACCOONED: "raccoon",
                   Phase.RESIGNED: "resignation"}  # fmt: skip
        if ph in answers:
            return Message(f"wait.answer_{answers[ph]}")
        return Message("wait.nothing")

    @property
    def bot_pending(self) -> bool:
        """Whether the bot owes a reply (only after its evaluator failed in :meth:`apply`)."""
        if self.finished or self.to_act() != BOT:
            return False
        return not (self.game.phase is Phase.ROLL and self.settings.dice == "client")  # waits for dice

    def _find_play(self, action: dict[str, Any]) -> Play:
        g = self.game
        assert g.dice is not None
        plays = g.rules.legal_plays(g.position, g.dice)
        d = f"{g.dice[0]}{g.dice[1]}"
        if "position_id" in action:
            pid = action["position_id"]
            if not isinstance(pid, str):
                raise InvalidActionError("position_id is a string", field="position_id")
            try:
                target = Position.from_position_id(pid)
            except PulvezarError as e:
                raise InvalidActionError(str(e), field="position_id") from None
            try:
                return plays[plays.index_of(target)]
            except ValueError:
                raise IllegalMoveError(
                    Message("refusal.no_play_leads_to", {"roll": d, "id": pid}), field="position_id"
                ) from None
        text = action.get("notation")
        if not isinstance(text, str):
            raise InvalidActionError('a play needs "notation" (text) or "position_id"', field="notation")
        try:
            return plays.find(text)
        except NotationError as e:
            why = diagnose(g.position, g.dice, text, g.rules)
            refusal: str | Message = e.words or str(e)
            message = Message("refusal.with_reason", {"refusal": refusal, "why": why}) if why else refusal
            raise IllegalMoveError(message, field="notation") from e
