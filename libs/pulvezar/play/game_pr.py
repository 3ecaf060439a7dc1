"""A quick PR of an ended game of a session, for the end-of-game summary: the game's decisions analysed at
0 ply with the match analysis (:func:`pulvezar.analysis.match.analyse_game`), each side's PR as the match
analysis computes it (500 x the mean normalised-equity loss of the counted decisions).  The full analysis
("analyse this match") searches deeper and can differ."""

from __future__ import annotations

from typing import Any

from pulvezar.eval.evaluator import Evaluator

#: a game with more actions than this gets no quick PR (its cost grows with the decisions)
MAX_ACTIONS = 600


def game_pr(session: Any, index: int, evaluator: Evaluator) -> tuple[float | None, float | None]:
    """Each side's (human, bot) 0-ply PR in game ``index`` (0-based) of ``session`` (a
    :class:`~pulvezar.play.PlaySession`); None for a side without a counted decision, or both for a game
    longer than :data:`MAX_ACTIONS`."""
    from pulvezar.analysis.match import AnalysisSettings, analyse_game, player_stats

    record = session.to_record(("You", "pulvezar"))
    if len(record.games[index].actions) > MAX_ACTIONS:
        return None, None
    analysed = analyse_game(
        record, index, AnalysisSettings.from_level("0ply", candidates=1), evaluator=evaluator
    )
    prs = [player_stats([analysed], side)["pr"] for side in (0, 1)]
    return (None if prs[0] is None else round(prs[0], 1)), (None if prs[1] is None else round(prs[1], 1))
