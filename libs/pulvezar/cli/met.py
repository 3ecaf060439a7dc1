"""``pulvezar met``: the match equity table with the current score marked.

``pulvezar met --length 7 --score 2 4`` prints the Kazaross-XG2 table for a
7-point match (rows: points I still need, columns: points the opponent needs),
the score's cell in brackets, then the match-winning chance at that score, my
take point of a double from ``--cube`` and the gammon prices for that double.
``--rules tavla`` uses the computed cubeless Tavla table, ``--length 0`` money.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pulvezar.cli.common import add_lang_argument, fixed, gammon_price_json, lang_of
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t
from pulvezar.met.equity import MatchEquity, ScoreSummary


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``met`` sub-command to ``parser.add_subparsers()``'s result."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "met", help="match equity table, take point and gammon price at a score"
    )
    p.add_argument("--length", type=int, required=True, help="match length; 0 = money play")
    p.add_argument(
        "--score", type=int, nargs=2, default=[0, 0], metavar=("ME", "OPP"), help="points won so far"
    )
    p.add_argument("--cube", type=int, default=1, help="cube value before the double (default 1)")
    p.add_argument("--rules", choices=["international", "tavla"], default="international")
    p.add_argument("--gammon-rate", type=float, default=None, help="Tavla: mars rate per game")
    state = p.add_mutually_exclusive_group()
    state.add_argument(
        "--crawford", action="store_true", help="this game is the Crawford game (default at 1-away)"
    )
    state.add_argument("--post-crawford", action="store_true", help="the Crawford game has been played")
    p.add_argument("--json", action="store_true")
    add_lang_argument(p)
    p.set_defaults(func=cmd_met)
    return p


def _table(args: argparse.Namespace) -> MatchEquity:
    if args.rules == "tavla":
        return MatchEquity.tavla(gammon_rate=args.gammon_rate)
    if args.gammon_rate is not None:
        raise PulvezarError(t("cli.met.gammon_rate", lang_of(args)), field="gammon_rate")
    return MatchEquity.kazaross_xg2()


def _pct(x: float | None, lang: str = "en") -> str:
    return "-" if x is None else t("cli.common.percent", lang, x=fixed(100 * x, lang, ".1f"))


def render(met: MatchEquity, s: ScoreSummary, lang: str = "en") -> str:
    """The table (rows: my points away, columns: the opponent's) and the score block."""
    what = t("cli.met.length", lang, n=s.length) if s.length else t("cli.met.money", lang)
    lines = [t("cli.met.heading", lang, table=met.name, what=what)]
    n = s.length
    if n:
        away = t("cli.met.away", lang)
        lines.append(f"{away:<4} " + "".join(f"{b:>7}" for b in range(1, n + 1)))
        for a in range(1, n + 1):
            cells = []
            for b in range(1, n + 1):
                v = fixed(100 * met.mwc(a, b), lang, ".1f")
                here = (a, b) == (s.away_me, s.away_opp) and not s.post_crawford
                cells.append(f"[{v:>5}]" if here else f" {v:>5} ")
            lines.append(f"{a:>4} " + "".join(cells))
        if met.has_cube:
            trailer = max(s.away_me, s.away_opp) if s.post_crawford else 0
            post = "".join(
                f"[{v:>5}]" if a == trailer else f" {v:>5} "
                for a in range(1, n + 1)
                for v in [fixed(100 * met.mwc(a, 1, post_crawford=True), lang, ".1f")]
            )
            lines.append(f"{t('cli.met.post_crawford_row', lang)}\n{'':>4} {post}")
        lines.append("")
        state = (
            t("cli.met.crawford", lang)
            if s.crawford
            else t("cli.met.post_crawford", lang)
            if s.post_crawford
            else ""
        )
        score = f"{s.length - s.away_me}-{s.length - s.away_opp}"
        lines.append(t("cli.met.score", lang, score=score, me=s.away_me, opp=s.away_opp, state=state))
        lines.append(t("cli.met.mwc", lang, pct=_pct(s.mwc, lang)))
    if s.take_point is not None:
        lines.append(t("cli.met.take_point", lang, value=s.cube_value, doubled=2 * s.cube_value,
                       pct=_pct(s.take_point, lang)))  # fmt: skip
    elif met.has_cube or not n:
        lines.append(t("cli.met.no_take_point", lang))
    cube = 2 * s.cube_value if s.take_point is not None else s.cube_value
    if s.gammon_price is not None:
        lines.append(t("cli.met.gammon_price", lang, cube=cube, mine=fixed(s.gammon_price.me, lang, ".2f"),
                       theirs=fixed(s.gammon_price.opp, lang, ".2f")))  # fmt: skip
    lines.extend(t("cli.met.note", lang, note=note) for note in s.notes)
    return "\n".join(lines)


def as_json(met: MatchEquity, s: ScoreSummary) -> dict[str, Any]:
    n = s.length
    return {
        "table": met.name,
        "length": n,
        "score": [n - s.away_me, n - s.away_opp] if n else [0, 0],
        "away": [s.away_me, s.away_opp] if n else None,
        "cube_value": s.cube_value,
        "cube": s.cube_value,  # deprecated: the REST name is cube_value (docs/cli.md)
        "crawford": s.crawford,
        "post_crawford": s.post_crawford,
        "mwc": s.mwc,
        "take_point": s.take_point,
        "gammon_price": None
        if s.gammon_price is None
        else gammon_price_json(s.gammon_price.me, s.gammon_price.opp),
        "gammon_price_cube": 2 * s.cube_value if s.take_point is not None else s.cube_value,
        "notes": list(s.notes),
        "rows": [[met.mwc(a, b) for b in range(1, n + 1)] for a in range(1, n + 1)],
        "post_crawford_trailer": [met.mwc(a, 1, post_crawford=True) for a in range(1, n + 1)]
        if met.has_cube
        else None,
    }


def cmd_met(args: argparse.Namespace) -> int:
    """Handler of ``pulvezar met``."""
    lang = lang_of(args)
    met = _table(args)
    if args.length > met.length:
        raise PulvezarError(t("cli.met.too_long", lang, table=met.name, n=met.length), field="length")
    crawford = True if args.crawford else False if args.post_crawford else None
    me, opp = args.score
    s = met.summary(args.length, me, opp, args.cube, crawford=crawford)
    print(json.dumps(as_json(met, s)) if args.json else render(met, s, lang))
    return 0
