"""The bot's decisions in a game: plays, cube actions, resignations and the answers to them.

Checker plays come from :class:`pulvezar.analysis.bots.Bot` (level, style,
adaptive margin; deterministic for a seed).  Cube actions use
:func:`pulvezar.cube.cube_decision` at the level's ply (easy and medium 0,
hard 1, master 2); resignations :func:`pulvezar.cube.should_resign` and
:func:`pulvezar.cube.resignation_decision`.  Tavla has no cube: the bot
resigns a race it cannot win (:func:`pulvezar.cube.sure_loss`, or the
evaluator's P(win) of at most 1e-5) and accepts a resignation worth at least
its cubeless equity of playing on.

Each decision is a :class:`Question` (what the bot is asked, with all it needs of
the :class:`~pulvezar.match.Game`) answered by :meth:`BotPlayer.decide` as a
:class:`Decision`.  ``ask``, where given, answers the questions instead: the
services pass one that sends each question to the Evaluator service in one call,
which runs :meth:`BotPlayer.decide` there (so the answers are the same).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from pulvezar.analysis.bots import Bot, Style
from pulvezar.cube import cube_decision, resignation_decision, should_resign, sure_loss
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import Evaluator, equity, for_rules
from pulvezar.match.game import Game
from pulvezar.play.settings import ADAPTIVE, BotSettings
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.hint import STRENGTHS

RESIGN_THRESHOLD = 1e-5

Ask = Literal["play", "resign", "double", "take", "beaver", "raccoon", "accept"]
ASKS: tuple[Ask, ...] = ("play", "resign", "double", "take", "beaver", "raccoon", "accept")


@dataclass(frozen=True)
class Question:
    """One decision asked of the bot, on turn's view: ``play`` (``dice``), ``resign`` (on roll, at most
    ``level``), ``double``, ``take`` (the player doubled), ``beaver`` (the bot was beavered), ``raccoon``
    (the player raccooned) or ``accept`` (a resignation at ``level``, ``resigner_on_turn`` or not).
    ``cube``: the game's cube for the player on turn (None without one)."""

    ask: Ask
    position: Position
    rules: Rules
    dice: tuple[int, int] | None = None
    cube: CubeState | None = None
    level: int = 0
    resigner_on_turn: bool = False
    raccoon: bool = False  # beaver: a raccoon is allowed

    @classmethod
    def of(cls, ask: Ask, game: Game, level: int = 0) -> Question:
        uses_cube = game.rules.uses_cube
        return cls(
            ask, game.position, game.rules, game.dice if ask == "play" else None,
            CubeState.from_game(game) if uses_cube and ask != "play" else None, level,
            ask == "accept" and game.resigner == game.turn, ask == "beaver" and game.context.options.raccoon,
        )  # fmt: skip


@dataclass(frozen=True)
class Decision:
    """The bot's answer: ``play``, the ``level`` it resigns at (0: none), ``yes`` (doubles, accepts) or
    ``reply`` (take, drop, beaver, raccoon)."""

    play: Play | None = None
    level: int = 0
    yes: bool = False
    reply: str = ""


def level_of(settings: BotSettings) -> str:
    """The playing level of ``settings`` (an adaptive bot's level from its rating)."""
    if settings.level != ADAPTIVE:
        return settings.level
    assert settings.rating is not None
    return Bot.for_rating(settings.rating, kind=settings.rating_kind).level


class BotPlayer:
    """One bot for a whole match; ``ask`` answers its questions where given (default: :meth:`decide`)."""

    def __init__(
        self,
        settings: BotSettings,
        evaluator: Evaluator,
        seed: int = 0,
        prune: bool = True,
        ask: Callable[[Question], Decision] | None = None,
    ) -> None:
        style: Style = settings.style  # type: ignore[assignment]  # validated by BotSettings
        if settings.level == ADAPTIVE:
            assert settings.rating is not None
            self.bot = Bot.for_rating(
                settings.rating, kind=settings.rating_kind, style=style, seed=seed, evaluator=evaluator,
                prune=prune,
            )  # fmt: skip
        else:
            self.bot = Bot(settings.level, style, seed, evaluator=evaluator, prune=prune)
        self.evaluator = evaluator
        self.prune = prune  # the searches of its checker plays and cube decisions (default: pruned)
        self.ask = ask or self.decide

    @property
    def level(self) -> str:
        """The playing level in use (an adaptive bot's level from its rating)."""
        return self.bot.level

    @property
    def margin(self) -> float:
        return self.bot.window

    @property
    def cube_ply(self) -> int:
        return STRENGTHS[self.level].ply

    # ---- a game's decisions: the rules decide what they can, the rest is a question ---------------
    def choose_play(self, game: Game) -> Play:
        plays = game.legal_plays()
        if len(plays) == 1:
            return plays[0]
        assert game.dice is not None
        play = self.ask(Question.of("play", game)).play
        assert play is not None
        return play

    def resignation_offer(self, game: Game) -> int | None:
        """The level the bot (on roll, before rolling) resigns at, or None."""
        levels = game.resignation_levels()
        if not levels:
            return None
        return self.ask(Question.of("resign", game, max(levels))).level or None

    def wants_double(self, game: Game) -> bool:
        return game.can_double() and self.ask(Question.of("double", game)).yes

    def answer_double(self, game: Game) -> Literal["take", "drop", "beaver"]:
        """The answer to the player's double (the game is at DOUBLED, the doubler on turn)."""
        return self.ask(Question.of("take", game)).reply  # type: ignore[return-value]

    def answer_beaver(self, game: Game) -> Literal["take", "drop", "raccoon"]:
        """The bot doubled and was beavered (it is on turn): take, drop or raccoon."""
        return self.ask(Question.of("beaver", game)).reply  # type: ignore[return-value]

    def answer_raccoon(self, game: Game) -> Literal["take", "drop"]:
        """The bot beavered and the player raccooned: take (8x the cube) or drop (lose 4x)."""
        return self.ask(Question.of("raccoon", game)).reply  # type: ignore[return-value]

    def accepts_resignation(self, game: Game) -> bool:
        """Whether the bot accepts the resignation on offer."""
        assert game.resigner is not None
        return self.ask(Question.of("accept", game, game.resignation)).yes

    # ---- the answers, on this bot's evaluator --------------------------------------------------------
    def decide(self, q: Question) -> Decision:
        """The answer to ``q`` (the searches and evaluations of every decision run here)."""
        if q.ask == "play":
            assert q.dice is not None
            return Decision(play=self.bot.choose(q.position, q.dice, q.rules))
        if q.ask == "resign":
            return Decision(level=min(self._resigns_at(q) or 0, q.level))
        if q.ask == "accept":
            return Decision(yes=self._accepts(q))
        assert q.cube is not None, f"{q.ask}: a question of the cube needs the cube"
        d = cube_decision(q.cube, self.evaluator, ply=self.cube_ply, prune=self.prune)
        if q.ask == "double":
            return Decision(yes=d.double)
        if q.ask == "take":
            reply = (
                "drop"
                if d.response == "pass"
                else "beaver"
                if d.response == "beaver" and q.cube.beaver
                else "take"
            )
            return Decision(reply=reply)
        dt = d.dt if d.dt is not None else d.nd  # the double/take value, per the cube before the double
        if q.ask == "beaver":
            return Decision(
                reply="raccoon" if dt > 0 and q.raccoon else "take" if 2.0 * dt >= -2.0 else "drop"
            )
        return Decision(reply="take" if -4.0 * dt >= -4.0 else "drop")  # raccoon: the player's dt

    def _resigns_at(self, q: Question) -> int | None:
        if q.cube is not None:
            return should_resign(q.cube, self.evaluator, RESIGN_THRESHOLD)
        level = sure_loss(q.position) or None
        if level is None:
            p = self._probs(q)
            if p[0] <= RESIGN_THRESHOLD:
                level = 1 + int(p[3] >= 1 - RESIGN_THRESHOLD)
        return level

    def _accepts(self, q: Question) -> bool:
        if q.cube is not None:
            resigner: Literal["player", "opponent"] = "player" if q.resigner_on_turn else "opponent"
            d = resignation_decision(
                q.cube, q.level, resigner=resigner, evaluator=self.evaluator,
                ply=min(self.cube_ply, 1), prune=self.prune,
            )  # fmt: skip
            return d.accept
        p = self._probs(q)
        eq = float(equity(p.reshape(1, 5), q.rules)[0])  # for the player on turn
        mine = -eq if q.resigner_on_turn else eq  # the acceptor's view
        return q.level >= mine - 1e-9

    def _probs(self, q: Question) -> npt.NDArray[np.float64]:
        board = np.frombuffer(q.position.board, dtype=np.uint8).reshape(1, 50)
        return np.asarray(for_rules(self.evaluator, q.rules).evaluate_boards(board)[0], dtype=np.float64)
