"""Every step of a played match with its IDs: what a replay shows and where "play from here" starts.

A step is one recorded action (a roll, a play, a cube action, a resignation and
its answer) with the state *before* it: gnubg's Position ID and Match ID and the
XGID (players as in the session: the human 0, drawn at the bottom of an XGID),
the score and the cube.  ``start`` is the text :meth:`pulvezar.play.start.Start.parse`
reads with ``side`` to give the human the same side again; it is None where no
game can start (an opening roll, a resignation or a beaver on offer).

>>> from pulvezar.formats import read_mat
>>> rec = read_mat(''' 3 point match
...
...  Game 1
...  Ann : 0                        Bob : 0
...   1)                             31: 8/5 6/5
...   2) 64: 24/18 13/9               Doubles => 2
...   3)  Drops
...                                   Wins 1 point
... ''')
>>> steps = replay_steps(rec)
>>> [(s["action"], s["player"], s["start"] is not None) for s in steps][:4]
[('roll', 1, False), ('play', 1, True), ('roll', 0, True), ('play', 0, True)]
>>> steps[1]["dice"], steps[1]["side"], steps[5]["side"]
([3, 1], 'opponent', 'opponent')
"""

from __future__ import annotations

from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.record import MatchRecord, apply_action, match_id_of
from pulvezar.match.game import Game, Phase
from pulvezar.rules.xgid import XGID

_STARTS = (Phase.ROLL, Phase.MOVE, Phase.DOUBLED)


def _ids(game: Game) -> dict[str, Any]:
    m = match_id_of(game)
    out: dict[str, Any] = {"position_id": game.position.position_id, "match_id": None, "gnubg_id": None}
    out["xgid"] = None
    try:
        out["match_id"] = m.encode()
        out["gnubg_id"] = f"{game.position.position_id}:{out['match_id']}"
        out["xgid"] = XGID.from_match_id(game.position, m, bottom=0).encode()
    except PulvezarError:  # a cube or score beyond what the IDs hold, or a state an XGID has no form for
        pass
    return out


def replay_steps(record: MatchRecord) -> list[dict[str, Any]]:
    """The steps of every game of ``record`` in order (see the module); ``step`` numbers them from 0."""
    steps: list[dict[str, Any]] = []
    for gi, rec in enumerate(record.games):
        game = record.new_game(rec)
        for action in rec.actions:
            if action.kind == "win":
                continue
            ids = _ids(game)
            startable = game.phase in _STARTS and ids["gnubg_id"] is not None
            mover = game.turn  # the roller, or the doubler while a double is on offer
            steps.append({
                "step": len(steps),
                "game": gi + 1,
                "player": action.player,
                "action": action.kind,
                "dice": list(action.dice) if action.dice else (list(game.dice) if action.kind == "play"
                                                                and game.dice else None),
                "notation": action.notation if action.kind == "play" else None,
                "value": action.value or None,
                "phase": game.phase.value,
                "score": list(game.context.score),
                "crawford": game.context.crawford,
                "cube": {"value": game.cube_value, "owner": game.cube_owner},
                **ids,
                "start": ids["gnubg_id"] if startable else None,
                "side": "on_roll" if mover == 0 else "opponent",
            })  # fmt: skip
            apply_action(game, action)
    return steps
