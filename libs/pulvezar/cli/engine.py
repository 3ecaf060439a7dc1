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
    add_prune_argument,
    add_rules_arguments,
    gammon_price_json,
    parse_dice,
    parse_position,
    rules_of,
)
from pulvezar.cube.decision import MAX_CUBE_PLY, CubeDecision, cube_decision
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.search.hint import STRENGTHS, hint
from pulvezar.search.plies import MAX_PLY, Candidate

PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def probabilities_json(probs: Iterable[float]) -> dict[str, float]:
    """The five probabilities by name."""
    return {k: float(v) for k, v in zip(PROBABILITIES, probs, strict=True)}


def _probs_text(probs: Sequence[float]) -> str:
    w, wg, wb, lg, lb = (100 * float(p) for p in probs)
    return f"win {w:.1f}% (g {wg:.1f}% bg {wb:.1f}%)  lose {100 - w:.1f}% (g {lg:.1f}% bg {lb:.1f}%)"


def _ply_level(args: argparse.Namespace, top: int) -> None:
    if args.ply is not None and not 0 <= args.ply <= top:
        raise PulvezarError(f"--ply is 0..{top}, got {args.ply}", field="ply")


# ---- hint ----------------------------------------------------------------------------------
def hint_target(arg: PositionArg, args: argparse.Namespace) -> tuple[Any, tuple[int, int]]:
    """What :func:`~pulvezar.search.hint.hint` is given for the command's arguments, and the dice."""
    dice = args.dice or arg.dice
    if dice is None:
        raise PulvezarError("give the roll with --dice (e.g. --dice 31)", field="dice")
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
    arg = parse_position(args.id)
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
    what = "cubeful" if cubeful else "cubeless"
    print(f"{len(cands)} plays of {d1}{d2} ({rules.name}, {what}) from {arg.position.position_id}:")
    for i, c in enumerate(shown, 1):
        loss = f"({-c.loss:+.3f})" if i > 1 else ""
        print(f"{i:4d}. {c.ply}-ply {c.notation or '(no move)':<24} {c.equity:+.3f} {loss}")
        print(f"      {_probs_text(c.probs)}")
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
    arg = parse_position(args.id)
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
        print(f"{arg.position.position_id} ({rules_of(args).name}), {args.ply}-ply, player on roll:")
        print(f"  cubeless equity {eq:+.3f}")
        print(f"  {_probs_text(probs)}")
    return 0


# ---- cube ----------------------------------------------------------------------------------
def cube_state_of(args: argparse.Namespace) -> CubeState:
    arg = parse_position(args.id)
    if args.match_id:
        arg = arg.with_match_id(args.match_id)
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
    where = (
        f"{state.match_length}-point match at {state.score[0]}-{state.score[1]}"
        if state.match_length
        else "money"
    )
    print(f"{state.position.position_id}: cube {state.cube_value} ({state.cube_owner}), {where}, {d.ply}-ply")
    print(f"  {d.action}")
    for label, v in (("no double", d.nd), ("double, take", d.dt), ("double, pass", d.dp)):
        print(f"  {label:<14} {'-' if v is None else f'{v:+.3f}'}")
    print(f"  cubeless equity {d.cubeless_equity:+.3f}; {_probs_text(d.probs)}")
    if d.take_point is not None:
        print(f"  take point {100 * d.take_point:.1f}%")
    for note in d.notes:
        print(f"  note: {note}")
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
    h.set_defaults(func=cmd_hint)
    e = subparsers.add_parser("eval", help="probabilities and equity of the player on roll")
    e.add_argument("id", help=ID_HELP)
    e.add_argument("--ply", type=int, default=0, help=f"search depth 0..{MAX_PLY} (default 0)")
    add_prune_argument(e)
    add_rules_arguments(e)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_eval)
    c = subparsers.add_parser("cube", help="the cube decision of the player on roll")
    c.add_argument("id", help=ID_HELP)
    c.add_argument("--match-id", help="gnubg Match ID: the cube and score (default: the ID's, else money)")
    _depth(c, MAX_CUBE_PLY)
    c.set_defaults(func=cmd_cube, rules="international", hit_and_stop=False, must_bear_off=False)
    c.add_argument("--json", action="store_true")
