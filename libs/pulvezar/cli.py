"""The ``pulvezar`` command line.

``pulvezar show ID`` draws a position; ``pulvezar moves ID --dice 31`` lists
its legal plays.  ``ID`` is a Position ID, ``PositionID:MatchID`` or an XGID.
``pulvezar match show|convert`` reads and writes match files; ``pulvezar met``
shows match equities.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence

from pulvezar.errors import PulvezarError
from pulvezar.rules.diagram import ascii_board
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


def parse_any_id(text: str) -> Position:
    """A position from a Position ID, ``PositionID:MatchID`` or an XGID."""
    text = text.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        return Position.from_xgid(text)
    return Position.from_position_id(text.split(":")[0])


def parse_dice(text: str) -> tuple[int, int]:
    """``"31"``, ``"3-1"`` or ``"3,1"`` -> (3, 1)."""
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise argparse.ArgumentTypeError(f"dice are two digits 1..6 such as 31, got {text!r}")
    return int(digits[0]), int(digits[1])


def _rules(args: argparse.Namespace) -> Rules:
    if args.rules == "tavla":
        return Rules.tavla(hit_and_stop=args.hit_and_stop, must_bear_off=args.must_bear_off)
    if args.hit_and_stop or args.must_bear_off:
        raise PulvezarError("--hit-and-stop and --must-bear-off need --rules tavla", field="rules")
    return Rules.international()


def cmd_show(args: argparse.Namespace) -> int:
    position = parse_any_id(args.id)
    if args.json:
        mine, theirs = position.pips()
        print(
            json.dumps(
                {
                    "position_id": position.position_id,
                    "mine": list(position.mine),
                    "theirs": list(position.theirs),
                    "pips": {"on_roll": mine, "opponent": theirs},
                    "off": list(position.off()),
                }
            )
        )
    else:
        print(ascii_board(position))
        print(f"Position ID: {position.position_id}")
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    position = parse_any_id(args.id)
    rules = _rules(args)
    plays = rules.legal_plays(position, args.dice)
    if args.json:
        out = {
            "position_id": position.position_id,
            "dice": list(args.dice),
            "rules": rules.name,
            "count": len(plays),
            "plays": [
                {
                    "notation": p.notation,
                    "position_id": p.position.position_id,
                    "next_position_id": p.position.swap().position_id,
                    "moves": [[m.src, m.dst, m.hit] for m in p.moves],
                }
                for p in plays
            ],
        }
        print(json.dumps(out))
    else:
        d1, d2 = args.dice
        print(f"{len(plays)} legal plays of {d1}{d2} ({rules.name}) from {position.position_id}:")
        for i, p in enumerate(plays, 1):
            print(f"{i:4d}. {p.notation or '(no move)':<28} -> {p.position.position_id}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pulvezar", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="draw a position with pip counts")
    show.add_argument("id", help="Position ID, PositionID:MatchID or XGID")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)
    moves = sub.add_parser("moves", help="list the legal plays of a roll")
    moves.add_argument("id", help="Position ID, PositionID:MatchID or XGID")
    moves.add_argument("--dice", type=parse_dice, required=True, help="e.g. 31")
    moves.add_argument("--rules", choices=["international", "tavla"], default="international")
    moves.add_argument("--hit-and-stop", action="store_true", help="Tavla: 'Nach Schlag Halt'")
    moves.add_argument("--must-bear-off", action="store_true", help="Tavla: 'Auswürfelpflicht'")
    moves.add_argument("--json", action="store_true")
    moves.set_defaults(func=cmd_moves)
    from pulvezar.formats.cli import add_parser as add_match_parser
    from pulvezar.met.cli import add_parser as add_met_parser

    add_match_parser(sub)
    add_met_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except PulvezarError as e:
        print(f"pulvezar: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
