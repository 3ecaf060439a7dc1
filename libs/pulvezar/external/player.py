"""pulvezar's answers to gnubg's boards: a play, ``roll``/``double``, ``take``/``drop``/``beaver``.

:meth:`ExternalPlayer.answer` takes one line as gnubg sends it and returns the one line to send
back.  The decisions are :class:`pulvezar.play.bot.BotPlayer`'s at the chosen level and style (its
checker plays, and cube decisions at the level's ply).  A line that is not a board gnubg could send
is answered ``Error: ...``: gnubg prints such an answer and stops play, waiting at its prompt.

A double of pulvezar's that gnubg beavers (money play) comes back as the same position with the double
still pending and pulvezar, the doubler, on turn: it is answered as the beaver it is (``take``,
``drop``, or ``beaver`` for a raccoon where ``beaver`` is on).

A play is written one die at a time (``24/21 21/16``, ``bar/22``, ``6/off``), without hit marks or
repetition counts, the most literal form gnubg's move parser reads.  No legal move is an empty line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Evaluator
from pulvezar.external.board import Request, decode, parse_board
from pulvezar.play.bot import BotPlayer, Question
from pulvezar.play.settings import BotSettings
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

__all__ = ["ERROR_PREFIX", "Exchange", "ExternalPlayer", "gnubg_moves"]

ERROR_PREFIX = "Error: "  # gnubg prints an answer starting so and stops play


def _point(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def gnubg_moves(play: Play) -> str:
    """The play one die at a time, highest points first: ``13/8 8/5``, ``bar/20 6/off``."""
    moves = sorted(play.moves, key=lambda m: (-m.src, -m.dst))
    return " ".join(f"{_point(m.src)}/{_point(m.dst)}" for m in moves)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One board and the answer to it (``request`` None when the line was refused)."""

    line: str
    answer: str
    request: Request | None


class ExternalPlayer:
    """The decisions of one pulvezar bot, for gnubg; ``jacoby``/``beaver``: the money options gnubg's
    board does not carry (set them as gnubg plays)."""

    def __init__(
        self,
        evaluator: Evaluator,
        level: str = "hard",
        style: str = "balanced",
        seed: int = 0,
        *,
        jacoby: bool = False,
        beaver: bool = False,
        on_exchange: Callable[[Exchange], None] | None = None,
    ) -> None:
        self.bot = BotPlayer(BotSettings(level, style), evaluator, seed)
        self.rules = Rules.international()
        self.jacoby, self.beaver = jacoby, beaver
        self.on_exchange = on_exchange
        self._doubled: Position | None = None  # where pulvezar doubled last (a beaver comes back there)

    def answer(self, line: str) -> str:
        """The answer line (no newline) to one line from gnubg."""
        request: Request | None = None
        try:
            request = decode(parse_board(line), jacoby=self.jacoby, beaver=self.beaver)
            if request.ask == "take" and request.position == self._doubled:
                request = replace(request, ask="beaver")  # gnubg beavered pulvezar's double
            text = self.decide(request)
            self._doubled = request.position if text == "double" else None
        except PulvezarError as e:
            text = ERROR_PREFIX + " ".join(str(e).split())[:200]
        if self.on_exchange is not None:
            self.on_exchange(Exchange(line, text, request))
        return text

    def decide(self, r: Request) -> str:
        """The answer to a decoded request."""
        if r.ask == "play":
            assert r.dice is not None
            plays = self.rules.legal_plays(r.position, r.dice)
            if len(plays) <= 1:
                return gnubg_moves(plays[0]) if plays else ""
            play = self.bot.decide(Question("play", r.position, self.rules, r.dice)).play
            assert play is not None
            return gnubg_moves(play)
        if r.ask == "double":
            if r.state.cube_owner == "opponent" or r.state.crawford:
                return "roll"
            return (
                "double"
                if self.bot.decide(Question("double", r.position, self.rules, cube=r.state)).yes
                else "roll"
            )
        if r.ask == "beaver":  # take the beaver (a 4-cube), drop, or raccoon (gnubg's redouble: "beaver")
            q = Question("beaver", r.position, self.rules, cube=r.state, raccoon=r.state.beaver)
            return {"raccoon": "beaver"}.get(reply := self.bot.decide(q).reply, reply)
        reply = self.bot.decide(Question("take", r.position, self.rules, cube=r.state)).reply
        return reply if reply in ("take", "drop", "beaver") else "take"
