"""Applying the session's log entries: every primitive action of either side (live or replayed from a
stored log) changes the game and the match record and gives its events; a finished game starts the next
or ends the match."""

from __future__ import annotations

from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.record import GameRecord
from pulvezar.match.game import Game, Phase
from pulvezar.play.core import BOT, HUMAN, LEVEL_NAMES, SessionCore
from pulvezar.play.core import event as _event


class SessionLog(SessionCore):
    """The log's entries applied (``{"a": kind, "p": player, ...}``, docs/play.md "Persistence")."""

    def _record(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply one log entry (live or from a stored log) and append it; its events."""
        events = self._apply_entry(entry)
        self.log.append(entry)
        if entry["a"] == "held":  # a decision the trainer held: kept for that exact action
            self._held = {"k": entry["k"], "v": entry["v"]}
            return events
        if entry["a"] != "hint":
            self._held = None
        if "v" in entry:
            self.verdict = entry["v"]
        return events

    def _apply_entry(self, e: dict[str, Any]) -> list[dict[str, Any]]:
        g = self.game
        a = e["a"]
        p: int = int(e.get("p", HUMAN))
        details: dict[str, Any] = {}
        if a == "opening":
            d = self._draw(e)
            g.opening_roll(d[0], d[1])
            winner = None if d[0] == d[1] else (HUMAN if d[0] > d[1] else BOT)
            details = {"dice": [d[0], d[1]], "winner": winner}
            if winner is not None:  # (Tavla: a roll without a play; the winner rolls again)
                rolled = (d[0], d[1]) if winner == HUMAN else (d[1], d[0])
                self._act(winner, "roll", dice=rolled)
            elif g.cube_value > 1:
                details["cube"] = g.cube_value  # an automatic double
            events = [_event("opening", None, **details)]
            return events + self._after(g)
        if a == "roll":
            d = self._draw(e)
            g.roll(d)
            self._act(g.turn, "roll", dice=d)
            details = {"dice": [d[0], d[1]]}
        elif a == "play":
            mover = g.turn
            g.play(e["m"])
            self._act(mover, "play", notation=e["m"])
            details = {"notation": e["m"]}
            if g.phase is Phase.OVER:
                details["position_id"] = g.position.position_id
            else:
                details["position_id"] = g.position.swap().position_id  # the mover's view
            if e.get("auto"):
                details["auto"] = True
        elif a == "double":
            g.double()
            self._act(p, "double", value=2 * g.cube_value)
            details = {"cube": 2 * g.cube_value}
        elif a == "beaver":
            g.beaver()
            self._act(p, "beaver", value=4 * g.cube_value)
            details = {"cube": 4 * g.cube_value}
        elif a == "raccoon":
            g.raccoon()
            self._act(p, "raccoon", value=8 * g.cube_value)
            details = {"cube": 8 * g.cube_value}
        elif a == "take":
            g.take()
            self._act(p, "take")
            details = {"cube": g.cube_value, "owner": g.cube_owner}
        elif a == "drop":
            g.drop()
            self._act(p, "drop")
        elif a == "resign":
            g.resign(e["l"], p)
            self._act(p, "resign", value=e["l"])
            details = {"level": LEVEL_NAMES[e["l"]], "points": g.cube_value * e["l"]}
            if p == BOT:
                self._offered.add(e["l"])
        elif a == "accept":
            g.accept_resignation()
            self._act(p, "accept")
        elif a == "reject":
            g.reject_resignation()
            self._act(p, "reject")
        elif a == "timeout":
            return self._apply_timeout(p, e.get("t"))
        elif a == "forfeit":
            return self._apply_forfeit(p, e.get("t"))
        elif a == "hint":  # help, not a move: counted, nothing else changes
            self.hints_used += 1
            return [_event("hint", HUMAN, used=self.hints_used, left=self.hints_left())]
        elif a == "held":  # the trainer held the human's decision: nothing is made
            k = e["k"]
            details = {"action": "pass" if k["a"] == "drop" else k["a"], "verdict": self.warned(e["v"])}
            if "m" in k:
                details["notation"] = k["m"]
            return [_event("held", HUMAN, **details)]
        elif a == "end":
            return self._finish("ended", None)
        else:
            raise PulvezarError(f"unknown log entry {a!r}", field="log")
        if "v" in e and self.settings.trainer:
            details["verdict"] = self.warned(e["v"])
            if e.get("h"):
                details["anyway"] = True  # made after the trainer held it
        return [_event("drop" if a == "drop" else a, p, **details), *self._after(g, at=e.get("t"))]

    def _apply_timeout(self, player: int, at: float | None = None) -> list[dict[str, Any]]:
        g = self.game
        winner = 1 - player
        events = [_event("timeout", player)]
        scope = self.settings.clock.scope
        length = self.settings.match_length
        points = max(1, length - self.match.score[winner]) if scope == "match" and length else g.cube_value
        g._end(winner, points, "timeout")
        final = "timeout" if scope == "match" else None
        return events + self._after(g, how="timeout", final=final, at=at)

    def _apply_forfeit(self, player: int, at: float | None) -> list[dict[str, Any]]:
        g = self.game
        winner = 1 - player
        length = self.settings.match_length
        points = max(1, length - self.match.score[winner]) if length else g.cube_value
        g._end(winner, points, "forfeit")
        events = [_event("forfeit", player, points=points)]
        return events + self._after(g, how="forfeit", final="forfeit", at=at)

    def _after(
        self, g: Game, how: str | None = None, final: str | None = None, at: float | None = None
    ) -> list[dict[str, Any]]:
        """A finished game: score it, then start the next game or finish the match."""
        if g.phase is not Phase.OVER or self.finished:
            return []
        assert g.winner is not None
        if how is None:
            last = next((ev[0] for ev in reversed(g.events[:-1])), "")
            how = {"drop": "drop", "accept": "resignation"}.get(last, "bearoff")
        details: dict[str, Any] = {"winner": g.winner, "points": g.points, "how": how}
        if at is not None:  # when it ended (the end-of-game summary's duration)
            details["at"] = at
        if how == "bearoff":
            result = g.rules.game_result(g.position)
            if result is not None:
                details["outcome"] = result.outcome.name.lower()
        self._act(g.winner, "win", value=g.points)
        rec = self.records[-1]
        rec.winner, rec.points = g.winner, g.points
        self.match.finish_game(g)
        details["score"] = list(self.match.score)
        events = [_event("game_end", g.winner, **details)]
        if final is not None:
            return events + self._finish(final, g.winner)
        if self.match.is_over:
            return events + self._finish("match", self.match.winner)
        if self.clock is not None and self.settings.clock.scope == "game":
            self.clock.reset()
        self.game = self.match.new_game()
        self._offered = set()
        c = self.game.context
        self.records.append(GameRecord(len(self.match.games), c.score, crawford=c.crawford))
        opener = c.opener if self.game.phase is not Phase.OPENING else None
        return [
            *events,
            _event("game_start", None, game=len(self.match.games), score=list(c.score), crawford=c.crawford,
                   opener=opener),
        ]  # fmt: skip

    def _finish(self, reason: str, winner: int | None) -> list[dict[str, Any]]:
        self.finished = True
        self.result = {"reason": reason, "winner": winner, "score": list(self.match.score)}
        details: dict[str, Any] = dict(self.result)
        if self._dice is not None:
            details["dice_seed"] = self._dice.reveal()
        return [_event("finished", winner, **details)]
