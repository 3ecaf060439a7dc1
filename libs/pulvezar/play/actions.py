"""The human's actions: checked, judged by the trainer (and held when its verdict warns and the action asks
for it), recorded, then the bot's replies (docs/play.md "Actions" and "Trainer")."""

from __future__ import annotations

from typing import Any

from pulvezar.i18n import Message
from pulvezar.match.game import Phase
from pulvezar.play.core import ACTIONS, BOT, HUMAN, LEVEL_NAMES, RESIGNATION_LEVELS
from pulvezar.play.errors import ActionNotAvailableError, InvalidActionError, SessionFinishedError
from pulvezar.play.timing import SessionClock
from pulvezar.play.trainer import TrainerQuestion

_ACTION_KEYS = {
    "roll": {"dice"},
    "play": {"notation", "position_id"},
    "resign": {"level"},
}


class SessionActions(SessionClock):
    """:meth:`apply` and :meth:`forfeit`."""

    def apply(self, action: dict[str, Any], now: float | None = None) -> list[dict[str, Any]]:
        """Apply the human's ``action`` and the bot's replies; every transition as an event.

        A refused action raises :class:`~pulvezar.play.errors.SessionError` and
        changes nothing.  With the clock on, ``now`` is required; an action
        after the player's time ran out is not applied: the events say the
        time ran out.

        ``"hold": true`` (with the trainer on): a decision whose verdict warns is not made; the one event
        is ``held`` with the verdict, and the session keeps that verdict for this exact action, so sending
        it again without ``hold`` ("play anyway") makes it without a second search.
        """
        if not isinstance(action, dict) or not isinstance(action.get("action"), str):
            raise InvalidActionError('an action is an object like {"action": "roll"}', field="action")
        name = action["action"]
        if name not in ACTIONS:
            raise InvalidActionError(
                f"unknown action {name!r}; actions: {', '.join(ACTIONS)}", field="action"
            )
        unknown = set(action) - {"action", "hold"} - _ACTION_KEYS.get(name, set())
        if unknown:
            raise InvalidActionError(f"{name!r} takes no field {sorted(unknown)[0]!r}", field="action")
        hold = action.get("hold", False)
        if not isinstance(hold, bool):
            raise InvalidActionError("hold is true or false", field="hold")
        if self.finished:
            raise SessionFinishedError(Message("refusal.game_over"), field="action")
        if self.clock is not None:
            if now is None:
                raise InvalidActionError("a game with a clock needs the time of each action", field="now")
            if self.clock.flagged(now) == HUMAN:
                return self._timeout(HUMAN, now)
        if name not in self.actions():
            raise ActionNotAvailableError(self._why_not(name), field="action")
        entry, question = self._human_entry(name, action)  # validates everything; changes nothing
        if question is not None and self.settings.trainer:
            held = self._judged(entry, question, hold)
            if held is not None:
                if now is not None:
                    held["t"] = now
                return self._record(held)
        if now is not None:
            entry["t"] = now
        if self.clock is not None and now is not None:
            self.clock.charge(now)
        games = len(self.match.games)
        events = self._record(entry)
        more, acted = self._advance(now)
        events += more
        # a roll of the human's own (the opening included) keeps the move and its delay going
        same_move = name == "roll" and entry.get("p", HUMAN) == HUMAN and not acted
        self._clock_after(now, new_move=not (same_move and len(self.match.games) == games))
        return events

    def forfeit(self, now: float | None = None) -> list[dict[str, Any]]:
        """Resign the whole match (or end a money session) as the human: the bot wins the points the
        match still needs (money: the cube's value) and the match is over, a loss (the ``finished``
        event's winner is the bot)."""
        if self.finished:
            raise SessionFinishedError(Message("refusal.game_over"), field="action")
        entry: dict[str, Any] = {"a": "forfeit", "p": HUMAN}
        if now is not None:
            entry["t"] = now
        events = self._record(entry)
        if self.clock is not None and now is not None:
            self.clock.stop(now)
        return events

    def _why_not(self, name: str) -> Message:
        g = self.game
        possible: str | Message = ", ".join(self.actions()) or Message("wait.nothing")
        if name == "double":
            if not g.rules.uses_cube:
                why = Message("refusal.tavla_no_cube")
            elif g.context.crawford:
                why = Message("refusal.crawford")
            elif g.phase is Phase.ROLL and g.turn == HUMAN and g.cube_owner == BOT:
                why = Message("refusal.bot_owns_cube")
            else:
                why = Message("refusal.double_own_turn")
        elif name == "end":
            why = Message("refusal.end_money_only")
        elif name == "resign" and g.phase in (Phase.ROLL, Phase.MOVE):
            why = Message("refusal.no_resignation")
        else:
            why = Message("refusal.waits_for", {"what": self.waiting_for_message()})
        return Message("refusal.not_possible", {"action": repr(name), "why": why, "possible": possible})

    def _judged(self, entry: dict[str, Any], question: TrainerQuestion, hold: bool) -> dict[str, Any] | None:
        """Put the trainer's verdict on ``entry`` (the held one for this exact action, else one search);
        the ``held`` log entry instead when ``hold`` and the verdict warns."""
        key = dict(entry)
        again = self._held is not None and self._held["k"] == key
        verdict = self._held["v"] if self._held is not None and again else self._trainer(question)
        warned = self.warned(verdict)
        if hold and warned is not None and warned["warn"]:
            return {"a": "held", "p": HUMAN, "k": key, "v": verdict}
        entry["v"] = verdict
        if again:
            entry["h"] = 1  # made anyway: the verdict that held it
        return None

    def _human_entry(
        self, name: str, action: dict[str, Any]
    ) -> tuple[dict[str, Any], TrainerQuestion | None]:
        """The log entry for the human's action, fully checked, and the trainer's question on it (None: a
        decision the trainer does not value); the session is not changed."""
        g = self.game
        question: TrainerQuestion | None = None
        if name == "roll":
            player = HUMAN if g.phase is Phase.OPENING else g.turn
            entry: dict[str, Any] = {"a": "opening" if g.phase is Phase.OPENING else "roll", "p": player}
            if self.settings.dice == "client":
                entry["d"] = self._client_dice(action.get("dice"))
            elif action.get("dice") is not None:
                raise InvalidActionError("the server rolls the dice in this game; send no dice", field="dice")
            if g.phase is Phase.ROLL and g.turn == HUMAN and g.can_double():
                question = self.question("double", g)
            if entry["a"] == "opening":
                entry.pop("p")
            return entry, question
        if name == "play":
            play = self._find_play(action)
            return {"a": "play", "p": HUMAN, "m": play.notation}, self.question("play", g, play=play)
        if name == "double":
            return {"a": "double", "p": HUMAN}, self.question("double", g, doubled=True)
        if name in ("take", "pass", "beaver", "raccoon"):
            kind = "drop" if name == "pass" else name
            if g.phase is Phase.DOUBLED:
                question = self.question("answer", g, reply=kind)
            return {"a": kind, "p": HUMAN}, question
        if name == "resign":
            level = self._level(action.get("level", "single"))
            possible = g.resignation_levels(HUMAN)
            if level not in possible:
                names = ", ".join(LEVEL_NAMES[x] for x in possible)
                said = {"level": LEVEL_NAMES[level], "possible": names}
                raise ActionNotAvailableError(Message("refusal.resign_level", said), field="level")
            return {"a": "resign", "p": HUMAN, "l": level}, None
        return {"a": name, "p": HUMAN}, None  # accept, reject, end

    @staticmethod
    def _client_dice(value: Any) -> list[int]:
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(type(d) is int and 1 <= d <= 6 for d in value)
        ):
            raise InvalidActionError(f"client dice are two integers 1..6, got {value!r}", field="dice")
        return [int(value[0]), int(value[1])]

    def _level(self, value: Any) -> int:
        if isinstance(value, str) and value.lower() in RESIGNATION_LEVELS:
            return RESIGNATION_LEVELS[value.lower()]
        if type(value) is int and value in LEVEL_NAMES:
            return value
        raise InvalidActionError(
            f"a resignation level is single, gammon or backgammon, got {value!r}", field="level"
        )
