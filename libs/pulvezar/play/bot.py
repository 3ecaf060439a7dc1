"""The bot's decisions in a game: plays, cube actions, resignations and the answers to them.

Checker plays come from :class:`pulvezar.analysis.bots.Bot` (level, style,
adaptive margin; deterministic for a seed).  Cube actions use
:func:`pulvezar.cube.cube_decision` at the level's ply (easy and medium 0,
hard 1, master 2); resignations :func:`pulvezar.cube.should_resign` and
:func:`pulvezar.cube.resignation_decision`.  Tavla has no cube: the bot
resigns a race it cannot win (:func:`pulvezar.cube.sure_loss`, or the
evaluator's P(win) of at most 1e-5) and accepts a resignation worth at least
its cubeless equity of playing on.

Every decision needs only the :class:`~pulvezar.match.Game` and the
evaluator, which is any object with ``evaluate_boards`` (the service passes one
that calls the evaluation service).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from pulvezar.analysis.bots import Bot, Style
from pulvezar.cube import cube_decision, resignation_decision, should_resign, sure_loss
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import Evaluator, equity, for_rules
from pulvezar.match.game import Game
from pulvezar.play.settings import ADAPTIVE, BotSettings
from pulvezar.rules.rules import Play
from pulvezar.search.hint import STRENGTHS

RESIGN_THRESHOLD = 1e-5


class BotPlayer:
    """One bot for a whole match."""

    def __init__(
        self, settings: BotSettings, evaluator: Evaluator, seed: int = 0, prune: bool = True
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

    # ---- checker play --------------------------------------------------------------------
    def choose_play(self, game: Game) -> Play:
        plays = game.legal_plays()
        if len(plays) == 1:
            return plays[0]
        assert game.dice is not None
        return self.bot.choose(game.position, game.dice, game.rules)

    # ---- the bot on roll -----------------------------------------------------------------
    def resignation_offer(self, game: Game) -> int | None:
        """The level the bot (on roll, before rolling) resigns at, or None."""
        levels = game.resignation_levels()
        if not levels:
            return None
        if game.rules.uses_cube:
            level = should_resign(CubeState.from_game(game), self.evaluator, RESIGN_THRESHOLD)
        else:
            level = sure_loss(game.position) or None
            if level is None:
                p = self._probs(game)
                if p[0] <= RESIGN_THRESHOLD:
                    level = 1 + int(p[3] >= 1 - RESIGN_THRESHOLD)
        if level is None:
            return None
        return min(level, max(levels))

    def wants_double(self, game: Game) -> bool:
        if not game.can_double():
            return False
        return cube_decision(
            CubeState.from_game(game), self.evaluator, ply=self.cube_ply, prune=self.prune
        ).double

    # ---- answers ---------------------------------------------------------------------------
    def answer_double(self, game: Game) -> Literal["take", "drop", "beaver"]:
        """The answer to the player's double (the game is at DOUBLED, the doubler on turn)."""
        d = cube_decision(CubeState.from_game(game), self.evaluator, ply=self.cube_ply, prune=self.prune)
        if d.response == "pass":
            return "drop"
        if d.response == "beaver" and game.context.options.beaver:
            return "beaver"
        return "take"

    def answer_beaver(self, game: Game) -> Literal["take", "drop", "raccoon"]:
        """The bot doubled and was beavered (it is on turn): take, drop or raccoon."""
        d = cube_decision(CubeState.from_game(game), self.evaluator, ply=self.cube_ply, prune=self.prune)
        dt = d.dt if d.dt is not None else d.nd  # the double/take value, per the cube before the double
        if dt > 0 and game.context.options.raccoon:
            return "raccoon"
        return "take" if 2.0 * dt >= -2.0 else "drop"

    def answer_raccoon(self, game: Game) -> Literal["take", "drop"]:
        """The bot beavered and the player raccooned: take (8x the cube) or drop (lose 4x)."""
        d = cube_decision(CubeState.from_game(game), self.evaluator, ply=self.cube_ply, prune=self.prune)
        dt = d.dt if d.dt is not None else d.nd  # the player's double/take value
        return "take" if -4.0 * dt >= -4.0 else "drop"

    def accepts_resignation(self, game: Game) -> bool:
        """Whether the bot accepts the resignation on offer."""
        assert game.resigner is not None
        level = game.resignation
        if game.rules.uses_cube:
            resigner: Literal["player", "opponent"] = "player" if game.resigner == game.turn else "opponent"
            d = resignation_decision(
                CubeState.from_game(game), level, resigner=resigner, evaluator=self.evaluator,
                ply=min(self.cube_ply, 1), prune=self.prune,
            )  # fmt: skip
            return d.accept
        p = self._probs(game)
        eq = float(equity(p.reshape(1, 5), game.rules)[0])  # for the player on turn
        mine = eq if game.turn != game.resigner else -eq  # the acceptor's view
        return level >= mine - 1e-9

    def _probs(self, game: Game) -> npt.NDArray[np.float64]:
        board = np.frombuffer(game.position.board, dtype=np.uint8).reshape(1, 50)
        return np.asarray(for_rules(self.evaluator, game.rules).evaluate_boards(board)[0], dtype=np.float64)
