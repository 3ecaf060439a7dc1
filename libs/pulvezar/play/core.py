"""The session's state: the names of the sides and actions, what a session holds, and the dice it draws.

:class:`SessionCore` is the bottom layer of :class:`~pulvezar.play.session.PlaySession`: its fields (settings,
match, current game, log, records, verdict, hints, clock), its start from a position, and the primitives
every log entry uses (drawing a roll, recording an action in the match record).  The layers above it:
:mod:`~pulvezar.play.entries` (applying log entries), :mod:`~pulvezar.play.view` (the state),
:mod:`~pulvezar.play.coach` (the trainer's help), :mod:`~pulvezar.play.bot_turn` (the bot's replies),
:mod:`~pulvezar.play.timing` (the clock), :mod:`~pulvezar.play.actions` (the human's actions) and
:mod:`~pulvezar.play.session` (records and export).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Evaluator
from pulvezar.formats.record import Action, GameRecord
from pulvezar.match.dice import SEED_BYTES, FairDice
from pulvezar.match.game import Game
from pulvezar.match.match import Match
from pulvezar.play.bot import BotPlayer
from pulvezar.play.clock import Clock
from pulvezar.play.provider import DecisionProvider
from pulvezar.play.settings import GameSettings
from pulvezar.play.start import Start
from pulvezar.play.trainer import TrainerQuestion, answer

HUMAN, BOT = 0, 1
FORMAT = "pulvezar-play"
VERSION = 1
ACTIONS: tuple[str, ...] = (
    "roll", "play", "double", "take", "pass", "beaver", "raccoon", "resign", "accept", "reject", "end",
)  # fmt: skip
"""Every action name, in the order :meth:`PlaySession.actions` lists them."""
LEVEL_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}
RESIGNATION_LEVELS = {"single": 1, "gammon": 2, "mars": 2, "backgammon": 3}


def event(kind: str, player: int | None, **details: Any) -> dict[str, Any]:
    """One transition of the session: ``{"type", "player", "details"}``."""
    return {"type": kind, "player": player, "details": details}


class SessionCore:
    """What a session holds (see :class:`~pulvezar.play.session.PlaySession` for the arguments)."""

    def __init__(
        self,
        settings: GameSettings,
        *,
        seed: bytes | str | None = None,
        evaluator: Evaluator | None = None,
        bot_seed: int | None = None,
        trainer_ply: int = 2,
        prune: bool = True,
        now: float | None = None,
        start: Start | None = None,
    ) -> None:
        if not isinstance(settings, GameSettings):
            raise PulvezarError("settings must be GameSettings", field="settings")
        if type(trainer_ply) is not int or not 0 <= trainer_ply <= 2:
            raise PulvezarError("trainer_ply is 0, 1 or 2", field="trainer_ply")
        self.settings = settings
        if evaluator is None:
            from pulvezar.eval.evaluator import default_evaluator

            evaluator = default_evaluator()
        self.evaluator: Evaluator = evaluator
        self.trainer_ply = trainer_ply
        self.prune = prune
        self._dice: FairDice | None = None
        if settings.dice == "server":
            if isinstance(seed, str):
                try:
                    seed = bytes.fromhex(seed)
                except ValueError:
                    raise PulvezarError("the dice seed is 64 hex digits", field="seed") from None
            if seed is not None and (not isinstance(seed, bytes) or len(seed) != SEED_BYTES):
                raise PulvezarError(f"the dice seed is {SEED_BYTES} bytes", field="seed")
            self._dice = FairDice(seed if seed is not None else os.urandom(SEED_BYTES))
        elif seed is not None:
            raise PulvezarError("client dice have no seed", field="seed")
        if bot_seed is None:
            source = bytes.fromhex(self._dice.reveal()) if self._dice else os.urandom(8)
            bot_seed = int.from_bytes(source[-4:], "big") if self._dice else int.from_bytes(source[:4], "big")
        self.bot_seed = int(bot_seed)
        # an evaluator that answers the trainer's searches and the bot's decisions itself, else here
        self._trainer: Callable[[TrainerQuestion], Any]
        self.bot: BotPlayer
        if isinstance(evaluator, DecisionProvider):
            self._trainer = evaluator.trainer()
            self.bot = evaluator.bot(settings.bot, self.bot_seed, prune)
        else:
            self._trainer = lambda q: answer(q, evaluator)
            self.bot = BotPlayer(settings.bot, evaluator, self.bot_seed, prune)
        self.start = start
        self.match = Match(settings.match_length, settings.rules, settings.money)
        self.log: list[dict[str, Any]] = []
        if start is None:
            self.game: Game = self.match.new_game()
            self.records: list[GameRecord] = [GameRecord(1, (0, 0))]
        else:
            self._set_up(start)
        self.finished = False
        self.result: dict[str, Any] | None = None
        self.verdict: dict[str, Any] | None = None
        self._held: dict[str, Any] | None = None  # the last held action ({"k": its log entry, "v": verdict})
        self.hints_used = 0  # in the match (a hint is an entry of the log: it replays)
        self._preview: tuple[int, dict[str, bool]] | None = None  # (log length, resignation preview)
        self._offered: set[int] = set()  # levels the bot has offered in this game
        self.clock: Clock | None = None
        if settings.clock.enabled:
            c = settings.clock
            self.clock = Clock(c.budget(settings.match_length), float(c.delay))
            if now is not None:
                self.clock.start(HUMAN, float(now), new_move=True)

    def _set_up(self, start: Start) -> None:
        """The first game from ``start``: score, Crawford, board, cube, then its dice or its double."""
        length = self.settings.match_length
        start.check(length, self.settings.rules.uses_cube)
        m = self.match
        m.score = start.score
        m.crawford_played = length > 1 and length - 1 in start.score and not start.crawford
        self.game = g = m.new_game(start.setup)
        self.records = [GameRecord(1, start.score, crawford=g.context.crawford, setup=start.setup)]
        if start.dice is not None:
            g.roll(start.dice)
            self._act(start.turn, "roll", dice=start.dice)
        elif start.doubled:
            g.double()
            self._act(start.turn, "double", value=2 * g.cube_value)

    @property
    def status(self) -> str:
        return "finished" if self.finished else "playing"

    @property
    def dice_commitment(self) -> str | None:
        return self._dice.commitment if self._dice else None

    def hints_left(self) -> int | None:
        """Hints the match still allows (None: no limit)."""
        limit = self.settings.hint_limit
        return None if limit is None else max(0, limit - self.hints_used)

    def warned(self, verdict: dict[str, Any] | None) -> dict[str, Any] | None:
        """A verdict with ``warn``: its loss reaches the game's warning threshold (``warn_at``)."""
        if verdict is None:
            return None
        return {**verdict, "warn": float(verdict["loss"]) >= self.settings.warn_at}

    def _draw(self, entry: dict[str, Any]) -> tuple[int, int]:
        if self._dice is not None:
            d = self._dice.roll()
            if "d" in entry and list(entry["d"]) != list(d):
                raise PulvezarError("the stored dice do not match the dice seed", field="log")
            entry["d"] = [d[0], d[1]]
            return d
        dice = entry.get("d")
        if not isinstance(dice, list | tuple) or len(dice) != 2:
            raise PulvezarError("a client roll without dice", field="log")
        return int(dice[0]), int(dice[1])

    def _act(self, player: int, kind: str, **kw: Any) -> None:
        self.records[-1].actions.append(Action(player, kind, **kw))  # type: ignore[arg-type]
