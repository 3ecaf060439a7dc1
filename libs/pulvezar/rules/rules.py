"""Rule sets, legal plays and game results.

A *play* is a whole turn.  :meth:`Rules.legal_plays` returns the distinct
resulting positions of a roll (two move orders that end in the same position
are one play), each with one representative sequence of checker moves.

>>> rules = Rules.international()
>>> plays = rules.legal_plays(Position.start(), (3, 1))
>>> len(plays)
16
>>> "8/5 6/5" in plays
True
>>> plays.find("8/5 6/5").position.pips()
(163, 167)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Literal, NamedTuple, overload

from pulvezar.errors import InvalidDiceError, InvalidPositionError, InvalidValueError, NotationError
from pulvezar.rules import _kernel
from pulvezar.rules.playtext import format_play, match_play
from pulvezar.rules.position import Position

_REC: int = _kernel.REC
#: :attr:`Play.notation`'s memo, emptied when it reaches :data:`_MAX_NOTATIONS` entries
_NOTATIONS: dict[tuple[bytes, tuple[int, int], tuple[Move, ...]], str] = {}
_MAX_NOTATIONS = 20_000


class Move(NamedTuple):
    """One checker moved by one die: points in the mover's numbering (25 = bar, 0 = off)."""

    src: int
    dst: int
    hit: bool


class Outcome(IntEnum):
    """How a game was won, before the rule set's and the cube's multipliers."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: who won (``"player"`` is the side the position is seen from)."""

    winner: Literal["player", "opponent"]
    outcome: Outcome
    points: int  # outcome value under the rule set (Tavla: mars = 2), cube not applied


#: the keys of a rule set's JSON (:meth:`Rules.from_dict`)
_RULES_KEYS = ("variant", "hit_and_stop", "must_bear_off")


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set: ``international`` backgammon or Turkish ``tavla`` with its options.

    ``hit_and_stop`` (Tavla, "Nach Schlag Halt"): a checker that hits a blot on
    one of the mover's home-board points (1..6) stays there for the rest of the
    turn; other checkers may still use the remaining dice.

    ``must_bear_off`` (Tavla, "Auswürfelpflicht"): whenever all the mover's
    checkers are home and the die about to be played can bear a checker off
    (exactly, or from the highest point with a larger die), that die must bear a
    checker off instead of moving one inside the home board.  The rule applies
    die by die in the order the dice are played; a play is legal when some order
    of its dice satisfies it.  Both options restrict the moves first; the usual
    rules (use both dice, else the larger; doubles as often as possible) then
    apply to what remains.
    """

    variant: Literal["international", "tavla"] = "international"
    hit_and_stop: bool = False
    must_bear_off: bool = False
    _flags: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.variant not in ("international", "tavla"):
            raise ValueError(f"unknown rule set {self.variant!r}")
        if self.variant == "international" and (self.hit_and_stop or self.must_bear_off):
            raise ValueError("hit_and_stop and must_bear_off are Tavla options")
        flags = (_kernel.HIT_AND_STOP if self.hit_and_stop else 0) | (
            _kernel.MUST_BEAR_OFF if self.must_bear_off else 0
        )
        object.__setattr__(self, "_flags", flags)

    @property
    def kernel_flags(self) -> int:
        """The move generator's option bits for these rules (``_kernel.HIT_AND_STOP``,
        ``_kernel.MUST_BEAR_OFF``): what every caller of the C generator passes."""
        return self._flags

    @classmethod
    def international(cls) -> Rules:
        """International backgammon (cube, gammons and backgammons)."""
        return cls("international")

    @classmethod
    def tavla(cls, hit_and_stop: bool = False, must_bear_off: bool = False) -> Rules:
        """Turkish Tavla: no cube, mars = 2, optional traditional rules."""
        return cls("tavla", hit_and_stop, must_bear_off)

    @property
    def name(self) -> str:
        """A short label such as ``tavla+hit_and_stop``."""
        opts = [o for o in ("hit_and_stop", "must_bear_off") if getattr(self, o)]
        return "+".join([self.variant, *opts])

    def to_dict(self) -> dict[str, Any]:
        """The rule set as JSON: its variant and both Tavla options, the inverse of :meth:`from_dict`.

        >>> Rules.tavla(must_bear_off=True).to_dict()
        {'variant': 'tavla', 'hit_and_stop': False, 'must_bear_off': True}
        """
        return {
            "variant": self.variant,
            "hit_and_stop": self.hit_and_stop,
            "must_bear_off": self.must_bear_off,
        }

    @classmethod
    def from_dict(cls, value: Any, field: str = "rules") -> Rules:
        """The rule set of a JSON value: ``"international"``, ``"tavla"``, or an object with ``variant`` and
        the Tavla options (each optional, false by default).  The one place the services read a rule set;
        :class:`~pulvezar.errors.InvalidValueError` names the part that was wrong (``rules.variant``).

        >>> Rules.from_dict({"variant": "tavla", "hit_and_stop": True}).name
        'tavla+hit_and_stop'
        >>> Rules.from_dict("international") == Rules.international()
        True
        >>> Rules.from_dict({"variant": "international", "must_bear_off": True})
        Traceback (most recent call last):
        ...
        pulvezar.errors.InvalidValueError: must_bear_off is a Tavla option (variant 'tavla')
        """
        if isinstance(value, str):
            value = {"variant": value}
        if not isinstance(value, Mapping):
            raise InvalidValueError(
                f"'international', 'tavla' or an object with 'variant', got {value!r}"[:200], field=field
            )
        unknown = sorted(str(k) for k in value if k not in _RULES_KEYS)
        if unknown:
            raise InvalidValueError(
                f"unknown rule option (known: {', '.join(_RULES_KEYS)})", field=f"{field}.{unknown[0]}"
            )
        variant = value.get("variant", "international")
        if variant not in ("international", "tavla"):
            raise InvalidValueError(
                f"'international' or 'tavla', got {variant!r}"[:200], field=f"{field}.variant"
            )
        options = {}
        for option in ("hit_and_stop", "must_bear_off"):
            flag = value.get(option, False)
            if not isinstance(flag, bool):
                raise InvalidValueError(f"true or false, got {flag!r}"[:200], field=f"{field}.{option}")
            options[option] = flag
        if variant == "international":
            for option, flag in options.items():
                if flag:
                    raise InvalidValueError(
                        f"{option} is a Tavla option (variant 'tavla')", field=f"{field}.{option}"
                    )
        return cls(variant, **options)

    @property
    def uses_cube(self) -> bool:
        return self.variant == "international"

    def start_position(self) -> Position:
        """Both rule sets start from the same setup."""
        return Position.start()

    def legal_plays(self, position: Position, dice: tuple[int, int]) -> LegalPlays:
        """All distinct plays of ``dice`` from ``position``; die order does not matter.

        When nothing can move, the result holds one empty play (the position unchanged).
        """
        try:
            d1, d2 = dice
        except (TypeError, ValueError):
            raise InvalidDiceError(f"dice must be a pair, got {dice!r}", field="dice") from None
        if type(d1) is not int or type(d2) is not int or not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise InvalidDiceError(f"dice must be integers 1..6, got {dice!r}", field="dice")
        try:
            records = _kernel.generate(position._board, d1, d2, self._flags)
        except ValueError as e:  # the kernel refuses finished games
            raise InvalidPositionError(str(e), field="position") from None
        return LegalPlays(position, (d1, d2), records)

    def game_result(self, position: Position) -> GameResult | None:
        """The result if one side has borne off all checkers, else ``None``."""
        off_mine, off_theirs = position.off()
        if off_mine == 15:
            winner: Literal["player", "opponent"] = "player"
            loser = position.theirs
            loser_off = off_theirs
        elif off_theirs == 15:
            winner, loser, loser_off = "opponent", position.mine, off_mine
        else:
            return None
        if loser_off:
            outcome = Outcome.SINGLE
        elif any(loser[18:25]):  # on the bar or in the winner's home board
            outcome = Outcome.BACKGAMMON
        else:
            outcome = Outcome.GAMMON
        points = min(int(outcome), 2) if self.variant == "tavla" else int(outcome)
        return GameResult(winner, outcome, points)


class Play:
    """One legal play: the resulting position (mover's view) and its checker moves."""

    __slots__ = ("dice", "moves", "position", "start")

    def __init__(self, start: Position, dice: tuple[int, int], position: Position, moves: tuple[Move, ...]):
        self.start = start
        self.dice = dice
        self.position = position
        self.moves = moves

    @property
    def notation(self) -> str:
        """Canonical notation, e.g. ``24/18*/13`` or ``13/11(2)``; ``""`` for no move.

        Memoised by (start, dice, moves), of which it is a pure function: an analysis asks for the same
        plays' text several times (issue 45: ~15% of a 0-ply game's analysis went to formatting)."""
        key = (self.start.board, self.dice, self.moves)
        text = _NOTATIONS.get(key)
        if text is None:
            if len(_NOTATIONS) >= _MAX_NOTATIONS:
                _NOTATIONS.clear()
            text = _NOTATIONS[key] = format_play(self)
        return text

    @property
    def hits(self) -> int:
        return sum(m.hit for m in self.moves)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and other.start == self.start and other.position == self.position

    def __hash__(self) -> int:
        return hash((self.start, self.position))

    def __repr__(self) -> str:
        return f"<Play {self.notation or '(no move)'} dice={self.dice[0]}{self.dice[1]}>"


class LegalPlays(Sequence[Play]):
    """The legal plays of one roll: a lazy sequence over the kernel's records.

    Supports ``len``, indexing, iteration, ``count()`` and ``in`` with a
    :class:`Play`, a resulting :class:`Position` or notation text.
    """

    __slots__ = ("_boards", "_dice", "_records", "_start")

    def __init__(self, start: Position, dice: tuple[int, int], records: bytes) -> None:
        self._start = start
        self._dice = dice
        self._records = records
        self._boards: frozenset[bytes] | None = None

    @property
    def start(self) -> Position:
        return self._start

    @property
    def dice(self) -> tuple[int, int]:
        return self._dice

    def __len__(self) -> int:
        return len(self._records) // _REC

    def count(self, value: object = None) -> int:
        """Number of plays (python-chess style); with an argument, ``Sequence.count``."""
        if value is None:
            return len(self)
        return 1 if value in self else 0

    @overload
    def __getitem__(self, i: int) -> Play: ...
    @overload
    def __getitem__(self, i: slice) -> list[Play]: ...
    def __getitem__(self, i: int | slice) -> Play | list[Play]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("play index out of range")
        r = self._records[i * _REC : (i + 1) * _REC]
        k, hits = r[50], r[59]
        moves = tuple(Move(r[51 + 2 * j], r[52 + 2 * j], bool(hits >> j & 1)) for j in range(k))
        return Play(self._start, self._dice, Position._from_board(r[:50]), moves)

    def __iter__(self) -> Iterator[Play]:
        for i in range(len(self)):
            yield self[i]

    def boards(self) -> list[bytes]:
        """The resulting 50-byte boards, in order (cheap: no Play objects)."""
        rec = self._records
        return [rec[i : i + 50] for i in range(0, len(rec), _REC)]

    def positions(self) -> list[Position]:
        """The resulting positions (mover's view), in order."""
        return [Position._from_board(b) for b in self.boards()]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            try:
                self.find(item)
            except NotationError:
                return False
            return True
        if isinstance(item, Play):
            if item.start != self._start:
                return False
            item = item.position
        if isinstance(item, Position):
            if self._boards is None:
                self._boards = frozenset(self.boards())
            return item._board in self._boards
        return False

    def index_of(self, position: Position) -> int:
        """Index of the play that leads to ``position``; ``ValueError`` when none does."""
        b = position._board
        for i, rb in enumerate(self.boards()):
            if rb == b:
                return i
        raise ValueError("no legal play leads to that position")

    def find(self, notation: str) -> Play:
        """The legal play that ``notation`` describes (see :func:`pulvezar.parse_play`)."""
        return match_play(notation, self)

    def __repr__(self) -> str:
        return f"<LegalPlays {len(self)} plays of {self._dice[0]}{self._dice[1]}>"
