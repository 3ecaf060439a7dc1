"""The session's clock hooks: the human's time runs while the game waits for the human, and running out
of it loses the game or the match (docs/play.md "Clock")."""

from __future__ import annotations

from typing import Any

from pulvezar.play.bot_turn import SessionBot
from pulvezar.play.core import HUMAN


class SessionClock(SessionBot):
    """Timeouts, the clock after each step, and the bot's replies resumed."""

    def check_clock(self, now: float) -> list[dict[str, Any]]:
        """Apply a timeout if the player's time has run out at ``now`` (events; ``[]`` when not)."""
        if self.finished or self.clock is None or self.clock.flagged(now) != HUMAN:
            return []
        return self._timeout(HUMAN, now)

    def _timeout(self, player: int, now: float) -> list[dict[str, Any]]:
        assert self.clock is not None
        self.clock.charge(now)
        events = self._record({"a": "timeout", "p": player, "t": now})
        if not self.finished:  # scope "game": the match goes on
            more, _ = self._advance(now)
            events += more
        self._clock_after(now, new_move=True)
        return events

    def _clock_after(self, now: float | None, *, new_move: bool) -> None:
        if self.clock is None or now is None:
            return
        if self.to_act() == HUMAN:
            self.clock.start(HUMAN, now, new_move=new_move)
        else:
            self.clock.stop(now)

    def resume(self, now: float | None = None) -> list[dict[str, Any]]:
        """Let the bot finish its replies after its evaluator failed during :meth:`apply`.

        When the evaluator raises while the bot replies, the human's action and the
        bot's replies before the failure stay applied (each is one complete step);
        ``resume`` goes on from there.  Without a pending reply it does nothing.
        """
        if not self.bot_pending:
            return []
        events, _ = self._advance(now)
        self._clock_after(now, new_move=True)
        return events
