"""``pulvezar hint``, ``pulvezar eval`` and ``pulvezar cube``: the engine's answers about one position.

``pulvezar hint ID --dice 31 [--ply N | --level L] [--rules ...]`` ranks the plays
of a roll (:func:`pulvezar.search.hint.hint`; cubeful when the ID carries a cube
and score: ``PositionID:MatchID``, an XGID or an OGID, whose dice are used when
``--dice`` is not given); ``pulvezar eval ID [--ply N]`` gives the five probabilities and
the cubeless equity of the player on roll; ``pulvezar cube ID [--match-id M]``
the cube decision (:func:`pulvezar.cube.cube_decision`; the cube and score of ``--match-id``'s gnubg
Match ID when given, else the ID's, else centred money).  ``--json`` prints one
JSON object.  At 1 ply or deeper the searches prune their replies unless ``--no-prune``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from typing import Any

from pulvezar.cli.common import (
    ID_HELP,
    PositionArg,
    add_lang_argument,
    add_prune_argument,
    add_rules_arguments,
    fixed,
    gammon_price_json,
    lang_of,
    parse_dice,
    parse_position,
    ply,
    rules_of,
)
from pulvezar.cube.decision import MAX_CUBE_PLY, CubeDecision, cube_decision
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t
from pulvezar.search.hint import STRENGTHS, hint
from pulvezar.search.plies import MAX_PLY, Candidate

PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def probabilities_json(probs: Iterable[float]) -> dict[str, float]:
    """The five probabilities by name."""
    return {k: float(v) for k, v in zip(PROBABILITIES, probs, strict=True)}


def _probs_text(probs: Sequence[float], lang: str = "en") -> str:
    w, wg, wb, lg, lb = (fixed(100 * float(p), lang, ".1f") for p in probs)
    lose = fixed(100 - 100 * float(probs[0]), lang, ".1f")
    return t("cli.engine.probabilities", lang, win=w, wg=wg, wb=wb, lose=lose, lg=lg, lb=lb)


# cube actions (pulvezar.cube.decision) by their catalog keys
ACTIONS = {
    "No double, take": "no_double_take",
    "No double, beaver": "no_double_beaver",
    "Double, take": "double_take",
    "Double, beaver": "double_beaver",
    "Double, pass": "double_pass",
    "Too good to double, pass": "too_good_pass",
    "Too good to double, take": "too_good_take",
    "No double (cube not available)": "no_cube",
}


def action_text(action: str, lang: str) -> str:
    """A cube action of :func:`~pulvezar.cube.cube_decision` in ``lang`` (an unknown one as it is)."""
    key = ACTIONS.get(action)
    return t(f"cli.cube.action.{key}", lang) if key else action


def _ply_level(args: argparse.Namespace, top: int) -> None:
    if args.ply is not None and not 0 <= args.ply <= top:
        raise PulvezarError(t("cli.common.ply_range", lang_of(args), top=top, ply=args.ply), field="ply")


# ---- hint ----------------------------------------------------------------------------------
def hint_target(arg: PositionArg, args: argparse.Namespace) -> tuple[Any, tuple[int, int]]:
    """What :func:`~pulvezar.search.hint.hint` is given for the command's arguments, and the dice."""
    dice = args.dice or arg.dice
    if dice is None:
        raise PulvezarError(t("cli.hint.no_dice", lang_of(args)), field="dice")
    rules = rules_of(args)
    if arg.has_match and rules.uses_cube:
        return arg.cube_state(rules), dice
    return arg.position, dice


def candidate_json(c: Candidate) -> dict[str, Any]:
    return {
        "notation": c.notation,
        "play": c.notation,  # deprecated: the REST name is notation (docs/cli.md)
        "position_id": c.play.position.position_id,
        "equity": c.equity,
        "cubeless_equity": c.cubeless_equity,
        "cubeful_equity": c.cubeful_equity,
        "loss": c.loss,
        "ply": c.ply,
        "probabilities": probabilities_json(c.probs),
    }


def cmd_hint(args: argparse.Namespace) -> int:
    _ply_level(args, MAX_PLY)
    lang = lang_of(args)
    arg = parse_position(args.id, lang)
    target, dice = hint_target(arg, args)
    rules = rules_of(args)
    cands = hint(target, dice, ply=args.ply, level=args.level, rules=rules, prune=not args.no_prune)
    shown = cands[: args.top] if args.top else cands
    cubeful = isinstance(target, CubeState)
    if args.json:
        out = {
            "position_id": arg.position.position_id,
            "dice": list(dice),
            "rules": rules.name,
            "ply": cands[0].ply if cands else 0,
            "level": args.level,
            "cubeful": cubeful,
            "legal_plays": len(cands),
            "count": len(cands),  # deprecated: the REST name is legal_plays (docs/cli.md)
            "candidates": [candidate_json(c) for c in shown],
        }
        print(json.dumps(out))
        return 0
    d1, d2 = dice
    what = t("cli.hint.cubeful" if cubeful else "cli.hint.cubeless", lang)
    print(t("cli.hint.heading", lang, n=len(cands), dice=f"{d1}{d2}", rules=rules.name, what=what,
            id=arg.position.position_id))  # fmt: skip
    for i, c in enumerate(shown, 1):
        loss = f"({fixed(-c.loss, lang, '+.3f')})" if i > 1 else ""
        notation = c.notation or t("cli.common.no_move", lang)
        print(f"{i:4d}. {ply(c.ply, lang)} {notation:<24} {fixed(c.equity, lang, '+.3f')} {loss}")
        print(f"      {_probs_text(c.probs, lang)}")
    return 0


# ---- eval ----------------------------------------------------------------------------------
def evaluate(arg: PositionArg, args: argparse.Namespace) -> tuple[list[float], float]:
    """The probabilities and cubeless equity of the player on roll at ``--ply``."""
    import numpy as np

    from pulvezar.eval.evaluator import equity
    from pulvezar.search.hint import searcher

    rules = rules_of(args)
    board = np.frombuffer(arg.position.board, dtype=np.uint8).reshape(1, 50)
    probs = searcher(None, rules, not args.no_prune).probabilities(board, args.ply)
    return [float(p) for p in probs[0]], float(equity(probs, rules)[0])


def cmd_eval(args: argparse.Namespace) -> int:
    _ply_level(args, MAX_PLY)
    lang = lang_of(args)
    arg = parse_position(args.id, lang)
    probs, eq = evaluate(arg, args)
    if args.json:
        out = {
            "position_id": arg.position.position_id,
            "rules": rules_of(args).name,
            "ply": args.ply,
            "equity": eq,
            "probabilities": probabilities_json(probs),
        }
        print(json.dumps(out))
    else:
        print(t("cli.eval.heading", lang, id=arg.position.position_id, rules=rules_of(args).name,
                ply=ply(args.ply, lang)))  # fmt: skip
        print(f"  {t('cli.common.cubeless_equity', lang, equity=fixed(eq, lang, '+.3f'))}")
        print(f"  {_probs_text(probs, lang)}")
    return 0


# ---- cube ----------------------------------------------------------------------------------
def cube_state_of(args: argparse.Namespace) -> CubeState:
    lang = lang_of(args)
    arg = parse_position(args.id, lang)
    if args.match_id:
        arg = arg.with_match_id(args.match_id, lang)
    return arg.cube_state(rules_of(args))


def decision_json(state: CubeState, d: CubeDecision) -> dict[str, Any]:
    return {
        "position_id": state.position.position_id,
        "cube": {
            "value": state.cube_value,
            "owner": state.cube_owner,
            "match_length": state.match_length,
            "score": list(state.score),
            "crawford": state.crawford,
            "jacoby": state.jacoby,
            "beaver": state.beaver,
        },
        "ply": d.ply,
        "action": d.action,
        "double": d.double,
        "taker_response": d.response,
        "response": d.response,  # deprecated: the REST name is taker_response (docs/cli.md)
        "equities": {"no_double": d.nd, "double_take": d.dt, "double_pass": d.dp, "value": d.value},
        "mwc": None
        if d.mwc_nd is None
        else {"no_double": d.mwc_nd, "double_take": d.mwc_dt, "double_pass": d.mwc_dp, "value": d.mwc_value},
        "costs": dict(d.costs),
        "cubeless_equity": d.cubeless_equity,
        "probabilities": probabilities_json(d.probs),
        "take_point": d.take_point,
        "gammon_price": gammon_price_json(d.gammon_price.me, d.gammon_price.opp),
        "notes": list(d.notes),
    }


def cmd_cube(args: argparse.Namespace) -> int:
    _ply_level(args, MAX_CUBE_PLY)
    state = cube_state_of(args)
    d = cube_decision(state, ply=args.ply, level=args.level, prune=not args.no_prune)
    if args.json:
        print(json.dumps(decision_json(state, d)))
        return 0
    lang = lang_of(args)
    where = (
        t("cli.cube.match", lang, n=state.match_length, score=f"{state.score[0]}-{state.score[1]}")
        if state.match_length
        else t("cli.cube.money", lang)
    )
    owner = t(f"cli.cube.owner.{state.cube_owner}", lang)
    print(t("cli.cube.heading", lang, id=state.position.position_id, value=state.cube_value, owner=owner,
            where=where, ply=ply(d.ply, lang)))  # fmt: skip
    print(f"  {action_text(d.action, lang)}")
    labels = [t(f"cli.cube.{k}", lang) for k in ("no_double", "double_take", "double_pass")]
    width = max(14, *(len(label) for label in labels))
    for label, v in zip(labels, (d.nd, d.dt, d.dp), strict=True):
        print(f"  {label:<{width}} {fixed(v, lang, '+.3f')}")
    cubeless = t("cli.common.cubeless_equity", lang, equity=fixed(d.cubeless_equity, lang, "+.3f"))
    print(f"  {cubeless}; {_probs_text(d.probs, lang)}")
    if d.take_point is not None:
        print(f"  {t('cli.cube.take_point', lang, pct=fixed(100 * d.take_point, lang, '.1f'))}")
    for note in d.notes:
        print(f"  {t('cli.common.note', lang, note=note)}")
    return 0


def _depth(p: argparse.ArgumentParser, top: int) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--ply", type=int, default=None, help=f"search depth 0..{top}")
    g.add_argument("--level", choices=list(STRENGTHS), help="a playing level (its depth and filter)")
    add_prune_argument(p)


def add_parsers(subparsers: Any) -> None:
    """Add ``hint``, ``eval`` and ``cube`` to ``subparsers`` (from ``add_subparsers``)."""
    h = subparsers.add_parser("hint", help="rank the plays of a roll")
    h.add_argument("id", help=ID_HELP)
    h.add_argument("--dice", type=parse_dice, help="e.g. 31 (default: the dice of the XGID or Match ID)")
    _depth(h, MAX_PLY)
    add_rules_arguments(h)
    h.add_argument("--top", type=int, default=0, help="show only the best N plays")
    h.add_argument("--json", action="store_true")
    add_lang_argument(h)
    h.set_defaults(func=cmd_hint)
    e = subparsers.add_parser("eval", help="probabilities and equity of the player on roll")
    e.add_argument("id", help=ID_HELP)
    e.add_argument("--ply", type=int, default=0, help=f"search depth 0..{MAX_PLY} (default 0)")
    add_prune_argument(e)
    add_rules_arguments(e)
    e.add_argument("--json", action="store_true")
    add_lang_argument(e)
    e.set_defaults(func=cmd_eval)
    c = subparsers.add_parser("cube", help="the cube decision of the player on roll")
    c.add_argument("id", help=ID_HELP)
    c.add_argument("--match-id", help="gnubg Match ID: the cube and score (default: the ID's, else money)")
    _depth(c, MAX_CUBE_PLY)
    c.set_defaults(func=cmd_cube, rules="international", hit_and_stop=False, must_bear_off=False)
    c.add_argument("--json", action="store_true")
    add_lang_argument(c)
