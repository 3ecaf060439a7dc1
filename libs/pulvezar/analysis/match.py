"""Match analysis: every checker play and cube decision of a match record, with statistics.

:func:`analyse_game` replays one game of a :class:`~pulvezar.formats.record.MatchRecord`
through the match model and analyses each decision at the level of its
:class:`AnalysisSettings`:

* **checker plays**: the candidates of the roll (:func:`~pulvezar.search.hint`
  given the game, so cubeful at the score and cube), the played play valued
  at the best candidate's ply, its loss, the mark (error >= 0.02, blunder >=
  0.08), the position type and its plan, why the best play is better, and the
  luck of the roll; a forced play (one distinct result) is recorded and does
  not count;
* **doubling decisions**: before every roll where the player on turn may
  double (cube available, not Crawford, not dead -- or when the player
  doubled), :func:`~pulvezar.cube.cube_decision` at the level's cube ply:
  missed double, wrong double (also "too good" to double), with their costs;
* **take/pass decisions**: the answer to a double is its own decision of the
  other player: wrong take, wrong pass (wrong beaver).

Errors are normalised equity (EMG in a match, equity per cube for money,
cubeless equity in Tavla), so checker and cube errors add up; which decisions
count and the PR come from :mod:`pulvezar.analysis.rating`.  :func:`summarise`
combines per-game analyses (any order) into a :class:`MatchAnalysis` with the
per-player statistics; :func:`analyse_match` does both.  ``docs/analysis.md``
documents levels, units and grades.
"""

from __future__ import annotations

from pulvezar.analysis.matchanalysis.replay import analyse_game, analyse_match, record_rules, summarise
from pulvezar.analysis.matchanalysis.results import (
    ANALYSIS_DEPTHS,
    AnalysisError,
    AnalysisSettings,
    CandidateAnalysis,
    CubeAnalysis,
    DecisionAnalysis,
    GameAnalysis,
    LuckAnalysis,
    MatchAnalysis,
    engine_info,
    player_stats,
)
from pulvezar.analysis.matchanalysis.sgf import annotated_sgf

__all__ = [
    "ANALYSIS_DEPTHS",
    "AnalysisError",
    "AnalysisSettings",
    "CandidateAnalysis",
    "CubeAnalysis",
    "DecisionAnalysis",
    "GameAnalysis",
    "LuckAnalysis",
    "MatchAnalysis",
    "analyse_game",
    "analyse_match",
    "annotated_sgf",
    "engine_info",
    "player_stats",
    "record_rules",
    "summarise",
]
