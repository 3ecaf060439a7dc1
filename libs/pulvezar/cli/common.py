"""What the commands share: the position argument, dice, rule-set options, errors and the language.

The language of every user command's messages is :func:`lang_of`'s: ``--lang`` (:func:`add_lang_argument`),
else ``lang`` in the CLI's profile (:mod:`pulvezar.cli.config`), else ``LC_ALL``, ``LC_MESSAGES`` or
``LANG``, else English; the texts are the catalogs' ``cli.*`` keys (:mod:`pulvezar.i18n`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pulvezar import i18n
from pulvezar.cubeful.janowski import Owner
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import InvalidIdError, PulvezarError
from pulvezar.formats.position_text import read_position_text
from pulvezar.i18n import t
from pulvezar.rules.matchid import MatchId
from pulvezar.rules.ogid import OGID, to_ogid
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.rules.xgid import XGID

__all__ = [
    "ID_HELP",
    "PositionArg",
    "add_lang_argument",
    "add_rules_arguments",
    "gammon_price_json",
    "lang_of",
    "parse_any_id",
    "parse_dice",
    "parse_position",
    "rules_of",
    "run",
]

ID_HELP = "Position ID, PositionID:MatchID (gnubg), XGID or OGID"


@dataclass(frozen=True, slots=True)
class PositionArg:
    """A position argument and what its ID says about the game around it.

    ``position`` is seen from the player on roll.  A ``PositionID:MatchID``, an
    XGID or an OGID also gives the cube, the score, the match length and (where
    rolled) the dice, all from the point of view of the player on roll; a bare
    Position ID gives a centred cube in money play.  ``side`` is the colour on
    roll in an OGID (White, ``"W"``, for the other IDs, which name no colours).
    """

    position: Position
    kind: str  # "position_id", "gnubg_id", "xgid" or "ogid"
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: Owner = "centre"
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    side: str = "W"
    given_ogid: str | None = None  # an OGID argument, as the codec writes it

    @property
    def has_match(self) -> bool:
        """Whether the ID carried a cube and score (a Match ID, an XGID or an OGID)."""
        return self.kind != "position_id"

    @property
    def ogid(self) -> str:
        """This state as an OGID: an OGID argument as given (in the codec's form), another ID's state
        with the player on roll as :attr:`side` (to roll, or with the dice rolled).

        >>> parse_position("4HPwATDgc/ABMA").ogid
        '11ccccchhhjjjjj:66666888dddddoo:N0N::B:C:0:0:0:0'
        """
        if self.given_ogid is not None:
            return self.given_ogid
        return to_ogid(
            self.position,
            on_roll="B" if self.side == "B" else "W",
            dice=self.dice,
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            score=self.score,
            match_length=self.match_length,
            crawford=self.crawford,
        )

    @classmethod
    def from_match_id(cls, position: Position, m: MatchId, kind: str = "gnubg_id") -> PositionArg:
        """The state of a gnubg Match ID; ``position`` is the board of the player on roll."""
        me = m.dice_owner
        owner: Owner = "centre" if m.cube_owner is None else ("player" if m.cube_owner == me else "opponent")
        return cls(
            position,
            kind,
            dice=m.dice if m.dice != (0, 0) else None,
            cube_value=m.cube_value,
            cube_owner=owner,
            match_length=m.match_length,
            score=(m.score[me], m.score[1 - me]),
            crawford=m.crawford,
            jacoby=m.jacoby and not m.match_length,
        )

    @classmethod
    def from_xgid(cls, x: XGID) -> PositionArg:
        owner: Owner = "centre" if x.cube_owner == 0 else ("player" if x.cube_owner == x.turn else "opponent")
        score = x.score if x.turn == 1 else (x.score[1], x.score[0])
        return cls(
            x.position,
            "xgid",
            dice=x.rolled,
            cube_value=x.cube_value,
            cube_owner=owner,
            match_length=x.match_length,
            score=score,
            crawford=x.crawford,
            jacoby=x.jacoby,
            beaver=x.beavers,
        )

    @classmethod
    def from_ogid(cls, o: OGID) -> PositionArg:
        """The state of an OGID; a dead or unknown cube (``D``, ``?``) reads as centred."""
        me = o.on_roll
        owner: Owner = (
            "centre" if o.cube_owner not in ("W", "B") else ("player" if o.cube_owner == me else "opponent")
        )
        return cls(
            o.position,
            "ogid",
            dice=o.dice if o.state != "D" else None,
            cube_value=o.cube_value,
            cube_owner=owner,
            match_length=o.match_length,
            score=o.score if me == "W" else (o.score[1], o.score[0]),
            crawford=o.crawford,
            side=me,
            given_ogid=o.encode(),
        )

    def with_match_id(self, text: str, lang: str = "en") -> PositionArg:
        """This position with the cube and score of a separate gnubg Match ID (``--match-id``)."""
        try:
            m = MatchId.parse(text.strip())
        except InvalidIdError as e:
            why = t("cli.common.bad_match_id", lang, text=repr(text), error=e)
            raise InvalidIdError(why, field="match_id") from None
        return PositionArg.from_match_id(self.position, m)

    def cube_state(self, rules: Rules) -> CubeState:
        """The cube state of the player on roll, before rolling."""
        return CubeState(
            self.position,
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            match_length=self.match_length,
            score=self.score,
            crawford=self.crawford,
            jacoby=self.jacoby,
            beaver=self.beaver,
            rules=rules,
        )


def parse_position(text: str, lang: str = "en") -> PositionArg:
    """The position argument: a Position ID, ``PositionID:MatchID``, an XGID or an OGID, read by
    :func:`~pulvezar.formats.position_text.read_position_text` (the one reader of position text).

    A bad ID raises that reader's :class:`~pulvezar.errors.MalformedIdError` or
    :class:`~pulvezar.errors.IllegalIdError` (for an OGID its subclasses,
    :class:`~pulvezar.rules.ogid.InvalidOgidError` or ``IllegalOgidError``), naming the forms accepted.

    >>> parse_position("4HPwATDgc/ABMA").position == Position.start()
    True
    >>> a = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    >>> a.kind, a.match_length, a.cube_owner
    ('gnubg_id', 0, 'centre')
    >>> parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10").dice
    (5, 2)
    >>> a = parse_position("11ccccchhhjjjjj:66666888dddddoo:W1N:52:W:R:0:0:7:3")
    >>> a.kind, a.side, a.dice, a.cube_owner
    ('ogid', 'B', (5, 2), 'opponent')
    """
    try:
        read = read_position_text(text)
    except InvalidIdError as e:  # the same class: MalformedIdError, IllegalIdError or an OGID's own
        why = t(
            "cli.common.bad_position", lang, text=repr(text), forms=t("cli.common.id_forms", lang), error=e
        )
        raise type(e)(why, field=e.field or "id") from None
    if read.ogid is not None:
        return PositionArg.from_ogid(read.ogid)
    if read.xgid is not None:
        return PositionArg.from_xgid(read.xgid)
    if read.match is not None:
        return PositionArg.from_match_id(read.position, read.match)
    return PositionArg(read.position, "position_id")


def parse_any_id(text: str) -> Position:
    """A position from a Position ID, ``PositionID:MatchID``, an XGID or an OGID (:func:`parse_position`)."""
    return parse_position(text).position


def parse_dice(text: str) -> tuple[int, int]:
    """``"31"``, ``"3-1"`` or ``"3,1"`` -> (3, 1)."""
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise argparse.ArgumentTypeError(f"dice are two digits 1..6 such as 31, got {text!r}")
    return int(digits[0]), int(digits[1])


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--rules international|tavla`` with Tavla's two options."""
    parser.add_argument("--rules", choices=["international", "tavla"], default="international")
    parser.add_argument("--hit-and-stop", action="store_true", help="Tavla: 'Nach Schlag Halt'")
    parser.add_argument("--must-bear-off", action="store_true", help="Tavla: 'Auswürfelpflicht'")


def add_prune_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-prune``: the unpruned search (searches at 1 ply or deeper prune their replies by default,
    :func:`pulvezar.search.plies.default_prune`); read it as ``prune = not args.no_prune``."""
    parser.add_argument(
        "--no-prune",
        action="store_true",
        help="the unpruned search at >= 1 ply (slower; default: pruned)",
    )


def rules_of(args: argparse.Namespace) -> Rules:
    """The rule set of :func:`add_rules_arguments`' options."""
    if args.rules == "tavla":
        return Rules.tavla(hit_and_stop=args.hit_and_stop, must_bear_off=args.must_bear_off)
    if args.hit_and_stop or args.must_bear_off:
        raise PulvezarError(t("cli.common.tavla_options", lang_of(args)), field="rules")
    return Rules.international()


def run(body: Callable[[], Any], lang: str = "en") -> int:
    """Run a command's body: 0, or 2 with one ``pulvezar: error:`` line for a :class:`PulvezarError`."""
    try:
        body()
    except PulvezarError as e:
        print(t("cli.common.error", lang, error=e), file=sys.stderr)
        return 2
    return 0


def add_lang_argument(parser: argparse.ArgumentParser) -> None:
    """``--lang CODE``: the language of the command's messages; its default is :func:`lang_of`'s when the
    parser is built (the profile's ``lang``, else the environment's)."""
    parser.add_argument(
        "--lang",
        choices=i18n.LANGUAGES,
        default=lang_of(),
        help="the language of the messages (default: lang in the profile, else LC_ALL, LC_MESSAGES or "
        "LANG, else en)",
    )


def lang_of(args: argparse.Namespace | None = None) -> str:
    """The language of a command: its ``--lang``, else the profile's ``lang``, else the environment's
    (:func:`pulvezar.i18n.lang_of`), else English."""
    given = getattr(args, "lang", None)
    if given:
        return str(given)
    from pulvezar.cli.config import default_lang

    return default_lang() or i18n.lang_of()


def ply(n: int, lang: str) -> str:
    """``2-ply``: a search depth as the commands name it."""
    return t("cli.common.ply", lang, n=n)


def fixed(x: float | None, lang: str, spec: str = ".3f") -> str:
    """``x`` by ``spec`` with the language's decimal sign, ``-`` for None."""
    return "-" if x is None else i18n.number(x, lang, spec)


def gammon_price_json(player: float, opponent: float) -> dict[str, float]:
    """The gammon prices by the REST names, with the deprecated ``me`` and ``opp`` beside them."""
    return {"player": player, "opponent": opponent, "me": player, "opp": opponent}
