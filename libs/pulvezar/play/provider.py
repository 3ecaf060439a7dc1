"""What an evaluator may offer beyond evaluation: the Play API's decisions answered elsewhere.

An evaluator that is a :class:`DecisionProvider` (the gateway's client of the Evaluator service,
``services.common.remote_evaluator.GrpcEvaluator``) answers each of the Play API's searches in one call
(docs/adr/0019); :class:`~pulvezar.play.session.PlaySession` and :func:`~pulvezar.play.card.game_luck`
use it where it is one, and search in process with the evaluator otherwise, to the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pulvezar.eval.evaluator import Evaluator

if TYPE_CHECKING:
    from pulvezar.play.bot import BotPlayer
    from pulvezar.play.luck import LuckQuestion
    from pulvezar.play.settings import BotSettings
    from pulvezar.play.trainer import TrainerQuestion
    from pulvezar.rules.position import Position
    from pulvezar.rules.rules import Rules

__all__ = ["DecisionProvider", "Ranked"]

#: a ranked play: the position ID after it, its cubeless equity, the ply it was valued at
Ranked = tuple[str, float, int]


@runtime_checkable
class DecisionProvider(Evaluator, Protocol):
    """An evaluator that also answers the Play API's decisions itself, each in one call; every answer
    is the one the library's in-process search would give with the provider's model."""

    def bot(self, settings: BotSettings, seed: int, prune: bool = True) -> BotPlayer:
        """The bot of ``settings`` whose decisions the provider answers (its ``ask``), as
        :class:`~pulvezar.play.bot.BotPlayer`'s ``decide`` would."""
        ...

    def trainer(self) -> Callable[[TrainerQuestion], Any]:
        """The trainer's searches (hints, verdicts), as :func:`pulvezar.play.trainer.answer`."""
        ...

    def luck(self) -> Callable[[LuckQuestion], tuple[float, float]]:
        """A finished game's luck (human, bot), as :func:`pulvezar.play.luck.answer`."""
        ...

    def ranked(self, position: Position, dice: tuple[int, int], ply: int, rules: Rules) -> list[Ranked]:
        """Every legal play of ``dice`` as the pruned ``ply`` search ranks it, best first."""
        ...
