"""One game under a match or money-session context: dice, plays, cube, resignation.

Players are ``0`` and ``1``; :attr:`Game.position` is always seen from the
player whose turn it is (:attr:`Game.turn`).  Every action is appended to
:attr:`Game.events`, so a game can be replayed to any decision
(:meth:`Game.replay`).

A game may start from a set-up position instead of the opening
(:class:`Setup`: board, turn, cube), as gnubg's ``set board`` does.

>>> from pulvezar import Rules
>>> g = Game(MatchContext(length=5))
>>> g.opening_roll(3, 1)      # player 0 rolled the 3: plays 3-1
>>> g.turn, g.dice
(0, (3, 1))
>>> g.play("8/5 6/5")
>>> g.turn, g.phase
(1, <Phase.ROLL: 'roll'>)
>>> g.double(); g.take()
>>> g.cube_value, g.cube_owner
(2, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules


class IllegalActionError(PulvezarError):
    """An action that the game's state does not allow now (doubling in the Crawford game, ...)."""


class Phase(StrEnum):
    OPENING = "opening"  # waiting for the opening roll
    ROLL = "roll"  # the player on turn may double (where allowed) or roll
    DOUBLED = "doubled"  # the opponent answers: take, drop, beaver
    BEAVERED = "beavered"  # the doubler answers a beaver: take, drop, raccoon
    RACCOONED = "raccooned"  # the beaverer answers a raccoon: take or drop
    MOVE = "move"  # dice are rolled; the player on turn plays
    RESIGNED = "resigned"  # a resignation waits for the answer
    OVER = "over"


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """Optional rules of money sessions (matches never use them)."""

    jacoby: bool = False
    beaver: bool = False
    raccoon: bool = False
    automatic_doubles: int = 0  # at most this many automatic doubles per game; 0 = off


@dataclass(frozen=True, slots=True)
class MatchContext:
    """What a game needs to know about its match: length (0 = money), scores, Crawford."""

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False  # this game is the Crawford game
    rules: Rules = field(default_factory=Rules.international)
    options: SessionOptions = field(default_factory=SessionOptions)
    opener: int | None = None  # Tavla: the previous winner opens later games

    def __post_init__(self) -> None:
        if self.length < 0:
            raise PulvezarError("match length must be 0 (money) or positive", field="length")
        if self.length and self.options != SessionOptions():
            raise PulvezarError("Jacoby, beaver, raccoon and automatic doubles are for money sessions only")
        if not self.rules.uses_cube and self.options != SessionOptions():
            raise PulvezarError("Tavla has no cube options")
        if self.crawford and not self.length:
            raise PulvezarError("a money session has no Crawford game", field="crawford")

    @property
    def is_money(self) -> bool:
        return self.length == 0


@dataclass(frozen=True, slots=True)
class Setup:
    """A game's set-up start instead of the opening: the board seen from ``turn``, who is to roll
    (or double), and the cube (``cube_owner`` None: centred).

    >>> g = Game(MatchContext(length=5), setup=Setup(Position.start(), turn=1, cube_value=2, cube_owner=0))
    >>> g.phase, g.turn, g.cube_value, g.can_double()
    (<Phase.ROLL: 'roll'>, 1, 2, False)
    """

    position: Position
    turn: int = 0
    cube_value: int = 1
    cube_owner: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.position, Position):
            raise PulvezarError("a set-up needs a Position", field="position")
        if self.turn not in (0, 1):
            raise PulvezarError(f"the turn is player 0 or 1, got {self.turn!r}", field="turn")
        v = self.cube_value
        if type(v) is not int or v < 1 or v > 1 << 15 or v & (v - 1):
            raise PulvezarError(f"the cube is a power of two from 1 to 32768, got {v!r}", field="cube")
        if self.cube_owner not in (0, 1, None):
            raise PulvezarError(f"the cube owner is 0, 1 or None, got {self.cube_owner!r}", field="cube")
        if 15 in self.position.off():
            raise PulvezarError("the game is over in this position: a side has borne off", field="position")

    def check(self, context: MatchContext) -> None:
        """Raise :class:`PulvezarError` where the set-up cannot happen under ``context``."""
        if self.cube_value > 1 or self.cube_owner is not None:
            if not context.rules.uses_cube:
                raise PulvezarError("Tavla has no cube: the cube is 1 and centred", field="cube")
            if context.crawford:
                raise PulvezarError("the cube is 1 and centred in the Crawford game", field="cube")


@dataclass(slots=True)
class Game:
    """The state of one game, advanced by actions that check the rules.

    ``setup``: start from a set-up position (:class:`Setup`) instead of the opening.
    """

    context: MatchContext
    setup: Setup | None = None
    position: Position = field(default_factory=Position.start)
    turn: int = 0
    phase: Phase = Phase.OPENING
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: int | None = None  # None = centred
    automatic_doubles: int = 0
    doubler: int | None = None  # who offered the pending double
    resignation: int = 0  # level on offer (1 single, 2 gammon, 3 backgammon)
    resigner: int | None = None
    winner: int | None = None
    points: int = 0
    events: list[tuple[Any, ...]] = field(default_factory=list)
    _resume: Phase = field(default=Phase.ROLL, repr=False)

    def __post_init__(self) -> None:
        if self.setup is not None:
            st = self.setup
            st.check(self.context)
            self.position, self.turn, self.phase = st.position, st.turn, Phase.ROLL
            self.cube_value, self.cube_owner = st.cube_value, st.cube_owner
        elif self.context.opener is not None and not self.context.rules.uses_cube:
            self.turn = self.context.opener
            self.phase = Phase.ROLL

    # ---- queries -------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self.context.rules

    def can_double(self) -> bool:
        """Whether the player on turn may double now."""
        c = self.context
        return (
            self.phase is Phase.ROLL
            and c.rules.uses_cube
            and not c.crawford
            and self.cube_owner in (None, self.turn)
        )

    def resignation_levels(self, player: int | None = None) -> list[int]:
        """The levels ``player`` (default: the one on turn) may resign at.

        Single, gammon, backgammon (Tavla: single, double), less those the game
        can no longer reach: only a single once the resigner has borne a checker
        off (or under the Jacoby rule with a centred cube), and in a match no
        level beyond the first that already wins the match for the opponent.
        """
        p = self.turn if player is None else player
        view = self.position if p == self.turn else self.position.swap()
        top = 3 if self.rules.variant == "international" else 2
        if view.off()[0] > 0:
            top = 1
        if self.context.options.jacoby and self.cube_owner is None and self.context.is_money:
            top = 1
        c = self.context
        if c.length:
            need = c.length - c.score[1 - p]
            for level in range(1, top + 1):
                if self.cube_value * level >= need:
                    top = level
                    break
        return list(range(1, top + 1))

    # ---- the opening -------------------------------------------------
    def opening_roll(self, die0: int, die1: int) -> None:
        """Each player's single die; ties re-roll (money: automatic doubles where enabled)."""
        self._expect(Phase.OPENING)
        self._check_die(die0)
        self._check_die(die1)
        self.events.append(("opening", die0, die1))
        if die0 == die1:
            o = self.context.options
            if self.context.is_money and self.automatic_doubles < o.automatic_doubles:
                self.automatic_doubles += 1
                self.cube_value *= 2
            return
        winner = 0 if die0 > die1 else 1
        if winner != self.turn:
            self.turn = winner
            self.position = self.position.swap()
        if self.rules.variant == "tavla":
            self.phase = Phase.ROLL  # the winner rolls both dice again
        else:
            self.dice = (die0, die1) if winner == 0 else (die1, die0)
            self.phase = Phase.MOVE

    # ---- cube actions ----------------------------------------------------
    def double(self) -> None:
        if not self.can_double():
            raise IllegalActionError(self._why_no_double())
        self.events.append(("double", self.turn))
        self.doubler = self.turn
        self.phase = Phase.DOUBLED

    def take(self) -> None:
        """Accept the double (or the beaver / raccoon) on offer."""
        if self.phase is Phase.DOUBLED:
            self.cube_value *= 2
            self.cube_owner = 1 - self.turn
        elif self.phase is Phase.BEAVERED:
            self.cube_value *= 4
            self.cube_owner = 1 - self.turn
        elif self.phase is Phase.RACCOONED:
            self.cube_value *= 8
            self.cube_owner = 1 - self.turn  # the cube stays with the player who took
        else:
            raise IllegalActionError("there is no double to take")
        self.events.append(("take",))
        self.doubler = None
        self.phase = Phase.ROLL

    def drop(self) -> None:
        """Decline the double (or the beaver / raccoon): the refuser loses the value before it."""
        if self.phase is Phase.DOUBLED:
            self._end(self.turn, self.cube_value, "drop")  # the taker refuses: doubler wins
        elif self.phase is Phase.BEAVERED:
            self._end(1 - self.turn, 2 * self.cube_value, "drop")  # doubler refuses the beaver
        elif self.phase is Phase.RACCOONED:
            self._end(self.turn, 4 * self.cube_value, "drop")  # beaverer refuses the raccoon
        else:
            raise IllegalActionError("there is no double to drop")

    def beaver(self) -> None:
        if self.phase is not Phase.DOUBLED or not self.context.options.beaver:
            raise IllegalActionError("beaver needs a pending double in a session with the beaver rule")
        self.events.append(("beaver",))
        self.phase = Phase.BEAVERED

    def raccoon(self) -> None:
        if self.phase is not Phase.BEAVERED or not self.context.options.raccoon:
            raise IllegalActionError("raccoon needs a beaver in a session with the raccoon rule")
        self.events.append(("raccoon",))
        self.phase = Phase.RACCOONED

    # ---- dice and plays ------------------------------------------------
    def roll(self, dice: tuple[int, int]) -> None:
        self._expect(Phase.ROLL)
        self._check_die(dice[0])
        self._check_die(dice[1])
        self.events.append(("roll", self.turn, tuple(dice)))
        self.dice = (dice[0], dice[1])
        self.phase = Phase.MOVE

    def legal_plays(self) -> list[Play]:
        self._expect(Phase.MOVE)
        assert self.dice is not None
        return list(self.rules.legal_plays(self.position, self.dice))

    def play(self, play: Play | str | Position) -> None:
        """Play a legal play (a :class:`Play`, its notation, or the resulting position)."""
        self._expect(Phase.MOVE)
        assert self.dice is not None
        plays = self.rules.legal_plays(self.position, self.dice)
        if isinstance(play, str):
            chosen = plays.find(play)
        else:
            target = play.position if isinstance(play, Play) else play
            try:
                chosen = plays[plays.index_of(target)]
            except ValueError:
                from pulvezar.errors import IllegalPlayError

                raise IllegalPlayError("that play is not legal with these dice", field="play") from None
        self.events.append(("play", self.turn, chosen.notation))
        result = self.rules.game_result(chosen.position)
        if result is not None:
            points = result.points
            if self.context.is_money and self.context.options.jacoby and self.cube_owner is None:
                points = 1
            self.position = chosen.position
            self._end(self.turn, self.cube_value * points, "bearoff")
            return
        self.position = chosen.position.swap()
        self.turn = 1 - self.turn
        self.dice = None
        self.phase = Phase.ROLL

    # ---- resignation ---------------------------------------------------
    def resign(self, level: int, player: int | None = None) -> None:
        """``player`` (default: the one on turn) offers to resign at ``level`` (1, 2 or 3).

        Either player may resign at any time of the game after the opening roll,
        before or after the dice of either turn; the other player answers
        (:meth:`accept_resignation`, :meth:`reject_resignation`).  Levels the
        game cannot reach are refused (:meth:`resignation_levels`).
        """
        p = self.turn if player is None else player
        if p not in (0, 1):
            raise IllegalActionError(f"player must be 0 or 1, got {p!r}")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            raise IllegalActionError(f"no resignation now: the game is at {self.phase.value}")
        levels = self.resignation_levels(p)
        if level not in levels:
            raise IllegalActionError(f"resigning at level {level} is not possible here; possible: {levels}")
        self.events.append(("resign", p, level))
        self.resignation, self.resigner = level, p
        self._resume = self.phase
        self.phase = Phase.RESIGNED

    def accept_resignation(self) -> None:
        self._expect(Phase.RESIGNED)
        assert self.resigner is not None
        self._end(1 - self.resigner, self.cube_value * self.resignation, "accept")

    def reject_resignation(self) -> None:
        self._expect(Phase.RESIGNED)
        self.events.append(("reject",))
        self.phase = self._resume
        self.resignation, self.resigner = 0, None

    # ---- replay ----------------------------------------------------------
    def replay(self, upto: int | None = None) -> Game:
        """A fresh game with the first ``upto`` events (all by default) applied again."""
        g = Game(self.context, self.setup)
        for ev in self.events[:upto]:
            g.apply_event(ev)
        return g

    def apply_event(self, ev: tuple[Any, ...]) -> None:
        kind = ev[0]
        if kind == "opening":
            self.opening_roll(ev[1], ev[2])
        elif kind == "roll":
            self.roll(ev[2])
        elif kind == "play":
            self.play(ev[2])
        elif kind == "resign":
            self.resign(ev[2], ev[1])
        elif kind in ("double", "take", "drop", "beaver", "raccoon", "accept", "reject"):
            method = {"accept": "accept_resignation", "reject": "reject_resignation"}.get(kind, kind)
            getattr(self, method)()
        elif kind == "end":
            pass  # recorded by the action that ended the game
        else:
            raise PulvezarError(f"unknown event {kind!r}", field="events")

    # ---- internals -------------------------------------------------------
    def _end(self, winner: int, points: int, how: str) -> None:
        if how in ("drop", "accept"):
            self.events.append((how,))
        self.events.append(("end", winner, points))
        self.winner, self.points = winner, points
        self.phase = Phase.OVER

    def _expect(self, phase: Phase) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"expected phase {phase.value}, the game is at {self.phase.value}")

    @staticmethod
    def _check_die(d: int) -> None:
        if type(d) is not int or not 1 <= d <= 6:
            from pulvezar.errors import InvalidDiceError

            raise InvalidDiceError(f"a die shows 1..6, got {d!r}", field="dice")

    def _why_no_double(self) -> str:
        c = self.context
        if not c.rules.uses_cube:
            return "Tavla is played without a cube"
        if c.crawford:
            return "no doubling in the Crawford game"
        if self.phase is not Phase.ROLL:
            return "doubling happens before rolling, on your own turn"
        return "the cube belongs to the opponent"


__all__ = ["Game", "IllegalActionError", "MatchContext", "Phase", "SessionOptions"]
