"""``pulvezar show ID`` and ``pulvezar moves ID --dice 31``: a position and its legal plays.

``show`` gives the position's IDs: gnubg's Position ID and OpenGammon's OGID (which
also carries the cube, score and dice the ID gave; the player on roll is White unless
an OGID named the colour).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pulvezar.cli.common import (
    ID_HELP,
    add_lang_argument,
    add_rules_arguments,
    lang_of,
    parse_dice,
    parse_position,
    rules_of,
)
from pulvezar.i18n import t
from pulvezar.rules.diagram import ascii_board


def cmd_show(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    arg = parse_position(args.id, lang)
    position = arg.position
    if args.json:
        mine, theirs = position.pips()
        print(
            json.dumps(
                {
                    "position_id": position.position_id,
                    "ogid": arg.ogid,
                    "mine": list(position.mine),
                    "theirs": list(position.theirs),
                    "pips": {
                        "player": mine,
                        "opponent": theirs,
                        "on_roll": mine,
                    },  # on_roll: deprecated (docs/cli.md)
                    "off": list(position.off()),
                }
            )
        )
    else:
        print(ascii_board(position, lang))
        print(t("cli.show.position_id", lang, id=position.position_id))
        print(t("cli.show.ogid", lang, ogid=arg.ogid))
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    position = parse_position(args.id, lang).position
    rules = rules_of(args)
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
        print(t("cli.moves.heading", lang, n=len(plays), dice=f"{d1}{d2}", rules=rules.name,
                id=position.position_id))  # fmt: skip
        for i, p in enumerate(plays, 1):
            notation = p.notation or t("cli.common.no_move", lang)
            print(f"{i:4d}. {notation:<28} -> {p.position.position_id}")
    return 0


def add_parsers(subparsers: Any) -> None:
    """Add ``show`` and ``moves`` to ``subparsers`` (from ``add_subparsers``)."""
    show = subparsers.add_parser("show", help="draw a position with pip counts")
    show.add_argument("id", help=ID_HELP)
    show.add_argument("--json", action="store_true")
    add_lang_argument(show)
    show.set_defaults(func=cmd_show)
    moves = subparsers.add_parser("moves", help="list the legal plays of a roll")
    moves.add_argument("id", help=ID_HELP)
    moves.add_argument("--dice", type=parse_dice, required=True, help="e.g. 31")
    add_rules_arguments(moves)
    moves.add_argument("--json", action="store_true")
    add_lang_argument(moves)
    moves.set_defaults(func=cmd_moves)
