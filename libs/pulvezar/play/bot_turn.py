"""The bot's turn: after the human's action, the bot (and forced plays played for the human) act until
the human's next decision; each step is one log entry."""

from __future__ import annotations

from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.match.game import Game, Phase
from pulvezar.play.coach import SessionCoach
from pulvezar.play.core import BOT, HUMAN

_MAX_STEPS = 10_000


class SessionBot(SessionCoach):
    """The bot's replies."""

    def _advance(self, now: float | None) -> tuple[list[dict[str, Any]], bool]:
        """Let the bot (and forced plays) act until the human decides; (events, whether the bot acted)."""
        events: list[dict[str, Any]] = []
        acted = False
        t: dict[str, Any] = {} if now is None else {"t": now}
        for _ in range(_MAX_STEPS):
            if self.finished:
                break
            g, who = self.game, self.to_act()
            ph = g.phase
            if ph is Phase.OPENING:
                break
            if who == HUMAN:
                if ph is Phase.MOVE and self.settings.auto_forced and len(g.legal_plays()) == 1:
                    play = g.legal_plays()[0]
                    events += self._record({"a": "play", "p": HUMAN, "m": play.notation, "auto": True, **t})
                    continue
                break
            entry = self._bot_entry(g)
            if entry is None:
                break  # the bot waits for the client to enter its dice
            acted = True
            events += self._record({**entry, **t})
        else:  # pragma: no cover - a bug, not a game
            raise PulvezarError("the bot did not come to a decision of the player")
        return events, acted

    def _bot_entry(self, g: Game) -> dict[str, Any] | None:
        ph = g.phase
        if ph is Phase.ROLL:
            level = self.bot.resignation_offer(g)
            if level is not None and level not in self._offered:
                return {"a": "resign", "p": BOT, "l": level}
            if self.bot.wants_double(g):
                return {"a": "double", "p": BOT}
            if self.settings.dice == "client":
                return None
            return {"a": "roll", "p": BOT}
        if ph is Phase.MOVE:
            return {"a": "play", "p": BOT, "m": self.bot.choose_play(g).notation}
        if ph is Phase.DOUBLED:
            return {"a": self.bot.answer_double(g), "p": BOT}
        if ph is Phase.BEAVERED:
            return {"a": self.bot.answer_beaver(g), "p": BOT}
        if ph is Phase.RACCOONED:
            return {"a": self.bot.answer_raccoon(g), "p": BOT}
        if ph is Phase.RESIGNED:
            return {"a": "accept" if self.bot.accepts_resignation(g) else "reject", "p": BOT}
        raise PulvezarError(f"the bot cannot act at {ph.value}")  # pragma: no cover
