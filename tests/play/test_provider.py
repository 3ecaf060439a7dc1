"""The declared contract of an evaluator that answers the Play API's decisions itself
(:class:`~pulvezar.play.provider.DecisionProvider`): a session and the result card use it where an evaluator
is one, and search in process otherwise, to the same bits."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from playkit import Fixed, random_action

from pulvezar.eval.evaluator import Boards, NetEvaluator, Probs
from pulvezar.play import DecisionProvider, GameSettings, PlaySession
from pulvezar.play import luck as luck_module
from pulvezar.play import trainer as trainer_module
from pulvezar.play.bot import BotPlayer
from pulvezar.play.card import game_luck
from pulvezar.play.luck import LuckQuestion
from pulvezar.play.provider import Ranked
from pulvezar.play.settings import BotSettings
from pulvezar.play.trainer import TrainerQuestion
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.search import searcher


class Counting:
    """A provider that answers in process with ``net``, counting each kind of call."""

    def __init__(self, net: NetEvaluator) -> None:
        self.net = net
        self.calls: Counter[str] = Counter()

    def evaluate_boards(self, boards: Boards) -> Probs:
        return self.net.evaluate_boards(boards)

    def bot(self, settings: BotSettings, seed: int, prune: bool = True) -> BotPlayer:
        local = BotPlayer(settings, self.net, seed, prune)

        def ask(q: Any) -> Any:
            self.calls["bot"] += 1
            return local.decide(q)

        return BotPlayer(settings, self, seed, prune, ask=ask)

    def trainer(self) -> Callable[[TrainerQuestion], Any]:
        def ask(q: TrainerQuestion) -> Any:
            self.calls["trainer"] += 1
            return trainer_module.answer(q, self.net)

        return ask

    def luck(self) -> Callable[[LuckQuestion], tuple[float, float]]:
        def ask(q: LuckQuestion) -> tuple[float, float]:
            self.calls["luck"] += 1
            return luck_module.answer(q, self.net)

        return ask

    def ranked(self, position: Position, dice: tuple[int, int], ply: int, rules: Rules) -> list[Ranked]:
        found = searcher(self.net, rules).rank(position, dice, ply)
        return [(c.play.position.position_id, c.cubeless_equity, c.ply) for c in found]


def test_only_an_evaluator_with_every_decision_is_a_provider(net: NetEvaluator) -> None:
    assert isinstance(Counting(net), DecisionProvider)
    assert not isinstance(net, DecisionProvider) and not isinstance(Fixed(0.5), DecisionProvider)

    class BotOnly:  # one of the methods is not the contract: the session searches in process
        evaluate_boards = net.evaluate_boards
        bot = Counting(net).bot

    assert not isinstance(BotOnly(), DecisionProvider)
    session = PlaySession(GameSettings.from_dict({}), seed=bytes(32), evaluator=BotOnly(), bot_seed=3)
    assert session.bot.ask == session.bot.decide


def test_a_session_asks_the_provider_and_plays_as_in_process(net: NetEvaluator) -> None:
    """The same random game with the provider and with the net: the same log, hints and luck; the bot's
    decisions, the hints and the luck each went to the provider."""
    provider = Counting(net)
    settings = GameSettings.from_dict({"trainer": True, "match_length": 0, "bot": {"level": "easy"}})
    sessions = [
        PlaySession(settings, seed=bytes(32), evaluator=ev, bot_seed=5, trainer_ply=0, now=0.0)
        for ev in (provider, net)
    ]
    rngs = [random.Random(5), random.Random(5)]
    for _ in range(120):
        states = [s.state(now=0.0) for s in sessions]
        assert states[0] == states[1]
        if states[0]["status"] == "finished":
            break
        if "play" in states[0]["actions"]:
            hints = [s.hint(limit=2) for s in sessions]
            assert hints[0] == hints[1]
        events = [
            s.apply(random_action(st, r), now=0.0) for s, st, r in zip(sessions, states, rngs, strict=True)
        ]
        assert events[0] == events[1]
    assert sessions[0].log == sessions[1].log
    assert game_luck(sessions[0], 0, provider) == game_luck(sessions[1], 0, net)
    assert provider.calls["bot"] and provider.calls["trainer"] and provider.calls["luck"] == 1
