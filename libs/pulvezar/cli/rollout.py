"""``pulvezar rollout ID [--trials N --ply N --seed S]``: roll a position out.

The rollout is :func:`pulvezar.rollouts.chunks.rollout_chunked` (the platform's
unit of determinism: the same numbers as a distributed rollout of the same
settings), values for the player on roll before rolling.  ``--cubeful`` plays
the cube in the trials, with the cube and score of a ``PositionID:MatchID``, an
XGID or an OGID (centred money otherwise).  With ``--ply`` 1 or more the trials' search prunes
its replies unless ``--no-prune``.  A bar with the time left is drawn on stderr
when it is a terminal, unless ``--quiet``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pulvezar.cli.common import (
    ID_HELP,
    add_lang_argument,
    add_prune_argument,
    add_rules_arguments,
    fixed,
    lang_of,
    parse_position,
    ply,
    rules_of,
)
from pulvezar.cli.engine import PROBABILITIES, probabilities_json
from pulvezar.cli.progress import progress_bar
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t
from pulvezar.rollouts.chunks import DEFAULT_CHUNK_SIZE, check_chunk_size, rollout_chunked
from pulvezar.rollouts.stats import RolloutResult
from pulvezar.search.plies import MAX_PLY


def rollout_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`~pulvezar.rollouts.chunks.rollout_chunked` for the command."""
    lang = lang_of(args)
    if args.trials < 1:
        raise PulvezarError(t("cli.rollout.bad_trials", lang, n=args.trials), field="trials")
    if not 0 <= args.ply <= MAX_PLY:
        raise PulvezarError(t("cli.common.ply_range", lang, top=MAX_PLY, ply=args.ply), field="ply")
    if args.truncate is not None and args.truncate < 0:
        raise PulvezarError(t("cli.rollout.bad_truncate", lang, n=args.truncate), field="truncate")
    try:
        check_chunk_size(args.chunk_size)
    except ValueError as e:
        raise PulvezarError(f"--chunk-size: {e}", field="chunk_size") from None
    rules = rules_of(args)
    opts: dict[str, Any] = {
        "trials": args.trials,
        "ply": args.ply,
        "seed": args.seed,
        "truncate": args.truncate,
        "rules": rules,
        "cubeful": args.cubeful,
        "chunk_size": args.chunk_size,
    }
    if args.ply > 0:  # 0-ply trials do not search: their options stay as they were
        opts["prune"] = not args.no_prune
    if args.cubeful:
        if not rules.uses_cube:
            raise PulvezarError(t("cli.rollout.tavla_cubeful", lang))
        state = parse_position(args.id, lang).cube_state(rules)
        opts.update(cube=state.cube, met=state.table)
    return opts


def result_json(position_id: str, r: RolloutResult, opts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "position_id": position_id,
        "rules": opts["rules"].name,
        "trials": r.trials,
        "ply": opts["ply"],
        "seed": opts["seed"],
        "truncate": opts["truncate"],
        "equity": r.equity,
        "equity_se": r.equity_se,
        "probabilities": probabilities_json(r.probabilities),
        "probability_se": {k: float(v) for k, v in zip(PROBABILITIES, r.probability_se, strict=True)},
        "cubeful_equity": None,
        "cubeful_equity_se": None,
        "cubeful_se": None,  # deprecated: the REST name is cubeful_equity_se (docs/cli.md)
    }
    if r.cubeful is not None:
        out["cubeful_equity"], out["cubeful_equity_se"] = r.cubeful_equity, r.cubeful_se
        out["cubeful_se"] = r.cubeful_se
    return out


def cmd_rollout(args: argparse.Namespace) -> int:
    lang = lang_of(args)
    position = parse_position(args.id, lang).position
    opts = rollout_options(args)
    trials = opts.pop("trials")
    bar = t("cli.rollout.bar", lang), t("cli.rollout.bar_unit", lang)
    with progress_bar(*bar, quiet=args.quiet, lang=lang) as report:
        r = rollout_chunked(position, trials, progress=report, **opts)
    opts["trials"] = trials
    data = result_json(position.position_id, r, opts)
    if args.json:
        print(json.dumps(data))
        return 0
    head = t("cli.rollout.heading", lang, id=position.position_id, rules=data["rules"], n=r.trials,
             ply=ply(args.ply, lang), seed=args.seed)  # fmt: skip
    if args.truncate is not None:
        head += t("cli.rollout.truncated", lang, n=args.truncate)
    print(head)

    def pm(x: float, se: float) -> str:
        return f"{fixed(x, lang, '+.4f')} +- {fixed(se, lang, '.4f')}"

    print(f"  {t('cli.common.cubeless_equity', lang, equity=pm(r.equity, r.equity_se))}")
    if r.cubeful is not None:
        print(f"  {t('cli.common.cubeful_equity', lang, equity=pm(r.cubeful_equity, r.cubeful_se))}")
    labels = [t(f"cli.rollout.{k}", lang) for k in PROBABILITIES]
    width = max(16, *(len(label) for label in labels))
    for label, v, se in zip(labels, r.probabilities, r.probability_se, strict=True):
        print(f"  {label:<{width}} {fixed(100 * v, lang, '6.2f')}% +- {fixed(100 * se, lang, '.2f')}")
    return 0


def add_parser(subparsers: Any) -> None:
    """Add ``rollout`` to ``subparsers`` (from ``add_subparsers``)."""
    p = subparsers.add_parser("rollout", help="roll a position out (player on roll, before rolling)")
    p.add_argument("id", help=ID_HELP)
    p.add_argument("--trials", type=int, default=1296, help="number of games (default 1296)")
    p.add_argument("--ply", type=int, default=0, help=f"move choice in the trials, 0..{MAX_PLY} (default 0)")
    p.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    add_prune_argument(p)
    p.add_argument("--truncate", type=int, default=None, help="stop each trial after N half-moves")
    p.add_argument("--cubeful", action="store_true", help="play the cube in the trials")
    p.add_argument(
        "--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, help="trials per chunk (a multiple of 36)"
    )
    add_rules_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true")
    add_lang_argument(p)
    p.set_defaults(func=cmd_rollout)
