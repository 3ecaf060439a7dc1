"""What many RPCs' requests share (a position, its rule set, a roll), read in one order, position first, so
that every service names the first bad field alike; the Rules and Evaluator services' handlers start here."""

from __future__ import annotations

from typing import Protocol

from pulvezar import Position, Rules
from pulvezar.rules.rules import LegalPlays
from services.common import convert
from services.common.pulvezar_proto.v1 import rules_pb2 as pb


class OfPosition(Protocol):
    @property
    def position(self) -> pb.PositionRef: ...
    @property
    def rules(self) -> pb.RuleSet: ...


class OfRoll(OfPosition, Protocol):
    @property
    def dice(self) -> pb.Dice: ...


def position(request: OfPosition) -> tuple[Position, Rules]:
    """The request's position and rule set."""
    return convert.position(request.position), convert.rules(request.rules)


def roll(request: OfRoll) -> tuple[Position, tuple[int, int], Rules]:
    """The request's position, dice and rule set."""
    return convert.position(request.position), convert.dice(request.dice), convert.rules(request.rules)


def plays(request: OfRoll) -> tuple[Rules, LegalPlays]:
    """The request's rule set and the legal plays of its roll."""
    start, dice, rules = roll(request)
    return rules, convert.legal_plays(rules, start, dice)
